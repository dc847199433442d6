/* SPDX-License-Identifier: MIT */
/* The one strided walk shared by every variant. A plan is built once per operator from the
 * tensors' sizes and strides: dims are ordered by output stride, dims contiguous for every
 * operand are merged, and the iteration space is cut into units (2-D blocks of rows x cols).
 * Running a range of units calls a contiguous inner kernel per row: operands whose innermost
 * stride is one element are passed directly, zero-stride operands as SCALAR, and any other
 * operand is gathered into a per-thread buffer (tiles of 64 columns by up to 512 bytes of the
 * operand's contiguous run when it has a more contiguous dim elsewhere, 1-D chunks otherwise);
 * a strided output is computed into a buffer and scattered. No per-element division.
 * Thread-safety: a plan is immutable after build and may be run from several threads on
 * disjoint unit ranges, each with its own scratch. */
#ifndef BITCTS_CPU_CPU_WALK_H
#define BITCTS_CPU_CPU_WALK_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t */

#include "cpu_kernels.h" /* bitcts__cpu_kernel_fn */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS__CPU_WALK_MAX_DIMS 8
#define BITCTS__CPU_WALK_MAX_OPERANDS 3 /* output, A, B */
/* Bytes of scratch one thread needs to run any plan. */
#define BITCTS__CPU_WALK_SCRATCH_BYTES (4u * 32768u)
/* Elements per unit when no buffer limits the block: the threading grain. */
#define BITCTS__CPU_WALK_UNIT_ELEMENTS 65536u

/* How an operand's innermost dim is reached. */
#define BITCTS__CPU_WALK_DIRECT 0 /* contiguous: passed to the kernel as is */
#define BITCTS__CPU_WALK_SCALAR 1 /* zero stride: one element per row (inputs only) */
#define BITCTS__CPU_WALK_BUFFER 2 /* strided: gathered (inputs) or scattered (output) */

/** An executable plan. Operand 0 is the output, 1 and 2 the inputs. Strides are in bytes. */
typedef struct bitcts__cpu_plan {
    uint32_t operands; /* 2 (unary) or 3 (binary) */
    uint32_t width[BITCTS__CPU_WALK_MAX_OPERANDS];
    uint32_t kind[BITCTS__CPU_WALK_MAX_OPERANDS]; /* BITCTS__CPU_WALK_* */
    uint32_t scalar_flags;                        /* BITCTS__CPU_F_{A,B}_SCALAR of a row call */
    uint32_t all_scalar; /* every input is SCALAR: compute one element, then fill */
    uint32_t tiled;      /* rows come from an input's more contiguous dim */
    uint32_t outer_rank;
    size_t outer_size[BITCTS__CPU_WALK_MAX_DIMS]; /* innermost first */
    size_t outer_stride[BITCTS__CPU_WALK_MAX_OPERANDS][BITCTS__CPU_WALK_MAX_DIMS];
    size_t rows, cols;
    size_t row_stride[BITCTS__CPU_WALK_MAX_OPERANDS];
    size_t col_stride[BITCTS__CPU_WALK_MAX_OPERANDS];
    size_t row_block, col_block;   /* elements of one unit */
    size_t row_blocks, col_blocks; /* units along rows and cols */
    size_t units;
    uint64_t elements;     /* logical elements of the output */
    uint64_t output_bytes; /* elements * width[0] */
    uint64_t moved_bytes;  /* elements * (sum of the widths): the traffic of a run */
} bitcts__cpu_plan;

/** Builds a plan.
 * @param rank [in] 1..8.
 * @param sizes [in] rank sizes, each >= 1 (validated by the caller).
 * @param operands [in] 2 or 3.
 * @param strides [in] per operand, rank strides in elements, or NULL for packed.
 * @param widths [in] per operand, element bytes (1, 2, 4, 8).
 * @pre the output has no zero stride on a dim of size > 1 and no overlapping elements. */
void bitcts__cpu_plan_build(bitcts__cpu_plan *plan, uint32_t rank, const uint32_t *sizes,
                            uint32_t operands, const uint32_t *const *strides,
                            const uint32_t *widths);

/** The pointers and kernel of one execution. */
typedef struct bitcts__cpu_call {
    bitcts__cpu_kernel_fn *kernel;
    bitcts__cpu_fence_fn *fence; /* run once at the end of a range when flags has NT */
    uint32_t flags;              /* BITCTS__CPU_F_LOG2W_* and BITCTS__CPU_F_NT */
    /* The variant's transposes by log2 width (entries may be NULL), or NULL: the gather of a
     * transposed operand then stays portable. */
    bitcts__cpu_transpose_fn *const *transpose;
    unsigned char *out;
    const unsigned char *in[2];
} bitcts__cpu_call;

/** Runs units [begin, end) of the plan.
 * @param scratch [in] BITCTS__CPU_WALK_SCRATCH_BYTES bytes, 64-byte aligned, private to the
 *        calling thread. */
void bitcts__cpu_plan_run(const bitcts__cpu_plan *plan, const bitcts__cpu_call *call, size_t begin,
                          size_t end, unsigned char *scratch);

#ifdef __cplusplus
}
#endif
#endif
