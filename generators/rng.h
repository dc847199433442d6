/* SPDX-License-Identifier: MIT */
/* The documented 64-bit generator of bitcts: SplitMix64 (Steele, Lea, Flood 2014), seeded per
 * stream by XXH3-64 (docs/case-plan.md). Portable: integer arithmetic modulo 2^64 only.
 * Thread-safety: one state per user. */
#ifndef BITCTS_GENERATORS_RNG_H
#define BITCTS_GENERATORS_RNG_H

#include <stdint.h> /* uint64_t */

typedef struct bitcts_rng {
    uint64_t state;
} bitcts_rng;

/** The per-case seed: XXH3-64 of the id with the suite seed (docs/case-plan.md). */
uint64_t bitcts_case_seed(uint64_t suite_seed, const char *id);
/** Seeds the stream named `tag` of a case: state = XXH3_64bits_withSeed(tag, strlen(tag),
 * case_seed). */
void bitcts_rng_init(bitcts_rng *rng, uint64_t case_seed, const char *tag);
/** Next 64-bit output of SplitMix64 (inline: drawn per element). */
static inline uint64_t bitcts_rng_next(bitcts_rng *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/** next() % n; n > 0. The modulo bias is irrelevant here and the result is portable. */
uint64_t bitcts_rng_below(bitcts_rng *rng, uint64_t n);

#endif
