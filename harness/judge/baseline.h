/* SPDX-License-Identifier: MIT */
/* Baselines (expected failures): a text file of lines "<glob> <verdict> [reason and link]",
 * '#' starting a comment. A case matching an entry that earned exactly the entry's verdict
 * (fail, timeout, crash or flake) is expected_fail; one that passed is unexpected_pass; another
 * failure stays what it is. Parsed from a byte buffer (fuzzable).
 * Thread-safety: immutable after parsing. */
#ifndef BITCTS_HARNESS_BASELINE_H
#define BITCTS_HARNESS_BASELINE_H

#include <stddef.h> /* size_t */

#include "case_plan.h" /* bitcts_plan */

typedef struct bitcts_baseline_entry {
    char glob[128];
    int verdict; /* fail, timeout, crash or flake */
    char reason[256];
    size_t line; /* in the file, from 1 */
} bitcts_baseline_entry;

typedef struct bitcts_baseline {
    bitcts_baseline_entry *entries;
    size_t count;
} bitcts_baseline;

/** Parses `size` bytes. An unknown verdict, a missing one and a malformed glob (an unclosed
 * '[', a trailing '\\') are refused.
 * @return BITCTS_OK or BITCTS_E_PARSE with "NAME:LINE: problem" in err. */
int bitcts_baseline_parse(const char *name, const char *text, size_t size, bitcts_baseline *out,
                          char *err, size_t cap);
void bitcts_baseline_free(bitcts_baseline *b);
/** The first entry matching the id, or NULL. */
const bitcts_baseline_entry *bitcts_baseline_find(const bitcts_baseline *b, const char *id);
/** 1 when the entry can apply to some case: its glob matches a case id of the plan, or it names
 * explored cases ("explore.*": any index). */
int bitcts_baseline_entry_can_match(const bitcts_baseline_entry *e, const bitcts_plan *plan);
/** Applies the baseline to a verdict: expected_fail (the entry's verdict) / unexpected_pass
 * (pass, warn, recorded) / unchanged (any other verdict, a failure of another kind included). */
int bitcts_baseline_apply(const bitcts_baseline_entry *e, int verdict);

#endif
