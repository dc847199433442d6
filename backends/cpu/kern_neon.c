/* SPDX-License-Identifier: MIT */
/* The "neon" variant (AArch64 Advanced SIMD): 128-bit inner loops for every operator. Shifts
 * use USHL with the count clamped to the width (USHL by >= the width gives 0, and a negative
 * count shifts right), so counts >= width give 0 as in every variant. BIT_COUNT uses CNT and
 * pairwise widening adds. Compiled only for aarch64; tails are finished element by element. */
#include <arm_neon.h> /* NEON intrinsics */
#include <stdint.h>   /* uint8_t .. uint64_t */
#include <string.h>   /* memcpy */

#include "cpu_features.h"
#include "cpu_kernels.h"
#include "kern_loops.h"
#include "kern_stamp.h"

/* Shift counts clamped to the width: USHL then gives 0 for the clamped (out-of-range) counts. */
BITCTS__CPU_INLINE uint8x16_t ne_shift(int op, uint8x16_t x, uint8x16_t c)
{
    switch (op) {
    case BITCTS__CPU_KOP_SHL8:
    case BITCTS__CPU_KOP_SHR8: {
        const int8x16_t s = vreinterpretq_s8_u8(vminq_u8(c, vdupq_n_u8(8)));
        return vshlq_u8(x, op == BITCTS__CPU_KOP_SHL8 ? s : vnegq_s8(s));
    }
    case BITCTS__CPU_KOP_SHL16:
    case BITCTS__CPU_KOP_SHR16: {
        const uint16x8_t cc = vminq_u16(vreinterpretq_u16_u8(c), vdupq_n_u16(16));
        const int16x8_t s = vreinterpretq_s16_u16(cc);
        return vreinterpretq_u8_u16(
            vshlq_u16(vreinterpretq_u16_u8(x), op == BITCTS__CPU_KOP_SHL16 ? s : vnegq_s16(s)));
    }
    case BITCTS__CPU_KOP_SHL32:
    case BITCTS__CPU_KOP_SHR32: {
        const uint32x4_t cc = vminq_u32(vreinterpretq_u32_u8(c), vdupq_n_u32(32));
        const int32x4_t s = vreinterpretq_s32_u32(cc);
        return vreinterpretq_u8_u32(
            vshlq_u32(vreinterpretq_u32_u8(x), op == BITCTS__CPU_KOP_SHL32 ? s : vnegq_s32(s)));
    }
    default: {
        const uint64x2_t c64 = vreinterpretq_u64_u8(c);
        const uint64x2_t big = vcgtq_u64(c64, vdupq_n_u64(63));
        const int64x2_t s = vreinterpretq_s64_u64(vbslq_u64(big, vdupq_n_u64(64), c64));
        return vreinterpretq_u8_u64(
            vshlq_u64(vreinterpretq_u64_u8(x), op == BITCTS__CPU_KOP_SHL64 ? s : vnegq_s64(s)));
    }
    }
}

BITCTS__CPU_INLINE uint8x16_t ne_apply(int op, uint8x16_t x, uint8x16_t y)
{
    switch (op) {
    case BITCTS__CPU_KOP_AND: return vandq_u8(x, y);
    case BITCTS__CPU_KOP_OR: return vorrq_u8(x, y);
    case BITCTS__CPU_KOP_XOR: return veorq_u8(x, y);
    case BITCTS__CPU_KOP_NOT: return vmvnq_u8(x);
    case BITCTS__CPU_KOP_COPY: return x;
    default: return ne_shift(op, x, y);
    }
}

/* One element of any operator, for the tails (little-endian loads of w bytes). */
static uint64_t ne_element(int op, uint32_t w, const unsigned char *a, const unsigned char *b)
{
    uint64_t x = 0;
    uint64_t y = 0;
    memcpy(&x, a, w);
    memcpy(&y, b, w);
    const uint32_t bits = 8 * w;
    const uint64_t mask = bits == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << bits) - 1);
    switch (op) {
    case BITCTS__CPU_KOP_AND: return x & y;
    case BITCTS__CPU_KOP_OR: return x | y;
    case BITCTS__CPU_KOP_XOR: return x ^ y;
    case BITCTS__CPU_KOP_NOT: return ~x & mask;
    case BITCTS__CPU_KOP_COPY: return x;
    case BITCTS__CPU_KOP_SHL8:
    case BITCTS__CPU_KOP_SHL16:
    case BITCTS__CPU_KOP_SHL32:
    case BITCTS__CPU_KOP_SHL64: return y >= bits ? 0 : (x << y) & mask;
    default: return y >= bits ? 0 : x >> y;
    }
}

