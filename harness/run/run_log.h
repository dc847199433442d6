/* SPDX-License-Identifier: MIT */
/* The run log, results.jsonl (docs/harness.md): a header record, then a "begin" and an "end"
 * record per case, appended and flushed as they happen. Parsing works on bytes (fuzzable); a
 * last line cut short by a crash is reported, not parsed, so that --resume can drop it and
 * append after the last whole record. Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_RUN_LOG_H
#define BITCTS_HARNESS_RUN_LOG_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */

/** Called for every "end" record, in file order (a later record of a case replaces an earlier
 * one). rec is a new reference the callee owns. Returns 0, or non-zero with err to stop. */
typedef int (*bitcts_run_log_end_fn)(void *user, json_t *rec, size_t line, char *err, size_t cap);

/** Parses `size` bytes of a log.
 * @param want_header [in] the header the log must start with (json_equal), or NULL for any.
 * @param complete [out] bytes up to the end of the last whole line (what to keep on resume).
 * @return BITCTS_OK; BITCTS_E_PARSE (a line that is no record, a NUL byte; err "NAME:LINE:
 *         problem"); BITCTS_E_INVALID_ARGUMENT (another run's header); the callback's status. */
int bitcts_run_log_parse(const char *name, const char *text, size_t size, const json_t *want_header,
                         bitcts_run_log_end_fn on_end, void *user, size_t *complete, char *err,
                         size_t cap);

#endif
