/* SPDX-License-Identifier: MIT */
/* SplitMix64 with per-stream seeding by XXH3-64, and the per-case seed the streams start from. The
 * constants are those of the published algorithm; changing any of them changes every vector (bump
 * BITCTS_GENERATOR_VERSION). */
#include <string.h> /* strlen */

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "rng.h"

uint64_t bitcts_case_seed(uint64_t suite_seed, const char *id)
{
    return XXH3_64bits_withSeed(id, strlen(id), suite_seed);
}

void bitcts_rng_init(bitcts_rng *rng, uint64_t case_seed, const char *tag)
{
    rng->state = XXH3_64bits_withSeed(tag, strlen(tag), case_seed);
}

uint64_t bitcts_rng_below(bitcts_rng *rng, uint64_t n)
{
    return bitcts_rng_next(rng) % n;
}
