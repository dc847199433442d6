/* SPDX-License-Identifier: MIT */
/* Building a line of text inside a signal handler: no allocation, no stdio, no locale; just
 * bytes into a fixed buffer, always NUL-terminated, truncated when full.
 * Thread-safety: a line belongs to its caller; every function is async-signal-safe. */
#ifndef BITCTS_HARNESS_SIGSAFE_H
#define BITCTS_HARNESS_SIGSAFE_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

typedef struct bitcts_sigsafe_line {
    char *out;
    size_t cap; /* > 0 */
    size_t len;
} bitcts_sigsafe_line;

/** Appends text. */
void bitcts_sigsafe_text(bitcts_sigsafe_line *l, const char *text);
/** Appends v in decimal. */
void bitcts_sigsafe_number(bitcts_sigsafe_line *l, uint64_t v);
/** Appends v as 0x and 16 hex digits. */
void bitcts_sigsafe_hex(bitcts_sigsafe_line *l, uint64_t v);

#endif
