/* SPDX-License-Identifier: MIT */
/* The "avx512pop" variant: BIT_COUNT with the AVX-512 population-count instructions, VPOPCNTB/W
 * (BITALG) and VPOPCNTD/Q (VPOPCNTDQ), narrowed to UINT8 with packs and one permutation or
 * widened to UINT32 with vpmovzx. Every other slot is NULL and comes from "avx512". Built with
 * -mavx512f -mavx512bw -mavx512vl -mavx512vpopcntdq -mavx512bitalg. The block code is
 * kern_avx512.c's with these counts in place of its table lookups. */
#include <immintrin.h> /* AVX-512 intrinsics */
#include <stdint.h>    /* uintptr_t */

#include "cpu_features.h"
#include "cpu_kernels.h"

/* Byte mask of the part of a `total`-byte span that falls in its 64-byte vector v. */
static inline __mmask64 ap_mask(size_t total, size_t v)
{
    if (total <= 64 * v) {
        return 0;
    }
    const size_t rem = total - 64 * v;
    return rem >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << rem) - 1);
}

/* Per-lane population counts: VPOPCNTB/W (BITALG), VPOPCNTD/Q (VPOPCNTDQ). */
BITCTS__CPU_INLINE __m512i ap_popcnt8(__m512i v)
{
    return _mm512_popcnt_epi8(v);
}

BITCTS__CPU_INLINE __m512i ap_popcnt16(__m512i v)
{
    return _mm512_popcnt_epi16(v);
}

BITCTS__CPU_INLINE __m512i ap_popcnt32(__m512i v)
{
    return _mm512_popcnt_epi32(v);
}

BITCTS__CPU_INLINE __m512i ap_popcnt64(__m512i v)
{
    return _mm512_popcnt_epi64(v);
}

/* Sixteen 32-bit counts per vector, in element order, narrowed to 64 bytes. packs/packus work
 * within 128-bit lanes; one dword permutation restores the order. */
BITCTS__CPU_INLINE __m512i ap_narrow32(__m512i c0, __m512i c1, __m512i c2, __m512i c3)
{
    const __m512i bytes =
        _mm512_packus_epi16(_mm512_packs_epi32(c0, c1), _mm512_packs_epi32(c2, c3));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_epi32(order, bytes);
}

/* The low dwords of the qwords of lo, then of hi: sixteen counts in element order. */
BITCTS__CPU_INLINE __m512i ap_even32(__m512i lo, __m512i hi)
{
    const __m512i even =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_epi32(lo, even, hi);
}

/* Bytes of a span left after `used` (0 when none). */
static inline size_t ap_left(size_t left, size_t used)
{
    return left > used ? left - used : 0;
}

/* 64 bytes, or the `left` bytes that remain with a masked load. Inside the main loop `left`
 * is SIZE_MAX and the test folds away. */
BITCTS__CPU_INLINE __m512i ap_load(const unsigned char *p, size_t left)
{
    return left >= 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8(ap_mask(left, 0), p);
}

BITCTS__CPU_INLINE void ap_store(unsigned char *p, __m512i v, size_t left, int nt)
{
    if (left < 64) {
        _mm512_mask_storeu_epi8(p, ap_mask(left, 0), v);
    } else if (nt) {
        _mm512_stream_si512((void *)p, v);
    } else {
        _mm512_storeu_si512(p, v);
    }
}

/* Four vectors of 16 UINT32 counts stored as UINT32 (ow 4) or narrowed to UINT8 (ow 1). */
BITCTS__CPU_INLINE void ap_store_counts32(uint32_t ow, unsigned char *o, __m512i c0, __m512i c1,
                                          __m512i c2, __m512i c3, size_t left, int nt)
{
    if (ow == 1) {
        ap_store(o, ap_narrow32(c0, c1, c2, c3), left, nt);
        return;
    }
    ap_store(o, c0, left, nt);
    ap_store(o + 64, c1, ap_left(left, 64), nt);
    ap_store(o + 128, c2, ap_left(left, 128), nt);
    ap_store(o + 192, c3, ap_left(left, 192), nt);
}

/* Counts of 64 elements: 64 * w input bytes at a (of which in_left remain), 64 * ow output
 * bytes at o (of which out_left may be written). Values stay in registers throughout: an
 * array-based version spilled every vector and ran at half speed from DRAM. */
