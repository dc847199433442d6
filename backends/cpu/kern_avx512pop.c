/* SPDX-License-Identifier: MIT */
/* The "avx512pop" variant: BIT_COUNT with the AVX-512 population-count instructions, VPOPCNTB/W
 * (BITALG) and VPOPCNTD/Q (VPOPCNTDQ), in kern_avx512_count.h's loop (narrowed to UINT8 with
 * packs and one permutation, widened to UINT32 with vpmovzx). Every other slot is NULL and comes
 * from "avx512". Built with -mavx512f -mavx512bw -mavx512vl -mavx512vpopcntdq -mavx512bitalg. */
#include <immintrin.h> /* AVX-512 intrinsics */

#include "cpu_features.h"
#include "cpu_kernels.h"
#include "kern_stamp.h"

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

/* Orders this variant's streaming stores (the caller fences once per range). */
static void ap_fence(void)
{
    _mm_sfence();
}

BITCTS__CPU_STAMP_VARIANT(avx512pop, a5,
                          BITCTS_CPU_FEAT_SSE2 | BITCTS_CPU_FEAT_AVX2 | BITCTS_CPU_FEAT_AVX512F |
                              BITCTS_CPU_FEAT_AVX512BW | BITCTS_CPU_FEAT_AVX512VL |
                              BITCTS_CPU_FEAT_AVX512VPOPCNTDQ | BITCTS_CPU_FEAT_AVX512BITALG,
                          40, ap_fence, NO_BITWISE, NO_SHIFTS, COUNT, NO_STREAM, NO_TRANSPOSE,
                          NO_SHAPED);
