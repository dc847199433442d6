/* SPDX-License-Identifier: MIT */
/* The loop drivers that every kern_<isa>.c shares: where a same-width loop reads its operands,
 * the BIT_COUNT block loop with its streaming-store head, the transpose's group loop, the
 * streaming triad's word loop and a SWAR popcount. Portable C without intrinsics, included only
 * by the kern_<isa>.c units and compiled inside each with that unit's flags; the ISA's own
 * functions come in as constant function pointers and are inlined with the driver.
 * Thread-safety: stateless; everything here touches only its arguments. */
#ifndef BITCTS_CPU_KERN_LOOPS_H
#define BITCTS_CPU_KERN_LOOPS_H

#include <stddef.h> /* size_t, NULL */
#include <stdint.h> /* uint32_t, uint64_t, uintptr_t, SIZE_MAX */
#include <string.h> /* memcpy */

#include "cpu_kernels.h" /* BITCTS__CPU_F_*, BITCTS__CPU_INLINE */

/* ---- operands of the same-width loops ---- */

/* Where a same-width loop reads byte j of its operands: a[j & amask] and b[j & bmask]. */
typedef struct bitcts__cpu_operands {
    const unsigned char *a;
    const unsigned char *b;
    size_t amask; /* SIZE_MAX for an array operand */
    size_t bmask;
} bitcts__cpu_operands;

/* The operands of a loop that reads `period` bytes at a time (a power of two >= 8). A scalar
 * operand (BITCTS__CPU_F_A_SCALAR or _B_SCALAR) is replicated into the caller's pattern of
 * 2 * period bytes and read at (j & (period - 1)): a load at any j stays in phase with the
 * element boundaries. b NULL (a unary operator) reads a. With commute (a constant), a scalar A
 * is swapped into B, so amask is the constant SIZE_MAX and folds away. */
BITCTS__CPU_INLINE bitcts__cpu_operands bitcts__cpu_operands_of(uint32_t w, size_t period,
                                                                int commute, unsigned char *pattern,
                                                                const void *a, const void *b,
                                                                uint32_t flags)
{
    bitcts__cpu_operands r = {a, b != NULL ? b : a, SIZE_MAX, SIZE_MAX};
    if ((flags & (BITCTS__CPU_F_A_SCALAR | BITCTS__CPU_F_B_SCALAR)) == 0) {
        return r;
    }
    const int scalar_a = (flags & BITCTS__CPU_F_A_SCALAR) != 0;
    memcpy(pattern, scalar_a ? r.a : r.b, w);
    for (size_t k = w; k < 2 * period; k *= 2) {
        memcpy(pattern + k, pattern, k);
    }
    if (scalar_a && commute) {
        r.a = r.b;
        r.b = pattern;
        r.bmask = period - 1;
    } else if (scalar_a) {
        r.a = pattern;
        r.amask = period - 1;
    } else {
        r.b = pattern;
        r.bmask = period - 1;
    }
    return r;
}

/* ---- the BIT_COUNT driver ---- */

/* Counts of one whole block of an ISA's elements (o, a: output and input); nt allows streaming
 * stores, which the caller then fences. */
typedef void bitcts__cpu_count_block_fn(uint32_t w, uint32_t ow, unsigned char *o,
                                        const unsigned char *a, int nt);
/* Counts of `count` elements, fewer than a block, with ordinary stores. */
typedef void bitcts__cpu_count_part_fn(uint32_t w, uint32_t ow, unsigned char *o,
                                       const unsigned char *a, size_t count);

/* BIT_COUNT of n elements of w bytes into elements of ow bytes, for an ISA whose block counts
 * per_block elements. With BITCTS__CPU_F_NT, and when the bytes up to the output's next `align`
 * boundary hold whole output elements, those go first as a part and the blocks after them use
 * streaming stores. Inlined with constant functions, the block and the part are inlined too. */
BITCTS__CPU_INLINE void bitcts__cpu_count_loop(uint32_t w, uint32_t ow, size_t per_block,
                                               size_t align, bitcts__cpu_count_block_fn *block,
                                               bitcts__cpu_count_part_fn *part, void *out,
                                               const void *a, size_t n, uint32_t flags)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    size_t i = 0;
    int nt = 0;
    if (flags & BITCTS__CPU_F_NT) {
        const size_t head_bytes = (align - ((uintptr_t)po & (align - 1))) & (align - 1);
        if (head_bytes % ow == 0) {
            nt = 1;
            i = head_bytes / ow < n ? head_bytes / ow : n;
            if (i > 0) {
                part(w, ow, po, pa, i);
            }
        }
    }
    for (; i + per_block <= n; i += per_block) {
        block(w, ow, po + i * ow, pa + i * w, nt);
    }
    if (i < n) {
        part(w, ow, po + i * ow, pa + i * w, n - i);
    }
}

