/* SPDX-License-Identifier: MIT */
/* The "avx2" variant: 256-bit inner loops for every operator. Shifts use vpsllv/vpsrlv, which
 * zero-fill counts >= the lane width; 8- and 16-bit elements are shifted inside 32-bit lanes one
 * sub-lane at a time with masks. BIT_COUNT uses the nibble pshufb table, widened with maddubs,
 * madd and sad. Built with -mavx2 only; tails go through a zero-padded local vector. */
#include <immintrin.h> /* AVX2 intrinsics */
#include <stdint.h>    /* uintptr_t */
#include <string.h>    /* memcpy */

#include "cpu_features.h"
#include "cpu_kernels.h"
#include "kern_loops.h"
#include "kern_stamp.h"

/* 8-bit elements: byte k of every 32-bit lane is isolated, shifted as a 32-bit lane and masked
 * back, so bits never cross into a neighbour and counts >= 8 leave nothing in the byte. */
BITCTS__CPU_INLINE __m256i a2_shift8(int left, __m256i x, __m256i c)
{
    const __m256i byte = _mm256_set1_epi32(0xFF);
    __m256i r = _mm256_setzero_si256();
    for (int k = 0; k < 4; ++k) {
        const __m256i m = _mm256_slli_epi32(byte, 8 * k);
        const __m256i ck = _mm256_and_si256(_mm256_srli_epi32(c, 8 * k), byte);
        const __m256i xk = _mm256_and_si256(x, m);
        const __m256i s = left ? _mm256_sllv_epi32(xk, ck) : _mm256_srlv_epi32(xk, ck);
        r = _mm256_or_si256(r, _mm256_and_si256(s, m));
    }
    return r;
}

/* The width-agnostic parts, kern_x86_wide.h, on 256-bit vectors: 16-bit elements are shifted
 * as the halves of 32-bit lanes. */
#define KW_PREFIX a2
#define KW_BITS 256
#define KW_HALF_LANE 32
#define KW_NOT(x) _mm256_xor_si256(x, _mm256_set1_epi32(-1))
#define KW_SHIFT8(left, x, y) a2_shift8(left, x, y)
#define KW_SHIFT16(left, x, y) kw_half_shift(left, x, y)
#define KW_STORE_LANES(d, step, v)                                                                 \
    do {                                                                                           \
        _mm_storeu_si128((__m128i *)(d), _mm256_castsi256_si128(v));                               \
        _mm_storeu_si128((__m128i *)((d) + (step)), _mm256_extracti128_si256(v, 1));               \
    } while (0)

#include "kern_x86_wide.h"

/* Fewer than 32 bytes at offset j, through zero-padded local vectors. */
BITCTS__CPU_INLINE void a2_partial(int op, unsigned char *o, bitcts__cpu_operands ops, size_t j,
                                   size_t len)
{
    _Alignas(32) unsigned char x[32] = {0};
    _Alignas(32) unsigned char y[32] = {0};
    _Alignas(32) unsigned char r[32];
    memcpy(x, ops.a + (j & ops.amask), len);
    memcpy(y, ops.b + (j & ops.bmask), len);
    _mm256_store_si256((__m256i *)r, kw_apply(op, _mm256_load_si256((const __m256i *)x),
                                              _mm256_load_si256((const __m256i *)y)));
    memcpy(o + j, r, len);
}

/* The same-width loop with ordinary stores, 32 bytes at a time; returns where it stopped. */
BITCTS__CPU_INLINE size_t a2_plain(int op, unsigned char *po, bitcts__cpu_operands ops,
                                   size_t nbytes)
{
    size_t j = 0;
    for (; j + 32 <= nbytes; j += 32) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(ops.a + (j & ops.amask)));
        const __m256i y = _mm256_loadu_si256((const __m256i *)(ops.b + (j & ops.bmask)));
        _mm256_storeu_si256((__m256i *)(po + j), kw_apply(op, x, y));
    }
    return j;
}

BITCTS__CPU_INLINE __m256i a2_popcnt_bytes(__m256i v)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i nib = _mm256_set1_epi8(0x0F);
    const __m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(v, nib));
    const __m256i hi = _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib));
    return _mm256_add_epi8(lo, hi);
}

BITCTS__CPU_INLINE void a2_store(int nt, unsigned char *o, __m256i v)
{
    if (nt) {
        _mm256_stream_si256((__m256i *)o, v);
    } else {
        _mm256_storeu_si256((__m256i *)o, v);
    }
}

/* Per-byte counts of 32 bytes at p, summed over pairs of bytes: 16 UINT16 counts. */
BITCTS__CPU_INLINE __m256i a2_counts16(const unsigned char *p)
{
    const __m256i x = _mm256_loadu_si256((const __m256i *)p);
    return _mm256_maddubs_epi16(a2_popcnt_bytes(x), _mm256_set1_epi8(1));
}

/* Counts of the eight UINT32 elements at p. */
BITCTS__CPU_INLINE __m256i a2_counts32(const unsigned char *p)
{
    return _mm256_madd_epi16(a2_counts16(p), _mm256_set1_epi16(1));
}

