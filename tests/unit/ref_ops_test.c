/* SPDX-License-Identifier: MIT */
/* The reference against an independent per-bit formulation of every operator, the spec's
 * examples, shift policies, strided / broadcast / in-place layouts computed independently by
 * coordinates, and float specials bit-exact through NOT then NOT. */
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "ref_ops.h"

static uint64_t rng_state = 0x1234567887654321ull;
static uint64_t next_random(void) /* xorshift64*: independent of the suite's generator */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static int bit(uint64_t v, int i)
{
    return i >= 0 && i < 64 ? (int)((v >> i) & 1) : 0;
}

/* The operators one bit at a time (spec 1.4): a different formulation from the reference. */
static uint64_t per_bit(uint32_t op, uint32_t width, uint64_t a, uint64_t b)
{
    uint64_t out = 0;
    if (op == BITCTS_OP_BIT_COUNT) {
        for (int i = 0; i < (int)width; ++i) {
            out += (uint64_t)bit(a, i);
        }
        return out;
    }
    for (int i = 0; i < (int)width; ++i) {
        int r = 0;
        switch (op) {
        case BITCTS_OP_BIT_AND: r = bit(a, i) && bit(b, i); break;
        case BITCTS_OP_BIT_OR: r = bit(a, i) || bit(b, i); break;
        case BITCTS_OP_BIT_XOR: r = bit(a, i) != bit(b, i); break;
        case BITCTS_OP_BIT_NOT: r = !bit(a, i); break;
        case BITCTS_OP_BIT_SHIFT_LEFT: r = bit(a, i - (int)b); break; /* b < width */
        case BITCTS_OP_BIT_SHIFT_RIGHT: r = i + (int)b < (int)width && bit(a, i + (int)b); break;
        default: break;
        }
        out |= (uint64_t)r << i;
    }
    return out;
}

static void test_per_bit(void)
{
    static const uint32_t widths[4] = {8, 16, 32, 64};
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
        const uint32_t op = bitcts_op_all[o];
        for (int w = 0; w < 4; ++w) {
            const uint32_t width = widths[w];
            const uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
            for (int n = 0; n < 3000; ++n) {
                const uint64_t a = next_random() & mask;
                uint64_t b = next_random() & mask;
                if (bitcts_op_is_shift(op)) {
                    b %= width;
                }
                const uint64_t want = per_bit(op, width, a, b);
                const uint64_t got = bitcts_ref_element(op, width, a, b, BITCTS_SHIFT_POLICY_MASK);
                if (got != want) {
                    CHECK_EQ_U64(got, want);
                    break;
                }
                /* Bits above the width must not leak in. */
                CHECK_EQ_U64(bitcts_ref_element(op, width, a | ~mask, b, BITCTS_SHIFT_POLICY_MASK),
                             want);
            }
        }
    }
}

static void test_shift_policies(void)
{
    const uint32_t SHL = BITCTS_OP_BIT_SHIFT_LEFT, SHR = BITCTS_OP_BIT_SHIFT_RIGHT;
    CHECK_EQ_U64(bitcts_ref_element(SHL, 32, 1, 33, BITCTS_SHIFT_POLICY_MASK), 2);
    CHECK_EQ_U64(bitcts_ref_element(SHL, 32, 1, 33, BITCTS_SHIFT_POLICY_SATURATE), 0);
    CHECK_EQ_U64(bitcts_ref_element(SHR, 8, 0x81, 9, BITCTS_SHIFT_POLICY_MASK), 0x40);
    CHECK_EQ_U64(bitcts_ref_element(SHR, 8, 0x81, 9, BITCTS_SHIFT_POLICY_SATURATE), 0);
    CHECK_EQ_U64(bitcts_ref_element(SHL, 64, 3, 64, BITCTS_SHIFT_POLICY_MASK), 3);
    CHECK_EQ_U64(bitcts_ref_element(SHL, 64, 3, 63, BITCTS_SHIFT_POLICY_SATURATE), 1ull << 63);
    CHECK_EQ_U64(bitcts_ref_element(SHL, 16, 0xFFFF, 15, BITCTS_SHIFT_POLICY_SATURATE), 0x8000);
    CHECK_EQ_U64(bitcts_ref_element(SHR, 16, 0xFFFF, 0xFFFF, BITCTS_SHIFT_POLICY_MASK), 1);
    CHECK_EQ_U64(bitcts_ref_element(SHR, 16, 0x8000, 0, BITCTS_SHIFT_POLICY_SATURATE), 0x8000);
}

