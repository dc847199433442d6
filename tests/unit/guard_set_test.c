/* SPDX-License-Identifier: MIT */
/* The guard bytes of a set of buffers (harness/sandbox/guard_set.c): pattern 1 is the complement
 * of pattern 0, so a stray write of any byte value differs from one of them; no element-wide
 * window of pattern 0 near the data (aligned on it, as elements are) has half its bits set, so
 * an element read from a guard has a different popcount in each pattern; and the check names a
 * written byte in either pattern. Buffer sizes that are and are not multiples of the width. */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memset */

#include "check.h"
#include "guard_mem.h"
#include "guard_set.h"
#include "tensor_model.h"

static uint32_t ones(const uint8_t *p, size_t n)
{
    uint32_t count = 0;
    for (size_t k = 0; k < n; ++k) {
        for (uint32_t v = p[k]; v != 0; v &= v - 1) {
            ++count;
        }
    }
    return count;
}

/* Every window of one guard that `off` bytes from the data begins, up to those that begin
 * `near` bytes into it: not half set in pattern 0. */
static void check_windows(const uint8_t *g, size_t len, size_t near, int64_t off, uint32_t w)
{
    size_t k = 0;
    while (k < len && k < near) {
        const int64_t into = ((off + (int64_t)k) % (int64_t)w + (int64_t)w) % (int64_t)w;
        size_t n = (size_t)((int64_t)w - into);
        n = n < len - k ? n : len - k;
        CHECK(ones(g + k, n) != 4 * n);
        k += n;
    }
}

/* An element of width w read right after the data and right before it: its popcount in pass 0
 * and in pass 1. */
static void check_reads(const bitcts_guard_set *s, uint32_t t, uint32_t w)
{
    uint32_t count[2][2];
    for (uint32_t pass = 0; pass < 2; ++pass) {
        bitcts_guard_set_arm(s, pass);
        size_t after_len = 0;
        const uint8_t *after = bitcts_guard_after(s->bufs[t], &after_len);
        const uint64_t size = s->bufs[t]->size;
        const uint64_t next = (size + w - 1) / w * w; /* the first element-aligned byte after */
        count[pass][0] = ones(after + (next - size), w);
        count[pass][1] = ones(bitcts_guard_before(s->bufs[t]) + BITCTS_GUARD_BEFORE - w, w);
    }
    CHECK(count[0][0] != count[1][0]);
    CHECK(count[0][1] != count[1][1]);
}

/* A write of every byte value into guard byte `at` of buffer t is seen in one pass or both. */
static void check_writes(const bitcts_guard_set *s, uint32_t t, uint8_t *scratch)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.input_count = 2;
    char why[400];
    for (uint32_t v = 0; v < 256; ++v) {
        int seen = 0;
        for (uint32_t pass = 0; pass < 2; ++pass) {
            bitcts_guard_set_arm(s, pass);
            size_t after_len = 0;
            uint8_t *after = bitcts_guard_after(s->bufs[t], &after_len);
            after[3] = (uint8_t)v;
            seen += bitcts_guard_set_check(s, pass, &d, scratch, why, sizeof why);
        }
        CHECK(seen >= 1);
    }
    for (uint32_t pass = 0; pass < 2; ++pass) { /* untouched: nothing to report */
        bitcts_guard_set_arm(s, pass);
        CHECK(bitcts_guard_set_check(s, pass, &d, scratch, why, sizeof why) == 0);
    }
}

static void check_width(uint32_t w, const uint64_t sizes[3])
{
    bitcts_guard_buf bufs[3];
    bitcts_guard_set s;
    memset(&s, 0, sizeof s);
    for (uint32_t t = 0; t < 3; ++t) {
        CHECK(bitcts_guard_map(sizes[t], 0, BITCTS_GUARD_KIND_BACKEND, "buffer", 0, &bufs[t]) == 0);
        s.bufs[t] = &bufs[t];
        s.width[t] = w;
    }
    const uint64_t bytes = bitcts_guard_set_bytes(&s);
    s.expect = malloc((size_t)bytes);
    uint8_t *scratch = malloc((size_t)bytes);
    CHECK(s.expect != NULL && scratch != NULL);
    for (uint64_t seed = 0; seed < 64 && s.expect != NULL && scratch != NULL; ++seed) {
        bitcts_guard_set_draw(&s, seed);
        const uint8_t *g = s.expect;
        for (uint32_t t = 0; t < 3; ++t) {
            size_t after_len = 0;
            (void)bitcts_guard_after(s.bufs[t], &after_len);
            check_windows(g, BITCTS_GUARD_BEFORE, BITCTS_GUARD_BEFORE,
                          -(int64_t)BITCTS_GUARD_BEFORE, w);
            check_windows(g + BITCTS_GUARD_BEFORE, after_len, BITCTS_GUARD_SET_NEAR,
                          (int64_t)sizes[t], w);
            g += BITCTS_GUARD_BEFORE + after_len;
            check_reads(&s, t, w);
        }
        if (seed < 2) {
            check_writes(&s, 0, scratch);
        }
    }
    free(s.expect);
    free(scratch);
    for (uint32_t t = 0; t < 3; ++t) {
        bitcts_guard_unmap(&bufs[t]);
    }
}

int main(void)
{
    static const uint64_t sizes[][3] = {{64, 4, 8}, {37, 4096, 10}, {8, 8, 1}};
    for (uint32_t w = 1; w <= 8; w *= 2) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            check_width(w, sizes[k]);
        }
    }
    return check_exit();
}
