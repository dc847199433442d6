/* SPDX-License-Identifier: MIT */
/* The comparison module decides right: a correct result passes; one wrong element, a write
 * past the end, a changed input, a padding write, an unwritten element (caught thanks to the
 * poison), each shift policy, each earn their verdict and detail. */
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_verdict.h"
#include "check.h"
#include "compare.h"
#include "ref_ops.h"

#define GUARD 16 /* guard bytes on each side of the fixture's buffers */

typedef struct fixture {
    bitcts_op_desc d;
    uint8_t mem[3][GUARD + 8 + GUARD]; /* A, B, Output, each between two guards */
    uint8_t guard[2 * GUARD];          /* what every guard must hold */
    uint8_t *a, *b, *out, *before, *expected, *expected_mask;
} fixture;

/* SHL uint8 over sizes {2,3}, output rows padded to 4: 8 bytes, 2 of them padding. */
static void setup(fixture *f, int oob)
{
    memset(f, 0, sizeof *f);
    f->d.op = BITCTS_OP_BIT_SHIFT_LEFT;
    f->d.input_count = 2;
    const uint32_t sizes[2] = {2, 3};
    bitcts_tensor_make_packed(BITCTS_DT_UINT8, 2, sizes, &f->d.inputs[0]);
    bitcts_tensor_make_packed(BITCTS_DT_UINT8, 2, sizes, &f->d.inputs[1]);
    bitcts_tensor_make_packed(BITCTS_DT_UINT8, 2, sizes, &f->d.output);
    f->d.output.has_strides = 1;
    f->d.output.strides[0] = 4, f->d.output.strides[1] = 1;
    for (int i = 0; i < 2 * GUARD; ++i) {
        f->guard[i] = (uint8_t)(0x3D * i + 7); /* not one fixed byte: every value occurs */
    }
    for (int t = 0; t < 3; ++t) {
        memcpy(f->mem[t], f->guard, GUARD);
        memcpy(f->mem[t] + GUARD + 8, f->guard + GUARD, GUARD);
    }
    f->a = f->mem[0] + GUARD, f->b = f->mem[1] + GUARD, f->out = f->mem[2] + GUARD;
    f->before = malloc(8), f->expected = malloc(8), f->expected_mask = malloc(8);
    const uint8_t a[8] = {1, 2, 3, 0x81, 5, 6, 0, 0}, b[8] = {1, 1, 2, 3, 0, 7, 0, 0};
    memcpy(f->a, a, 8), memcpy(f->b, b, 8);
    if (oob) {
        f->b[1] = 9; /* 2 << 9: mask gives 2 << 1 = 4, saturate gives 0 */
    }
    memset(f->out, 0x11, 8);
    const void *in[2] = {f->a, f->b};
    memcpy(f->expected, f->out, 8);
    bitcts_ref_execute(&f->d, in, f->expected, BITCTS_SHIFT_POLICY_SATURATE);
    memcpy(f->expected_mask, f->out, 8);
    bitcts_ref_execute(&f->d, in, f->expected_mask, BITCTS_SHIFT_POLICY_MASK);
    bitcts_compare_poison(&f->d, f->expected, oob ? f->expected_mask : NULL, f->out);
    memcpy(f->before, f->out, 8);
}

static bitcts_case_result judge(fixture *f, int oob)
{
    static uint8_t a0[8], b0[8];
    memcpy(a0, (const uint8_t[8]){1, 2, 3, 0x81, 5, 6, 0, 0}, 8);
    memcpy(b0, (const uint8_t[8]){1, oob ? 9 : 1, 2, 3, 0, 7, 0, 0}, 8);
    bitcts_compare_args args = {.desc = &f->d,
                                .alias_input = -1,
                                .recorded = oob,
                                .inputs_before = {a0, b0},
                                .inputs_after = {f->a, f->b},
                                .output_before = f->before,
                                .output_after = f->out,
                                .expected = f->expected,
                                .expected_mask = oob ? f->expected_mask : NULL};
    for (int t = 0; t < 3; ++t) {
        args.guards[t] = (bitcts_compare_guard){.before = f->mem[t],
                                                .before_expect = f->guard,
                                                .before_len = GUARD,
                                                .after = f->mem[t] + GUARD + 8,
                                                .after_expect = f->guard + GUARD,
                                                .after_len = GUARD};
    }
    bitcts_case_result r;
    memset(&r, 0, sizeof r);
    CHECK(bitcts_compare_case(&args, &r) == 0);
    return r;
}

