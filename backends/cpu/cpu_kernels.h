/* SPDX-License-Identifier: MIT */
/* The contract between the strided walk and the per-ISA inner loops: the kernel signature,
 * its flags, and the variant descriptor each kern_<isa>.c exports. Internal to backends/cpu.
 * Thread-safety: descriptors are const; kernels are reentrant and touch only their arguments. */
#ifndef BITCTS_CPU_CPU_KERNELS_H
#define BITCTS_CPU_CPU_KERNELS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel flags. A kernel gets at most one of the two SCALAR flags, never on a unary operator. */
#define BITCTS__CPU_F_A_SCALAR 0x1u /* a points at one element used for every position */
#define BITCTS__CPU_F_B_SCALAR 0x2u /* b points at one element used for every position */
#define BITCTS__CPU_F_NT 0x4u       /* large output: non-temporal stores are welcome */
/* log2 of the element width (0..3) for the width-agnostic bitwise kernels. */
#define BITCTS__CPU_F_LOG2W_SHIFT 8u
#define BITCTS__CPU_F_LOG2W_MASK (0x3u << BITCTS__CPU_F_LOG2W_SHIFT)

/* Forces inlining of the per-ISA loop skeletons into each operator's entry point, so the
 * operator selector is a constant and no switch remains in the inner loop. */
#if defined(__GNUC__) || defined(__clang__)
#define BITCTS__CPU_INLINE static inline __attribute__((always_inline))
#elif defined(_MSC_VER)
#define BITCTS__CPU_INLINE static __forceinline
#else
#define BITCTS__CPU_INLINE static inline
#endif

/** One inner loop over contiguous spans of n elements: out[i] = f(a[i], b[i]).
 * out, a and b are contiguous (unless a SCALAR flag says otherwise); out may equal a or b
 * exactly (in place) but overlaps them in no other way; b is NULL for unary operators. Only
 * the n output elements are written. With BITCTS__CPU_F_NT the kernel may use non-temporal
 * stores, unfenced: the caller runs the variant's nt_fence after its last such call (one
 * fence per thread's range, not one per row). Kernels do not assume any alignment. */
typedef void bitcts__cpu_kernel_fn(void *out, const void *a, const void *b, size_t n,
                                   uint32_t flags);

/** Orders the non-temporal stores of earlier kernel calls before any later store (sfence). */
typedef void bitcts__cpu_fence_fn(void);

/** Transposes `lines` contiguous source lines of `len` elements of one width (the slot's):
 * element i of line j, at src + j * src_stride + i * w, goes to dst + i * dst_stride + j * w.
 * The ISA moves whole groups of lines (its register block) over all of len, tails included,
 * and returns the lines done, a multiple of its group; the caller moves the rest. Source and
 * destination do not overlap; no alignment is assumed. */
typedef size_t bitcts__cpu_transpose_fn(void *dst, size_t dst_stride, const void *src,
                                        size_t src_stride, size_t lines, size_t len);

/* Indexes of bitcts__cpu_kernels.bitwise. */
#define BITCTS__CPU_BITWISE_AND 0
#define BITCTS__CPU_BITWISE_OR 1
#define BITCTS__CPU_BITWISE_XOR 2

/** The kernels of one variant; a NULL slot is filled from the next lower variant. */
typedef struct bitcts__cpu_kernels {
    bitcts__cpu_kernel_fn *bitwise[3];     /* AND, OR, XOR; width from the flags */
    bitcts__cpu_kernel_fn *bit_not;        /* width from the flags */
    bitcts__cpu_kernel_fn *shift_left[4];  /* by log2 of the element width */
    bitcts__cpu_kernel_fn *shift_right[4]; /* counts >= width give 0 */
    bitcts__cpu_kernel_fn *count[4][2];    /* [log2 input width][0: UINT8 out, 1: UINT32 out] */
    bitcts__cpu_kernel_fn *stream_copy;    /* n bytes, b unused: the bench's copy limit */
    bitcts__cpu_kernel_fn *stream_triad;   /* n uint64 words: out = a + 3 * b (3 streams) */
    /* Optional (NULL in every variant: the backend composes them of copies and triads): the
     * shaped stream at a ratio of 2, 4 or 8 (by index), over n 64-byte units of the smaller
     * side, b unused. Widening writes ratio bytes of out per byte read of a; narrowing reads
     * ratio bytes of a per byte written. Each out byte depends on the a bytes it stands for. */
    bitcts__cpu_kernel_fn *stream_widen[3];
    bitcts__cpu_kernel_fn *stream_narrow[3];
    bitcts__cpu_fence_fn *nt_fence; /* a variant whose kernels use NT stores sets its own */
    /* By log2 of the element width; optional everywhere (NULL in every variant means the
     * walk's portable gather). */
    bitcts__cpu_transpose_fn *transpose[4];
} bitcts__cpu_kernels;

/** A variant: what one kern_<isa>.c provides. Selected when required is a subset of the
 * detected features; higher priority wins. */
typedef struct bitcts__cpu_variant {
    const char *name;
    uint64_t required; /* BITCTS_CPU_FEAT_* */
    int32_t priority;
    bitcts__cpu_kernels kernels;
} bitcts__cpu_variant;

extern const bitcts__cpu_variant bitcts__cpu_variant_scalar;
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
extern const bitcts__cpu_variant bitcts__cpu_variant_sse2;
extern const bitcts__cpu_variant bitcts__cpu_variant_avx2;
extern const bitcts__cpu_variant bitcts__cpu_variant_avx512;
extern const bitcts__cpu_variant bitcts__cpu_variant_avx512pop;
#endif
#if defined(__aarch64__)
extern const bitcts__cpu_variant bitcts__cpu_variant_neon;
#endif

#ifdef __cplusplus
}
#endif
#endif
