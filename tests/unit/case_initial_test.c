/* SPDX-License-Identifier: MIT */
/* The initial output buffer's poison (generators/case_initial.c): every element becomes the
 * complement of its expected value within its width, or, where that equals the mask policy's
 * value, the complement with bit 0 flipped; padding is left alone. Every width, since a
 * complement taken over 64 bits never equals a narrower element. The second poison of a run's
 * second pass: the first's complement but for one drawn bit, never an expected value. */
#include <string.h>

#include "case_initial.h"
#include "check.h"
#include "ref_ops.h"

/* Three elements of width w, packed, with one element of padding after them: saturate values
 * {0, 5, 0}, mask values {M, 3, 1} (M: all ones in the width). */
typedef struct poison_fixture {
    bitcts_op_desc d;
    uint8_t sat[32], mask[32];
    uint64_t all; /* M */
} poison_fixture;

static void fixture_init(poison_fixture *f, uint32_t data_type, uint32_t w)
{
    memset(f, 0, sizeof *f);
    f->d.op = BITCTS_OP_BIT_SHIFT_LEFT;
    f->d.input_count = 2;
    const uint32_t sizes[1] = {3};
    bitcts_tensor_make_packed(data_type, 1, sizes, &f->d.output);
    f->all = w < 8 ? ((uint64_t)1 << (8 * w)) - 1 : UINT64_MAX;
    bitcts_ref_store(f->sat + w, w, 5);
    bitcts_ref_store(f->mask, w, f->all);
    bitcts_ref_store(f->mask + w, w, 3);
    bitcts_ref_store(f->mask + 2 * w, w, 1);
}

static void poison_width(uint32_t data_type, uint32_t w)
{
    poison_fixture f;
    fixture_init(&f, data_type, w);
    const bitcts_op_desc d = f.d;
    const uint8_t *sat = f.sat;
    const uint8_t *mask = f.mask;
    const uint64_t all = f.all;
    uint8_t out[32];
    memset(out, 0xA5, sizeof out);
    bitcts_case_poison(&d, sat, mask, out);
    CHECK_EQ_U64(bitcts_ref_load(out, w), all ^ 1); /* ~0 is the mask value: bit 0 flipped */
    CHECK_EQ_U64(bitcts_ref_load(out + w, w), ~(uint64_t)5 & all);
    CHECK_EQ_U64(bitcts_ref_load(out + 2 * w, w), all); /* ~0 differs from 1: kept */
    CHECK_EQ_U64(out[3 * w], 0xA5);                     /* padding untouched */
    memset(out, 0xA5, sizeof out);
    bitcts_case_poison(&d, sat, NULL, out); /* not recorded: the complement alone */
    CHECK_EQ_U64(bitcts_ref_load(out, w), all);
}

static uint32_t ones(uint64_t v)
{
    uint32_t count = 0;
    for (; v != 0; v &= v - 1) {
        ++count;
    }
    return count;
}

/* The second poison (bitcts_case_poison_again) over the same three elements, for many seeds:
 * every element differs from both policies' values, is the first poison's complement but for one
 * bit (so its popcount differs from the first's), the padding is left alone, and the draw
 * depends on the seed alone. */
static void poison_again_width(uint32_t data_type, uint32_t w)
{
    poison_fixture f;
    fixture_init(&f, data_type, w);
    uint8_t first[32];
    uint8_t out[32];
    uint8_t again[32];
    for (int recorded = 0; recorded < 2; ++recorded) {
        const uint8_t *m = recorded ? f.mask : NULL;
        memset(first, 0xA5, sizeof first);
        bitcts_case_poison(&f.d, f.sat, m, first);
        for (uint64_t seed = 0; seed < 200; ++seed) {
            memcpy(out, first, sizeof out);
            bitcts_case_poison_again(&f.d, f.sat, m, seed, out);
            for (uint32_t e = 0; e < 3; ++e) {
                const uint64_t v = bitcts_ref_load(out + e * w, w);
                const uint64_t p = bitcts_ref_load(first + e * w, w);
                CHECK(v != bitcts_ref_load(f.sat + e * w, w));
                CHECK(!recorded || v != bitcts_ref_load(f.mask + e * w, w));
                CHECK_EQ_U64(ones(v ^ p), 8 * w - 1);
                CHECK(ones(v) != ones(p));
            }
            CHECK_EQ_U64(out[3 * w], 0xA5);
            memcpy(again, first, sizeof again);
            bitcts_case_poison_again(&f.d, f.sat, m, seed, again);
            CHECK(memcmp(out, again, sizeof out) == 0);
        }
    }
}

int main(void)
{
    poison_width(BITCTS_DT_UINT8, 1);
    poison_width(BITCTS_DT_UINT16, 2);
    poison_width(BITCTS_DT_UINT32, 4);
    poison_width(BITCTS_DT_UINT64, 8);
    poison_again_width(BITCTS_DT_UINT8, 1);
    poison_again_width(BITCTS_DT_UINT16, 2);
    poison_again_width(BITCTS_DT_UINT32, 4);
    poison_again_width(BITCTS_DT_UINT64, 8);
    return check_exit();
}