/* Runs the reference on a packed 1-D tensor. */
static void run_packed(uint32_t op, uint32_t in_type, uint32_t out_type, uint32_t n, const void *a,
                       const void *b, void *out)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.input_count = bitcts_op_input_count(op);
    bitcts_tensor_make_packed(in_type, 1, &n, &d.inputs[0]);
    bitcts_tensor_make_packed(in_type, 1, &n, &d.inputs[1]);
    bitcts_tensor_make_packed(out_type, 1, &n, &d.output);
    const void *in[2] = {a, b};
    CHECK_EQ_U64(bitcts_ref_execute(&d, in, out, BITCTS_SHIFT_POLICY_SATURATE), BITCTS_OK);
}

static void test_doc_examples(void)
{
    /* [NOT] UINT8 {0,128,42,255} -> {255,127,213,0}. */
    const uint8_t not_in[4] = {0, 128, 42, 255};
    uint8_t not_out[4];
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4, not_in, NULL, not_out);
    CHECK(not_out[0] == 255 && not_out[1] == 127 && not_out[2] == 213 && not_out[3] == 0);
    /* [COUNT] UINT32 {0,123,456,789} -> {0,6,4,5}. */
    const uint32_t cnt_in[4] = {0, 123, 456, 789};
    uint32_t cnt_out[4];
    run_packed(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 4, cnt_in, NULL, cnt_out);
    CHECK(cnt_out[0] == 0 && cnt_out[1] == 6 && cnt_out[2] == 4 && cnt_out[3] == 5);
    /* Spec 1.6: INT8 -1 -> 8, FLOAT32 -0.0 -> 1, FLOAT16 +inf -> 5 (UINT8 outputs). */
    const uint8_t m1 = 0xFF;
    uint8_t c = 0;
    run_packed(BITCTS_OP_BIT_COUNT, BITCTS_DT_INT8, BITCTS_DT_UINT8, 1, &m1, NULL, &c);
    CHECK_EQ_U64(c, 8);
    const uint32_t negzero = 0x80000000u;
    run_packed(BITCTS_OP_BIT_COUNT, BITCTS_DT_FLOAT32, BITCTS_DT_UINT8, 1, &negzero, NULL, &c);
    CHECK_EQ_U64(c, 1);
    const uint16_t inf16 = 0x7C00;
    run_packed(BITCTS_OP_BIT_COUNT, BITCTS_DT_FLOAT16, BITCTS_DT_UINT8, 1, &inf16, NULL, &c);
    CHECK_EQ_U64(c, 5);
    /* bitcts's own XOR example (docs/spec/operators.md). */
    const uint8_t xa[4] = {0, 128, 42, 255}, xb[4] = {255, 128, 15, 1};
    uint8_t xo[4];
    run_packed(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4, xa, xb, xo);
    CHECK(xo[0] == 255 && xo[1] == 0 && xo[2] == 37 && xo[3] == 254);
}

static void test_float_specials(void)
{
    static const uint16_t h[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7E01, 0x7C01,
                                 0xFD55, 0x0001, 0x03FF, 0x8001, 0x0400, 0x7BFF};
    static const uint32_t f[] = {0,           0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                 0x7FC12345u, 0x7F800001u, 0xFFA00001u, 1,           0x007FFFFFu,
                                 0x80000001u, 0x00800000u, 0x7F7FFFFFu};
    static const uint64_t g[] = {0,
                                 0x8000000000000000ull,
                                 0x7FF0000000000000ull,
                                 0x7FF8000000000001ull,
                                 0x7FF0000000000001ull,
                                 1,
                                 0x000FFFFFFFFFFFFFull,
                                 0xFFF4000000000000ull};
    const size_t nh = sizeof h / sizeof h[0], nf = sizeof f / sizeof f[0];
    const size_t ng = sizeof g / sizeof g[0];
    uint16_t h1[16], h2[16], hones[16], hand[16];
    uint32_t f1[16], f2[16];
    uint64_t g1[16], g2[16];
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT16, BITCTS_DT_FLOAT16, (uint32_t)nh, h, NULL, h1);
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT16, BITCTS_DT_FLOAT16, (uint32_t)nh, h1, NULL, h2);
    for (size_t i = 0; i < nh; ++i) {
        hones[i] = 0xFFFF;
    }
    run_packed(BITCTS_OP_BIT_AND, BITCTS_DT_FLOAT16, BITCTS_DT_FLOAT16, (uint32_t)nh, h, hones,
               hand);
    for (size_t i = 0; i < nh; ++i) {
        CHECK_EQ_U64(h1[i], (uint16_t)~h[i]);
        CHECK_EQ_U64(h2[i], h[i]);
        CHECK_EQ_U64(hand[i], h[i]);
    }
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT32, BITCTS_DT_FLOAT32, (uint32_t)nf, f, NULL, f1);
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT32, BITCTS_DT_FLOAT32, (uint32_t)nf, f1, NULL, f2);
    for (size_t i = 0; i < nf; ++i) {
        CHECK_EQ_U64(f1[i], ~f[i]);
        CHECK_EQ_U64(f2[i], f[i]);
    }
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT64, BITCTS_DT_FLOAT64, (uint32_t)ng, g, NULL, g1);
    run_packed(BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT64, BITCTS_DT_FLOAT64, (uint32_t)ng, g1, NULL, g2);
    for (size_t i = 0; i < ng; ++i) {
        CHECK_EQ_U64(g1[i], ~g[i]);
        CHECK_EQ_U64(g2[i], g[i]);
    }
}

