/* SPDX-License-Identifier: MIT */
/* A byte buffer that grows: the one realloc policy of the harness's text buffers (the
 * sandbox's channel line, `bitcts eval`'s command text). Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_GROW_H
#define BITCTS_HARNESS_GROW_H

#include <stddef.h> /* size_t */

/** Makes *buf (of *cap bytes; NULL and 0 at first) hold at least `need` bytes: nothing when it
 * does already, else its capacity doubles (starting from `first`) until it does, keeping its
 * bytes.
 * @return 0, or -1 when memory runs out (*buf and *cap are then unchanged). */
int bitcts_grow(char **buf, size_t *cap, size_t need, size_t first);

#endif