/* A scalar operand becomes a 32-byte pattern (two periods of 16) read at (j & 15). */
BITCTS__CPU_INLINE void ne_binary(int op, uint32_t w, void *out, const void *a, const void *b,
                                  size_t n, uint32_t flags)
{
    unsigned char pattern[32];
    const bitcts__cpu_operands ops = bitcts__cpu_operands_of(w, 16, 0, pattern, a, b, flags);
    unsigned char *po = out;
    const size_t nbytes = n * w;
    size_t j = 0;
    for (; j + 16 <= nbytes; j += 16) {
        const uint8x16_t x = vld1q_u8(ops.a + (j & ops.amask));
        const uint8x16_t y = vld1q_u8(ops.b + (j & ops.bmask));
        vst1q_u8(po + j, ne_apply(op, x, y));
    }
    for (; j < nbytes; j += w) {
        const uint64_t r = ne_element(op, w, ops.a + (j & ops.amask), ops.b + (j & ops.bmask));
        memcpy(po + j, &r, w);
    }
}

/* Counts of the 16 / w elements of one 16-byte block, stored as UINT8 (ow 1) or UINT32 (ow 4). */
BITCTS__CPU_INLINE void ne_count_block(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, int nt)
{
    (void)nt; /* never set: ne_count passes no NT flag */
    const uint8x16_t c8 = vcntq_u8(vld1q_u8(a));
    const uint16x8_t c16 = vpaddlq_u8(c8);
    const uint32x4_t c32 = vpaddlq_u16(c16);
    const uint64x2_t c64 = vpaddlq_u32(c32);
    if (w == 1 && ow == 1) {
        vst1q_u8(o, c8);
    } else if (w == 1) {
        const uint16x8_t lo = vmovl_u8(vget_low_u8(c8));
        const uint16x8_t hi = vmovl_u8(vget_high_u8(c8));
        vst1q_u8(o, vreinterpretq_u8_u32(vmovl_u16(vget_low_u16(lo))));
        vst1q_u8(o + 16, vreinterpretq_u8_u32(vmovl_u16(vget_high_u16(lo))));
        vst1q_u8(o + 32, vreinterpretq_u8_u32(vmovl_u16(vget_low_u16(hi))));
        vst1q_u8(o + 48, vreinterpretq_u8_u32(vmovl_u16(vget_high_u16(hi))));
    } else if (w == 2 && ow == 1) {
        vst1_u8(o, vmovn_u16(c16));
    } else if (w == 2) {
        vst1q_u8(o, vreinterpretq_u8_u32(vmovl_u16(vget_low_u16(c16))));
        vst1q_u8(o + 16, vreinterpretq_u8_u32(vmovl_u16(vget_high_u16(c16))));
    } else if (w == 4 && ow == 4) {
        vst1q_u8(o, vreinterpretq_u8_u32(c32));
    } else if (w == 4) {
        const uint8x8_t n8 = vmovn_u16(vcombine_u16(vmovn_u32(c32), vdup_n_u16(0)));
        const uint32_t v = vget_lane_u32(vreinterpret_u32_u8(n8), 0);
        memcpy(o, &v, 4);
    } else if (ow == 4) {
        vst1_u8(o, vreinterpret_u8_u32(vmovn_u64(c64)));
    } else {
        o[0] = (unsigned char)vgetq_lane_u64(c64, 0);
        o[1] = (unsigned char)vgetq_lane_u64(c64, 1);
    }
}

/* ne_count: 16-byte blocks (NEON has no streaming store), then the tail. */
BITCTS__CPU_COUNT_16(ne)

/* Two words of the triad (NEON has no streaming store: nt is ignored). */
BITCTS__CPU_INLINE void ne_triad_pair(unsigned char *o, const unsigned char *a,
                                      const unsigned char *b, int nt)
{
    (void)nt;
    const uint64x2_t x = vreinterpretq_u64_u8(vld1q_u8(a));
    const uint64x2_t y = vreinterpretq_u64_u8(vld1q_u8(b));
    vst1q_u8(o, vreinterpretq_u8_u64(vaddq_u64(x, vaddq_u64(y, vaddq_u64(y, y)))));
}

/* The streaming limit out = a + 3 * b (n uint64 words). */
static void ne_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    (void)flags;
    bitcts__cpu_triad_pairs(out, a, b, n, 0, ne_triad_pair);
}

/* No transpose (the walk gathers in portable C) and no fence (no streaming stores). */
BITCTS__CPU_STAMP_VARIANT(neon, ne, BITCTS_CPU_FEAT_NEON, 10, NULL, BITWISE, SHIFTS, COUNT, STREAM,
                          NO_TRANSPOSE, NO_SHAPED);
