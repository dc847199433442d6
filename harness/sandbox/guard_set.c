/* SPDX-License-Identifier: MIT */
/* Drawing, writing and checking the guard bytes of a set of guarded buffers
 * (harness/sandbox/guard_set.h). The guards are laid out buffer after buffer, before then after. */
#include <string.h> /* memset */
#include <unistd.h> /* sysconf */

#include "guard_set.h"
#include "rng.h"

/* A window of `n` guard bytes (at most 8) whose popcount is half its bits gets one bit flipped,
 * the bit drawn from `rng`: no window of pattern 0 and its complement have the same popcount. */
static void unbalance(uint8_t *g, size_t n, bitcts_rng *rng)
{
    uint32_t ones = 0;
    for (size_t k = 0; k < n; ++k) {
        for (uint32_t v = g[k]; v != 0; v &= v - 1) {
            ++ones;
        }
    }
    if (ones == 4 * n) {
        const uint64_t bit = bitcts_rng_below(rng, 8 * n);
        g[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
}

/* The windows of one guard that begin in its first `near` bytes: `len` bytes whose first lies
 * `off` bytes from its buffer's data (negative: before it), windows `width` bytes wide and
 * aligned on the data, as elements are. */
static void unbalance_guard(uint8_t *g, size_t len, size_t near, int64_t off, uint32_t width,
                            bitcts_rng *rng)
{
    const int64_t w = width == 0 ? 1 : (int64_t)width;
    size_t k = 0;
    while (k < len && k < near) {
        const int64_t into = ((off + (int64_t)k) % w + w) % w; /* bytes of its window before it */
        size_t n = (size_t)(w - into);
        n = n < len - k ? n : len - k;
        unbalance(g + k, n, rng);
        k += n;
    }
}

void bitcts_guard_complement(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t v;
        memcpy(&v, src + k, 8);
        v = ~v;
        memcpy(dst + k, &v, 8);
    }
    for (; k < n; ++k) {
        dst[k] = (uint8_t)~src[k];
    }
}

/* n bytes of pattern `src` as pass `pass` writes them: as they are (pass 0) or complemented. */
static void pattern_copy(uint8_t *dst, const uint8_t *src, size_t n, uint32_t pass)
{
    if (pass == 0) {
        memcpy(dst, src, n);
    } else {
        bitcts_guard_complement(dst, src, n);
    }
}

uint64_t bitcts_guard_set_bytes(const bitcts_guard_set *s)
{
    uint64_t bytes = 0;
    for (uint32_t t = 0; t < BITCTS_GUARD_SET_BUFS; ++t) {
        size_t after = 0;
        if (s->bufs[t] != NULL) {
            (void)bitcts_guard_after(s->bufs[t], &after);
            bytes += BITCTS_GUARD_BEFORE + after;
        }
    }
    return bytes;
}

uint64_t bitcts_guard_set_max_bytes(void)
{
    const long page = sysconf(_SC_PAGESIZE);
    /* The guard after a buffer fills its last page: at most a page beyond the minimum. */
    const uint64_t after = BITCTS_GUARD_AFTER_MIN + (uint64_t)(page > 0 ? page : 4096);
    return BITCTS_GUARD_SET_BUFS * (BITCTS_GUARD_BEFORE + after);
}

void bitcts_guard_set_draw(const bitcts_guard_set *s, uint64_t seed)
{
    const uint64_t bytes = bitcts_guard_set_bytes(s);
    bitcts_rng rng;
    bitcts_rng_init(&rng, seed, "guard");
    for (uint64_t i = 0; i < bytes; i += 8) {
        const uint64_t v = bitcts_rng_next(&rng);
        for (uint64_t k = 0; k < 8 && i + k < bytes; ++k) {
            s->expect[i + k] = (uint8_t)(v >> (8 * k));
        }
    }
    bitcts_rng_init(&rng, seed, "guard.half");
    uint8_t *g = s->expect;
    for (uint32_t t = 0; t < BITCTS_GUARD_SET_BUFS; ++t) {
        if (s->bufs[t] == NULL) {
            continue;
        }
        size_t after_len = 0;
        (void)bitcts_guard_after(s->bufs[t], &after_len);
        unbalance_guard(g, BITCTS_GUARD_BEFORE, BITCTS_GUARD_BEFORE, -(int64_t)BITCTS_GUARD_BEFORE,
                        s->width[t], &rng);
        g += BITCTS_GUARD_BEFORE;
        unbalance_guard(g, after_len, BITCTS_GUARD_SET_NEAR, (int64_t)s->bufs[t]->size, s->width[t],
                        &rng);
        g += after_len;
    }
}

void bitcts_guard_set_arm(const bitcts_guard_set *s, uint32_t pass)
{
    const uint8_t *g = s->expect;
    for (uint32_t t = 0; t < BITCTS_GUARD_SET_BUFS; ++t) {
        if (s->bufs[t] == NULL) {
            continue;
        }
        size_t after_len = 0;
        uint8_t *before = bitcts_guard_before(s->bufs[t]);
        uint8_t *after = bitcts_guard_after(s->bufs[t], &after_len);
        pattern_copy(before, g, BITCTS_GUARD_BEFORE, pass);
        g += BITCTS_GUARD_BEFORE;
        pattern_copy(after, g, after_len, pass);
        g += after_len;
    }
}

void bitcts_guard_set_expect(const bitcts_guard_set *s, uint32_t pass, uint32_t input_count,
                             uint8_t *scratch, bitcts_compare_guard guards[3])
{
    const uint8_t *g = s->expect; /* pattern 0 as drawn; its complement in scratch */
    if (pass != 0) {
        pattern_copy(scratch, s->expect, (size_t)bitcts_guard_set_bytes(s), pass);
        g = scratch;
    }
    memset(guards, 0, 3 * sizeof *guards);
    for (uint32_t t = 0; t < BITCTS_GUARD_SET_BUFS; ++t) {
        if (s->bufs[t] == NULL) {
            continue;
        }
        /* The tensor index of the comparison: inputs 0..n-1, the output at n. */
        const uint32_t slot = t < input_count ? t : input_count;
        size_t after_len = 0;
        bitcts_compare_guard *cg = &guards[slot];
        cg->before = bitcts_guard_before(s->bufs[t]);
        cg->before_expect = g;
        cg->before_len = BITCTS_GUARD_BEFORE;
        g += BITCTS_GUARD_BEFORE;
        cg->after = bitcts_guard_after(s->bufs[t], &after_len);
        cg->after_expect = g;
        cg->after_len = after_len;
        g += after_len;
    }
}

int bitcts_guard_set_check(const bitcts_guard_set *s, uint32_t pass, const bitcts_op_desc *d,
                           uint8_t *scratch, char *why, size_t cap)
{
    bitcts_compare_guard guards[3];
    bitcts_guard_set_expect(s, pass, d->input_count, scratch, guards);
    why[0] = '\0';
    return bitcts_compare_guards(d, guards, why, cap);
}
