/* SPDX-License-Identifier: MIT */
/* The "avx512" variant (AVX-512 F+BW+VL): 512-bit inner loops for every operator, with heads
 * and tails done by byte-masked loads and stores. Shifts use vpsllv/vpsrlv (w/d/q), which
 * zero-fill counts >= the lane width; 8-bit elements are shifted as the two halves of 16-bit
 * lanes. BIT_COUNT is kern_avx512_count.h's loop over nibble vpshufb table counts widened with
 * maddubs/madd/sad (kern_avx512pop.c runs the same loop on VPOPCNT). Built with -mavx512f
 * -mavx512bw -mavx512vl. */
#include <immintrin.h> /* AVX-512 intrinsics */
#include <stdint.h>    /* uintptr_t */

#include "cpu_features.h"
#include "cpu_kernels.h"
#include "kern_loops.h"
#include "kern_stamp.h"

/* Per-lane counts for kern_avx512_count.h: bytes through the nibble table, wider lanes by
 * summing them. */
BITCTS__CPU_INLINE __m512i a5_popcnt8(__m512i v)
{
    const __m512i lut =
        _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i nib = _mm512_set1_epi8(0x0F);
    const __m512i lo = _mm512_shuffle_epi8(lut, _mm512_and_si512(v, nib));
    const __m512i hi = _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(v, 4), nib));
    return _mm512_add_epi8(lo, hi);
}

BITCTS__CPU_INLINE __m512i a5_popcnt16(__m512i v)
{
    return _mm512_maddubs_epi16(a5_popcnt8(v), _mm512_set1_epi8(1));
}

BITCTS__CPU_INLINE __m512i a5_popcnt32(__m512i v)
{
    return _mm512_madd_epi16(a5_popcnt16(v), _mm512_set1_epi16(1));
}

BITCTS__CPU_INLINE __m512i a5_popcnt64(__m512i v)
{
    return _mm512_sad_epu8(a5_popcnt8(v), _mm512_setzero_si512());
}

#include "kern_avx512_count.h"

/* The width-agnostic parts, kern_x86_wide.h, on 512-bit vectors: 8-bit elements are shifted as
 * the halves of 16-bit lanes; 16-bit elements have vpsllvw/vpsrlvw. */
#define KW_PREFIX a5
#define KW_BITS 512
#define KW_HALF_LANE 16
#define KW_NOT(x) _mm512_ternarylogic_epi64(x, x, x, 0x55)
#define KW_SHIFT8(left, x, y) kw_half_shift(left, x, y)
#define KW_SHIFT16(left, x, y) ((left) ? _mm512_sllv_epi16(x, y) : _mm512_srlv_epi16(x, y))
#define KW_STORE_LANES(d, step, v)                                                                 \
    do {                                                                                           \
        _mm_storeu_si128((__m128i *)(d), _mm512_castsi512_si128(v));                               \
        _mm_storeu_si128((__m128i *)((d) + (step)), _mm512_extracti32x4_epi32(v, 1));              \
        _mm_storeu_si128((__m128i *)((d) + 2 * (step)), _mm512_extracti32x4_epi32(v, 2));          \
        _mm_storeu_si128((__m128i *)((d) + 3 * (step)), _mm512_extracti32x4_epi32(v, 3));          \
    } while (0)

#include "kern_x86_wide.h"

/* Up to 64 bytes at offset j with masked loads and stores: heads and tails. */
BITCTS__CPU_INLINE void a5_partial(int op, unsigned char *o, bitcts__cpu_operands ops, size_t j,
                                   size_t len)
{
    const __mmask64 m = a5_mask(len, 0);
    const __m512i x = _mm512_maskz_loadu_epi8(m, ops.a + (j & ops.amask));
    const __m512i y = _mm512_maskz_loadu_epi8(m, ops.b + (j & ops.bmask));
    _mm512_mask_storeu_epi8(o + j, m, kw_apply(op, x, y));
}

/* The same-width loop with ordinary stores, two vectors at a time and then one; returns where
 * it stopped. */
BITCTS__CPU_INLINE size_t a5_plain(int op, unsigned char *po, bitcts__cpu_operands ops,
                                   size_t nbytes)
{
    size_t j = 0;
    for (; j + 128 <= nbytes; j += 128) {
        const __m512i x0 = _mm512_loadu_si512(ops.a + (j & ops.amask));
        const __m512i y0 = _mm512_loadu_si512(ops.b + (j & ops.bmask));
        const __m512i x1 = _mm512_loadu_si512(ops.a + ((j + 64) & ops.amask));
        const __m512i y1 = _mm512_loadu_si512(ops.b + ((j + 64) & ops.bmask));
        _mm512_storeu_si512(po + j, kw_apply(op, x0, y0));
        _mm512_storeu_si512(po + j + 64, kw_apply(op, x1, y1));
    }
    if (j + 64 <= nbytes) {
        a5_partial(op, po, ops, j, 64);
        j += 64;
    }
    return j;
}

/* ---- stream limits ---- */

static void a5_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    const unsigned char *pb = b;
    const size_t i = kw_triad_vectors(po, pa, pb, n, flags);
    if (i < n) {
        const __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        const __m512i x = _mm512_maskz_loadu_epi64(m, pa + 8 * i);
        const __m512i y = _mm512_maskz_loadu_epi64(m, pb + 8 * i);
        const __m512i r = _mm512_add_epi64(x, _mm512_add_epi64(y, _mm512_add_epi64(y, y)));
        _mm512_mask_storeu_epi64(po + 8 * i, m, r);
    }
}

/* ---- transposes (the walk's gather of a transposed operand): kern_x86_wide.h's block ---- */

/* Groups of 16 / w lines, 64 bytes at a time. */
BITCTS__CPU_INLINE size_t a5_transpose(uint32_t w, void *dst, size_t ds, const void *src, size_t ss,
                                       size_t lines, size_t len)
{
    return bitcts__cpu_transpose_groups(w, 64, kw_tr_block, dst, ds, src, ss, lines, len);
}

/* Orders this variant's streaming stores (the caller fences once per range). */
static void a5_fence(void)
{
    _mm_sfence();
}

BITCTS__CPU_STAMP_VARIANT(avx512, a5,
                          BITCTS_CPU_FEAT_SSE2 | BITCTS_CPU_FEAT_AVX2 | BITCTS_CPU_FEAT_AVX512F |
                              BITCTS_CPU_FEAT_AVX512BW | BITCTS_CPU_FEAT_AVX512VL,
                          30, a5_fence, BITWISE, SHIFTS, COUNT, STREAM, TRANSPOSE, SHAPED);