/* SWAR population count of a zero-extended element. */
static inline uint32_t bitcts__cpu_popcount_swar(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (uint32_t)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* Counts of `count` elements one at a time: a block loop's tail, or a whole plain loop. The
 * element's bytes are counted in a zeroed word, whatever the byte order. */
BITCTS__CPU_INLINE void bitcts__cpu_count_elements(uint32_t w, uint32_t ow, unsigned char *o,
                                                   const unsigned char *a, size_t count)
{
    for (size_t i = 0; i < count; ++i) {
        uint64_t x = 0;
        memcpy(&x, a + i * w, w);
        const uint32_t c = bitcts__cpu_popcount_swar(x);
        if (ow == 1) {
            o[i] = (unsigned char)c;
        } else {
            memcpy(o + 4 * i, &c, 4);
        }
    }
}

/* The COUNT skeleton of kern_stamp.h for a 16-byte count block with ordinary stores (the NT
 * flag is ignored): p##_count runs p##_count_block, then the tail one element at a time. */
#define BITCTS__CPU_COUNT_16(p)                                                                    \
    BITCTS__CPU_INLINE void p##_count(uint32_t w, uint32_t ow, void *out, const void *a, size_t n, \
                                      uint32_t flags)                                              \
    {                                                                                              \
        (void)flags;                                                                               \
        bitcts__cpu_count_loop(w, ow, 16 / w, 16, p##_count_block, bitcts__cpu_count_elements,     \
                               out, a, n, 0);                                                      \
    }

/* ---- the streaming triad ---- */

/* out = a + 3 * b on uint64 words i..n-1 one at a time: a triad's tail, or all of it. */
BITCTS__CPU_INLINE void bitcts__cpu_triad_words(unsigned char *po, const unsigned char *pa,
                                                const unsigned char *pb, size_t i, size_t n)
{
    for (; i < n; ++i) {
        uint64_t x;
        uint64_t y;
        memcpy(&x, pa + 8 * i, 8);
        memcpy(&y, pb + 8 * i, 8);
        x += 3 * y;
        memcpy(po + 8 * i, &x, 8);
    }
}

/* An ISA's triad step: out = a + 3 * b on the two uint64 words at o, a and b, with a streaming
 * store when nt (o then 16-byte aligned). */
typedef void (*bitcts__cpu_triad_pair_fn)(unsigned char *o, const unsigned char *a,
                                          const unsigned char *b, int nt);

/* The triad on n uint64 words: pairs through `pair`, then the odd word. */
BITCTS__CPU_INLINE void bitcts__cpu_triad_pairs(void *out, const void *a, const void *b, size_t n,
                                                int nt, bitcts__cpu_triad_pair_fn pair)
{
    unsigned char *po = out;
    const unsigned char *pa = a;
    const unsigned char *pb = b;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        pair(po + 8 * i, pa + 8 * i, pb + 8 * i, nt);
    }
    bitcts__cpu_triad_words(po, pa, pb, i, n);
}

/* ---- the transpose driver ---- */

/* Element e (in lane order) that register k holds after an unpack network that transposes
 * n x n blocks inside 128-bit lanes in log2(n) rounds: the bit reversal of k over log2(n) bits,
 * read from this 16-entry table at k * 16 / n. */
static const unsigned char bitcts__cpu_tr_order[16] = {0, 8, 4, 12, 2, 10, 6, 14,
                                                       1, 9, 5, 13, 3, 11, 7, 15};

/* One register block of an ISA's transpose: 16 / w source lines of one vector each (src,
 * stride ss) to the vector's worth of destination rows (dst, stride ds). */
typedef void bitcts__cpu_tr_block_fn(uint32_t w, unsigned char *dst, size_t ds,
                                     const unsigned char *src, size_t ss);

/* The bitcts__cpu_transpose_fn contract for an ISA whose register block moves groups of
 * 16 / w lines by vbytes bytes: whole blocks over len, its tail element by element. Inlined
 * with a constant block function and width, the block is inlined too. */
BITCTS__CPU_INLINE size_t bitcts__cpu_transpose_groups(uint32_t w, size_t vbytes,
                                                       bitcts__cpu_tr_block_fn *block, void *dst,
                                                       size_t ds, const void *src, size_t ss,
                                                       size_t lines, size_t len)
{
    const size_t n = 16 / w;
    const size_t e = vbytes / w;
    const size_t done = lines - lines % n;
    unsigned char *pd = dst;
    const unsigned char *ps = src;
    for (size_t j = 0; j < done; j += n) {
        size_t i = 0;
        for (; i + e <= len; i += e) {
            block(w, pd + i * ds + j * w, ds, ps + j * ss + i * w, ss);
        }
        for (; i < len; ++i) {
            for (size_t k = j; k < j + n; ++k) {
                memcpy(pd + i * ds + k * w, ps + k * ss + i * w, w);
            }
        }
    }
    return done;
}

#endif