/* Counts of the eight UINT64 elements at p (64 bytes), as eight UINT32 in element order. */
BITCTS__CPU_INLINE __m256i a2_counts64(const unsigned char *p)
{
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i x0 = _mm256_loadu_si256((const __m256i *)p);
    const __m256i x1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    const __m256i s0 = _mm256_sad_epu8(a2_popcnt_bytes(x0), zero);
    const __m256i s1 = _mm256_sad_epu8(a2_popcnt_bytes(x1), zero);
    return _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(s0, even),
                                     _mm256_permutevar8x32_epi32(s1, even), 0x20);
}

/* Four vectors of eight UINT32 counts, stored as UINT32 (ow 4) or narrowed to UINT8 (ow 1):
 * packs/packus interleave 128-bit lanes; the final permute restores element order. */
BITCTS__CPU_INLINE void a2_store_counts32(uint32_t ow, int nt, unsigned char *o, __m256i c0,
                                          __m256i c1, __m256i c2, __m256i c3)
{
    if (ow == 4) {
        a2_store(nt, o, c0);
        a2_store(nt, o + 32, c1);
        a2_store(nt, o + 64, c2);
        a2_store(nt, o + 96, c3);
        return;
    }
    const __m256i bytes =
        _mm256_packus_epi16(_mm256_packs_epi32(c0, c1), _mm256_packs_epi32(c2, c3));
    a2_store(nt, o, _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

/* One block of 32 elements: 32 * w input bytes, 32 * ow output bytes; values stay in
 * registers (an array-based form spilled them). */
BITCTS__CPU_INLINE void a2_count_block(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, int nt)
{
    if (w == 1) {
        const __m256i c8 = a2_popcnt_bytes(_mm256_loadu_si256((const __m256i *)a));
        if (ow == 1) {
            a2_store(nt, o, c8);
            return;
        }
        const __m128i lo = _mm256_castsi256_si128(c8);
        const __m128i hi = _mm256_extracti128_si256(c8, 1);
        a2_store_counts32(4, nt, o, _mm256_cvtepu8_epi32(lo),
                          _mm256_cvtepu8_epi32(_mm_srli_si128(lo, 8)), _mm256_cvtepu8_epi32(hi),
                          _mm256_cvtepu8_epi32(_mm_srli_si128(hi, 8)));
    } else if (w == 2) {
        const __m256i c0 = a2_counts16(a);
        const __m256i c1 = a2_counts16(a + 32);
        if (ow == 1) {
            a2_store(nt, o, _mm256_permute4x64_epi64(_mm256_packus_epi16(c0, c1), 0xD8));
            return;
        }
        a2_store_counts32(4, nt, o, _mm256_cvtepu16_epi32(_mm256_castsi256_si128(c0)),
                          _mm256_cvtepu16_epi32(_mm256_extracti128_si256(c0, 1)),
                          _mm256_cvtepu16_epi32(_mm256_castsi256_si128(c1)),
                          _mm256_cvtepu16_epi32(_mm256_extracti128_si256(c1, 1)));
    } else if (w == 4) {
        a2_store_counts32(ow, nt, o, a2_counts32(a), a2_counts32(a + 32), a2_counts32(a + 64),
                          a2_counts32(a + 96));
    } else {
        a2_store_counts32(ow, nt, o, a2_counts64(a), a2_counts64(a + 64), a2_counts64(a + 128),
                          a2_counts64(a + 192));
    }
}

BITCTS__CPU_INLINE void a2_count_partial(uint32_t w, uint32_t ow, unsigned char *o,
                                         const unsigned char *a, size_t n)
{
    _Alignas(32) unsigned char x[256] = {0};
    _Alignas(32) unsigned char r[128];
    memcpy(x, a, n * w);
    a2_count_block(w, ow, r, x, 0);
    memcpy(o, r, n * ow);
}

/* The COUNT skeleton of kern_stamp.h: blocks of 32 elements, streaming stores from the
 * output's next 32-byte boundary on. */
BITCTS__CPU_INLINE void a2_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n,
                                 uint32_t flags)
{
    bitcts__cpu_count_loop(w, ow, 32, 32, a2_count_block, a2_count_partial, out, a, n, flags);
}

/* ---- stream limits ---- */

static void a2_triad(void *out, const void *a, const void *b, size_t n, uint32_t flags)
{
    const size_t i = kw_triad_vectors(out, a, b, n, flags);
    bitcts__cpu_triad_words(out, a, b, i, n);
}

/* ---- transposes (the walk's gather of a transposed operand): kern_x86_wide.h's block ---- */

/* Groups of 16 / w lines, 32 bytes at a time. */
BITCTS__CPU_INLINE size_t a2_transpose(uint32_t w, void *dst, size_t ds, const void *src, size_t ss,
                                       size_t lines, size_t len)
{
    return bitcts__cpu_transpose_groups(w, 32, kw_tr_block, dst, ds, src, ss, lines, len);
}

/* Orders this variant's streaming stores (the caller fences once per range). */
static void a2_fence(void)
{
    _mm_sfence();
}

BITCTS__CPU_STAMP_VARIANT(avx2, a2, BITCTS_CPU_FEAT_SSE2 | BITCTS_CPU_FEAT_AVX2, 20, a2_fence,
                          BITWISE, SHIFTS, COUNT, STREAM, TRANSPOSE, SHAPED);
