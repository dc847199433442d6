/* SPDX-License-Identifier: MIT */
/* What the fuzz targets share: the libFuzzer entry point's declaration and FUZZ_CHECK, the
 * invariant check that stops the process (a crash for libFuzzer, a failed test for the replay
 * program) and names the broken invariant. Thread-safety: single-threaded, like the targets. */
#ifndef BITCTS_TESTS_FUZZ_FUZZ_CHECK_H
#define BITCTS_TESTS_FUZZ_FUZZ_CHECK_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t */
#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* abort */
#include <string.h> /* strchr */

/** One input, any bytes; returns 0 (libFuzzer's contract). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A macro, not a function, to name the condition and the line. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/** 1 when the n bytes at s hold no byte below 0x20 or 0x7f other than those in `allowed`. */
static inline int fuzz_no_controls(const char *s, size_t n, const char *allowed)
{
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = (unsigned char)s[i];
        if (c == 0x7f || (c < 0x20 && (c == 0 || allowed == NULL || strchr(allowed, c) == NULL))) {
            return 0;
        }
    }
    return 1;
}

#endif