/* Independent strided evaluation: offsets from coordinates as a dot product. */
static uint64_t offset_of(const bitcts_tensor_desc *t, const uint32_t *coord)
{
    uint64_t off = 0;
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        off += (uint64_t)coord[k] * bitcts_tensor_stride(t, k);
    }
    return off;
}

static void test_layouts(void)
{
    /* XOR uint16, sizes {3,4,5}: A transposed, B broadcast on dim 1, output padded rows. */
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = BITCTS_OP_BIT_XOR;
    d.input_count = 2;
    const uint32_t sizes[3] = {3, 4, 5};
    const uint32_t sa[3] = {1, 15, 3}, sb[3] = {5, 0, 1}, so[3] = {32, 8, 1};
    bitcts_tensor_desc *t[3] = {&d.inputs[0], &d.inputs[1], &d.output};
    const uint32_t *st[3] = {sa, sb, so};
    for (int i = 0; i < 3; ++i) {
        t[i]->data_type = BITCTS_DT_UINT16;
        t[i]->dimension_count = 3;
        t[i]->has_strides = 1;
        memcpy(t[i]->sizes, sizes, sizeof sizes);
        memcpy(t[i]->strides, st[i], sizeof sizes);
        bitcts_tensor_calc_buffer_size(t[i], &t[i]->total_tensor_size_in_bytes);
    }
    uint16_t a[64], b[64], out[128], before[128];
    for (int i = 0; i < 64; ++i) {
        a[i] = (uint16_t)next_random(), b[i] = (uint16_t)next_random();
    }
    for (int i = 0; i < 128; ++i) {
        out[i] = before[i] = (uint16_t)next_random();
    }
    const void *in[2] = {a, b};
    CHECK_EQ_U64(bitcts_ref_execute(&d, in, out, BITCTS_SHIFT_POLICY_SATURATE), BITCTS_OK);
    int written[128] = {0};
    uint32_t c[3];
    for (c[0] = 0; c[0] < 3; ++c[0]) {
        for (c[1] = 0; c[1] < 4; ++c[1]) {
            for (c[2] = 0; c[2] < 5; ++c[2]) {
                const uint64_t o = offset_of(&d.output, c);
                CHECK_EQ_U64(out[o], a[offset_of(&d.inputs[0], c)] ^ b[offset_of(&d.inputs[1], c)]);
                written[o] = 1;
            }
        }
    }
    for (int i = 0; i < 128; ++i) { /* padding untouched */
        if (!written[i]) {
            CHECK_EQ_U64(out[i], before[i]);
        }
    }
    /* In place: NOT uint8 over a padded layout, output aliasing the input. */
    bitcts_op_desc u;
    memset(&u, 0, sizeof u);
    u.op = BITCTS_OP_BIT_NOT;
    u.input_count = 1;
    const uint32_t us[2] = {4, 6}, ust[2] = {9, 1};
    u.inputs[0].data_type = BITCTS_DT_UINT8;
    u.inputs[0].dimension_count = 2;
    u.inputs[0].has_strides = 1;
    memcpy(u.inputs[0].sizes, us, sizeof us);
    memcpy(u.inputs[0].strides, ust, sizeof ust);
    bitcts_tensor_calc_buffer_size(&u.inputs[0], &u.inputs[0].total_tensor_size_in_bytes);
    u.output = u.inputs[0];
    uint8_t buf[64], orig[64];
    for (int i = 0; i < 64; ++i) {
        buf[i] = orig[i] = (uint8_t)next_random();
    }
    const void *uin[1] = {buf};
    CHECK_EQ_U64(bitcts_ref_execute(&u, uin, buf, BITCTS_SHIFT_POLICY_SATURATE), BITCTS_OK);
    for (int i = 0; i < 64; ++i) {
        const int element = i < 4 * 9 && (i % 9) < 6;
        CHECK_EQ_U64(buf[i], element ? (uint8_t)~orig[i] : orig[i]);
    }
    /* An invalid description is refused. */
    u.output.has_strides = 1;
    u.output.strides[0] = 0;
    CHECK_EQ_U64(bitcts_ref_execute(&u, uin, buf, BITCTS_SHIFT_POLICY_SATURATE),
                 BITCTS_E_INVALID_DESCRIPTOR);
}

int main(void)
{
    test_per_bit();
    test_shift_policies();
    test_doc_examples();
    test_float_specials();
    test_layouts();
    return check_exit();
}
