/* SPDX-License-Identifier: MIT */
/* The replay program of a fuzz target: built with the ordinary compiler, without libFuzzer, it
 * feeds every file of the folders (or the files) it is given to LLVMFuzzerTestOneInput, in
 * name order, each in a buffer of exactly its size, plus the empty input. CTest runs it over
 * the committed corpus (label fuzz); an input that breaks an invariant aborts it. */
#define _POSIX_C_SOURCE 200809L /* scandir, alphasort */

#include <dirent.h>   /* scandir, alphasort */
#include <stdio.h>    /* fopen, fread, fprintf */
#include <stdlib.h>   /* malloc, free */
#include <string.h>   /* strcmp */
#include <sys/stat.h> /* stat, S_ISDIR, S_ISREG */

#include "fuzz_check.h"

/* Reads the whole file; NULL when it cannot be read. */
static uint8_t *read_input(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (f == NULL || fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        if (f != NULL) {
            fclose(f);
        }
        return NULL;
    }
    *size = (size_t)st.st_size;
    uint8_t *data = malloc(*size > 0 ? *size : 1);
    if (data != NULL && fread(data, 1, *size, f) != *size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

static int replay_file(const char *path)
{
    size_t size = 0;
    uint8_t *data = read_input(path, &size);
    if (data == NULL) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return -1;
    }
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

/* Every regular file of the folder, in name order; the count, or -1. */
static long replay_dir(const char *dir)
{
    struct dirent **names = NULL;
    const int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s\n", dir);
        return -1;
    }
    long count = 0;
    for (int i = 0; i < n; ++i) {
        char path[4096];
        struct stat st;
        if (names[i]->d_name[0] != '.' &&
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) < sizeof path &&
            stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            count = count >= 0 && replay_file(path) == 0 ? count + 1 : -1;
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
    long total = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        const long n = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? replay_dir(argv[i])
                       : replay_file(argv[i]) == 0                    ? 1
                                                                      : -1;
        if (n <= 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], n == 0 ? "no inputs" : "unreadable");
            return 1;
        }
        total += n;
    }
    fprintf(stderr, "replay: %ld inputs, no invariant broken\n", total);
    return 0;
}
