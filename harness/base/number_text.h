/* SPDX-License-Identifier: MIT */
/* Numbers written as text, parsed strictly: a whole decimal or 0x-hex unsigned number, and
 * comma-separated lists of them. The command line's options and `bitcts eval`'s literals use
 * them. Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_NUMBER_TEXT_H
#define BITCTS_HARNESS_NUMBER_TEXT_H

#include <stdint.h> /* uint32_t, uint64_t */

/** Parses a whole decimal or 0x-hex unsigned number: digits only, no sign, no space, nothing
 * after it; leading zeros do not make it octal.
 * @return 0, or -1 when malformed or out of range (out is then unchanged). */
int bitcts_number_text_parse_u64(const char *text, uint64_t *out);

/** Parses "a,b,c" into at most `cap` uint32 values.
 * @return the count, or -1 when malformed (an empty item, a trailing comma, more than cap
 *         items, a value above UINT32_MAX). */
int bitcts_number_text_parse_u32_list(const char *text, uint32_t *out, int cap);

#endif
