/* SPDX-License-Identifier: MIT */
/* The initial output buffer's poison (generators/case_initial.c): every element becomes the
 * complement of its expected value within its width, or, where that equals the mask policy's
 * value, the complement with bit 0 flipped; padding is left alone. Every width, since a
 * complement taken over 64 bits never equals a narrower element. */
#include <string.h>

#include "case_initial.h"
#include "check.h"
#include "ref_ops.h"

/* Three elements of width w, packed, with one element of padding after them: saturate values
 * {0, 5, 0}, mask values {M, 3, 1} (M: all ones in the width). */
static void poison_width(uint32_t data_type, uint32_t w)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = BITCTS_OP_BIT_SHIFT_LEFT;
    d.input_count = 2;
    const uint32_t sizes[1] = {3};
    bitcts_tensor_make_packed(data_type, 1, sizes, &d.output);
    uint8_t sat[32] = {0}, mask[32] = {0}, out[32];
    const uint64_t all = w < 8 ? ((uint64_t)1 << (8 * w)) - 1 : UINT64_MAX;
    bitcts_ref_store(sat + w, w, 5);
    bitcts_ref_store(mask, w, all);
    bitcts_ref_store(mask + w, w, 3);
    bitcts_ref_store(mask + 2 * w, w, 1);
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

int main(void)
{
    poison_width(BITCTS_DT_UINT8, 1);
    poison_width(BITCTS_DT_UINT16, 2);
    poison_width(BITCTS_DT_UINT32, 4);
    poison_width(BITCTS_DT_UINT64, 8);
    return check_exit();
}
