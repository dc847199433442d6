/* SPDX-License-Identifier: MIT */
/* The report model: parses and validates report.json (docs/report-schema.md, schema 1.x) into a
 * jansson tree that the renderers, the diff and the merge may then read without re-checking,
 * and the verdict order they share. Thread-safety: every function is reentrant; a validated
 * report is only read, so several threads may share it. */
#ifndef BITCTS_REPORTS_REPORT_MODEL_H
#define BITCTS_REPORTS_REPORT_MODEL_H

#include <stddef.h> /* size_t */

#include <jansson.h> /* json_t */

#include "bitcts/bitcts_status.h"  /* bitcts_status, BITCTS_NODISCARD */
#include "bitcts/bitcts_verdict.h" /* the verdict list and its properties */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS_REPORT_SCHEMA "bitcts-report"
/* The version this code writes; it reads every 1.x (minor versions only add fields). */
#define BITCTS_REPORT_SCHEMA_VERSION "1.2"
#define BITCTS_REPORT_SCHEMA_MAJOR 1

/* Bounds on what a report may hold; anything larger is refused as malformed rather than read. */
#define BITCTS_REPORT_MAX_BYTES ((size_t)512 << 20) /* report.json file size */
#define BITCTS_REPORT_MAX_CASES 4000000u
#define BITCTS_REPORT_MAX_ID 512u     /* bytes of a case id */
#define BITCTS_REPORT_MAX_NAME 128u   /* bytes of an operator name */
#define BITCTS_REPORT_MAX_LIST 4096u  /* command_line, warnings, slowest entries */
#define BITCTS_REPORT_MAX_DIMS 8u     /* coords of a first mismatch */
#define BITCTS_REPORT_MAX_INPUTS 4u   /* inputs of a first mismatch */
#define BITCTS_REPORT_SLOWEST 10u     /* entries of a recomputed "slowest" list */
#define BITCTS_REPORT_ERROR_CAP 1024u /* a comfortable size for error buffers */

/* How a case's verdict moved from run A to run B (bitcts_report_verdict_change). */
typedef enum bitcts_report_change {
    BITCTS_REPORT_CHANGE_SAME = 0,
    BITCTS_REPORT_CHANGE_REGRESSION = 1,
    BITCTS_REPORT_CHANGE_FIX = 2,
    BITCTS_REPORT_CHANGE_OTHER = 3
} bitcts_report_change;

/* ---- verdicts ---- */

/** Classifies the move from verdict `from` (run A) to `to` (run B). Rules, first match wins:
 * 1. equal: SAME.
 * 2. both ordered (pass..crash): REGRESSION when `to` ranks worse, else FIX.
 * 3. expected_fail -> unexpected_pass: FIX (the backend now passes); the reverse: REGRESSION.
 * 4. failing -> masked (not_supported, expected_fail, skipped, not_run): OTHER (the failure
 *    went away by a refusal, a baseline entry, a skip or a stop, not by a fix; never hidden as a
 *    fix).
 * 5. not failing -> failing (bitcts_verdict_is_failure): REGRESSION.
 * 6. failing -> not failing: FIX.
 * 7. healthy (pass, warn, recorded) -> masked: REGRESSION (coverage lost, or a new failure
 *    masked by a baseline); the reverse: FIX.
 * 8. anything else (pass <-> recorded, crash -> internal_error, ...): OTHER.
 * So pass/warn/recorded -> not_supported/missing/internal_error are regressions. */
bitcts_report_change bitcts_report_verdict_change(int from, int to);

/** The verdict table as data (`bitcts report verdicts`, docs/report-schema.md): {"schema":
 * "bitcts-verdicts", "schema_version": "1.0", "verdicts": [{"name", "value", "failure",
 * "rank", "healthy"}, ...] in value order, "changes": {FROM: {TO: "same" | "regression" |
 * "fix" | "other"}}} over every pair (bitcts_report_verdict_change). NULL when out of memory;
 * the caller json_decref()s it. */
json_t *bitcts_report_verdict_table(void);

/* ---- parsing and validation ---- */