BITCTS__CPU_INLINE void ap_count_block(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, size_t in_left, size_t out_left,
                                       int nt)
{
    if (w == 1) {
        const __m512i c = ap_popcnt8(ap_load(a, in_left));
        if (ow == 1) {
            ap_store(o, c, out_left, nt);
            return;
        }
        ap_store_counts32(4, o, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(c)),
                          _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 1)),
                          _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 2)),
                          _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 3)), out_left, nt);
    } else if (w == 2) {
        const __m512i c0 = ap_popcnt16(ap_load(a, in_left));
        const __m512i c1 = ap_popcnt16(ap_load(a + 64, ap_left(in_left, 64)));
        if (ow == 1) { /* packus interleaves 64-bit halves of the 128-bit lanes */
            const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
            ap_store(o, _mm512_permutexvar_epi64(order, _mm512_packus_epi16(c0, c1)), out_left, nt);
            return;
        }
        ap_store_counts32(4, o, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(c0)),
                          _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(c0, 1)),
                          _mm512_cvtepu16_epi32(_mm512_castsi512_si256(c1)),
                          _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(c1, 1)), out_left, nt);
    } else if (w == 4) {
        ap_store_counts32(ow, o, ap_popcnt32(ap_load(a, in_left)),
                          ap_popcnt32(ap_load(a + 64, ap_left(in_left, 64))),
                          ap_popcnt32(ap_load(a + 128, ap_left(in_left, 128))),
                          ap_popcnt32(ap_load(a + 192, ap_left(in_left, 192))), out_left, nt);
    } else {
        const __m512i q0 = ap_popcnt64(ap_load(a, in_left));
        const __m512i q1 = ap_popcnt64(ap_load(a + 64, ap_left(in_left, 64)));
        const __m512i q2 = ap_popcnt64(ap_load(a + 128, ap_left(in_left, 128)));
        const __m512i q3 = ap_popcnt64(ap_load(a + 192, ap_left(in_left, 192)));
        const __m512i q4 = ap_popcnt64(ap_load(a + 256, ap_left(in_left, 256)));
        const __m512i q5 = ap_popcnt64(ap_load(a + 320, ap_left(in_left, 320)));
        const __m512i q6 = ap_popcnt64(ap_load(a + 384, ap_left(in_left, 384)));
        const __m512i q7 = ap_popcnt64(ap_load(a + 448, ap_left(in_left, 448)));
        ap_store_counts32(ow, o, ap_even32(q0, q1), ap_even32(q2, q3), ap_even32(q4, q5),
                          ap_even32(q6, q7), out_left, nt);
    }
}

BITCTS__CPU_INLINE void ap_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n,
                                 uint32_t flags)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    size_t i = 0;
    int nt = 0;
    if (flags & BITCTS__CPU_F_NT) {
        const size_t head_bytes = (64 - ((uintptr_t)po & 63)) & 63;
        if (head_bytes % ow == 0) {
            nt = 1;
            i = head_bytes / ow < n ? head_bytes / ow : n;
            if (i > 0) {
                ap_count_block(w, ow, po, pa, i * w, i * ow, 0);
            }
        }
    }
    for (; i + 64 <= n; i += 64) {
        ap_count_block(w, ow, po + i * ow, pa + i * w, SIZE_MAX, SIZE_MAX, nt);
    }
    if (i < n) {
        ap_count_block(w, ow, po + i * ow, pa + i * w, (n - i) * w, (n - i) * ow, 0);
    }
}

static void ap_cnt1o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(1, 1, o, a, n, f);
}
static void ap_cnt1o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(1, 4, o, a, n, f);
}
static void ap_cnt2o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(2, 1, o, a, n, f);
}
static void ap_cnt2o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(2, 4, o, a, n, f);
}
static void ap_cnt4o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(4, 1, o, a, n, f);
}
static void ap_cnt4o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(4, 4, o, a, n, f);
}
static void ap_cnt8o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(8, 1, o, a, n, f);
}
static void ap_cnt8o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    ap_count(8, 4, o, a, n, f);
}

/* Orders this variant's streaming stores (the caller fences once per range). */
static void ap_fence(void)
{
    _mm_sfence();
}

const bitcts__cpu_variant bitcts__cpu_variant_avx512pop = {
    .name = "avx512pop",
    .required = BITCTS_CPU_FEAT_SSE2 | BITCTS_CPU_FEAT_AVX2 | BITCTS_CPU_FEAT_AVX512F |
                BITCTS_CPU_FEAT_AVX512BW | BITCTS_CPU_FEAT_AVX512VL |
                BITCTS_CPU_FEAT_AVX512VPOPCNTDQ | BITCTS_CPU_FEAT_AVX512BITALG,
    .priority = 40,
    .kernels =
        {
            .count = {{ap_cnt1o1, ap_cnt1o4},
                      {ap_cnt2o1, ap_cnt2o4},
                      {ap_cnt4o1, ap_cnt4o4},
                      {ap_cnt8o1, ap_cnt8o4}},
            .nt_fence = ap_fence,
        },
};
