/* SPDX-License-Identifier: MIT */
/* A byte buffer that grows by doubling. */
#include <stdlib.h> /* realloc */

#include "grow.h"

int bitcts_grow(char **buf, size_t *cap, size_t need, size_t first)
{
    if (need <= *cap) {
        return 0;
    }
    size_t grown = *cap != 0 ? 2 * *cap : first;
    while (grown < need) {
        grown *= 2;
    }
    char *p = realloc(*buf, grown);
    if (p == NULL) {
        return -1;
    }
    *buf = p;
    *cap = grown;
    return 0;
}
