/* SPDX-License-Identifier: MIT */
/* Baselines that maintain themselves: the baseline file (baseline.h) brought up to date with
 * the cases of a report. Failures without an entry get one ("<id> <kind> # <first line of the
 * detail>"), entries whose cases now pass go, entries that match no case of the report stay.
 * Existing lines, comments and order are kept; a second update changes nothing. Bytes in, bytes
 * out: reading, merging and writing files is the caller's business.
 * Thread-safety: reentrant; the report is only read. */
#ifndef BITCTS_HARNESS_BASELINE_UPDATE_H
#define BITCTS_HARNESS_BASELINE_UPDATE_H

#include <stddef.h> /* size_t */

#include <jansson.h> /* json_t */

/* What an update did, and the new file. */
typedef struct bitcts_baseline_update {
    char *text;         /* the new file (malloc'd, NUL-terminated; may be empty) */
    size_t size;        /* its length in bytes */
    size_t added;       /* lines written for failures no entry expected */
    size_t removed;     /* entries whose cases now pass (or fail otherwise) */
    size_t unmatched;   /* entries kept because no case of the report reaches them */
    size_t unbaselined; /* failing cases a baseline cannot hold (missing, internal_error, ...) */
    char *notes;        /* one line per remark, each ending in '\n' (malloc'd; may be empty) */
} bitcts_baseline_update;

/** Brings a baseline up to date with a validated report (a merged one for shards).
 *  For each case, the entry that governs it is its first matching entry (as `run --baseline`
 *  applies it). A case that fails (fail, timeout, crash, flake) with no entry gets a line
 *  appended; one whose entry names another kind gets a line just before that entry. An entry
 *  none of whose cases earn its kind any more is removed; a glob entry whose cases partly pass
 *  is replaced, in place, by a line per case that still earns it (with its reason). expected_fail
 *  counts as earning the governing entry's kind, unexpected_pass as a pass. New lines are in id
 *  order. Repeated until nothing changes, so the result is a fixed point.
 * @param name [in] the file's name for messages ("FILE:LINE: problem").
 * @param text [in] the current file, `size` bytes (may be empty).
 * @param out [out] the result; free it with bitcts_baseline_update_free, also on failure.
 * @return BITCTS_OK; BITCTS_E_PARSE (the file does not parse: "NAME:LINE: problem" in err);
 *         BITCTS_E_OUT_OF_MEMORY. */
int bitcts_baseline_update_run(const char *name, const char *text, size_t size,
                               const json_t *report, bitcts_baseline_update *out, char *err,
                               size_t cap);
void bitcts_baseline_update_free(bitcts_baseline_update *u);

#endif
