/* SPDX-License-Identifier: MIT */
/* File-system helpers over POSIX. */
#define _XOPEN_SOURCE 700
#include <dirent.h>   /* opendir */
#include <errno.h>    /* errno */
#include <fcntl.h>    /* open, fcntl */
#include <ftw.h>      /* nftw */
#include <stdint.h>   /* uint64_t */
#include <stdio.h>    /* fopen, rename, snprintf */
#include <stdlib.h>   /* malloc */
#include <string.h>   /* strerror */
#include <sys/stat.h> /* mkdir, stat */
#include <unistd.h>   /* getpid */

#include "bitcts/bitcts_status.h"
#include "fs_util.h"

int bitcts_fs_write(const char *path, const void *data, size_t size, char *err, size_t cap)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        snprintf(err, cap, "cannot create %s: %s", path, strerror(errno));
        return BITCTS_E_IO;
    }
    const size_t written = size ? fwrite(data, 1, size, f) : 0;
    const int write_errno = errno;
    if (fclose(f) != 0 || written != size) {
        snprintf(err, cap, "cannot write %s: %s", path,
                 strerror(write_errno ? write_errno : errno));
        remove(path);
        return BITCTS_E_IO;
    }
    return BITCTS_OK;
}

int bitcts_fs_write_atomic(const char *path, const void *data, size_t size, char *err, size_t cap)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    int st = bitcts_fs_write(tmp, data, size, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, cap, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        return BITCTS_E_IO;
    }
    return BITCTS_OK;
}

int bitcts_fs_mkdirs(const char *path, char *err, size_t cap)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            snprintf(err, cap, "cannot create %s: %s", buf, strerror(errno));
            return BITCTS_E_IO;
        }
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        snprintf(err, cap, "cannot create %s: %s", buf, strerror(errno));
        return BITCTS_E_IO;
    }
    if (bitcts_fs_dir_state(buf) != 1) {
        snprintf(err, cap, "cannot create %s: not a directory", buf);
        return BITCTS_E_IO;
    }
    return BITCTS_OK;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

int bitcts_fs_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        return BITCTS_OK;
    }
    return nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS) == 0 ? BITCTS_OK : BITCTS_E_IO;
}

int bitcts_fs_dir_state(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        return 0;
    }
    return S_ISDIR(st.st_mode) ? 1 : -1;
}

int bitcts_fs_dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL) {
        return 0;
    }
    int empty = 1;
    for (struct dirent *e; empty && (e = readdir(d)) != NULL;) {
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    }
    closedir(d);
    return empty;
}

const char *bitcts_fs_kind_name(unsigned mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISREG(mode)  ? "a regular file"
                            : "not a regular file";
}

int bitcts_fs_open_regular(const char *path, size_t max_size, int *fd_out, char *err, size_t cap)
{
    *fd_out = -1;
    /* O_NONBLOCK: opening a FIFO with no writer must not wait for one. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, cap, "cannot open %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return BITCTS_E_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, cap, "%s is %s, not a regular file", path,
                 bitcts_fs_kind_name((unsigned)st.st_mode));
        close(fd);
        return BITCTS_E_PARSE;
    }
    if ((uint64_t)st.st_size > (uint64_t)max_size) {
        snprintf(err, cap, "%s is larger than %zu bytes, the most bitcts reads of it", path,
                 max_size);
        close(fd);
        return BITCTS_E_PARSE;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    *fd_out = fd;
    return BITCTS_OK;
}

int bitcts_fs_read(const char *path, size_t max_size, char **out, size_t *out_size, char *err,
                   size_t cap)
{
    *out = NULL;
    int fd = -1;
    const int st = bitcts_fs_open_regular(path, max_size, &fd, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        snprintf(err, cap, "cannot open %s: %s", path, strerror(errno));
        close(fd);
        return BITCTS_E_IO;
    }
    size_t size = 0, room = 65536;
    char *buf = malloc(room + 1);
    while (buf != NULL) {
        const size_t got = fread(buf + size, 1, room - size, f);
        size += got;
        if (size < room) {
            break;
        }
        if (room >= max_size) {
            fclose(f);
            free(buf);
            snprintf(err, cap, "%s is larger than %zu bytes", path, max_size);
            return BITCTS_E_PARSE;
        }
        room = room * 2 > max_size ? max_size : room * 2;
        char *grown = realloc(buf, room + 1);
        if (grown == NULL) {
            free(buf);
        }
        buf = grown;
    }
    const int failed = ferror(f);
    fclose(f);
    if (buf == NULL || failed) {
        free(buf);
        snprintf(err, cap, "cannot read %s", path);
        return buf != NULL ? BITCTS_E_IO : BITCTS_E_OUT_OF_MEMORY;
    }
    buf[size] = '\0';
    *out = buf;
    if (out_size != NULL) {
        *out_size = size;
    }
    return BITCTS_OK;
}

int bitcts_fs_replace_dir(const char *staged, const char *dest, char *err, size_t cap)
{
    char old[4096];
    snprintf(old, sizeof old, "%s.old-%ld", dest, (long)getpid());
    const int exists = bitcts_fs_dir_state(dest) == 1;
    if (exists && rename(dest, old) != 0) {
        snprintf(err, cap, "cannot move %s aside: %s", dest, strerror(errno));
        return BITCTS_E_IO;
    }
    if (rename(staged, dest) != 0) {
        snprintf(err, cap, "cannot rename %s to %s: %s", staged, dest, strerror(errno));
        if (exists) {
            rename(old, dest);
        }
        return BITCTS_E_IO;
    }
    if (exists) {
        bitcts_fs_remove_tree(old);
    }
    return BITCTS_OK;
}
