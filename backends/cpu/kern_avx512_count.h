/* SPDX-License-Identifier: MIT */
/* The AVX-512 BIT_COUNT loop, shared by kern_avx512.c (nibble-table counts) and kern_avx512pop.c
 * (VPOPCNT counts): blocks of 64 elements counted per lane, narrowed to UINT8 by packs and one
 * permutation or widened to UINT32 by vpmovzx, heads and tails by byte-masked loads and stores.
 * The including unit first defines the per-lane counts a5_popcnt8/16/32/64 (__m512i to __m512i,
 * each lane's population count in that lane) and is compiled with at least -mavx512f
 * -mavx512bw -mavx512vl. Thread-safety: stateless. */
#ifndef BITCTS_CPU_KERN_AVX512_COUNT_H
#define BITCTS_CPU_KERN_AVX512_COUNT_H

#include <immintrin.h> /* AVX-512 intrinsics */
#include <stddef.h>    /* size_t */
#include <stdint.h>    /* uint32_t, SIZE_MAX */

#include "cpu_kernels.h" /* BITCTS__CPU_INLINE */
#include "kern_loops.h"  /* bitcts__cpu_count_loop */

/* Byte mask of the part of a `total`-byte span that falls in its 64-byte vector v. */
static inline __mmask64 a5_mask(size_t total, size_t v)
{
    if (total <= 64 * v) {
        return 0;
    }
    const size_t rem = total - 64 * v;
    return rem >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << rem) - 1);
}

/* Sixteen 32-bit counts per vector, in element order, narrowed to 64 bytes. packs/packus work
 * within 128-bit lanes; one dword permutation restores the order. */
BITCTS__CPU_INLINE __m512i a5_narrow32(__m512i c0, __m512i c1, __m512i c2, __m512i c3)
{
    const __m512i bytes =
        _mm512_packus_epi16(_mm512_packs_epi32(c0, c1), _mm512_packs_epi32(c2, c3));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_epi32(order, bytes);
}

/* The low dwords of the qwords of lo, then of hi: sixteen counts in element order. */
BITCTS__CPU_INLINE __m512i a5_even32(__m512i lo, __m512i hi)
{
    const __m512i even =
        _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    return _mm512_permutex2var_epi32(lo, even, hi);
}

/* Bytes of a span left after `used` (0 when none). */
static inline size_t a5_left(size_t left, size_t used)
{
    return left > used ? left - used : 0;
}

/* 64 bytes, or the `left` bytes that remain with a masked load. On whole blocks `left` is
 * SIZE_MAX and the test folds away. */
BITCTS__CPU_INLINE __m512i a5_load(const unsigned char *p, size_t left)
{
    return left >= 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8(a5_mask(left, 0), p);
}

BITCTS__CPU_INLINE void a5_store(unsigned char *p, __m512i v, size_t left, int nt)
{
    if (left < 64) {
        _mm512_mask_storeu_epi8(p, a5_mask(left, 0), v);
    } else if (nt) {
        _mm512_stream_si512((void *)p, v);
    } else {
        _mm512_storeu_si512(p, v);
    }
}

/* Four vectors of 16 UINT32 counts stored as UINT32 (ow 4) or narrowed to UINT8 (ow 1). */
BITCTS__CPU_INLINE void a5_store_counts32(uint32_t ow, unsigned char *o, __m512i c0, __m512i c1,
                                          __m512i c2, __m512i c3, size_t left, int nt)
{
    if (ow == 1) {
        a5_store(o, a5_narrow32(c0, c1, c2, c3), left, nt);
        return;
    }
    a5_store(o, c0, left, nt);
    a5_store(o + 64, c1, a5_left(left, 64), nt);
    a5_store(o + 128, c2, a5_left(left, 128), nt);
    a5_store(o + 192, c3, a5_left(left, 192), nt);
}

/* Counts of 64 elements: 64 * w input bytes at a (of which in_left remain), 64 * ow output
 * bytes at o (of which out_left may be written). Values stay in registers throughout: an
 * array-based version spilled every vector and ran at half speed from DRAM. */
BITCTS__CPU_INLINE void a5_count_block(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, size_t in_left, size_t out_left,
                                       int nt)
{
    if (w == 1) {
        const __m512i c = a5_popcnt8(a5_load(a, in_left));
        if (ow == 1) {
            a5_store(o, c, out_left, nt);
            return;
        }
        a5_store_counts32(4, o, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(c)),
                          _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 1)),
                          _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 2)),
                          _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 3)), out_left, nt);
    } else if (w == 2) {
        const __m512i c0 = a5_popcnt16(a5_load(a, in_left));
        const __m512i c1 = a5_popcnt16(a5_load(a + 64, a5_left(in_left, 64)));
        if (ow == 1) { /* packus interleaves 64-bit halves of the 128-bit lanes */
            const __m512i order = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
            a5_store(o, _mm512_permutexvar_epi64(order, _mm512_packus_epi16(c0, c1)), out_left, nt);
            return;
        }
        a5_store_counts32(4, o, _mm512_cvtepu16_epi32(_mm512_castsi512_si256(c0)),
                          _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(c0, 1)),
                          _mm512_cvtepu16_epi32(_mm512_castsi512_si256(c1)),
                          _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(c1, 1)), out_left, nt);
    } else if (w == 4) {
        a5_store_counts32(ow, o, a5_popcnt32(a5_load(a, in_left)),
                          a5_popcnt32(a5_load(a + 64, a5_left(in_left, 64))),
                          a5_popcnt32(a5_load(a + 128, a5_left(in_left, 128))),
                          a5_popcnt32(a5_load(a + 192, a5_left(in_left, 192))), out_left, nt);
    } else {
        const __m512i q0 = a5_popcnt64(a5_load(a, in_left));
        const __m512i q1 = a5_popcnt64(a5_load(a + 64, a5_left(in_left, 64)));
        const __m512i q2 = a5_popcnt64(a5_load(a + 128, a5_left(in_left, 128)));
        const __m512i q3 = a5_popcnt64(a5_load(a + 192, a5_left(in_left, 192)));
        const __m512i q4 = a5_popcnt64(a5_load(a + 256, a5_left(in_left, 256)));
        const __m512i q5 = a5_popcnt64(a5_load(a + 320, a5_left(in_left, 320)));
        const __m512i q6 = a5_popcnt64(a5_load(a + 384, a5_left(in_left, 384)));
        const __m512i q7 = a5_popcnt64(a5_load(a + 448, a5_left(in_left, 448)));
        a5_store_counts32(ow, o, a5_even32(q0, q1), a5_even32(q2, q3), a5_even32(q4, q5),
                          a5_even32(q6, q7), out_left, nt);
    }
}

/* A whole block of 64 elements: the bounds tests fold away. */
BITCTS__CPU_INLINE void a5_count_whole(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, int nt)
{
    a5_count_block(w, ow, o, a, SIZE_MAX, SIZE_MAX, nt);
}

/* Fewer than 64 elements, by masked loads and stores. */
BITCTS__CPU_INLINE void a5_count_part(uint32_t w, uint32_t ow, unsigned char *o,
                                      const unsigned char *a, size_t count)
{
    a5_count_block(w, ow, o, a, count * w, count * ow, 0);
}

/* The COUNT skeleton of kern_stamp.h: blocks of 64 elements, streaming stores from the
 * output's next 64-byte boundary on. */
BITCTS__CPU_INLINE void a5_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n,
                                 uint32_t flags)
{
    bitcts__cpu_count_loop(w, ow, 64, 64, a5_count_whole, a5_count_part, out, a, n, flags);
}

#endif
