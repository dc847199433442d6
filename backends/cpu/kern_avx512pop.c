/* SPDX-License-Identifier: MIT */
/* The "avx512pop" variant: BIT_COUNT with the AVX-512 population-count instructions, VPOPCNTB/W
 * (BITALG) and VPOPCNTD/Q (VPOPCNTDQ), in kern_avx512_count.h's loop (narrowed to UINT8 with
 * packs and one permutation, widened to UINT32 with vpmovzx). Every other slot is NULL and comes
 * from "avx512". Built with -mavx512f -mavx512bw -mavx512vl -mavx512vpopcntdq -mavx512bitalg. */
#include <immintrin.h> /* AVX-512 intrinsics */

#include "cpu_features.h"
#include "cpu_kernels.h"

/* Per-lane counts for kern_avx512_count.h: VPOPCNTB/W (BITALG), VPOPCNTD/Q (VPOPCNTDQ). */
BITCTS__CPU_INLINE __m512i a5_popcnt8(__m512i v)
{
    return _mm512_popcnt_epi8(v);
}

BITCTS__CPU_INLINE __m512i a5_popcnt16(__m512i v)
{
    return _mm512_popcnt_epi16(v);
}

BITCTS__CPU_INLINE __m512i a5_popcnt32(__m512i v)
{
    return _mm512_popcnt_epi32(v);
}

BITCTS__CPU_INLINE __m512i a5_popcnt64(__m512i v)
{
    return _mm512_popcnt_epi64(v);
}

#include "kern_avx512_count.h"

static void ap_cnt1o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(1, 1, o, a, n, f);
}
static void ap_cnt1o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(1, 4, o, a, n, f);
}
static void ap_cnt2o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(2, 1, o, a, n, f);
}
static void ap_cnt2o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(2, 4, o, a, n, f);
}
static void ap_cnt4o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(4, 1, o, a, n, f);
}
static void ap_cnt4o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(4, 4, o, a, n, f);
}
static void ap_cnt8o1(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(8, 1, o, a, n, f);
}
static void ap_cnt8o4(void *o, const void *a, const void *b, size_t n, uint32_t f)
{
    (void)b;
    a5_count(8, 4, o, a, n, f);
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
