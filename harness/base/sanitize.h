/* SPDX-License-Identifier: MIT */
/* Text that crosses the trust boundary: every string a backend gives (identity, instance info,
 * error details, log messages, captured output) and every path a user gives goes through here
 * before it reaches a report, a log line or a terminal. The result is valid UTF-8 without
 * control characters, bounded, and says what it replaced, so no string can break a JSON writer,
 * forge a log line or drive a terminal. Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_SANITIZE_H
#define BITCTS_HARNESS_SANITIZE_H

#include <stddef.h> /* size_t */

#include "bitcts/bitcts_status.h" /* BITCTS_PRINTF */

/** Copies the `len` bytes of `text` (NULs included) into out (cap bytes, cap >= 8) as valid
 * UTF-8: well-formed UTF-8 is kept, C0 and C1 control characters and DEL are written as
 * escapes (\n, \t, \r, \u0007 style), backslashes are doubled, and any byte that is not part of
 * well-formed UTF-8 becomes \xNN. A result that does not fit ends with "..." at a character
 * boundary. text NULL gives "".
 * @return out. */
char *bitcts_sanitize_text(const char *text, size_t len, char *out, size_t cap);

/** As bitcts_sanitize_text for a NUL-terminated string (read up to `max_in` bytes, so an
 * unterminated string from a backend cannot run away). */
char *bitcts_sanitize_string(const char *text, size_t max_in, char *out, size_t cap);

/** Text that was sanitised once already (by a child process) and crossed a pipe: copied as it is
 * when it is clean (bitcts_sanitize_is_clean: no escape doubled), else sanitised; bounded like
 * bitcts_sanitize_string. @return out. */
char *bitcts_sanitize_again(const char *text, size_t max_in, char *out, size_t cap);

/** 1 when `text` (len bytes) is well-formed UTF-8 with no control characters but tab. */
int bitcts_sanitize_is_clean(const char *text, size_t len);

/** 1 when `text` (len bytes) is well-formed UTF-8 (control characters allowed). */
int bitcts_sanitize_is_utf8(const char *text, size_t len);

/** Quotes `text` as one shell word that bash reads back as exactly those bytes: a plain word as
 * it is, text without control characters in single quotes, anything else (control characters,
 * bytes that are not UTF-8) as $'...' with \xNN escapes. A result that does not fit cap is
 * cut and then no longer the same word: give cap >= 4 * strlen(text) + 4.
 * @return out. */
char *bitcts_shell_quote(const char *text, char *out, size_t cap);

/** Where a command's problem lines go, one line each: `fn` (NULL: counted only) with `user`;
 * `*count` counts them. */
typedef struct bitcts_problem_sink {
    void (*fn)(void *user, const char *line);
    void *user;
    size_t *count;
} bitcts_problem_sink;

/** Formats one problem line (at most 1200 bytes before sanitising), sanitises it
 * (bitcts_sanitize_string), counts it and gives it to the sink. */
void bitcts_problem_say(const bitcts_problem_sink *sink, const char *fmt, ...) BITCTS_PRINTF(2, 3);

#endif
