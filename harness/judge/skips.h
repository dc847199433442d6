/* SPDX-License-Identifier: MIT */
/* Skips files (`run --skips`, `check --skips`): lines "<glob> <reason...>", '#' comments and
 * blank lines allowed. A selected case that a line matches is neither run nor judged: it gets
 * the verdict skipped, its detail naming the reason and FILE:LINE, and never counts as a pass.
 * Parsed from a byte buffer; the reader (bitcts_skips_load) only adds the file.
 * Thread-safety: immutable after parsing. */
#ifndef BITCTS_HARNESS_SKIPS_H
#define BITCTS_HARNESS_SKIPS_H

#include <stddef.h> /* size_t */

#include "case_result.h" /* bitcts_case_result */

typedef struct bitcts_skip_entry {
    char glob[128];
    char reason[256];
    size_t line; /* in the file, from 1 */
} bitcts_skip_entry;

typedef struct bitcts_skips {
    char name[512]; /* the file as given, for details */
    bitcts_skip_entry *entries;
    size_t count;
} bitcts_skips;

/** Parses `size` bytes of the file `name`. A line with a glob and no reason, a malformed glob
 * (an unclosed '[', a trailing '\\'), a glob too long and a NUL byte are refused.
 * @return BITCTS_OK, BITCTS_E_PARSE with "NAME:LINE: problem" in err, or
 *         BITCTS_E_OUT_OF_MEMORY. */
int bitcts_skips_parse(const char *name, const char *text, size_t size, bitcts_skips *out,
                       char *err, size_t cap);
/** Reads and parses the file at path (at most 64 MiB).
 * @return BITCTS_OK, or BITCTS_E_IO / BITCTS_E_PARSE with one line naming the file in err. */
int bitcts_skips_load(const char *path, bitcts_skips *out, char *err, size_t cap);
void bitcts_skips_free(bitcts_skips *s);
/** The first line whose glob matches the id, or NULL (also for s NULL). */
const bitcts_skip_entry *bitcts_skips_find(const bitcts_skips *s, const char *id);
/** The result of a skipped case: verdict skipped, detail "skipped by NAME:LINE: REASON". */
void bitcts_skips_result(const bitcts_skips *s, const bitcts_skip_entry *e, bitcts_case_result *r);

#endif
