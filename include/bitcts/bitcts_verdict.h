/* SPDX-License-Identifier: MIT */
/* The verdicts a case can earn (docs/report-schema.md): one X-macro list that generates the
 * enum, the names, the parser and the per-verdict properties, shared by the harness, the reports
 * and any tool that reads report.json. Values are pinned: never renumbered, never reused.
 * Thread-safety: constants and pure functions only. */
#ifndef BITCTS_INCLUDE_BITCTS_VERDICT_H
#define BITCTS_INCLUDE_BITCTS_VERDICT_H

#include <string.h> /* strcmp */

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, value, "name", is_failure, rank, is_healthy):
 *   is_failure  the verdict makes a run fail (exit code 1);
 *   rank        position in the order PASS < WARN < FAIL < TIMEOUT < CRASH, -1 outside it;
 *   is_healthy  the backend did the work and the suite accepted it. */
#define BITCTS_VERDICT_LIST(X)                                                                     \
    X(PASS, 0, "pass", 0, 0, 1)                                                                    \
    X(WARN, 1, "warn", 0, 1, 1)                                                                    \
    X(FAIL, 2, "fail", 1, 2, 0)                                                                    \
    X(TIMEOUT, 3, "timeout", 1, 3, 0)                                                              \
    X(CRASH, 4, "crash", 1, 4, 0)                                                                  \
    X(NOT_SUPPORTED, 5, "not_supported", 0, -1, 0)                                                 \
    X(RECORDED, 6, "recorded", 0, -1, 1)                                                           \
    X(MISSING, 7, "missing", 1, -1, 0)                                                             \
    X(INTERNAL_ERROR, 8, "internal_error", 1, -1, 0)                                               \
    X(EXPECTED_FAIL, 9, "expected_fail", 0, -1, 0)                                                 \
    X(UNEXPECTED_PASS, 10, "unexpected_pass", 1, -1, 0)                                            \
    X(FLAKE, 11, "flake", 1, -1, 0)                                                                \
    X(SKIPPED, 12, "skipped", 0, -1, 0)                                                            \
    X(NOT_RUN, 13, "not_run", 0, -1, 0)

#define BITCTS_VERDICT_ENUM_ENTRY(name, value, text, failure, rank, healthy)                       \
    BITCTS_VERDICT_##name = value,
typedef enum bitcts_verdict { BITCTS_VERDICT_LIST(BITCTS_VERDICT_ENUM_ENTRY) } bitcts_verdict;
#undef BITCTS_VERDICT_ENUM_ENTRY

/* Number of verdicts; values are 0 .. BITCTS_VERDICT_COUNT - 1 (checked against the list). */
#define BITCTS_VERDICT_COUNT 14
#define BITCTS_VERDICT_ONE(name, value, text, failure, rank, healthy) +1
#ifdef __cplusplus
static_assert(0 BITCTS_VERDICT_LIST(BITCTS_VERDICT_ONE) == BITCTS_VERDICT_COUNT, "verdict count");
#else
_Static_assert(0 BITCTS_VERDICT_LIST(BITCTS_VERDICT_ONE) == BITCTS_VERDICT_COUNT, "verdict count");
#endif
#undef BITCTS_VERDICT_ONE

/** "pass", ...; static; "unknown" for values outside the list. */
static inline const char *bitcts_verdict_name(int verdict)
{
#define BITCTS_VERDICT_NAME_CASE(name, value, text, failure, rank, healthy)                        \
    case value: return text;
    switch (verdict) {
        BITCTS_VERDICT_LIST(BITCTS_VERDICT_NAME_CASE)
    default: return "unknown";
    }
#undef BITCTS_VERDICT_NAME_CASE
}

/** The verdict of a name, or -1 for NULL or an unknown name. */
static inline int bitcts_verdict_parse(const char *name)
{
    if (name == NULL) {
        return -1;
    }
#define BITCTS_VERDICT_PARSE_ENTRY(name_, value, text, failure, rank, healthy)                     \
    if (strcmp(name, text) == 0) {                                                                 \
        return value;                                                                              \
    }
    BITCTS_VERDICT_LIST(BITCTS_VERDICT_PARSE_ENTRY)
#undef BITCTS_VERDICT_PARSE_ENTRY
    return -1;
}

/** 1 for the verdicts that make a run fail: fail, timeout, crash, missing, internal_error,
 * unexpected_pass. 0 for the others and for unknown values. */
static inline int bitcts_verdict_is_failure(int verdict)
{
#define BITCTS_VERDICT_FAILURE_CASE(name, value, text, failure, rank, healthy)                     \
    case value: return failure;
    switch (verdict) {
        BITCTS_VERDICT_LIST(BITCTS_VERDICT_FAILURE_CASE)
    default: return 0;
    }
#undef BITCTS_VERDICT_FAILURE_CASE
}

/** Position in the order pass(0) < warn < fail < timeout < crash(4); -1 for the others. */
static inline int bitcts_verdict_rank(int verdict)
{
#define BITCTS_VERDICT_RANK_CASE(name, value, text, failure, rank, healthy)                        \
    case value: return rank;
    switch (verdict) {
        BITCTS_VERDICT_LIST(BITCTS_VERDICT_RANK_CASE)
    default: return -1;
    }
#undef BITCTS_VERDICT_RANK_CASE
}

/** 1 for pass, warn and recorded: the backend did the work and the suite accepted it. */
static inline int bitcts_verdict_is_healthy(int verdict)
{
#define BITCTS_VERDICT_HEALTHY_CASE(name, value, text, failure, rank, healthy)                     \
    case value: return healthy;
    switch (verdict) {
        BITCTS_VERDICT_LIST(BITCTS_VERDICT_HEALTHY_CASE)
    default: return 0;
    }
#undef BITCTS_VERDICT_HEALTHY_CASE
}

#ifdef __cplusplus
}
#endif
#endif