/* What a correct backend writes: the expected elements, padding untouched. */
static void correct(fixture *f, const uint8_t *expected)
{
    for (int row = 0; row < 2; ++row) {
        memcpy(f->out + 4 * row, expected + 4 * row, 3);
    }
}

static void teardown(fixture *f)
{
    free(f->before), free(f->expected), free(f->expected_mask);
}

int main(void)
{
    fixture f;
    setup(&f, 0);
    bitcts_case_result r = judge(&f, 0); /* nothing written: every element poisoned */
    CHECK_EQ_U64(r.verdict, BITCTS_VERDICT_FAIL);
    CHECK_EQ_U64(r.mismatches, 6);
    correct(&f, f.expected);
    r = judge(&f, 0);
    CHECK_EQ_STR(bitcts_verdict_name(r.verdict), "pass");
    f.out[5] ^= 0x40; /* element (1,1) */
    r = judge(&f, 0);
    CHECK_EQ_STR(bitcts_verdict_name(r.verdict), "fail");
    CHECK_EQ_U64(r.mismatches, 1);
    CHECK_EQ_U64(r.first_index, 4);
    CHECK(r.first_coords[0] == 1 && r.first_coords[1] == 1);
    CHECK_EQ_U64(r.first_inputs[0], 5);
    CHECK_EQ_U64(r.first_inputs[1], 0);
    CHECK_EQ_U64(r.first_expected, 5);
    CHECK_EQ_U64(r.first_actual, 0x45);
    CHECK(strstr(r.detail, "1 of 6 elements differ") != NULL);
    f.out[5] ^= 0x40;
    f.out[3] = 0x99; /* padding */
    r = judge(&f, 0);
    CHECK_EQ_STR(bitcts_verdict_name(r.verdict), "warn");
    CHECK(strstr(r.warning, "1 padding bytes") != NULL);
    f.out[3] = f.before[3];
    for (int v = 0; v < 256; ++v) { /* a spill of any byte value is caught: pass 1 or its twin */
        f.out[8] = (uint8_t)v;
        r = judge(&f, 0);
        const int same = (uint8_t)v == f.guard[GUARD];
        CHECK(same || r.verdict == BITCTS_VERDICT_FAIL);
        CHECK(same || strstr(r.detail, "wrote 1 bytes past the end of the Output buffer (bytes 8 "
                                       "to 8") != NULL);
        f.guard[GUARD] ^= 0xFF; /* the complementary pass: the same spill, the complement guard */
        r = judge(&f, 0);
        CHECK(!same || r.verdict == BITCTS_VERDICT_FAIL);
        f.guard[GUARD] ^= 0xFF;
        f.out[8] = f.guard[GUARD];
    }
    f.a[-1] ^= 0x5A; /* before A */
    f.b[2] ^= 1;     /* B changed */
    r = judge(&f, 0);
    CHECK(strstr(r.detail, "wrote 1 bytes before the A buffer (up to 1 bytes before") != NULL);
    CHECK(strstr(r.detail, "input B changed") != NULL);
    teardown(&f);
    /* Shift counts >= width: classified by policy, the in-range elements still asserted. */
    setup(&f, 1);
    correct(&f, f.expected);
    r = judge(&f, 1);
    CHECK_EQ_STR(bitcts_verdict_name(r.verdict), "recorded");
    CHECK_EQ_STR(r.policy, "saturate");
    correct(&f, f.expected_mask);
    r = judge(&f, 1);
    CHECK_EQ_STR(r.policy, "mask");
    f.out[1] = 0x77;
    r = judge(&f, 1);
    CHECK_EQ_STR(r.policy, "other");
    f.out[0] ^= 1; /* an in-range element wrong: a failure whatever the policy */
    r = judge(&f, 1);
    CHECK_EQ_STR(bitcts_verdict_name(r.verdict), "fail");
    teardown(&f);
    return check_exit();
}