/** Parses report.json bytes and validates them (bitcts_report_validate).
 * @param name [in] what the error names, e.g. "A/report.json".
 * @param bytes [in] the file's content; need not be NUL-terminated.
 * @param size [in] bytes in `bytes`, at most BITCTS_REPORT_MAX_BYTES.
 * @param out [out] the report, a new reference the caller json_decref()s; NULL on failure.
 * @param err [out] one line "report NAME: problem" on failure, "" on success.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (NULL pointers); BITCTS_E_PARSE (malformed JSON,
 *         not a bitcts report, a missing or mistyped field, an unknown verdict, a bound
 *         exceeded, a summary that does not match the cases); BITCTS_E_FORMAT_VERSION (schema
 *         major version other than 1); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_parse(const char *name, const char *bytes, size_t size,
                                                   json_t **out, char *err, size_t cap);
/** Checks every field the reports module relies on: types, known verdicts and policies,
 * digests (32 hex or ""), unique case ids, bounds, and that "summary" counts the cases.
 * Unknown extra fields are allowed (newer minor versions add some). Errors name the case by
 * its 0-based position in "cases", e.g. "report R: case 17 (ID) has unknown verdict 'flaky'".
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT; BITCTS_E_PARSE; BITCTS_E_FORMAT_VERSION;
 *         BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_validate(const json_t *report, const char *name,
                                                      char *err, size_t cap);

/** Checks one case object as bitcts_report_validate checks the cases of a report (a result
 * that comes from a process the harness does not trust is checked before it is believed).
 * @return BITCTS_OK or BITCTS_E_PARSE with err. */
BITCTS_NODISCARD bitcts_status bitcts_report_validate_case(const json_t *case_obj, char *err,
                                                           size_t cap);

/* ---- reading a validated report ---- */

/** The string member `key` of obj, or "" when obj is not an object or the member is no string. */
const char *bitcts_report_str(const json_t *obj, const char *key);
/** The numeric member `key` of obj (integer or real), or 0. */
double bitcts_report_num(const json_t *obj, const char *key);
/** The verdict of a case object, or -1. */
int bitcts_report_case_verdict(const json_t *case_obj);
/** 1 when no case has a failing verdict (bitcts_verdict_is_failure): the run passed. */
int bitcts_report_is_clean(const json_t *report);

/** A case object under a key (its id, its operator) at a position (in its array, or its
 * shard's number): what the index, the tally and the merge sort. */
typedef struct bitcts__report_keyed {
    const char *key;
    const json_t *obj;
    size_t pos;
} bitcts__report_keyed;
/** qsort's order of keyed cases: by key, then by position. */
int bitcts__report_keyed_cmp(const void *a, const void *b);

/* Policies of recorded cases, in display order; "" (none given) last. */
#define BITCTS_REPORT_POLICY_COUNT 5
/** "mask", "saturate", "mask_or_saturate", "other", "" for 0..4; "unknown" otherwise. */
const char *bitcts_report_policy_name(int policy);
/** The policy of a name, or -1. */
int bitcts_report_policy_parse(const char *name);

/* The cases of a validated report counted by operator, operators in order of first appearance.
 * Names are borrowed from the report, which must outlive the tally. Immutable after create. */
typedef struct bitcts_report_op_tally {
    const char *name;
    size_t first; /* plan position of its first case */
    size_t start; /* its cases, in plan order, are order[start .. start + count) */
    size_t count;
    size_t verdicts[BITCTS_VERDICT_COUNT];
    size_t policies[BITCTS_REPORT_POLICY_COUNT]; /* recorded cases by policy */
    double ms;                                   /* summed duration_ms */
} bitcts_report_op_tally;

typedef struct bitcts_report_tally {
    size_t n;      /* cases */
    size_t *order; /* case positions grouped by operator, each group in plan order */
    bitcts_report_op_tally *ops;
    size_t n_ops;
    size_t totals[BITCTS_VERDICT_COUNT];
    size_t policies[BITCTS_REPORT_POLICY_COUNT];
} bitcts_report_tally;

/** Counts report["cases"] by operator, verdict and policy (the verdict table of the views).
 * @param out [out] owned by the caller; release with bitcts_report_tally_destroy.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (no cases array, a case without a known
 *         verdict); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_tally_create(const json_t *report,
                                                          bitcts_report_tally **out);
void bitcts_report_tally_destroy(bitcts_report_tally *tally);

/** Recomputes {"total": N, "by_verdict": {name: count, ...}} from a cases array; only verdicts
 * with a non-zero count appear, in verdict order. @return a new reference, NULL when out of
 * memory or when a case has no known verdict. */
json_t *bitcts_report_summarize(const json_t *cases);
/** Recomputes [{"id", "duration_ms"}, ...]: the `limit` slowest cases, slowest first, ties by
 * id. @return a new reference, NULL when out of memory. */
json_t *bitcts_report_slowest(const json_t *cases, size_t limit);

/** The cases of a validated report, sorted by id for lookups. Immutable after create. */
typedef struct bitcts_report_index bitcts_report_index;
/** Indexes report["cases"]; the index borrows the report, which must outlive it.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (no cases array); BITCTS_E_OUT_OF_MEMORY. */
BITCTS_NODISCARD bitcts_status bitcts_report_index_create(const json_t *report,
                                                          bitcts_report_index **out);
void bitcts_report_index_destroy(bitcts_report_index *index);
/** The case object with this id, or NULL. */
const json_t *bitcts_report_index_find(const bitcts_report_index *index, const char *id);

#ifdef __cplusplus
}
#endif
#endif
