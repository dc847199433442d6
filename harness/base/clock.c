/* SPDX-License-Identifier: MIT */
/* The monotonic clock. */
#include <time.h> /* clock_gettime */

#include "clock.h"

double bitcts_clock_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
