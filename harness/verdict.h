/* SPDX-License-Identifier: MIT */
/* Verdicts of a case (docs/report-schema.md). Ordered best to worst: PASS < WARN < FAIL <
 * TIMEOUT < CRASH; the others sit outside that order. Values are pinned.
 * Thread-safety: pure functions. */
#ifndef BITCTS_HARNESS_VERDICT_H
#define BITCTS_HARNESS_VERDICT_H

#define BITCTS_VERDICT_LIST(X)                                                                     \
    X(BITCTS_VERDICT_PASS, 0, "pass")                                                              \
    X(BITCTS_VERDICT_WARN, 1, "warn")                                                              \
    X(BITCTS_VERDICT_FAIL, 2, "fail")                                                              \
    X(BITCTS_VERDICT_TIMEOUT, 3, "timeout")                                                        \
    X(BITCTS_VERDICT_CRASH, 4, "crash")                                                            \
    X(BITCTS_VERDICT_NOT_SUPPORTED, 5, "not_supported")                                            \
    X(BITCTS_VERDICT_RECORDED, 6, "recorded")                                                      \
    X(BITCTS_VERDICT_MISSING, 7, "missing")                                                        \
    X(BITCTS_VERDICT_INTERNAL_ERROR, 8, "internal_error")                                          \
    X(BITCTS_VERDICT_EXPECTED_FAIL, 9, "expected_fail")                                            \
    X(BITCTS_VERDICT_UNEXPECTED_PASS, 10, "unexpected_pass")

#define BITCTS_VERDICT_ENUM_ENTRY(name, value, text) name = value,
typedef enum bitcts_verdict { BITCTS_VERDICT_LIST(BITCTS_VERDICT_ENUM_ENTRY) } bitcts_verdict;
#undef BITCTS_VERDICT_ENUM_ENTRY
#define BITCTS_VERDICT_COUNT 11

/** "pass", ...; "unknown" for values outside the list. */
const char *bitcts_verdict_name(int verdict);
/** The verdict of a name, or -1. */
int bitcts_verdict_parse(const char *name);
/** 1 for verdicts that make a run fail (exit code 1). */
int bitcts_verdict_is_failure(int verdict);

#endif
