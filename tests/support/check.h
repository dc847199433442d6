/* SPDX-License-Identifier: MIT */
/* Assertions for the unit test programs: each prints both operands and the location, counts
 * the failure and goes on; a test's main returns check_exit(). Not a framework: CTest runs
 * one program per module. Thread-safety: single-threaded tests only. */
#ifndef BITCTS_TESTS_SUPPORT_CHECK_H
#define BITCTS_TESTS_SUPPORT_CHECK_H

#include <inttypes.h> /* PRIx64 */
#include <stdio.h>    /* fprintf */
#include <string.h>   /* strcmp */

static int check_failures;
static int check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        ++check_count;                                                                             \
        if (!(cond)) {                                                                             \
            ++check_failures;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_U64(actual, expected)                                                             \
    do {                                                                                           \
        const uint64_t check_a_ = (uint64_t)(actual);                                              \
        const uint64_t check_e_ = (uint64_t)(expected);                                            \
        ++check_count;                                                                             \
        if (check_a_ != check_e_) {                                                                \
            ++check_failures;                                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64 " vs expected 0x%" PRIx64 "\n",   \
                    __FILE__, __LINE__, #actual, #expected, check_a_, check_e_);                   \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_STR(actual, expected)                                                             \
    do {                                                                                           \
        const char *check_a_ = (actual);                                                           \
        const char *check_e_ = (expected);                                                         \
        ++check_count;                                                                             \
        if (check_a_ == NULL || strcmp(check_a_, check_e_) != 0) {                                 \
            ++check_failures;                                                                      \
            fprintf(stderr, "%s:%d: %s == \"%s\" failed: got \"%s\"\n", __FILE__, __LINE__,        \
                    #actual, check_e_, check_a_ != NULL ? check_a_ : "(null)");                    \
        }                                                                                          \
    } while (0)

static int check_exit(void)
{
    printf("%d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
