/* SPDX-License-Identifier: MIT */
/* Paths for command lines a user pastes (repro lines): the running executable's absolute path,
 * and a file argument made absolute, so that the line runs from any folder and without PATH.
 * Thread-safety: reentrant (no state). */
#ifndef BITCTS_HARNESS_BASE_SELF_EXE_H
#define BITCTS_HARNESS_BASE_SELF_EXE_H

#include <stddef.h> /* size_t */

/** The running executable, resolved (/proc/self/exe); "bitcts" when it cannot be read.
 * @return out. */
const char *bitcts_self_exe(char *out, size_t cap);

/** A file or folder that exists, as an absolute, resolved path; anything else (a missing file)
 * as given. @return out. */
const char *bitcts_paste_path(const char *path, char *out, size_t cap);

#endif
