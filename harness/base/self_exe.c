/* SPDX-License-Identifier: MIT */
/* The running executable and absolute file arguments, for command lines a user pastes. */
#define _DEFAULT_SOURCE /* realpath, readlink */

#include <limits.h> /* PATH_MAX */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* realpath */
#include <string.h> /* strlen */
#include <unistd.h> /* readlink */

#include "self_exe.h"

const char *bitcts_self_exe(char *out, size_t cap)
{
    char path[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0 || (size_t)n >= cap) {
        snprintf(out, cap, "bitcts");
        return out;
    }
    path[n] = '\0';
    snprintf(out, cap, "%s", path);
    return out;
}

const char *bitcts_paste_path(const char *path, char *out, size_t cap)
{
    char resolved[PATH_MAX];
    if (realpath(path, resolved) != NULL && strlen(resolved) < cap) {
        snprintf(out, cap, "%s", resolved);
    } else {
        snprintf(out, cap, "%s", path);
    }
    return out;
}
