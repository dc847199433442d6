/* SPDX-License-Identifier: MIT */
/* File-system helpers: whole-file atomic writes (write, fsync-free flush, rename), recursive
 * mkdir and removal. Errors carry strerror text in the caller's buffer.
 * Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_FS_UTIL_H
#define BITCTS_GENERATORS_FS_UTIL_H

#include <stddef.h> /* size_t */

/** Writes `size` bytes to path (no temp file: callers write inside a temp folder). */
int bitcts_fs_write(const char *path, const void *data, size_t size, char *err, size_t cap);
/** Writes path.tmp-<pid> then renames it onto path. */
int bitcts_fs_write_atomic(const char *path, const void *data, size_t size, char *err, size_t cap);
/** mkdir -p. */
int bitcts_fs_mkdirs(const char *path, char *err, size_t cap);
/** rm -rf; missing paths are fine. */
int bitcts_fs_remove_tree(const char *path);
/** 1 when path is an existing directory, 0 when missing, -1 when it exists but is no folder. */
int bitcts_fs_dir_state(const char *path);
/** 1 when the folder is empty. */
int bitcts_fs_dir_is_empty(const char *path);
/** What kind of file a stat mode is, for messages: "a FIFO", "a directory", ... */
const char *bitcts_fs_kind_name(unsigned mode);
/** Opens path for reading when it is a regular file of at most max_size bytes; a FIFO,
 * device, socket or directory is refused without waiting (never blocks on a FIFO).
 * @param fd [out] the descriptor (blocking, close-on-exec; the caller closes it), or -1.
 * @return BITCTS_OK; BITCTS_E_IO (cannot open); BITCTS_E_PARSE (not a regular file, or larger
 *         than max_size); err names the path and why. */
int bitcts_fs_open_regular(const char *path, size_t max_size, int *fd, char *err, size_t cap);
/** Reads a whole regular file (at most max_size bytes) into a NUL-terminated malloc'd buffer.
 * @return BITCTS_OK; BITCTS_E_IO (cannot open or read); BITCTS_E_PARSE (not a regular file, or
 *         larger than max_size: err says which); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_fs_read(const char *path, size_t max_size, char **out, size_t *out_size, char *err,
                   size_t cap);
/** Replaces folder `dest` by folder `staged` atomically enough: dest (if any) is renamed aside,
 * staged renamed in, the old one removed. */
int bitcts_fs_replace_dir(const char *staged, const char *dest, char *err, size_t cap);

#endif
