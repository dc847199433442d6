/* SPDX-License-Identifier: MIT */
/* The running executable and absolute file arguments, for command lines a user pastes. */
#define _DEFAULT_SOURCE /* realpath, readlink */

#include <limits.h>  /* PATH_MAX */
#include <pthread.h> /* pthread_once */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* realpath */
#include <string.h>  /* strlen */
#include <unistd.h>  /* readlink */

#include "self_exe.h"

/* The executable's path, read once (a repro line is written for every case). */
static char self_path[PATH_MAX];
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void read_self(void)
{
    const ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    self_path[n > 0 ? n : 0] = '\0';
}

const char *bitcts_self_exe(char *out, size_t cap)
{
    pthread_once(&self_once, read_self);
    const size_t n = strlen(self_path);
    if (n == 0 || n >= cap) {
        snprintf(out, cap, "bitcts");
        return out;
    }
    memcpy(out, self_path, n + 1);
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
