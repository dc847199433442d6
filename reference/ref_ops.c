/* SPDX-License-Identifier: MIT */
/* The scalar reference of the seven operators (docs/spec/operators.md). Every element is a raw
 * little-endian word of its type's width; the operator sees only those bits. Elements are
 * visited in logical row-major order, gathered in chunks, computed, then scattered, which is
 * correct in place as well: element i reads and writes only its own offset. */
#include <string.h> /* memset */

#include "bitcts/bitcts_status.h"
#include "ref_ops.h"
#include "validate.h"

uint64_t bitcts_ref_load(const uint8_t *p, uint32_t width_bytes)
{
    uint64_t v = 0;
    for (uint32_t k = 0; k < width_bytes; k++)
        v |= (uint64_t)p[k] << (8 * k);
    return v;
}

void bitcts_ref_store(uint8_t *p, uint32_t width_bytes, uint64_t v)
{
    for (uint32_t k = 0; k < width_bytes; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static uint64_t width_mask(uint32_t width)
{
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

/* Spec 1.4 and 1.5. `a` and `b` hold raw bits; bits above `width` are ignored. */
uint64_t bitcts_ref_element(uint32_t op, uint32_t width, uint64_t a, uint64_t b, int shift_policy)
{
    const uint64_t mask = width_mask(width);
    a &= mask;
    b &= mask;
    switch (op) {
    case BITCTS_OP_BIT_AND: return a & b;
    case BITCTS_OP_BIT_OR: return a | b;
    case BITCTS_OP_BIT_XOR: return a ^ b;
    case BITCTS_OP_BIT_NOT: return ~a & mask;
    case BITCTS_OP_BIT_COUNT: {
        uint64_t count = 0;
        for (uint32_t bit = 0; bit < width; bit++)
            count += (a >> bit) & 1;
        return count;
    }
    case BITCTS_OP_BIT_SHIFT_LEFT:
    case BITCTS_OP_BIT_SHIFT_RIGHT: {
        uint64_t count = b;
        if (count >= width) {
            if (shift_policy != BITCTS_SHIFT_POLICY_MASK)
                return 0;
            count &= width - 1; /* widths are powers of two */
        }
        return (op == BITCTS_OP_BIT_SHIFT_LEFT ? (a << count) : (a >> count)) & mask;
    }
    default: return 0;
    }
}

#define REF_CHUNK 1024

/* Walks the logical elements in row-major order, keeping each tensor's element offset. */
typedef struct ref_walk {
    uint32_t rank;
    uint32_t sizes[BITCTS_MAX_DIMS];
    uint32_t coord[BITCTS_MAX_DIMS];
    uint32_t tensors;
    uint64_t stride[3][BITCTS_MAX_DIMS];
    uint64_t offset[3];
} ref_walk;

static void walk_advance(ref_walk *w)
{
    for (int k = (int)w->rank - 1; k >= 0; k--) {
        for (uint32_t t = 0; t < w->tensors; t++)
            w->offset[t] += w->stride[t][k];
        if (++w->coord[k] < w->sizes[k])
            return;
        for (uint32_t t = 0; t < w->tensors; t++)
            w->offset[t] -= (uint64_t)w->coord[k] * w->stride[t][k];
        w->coord[k] = 0;
    }
}

/* Loads the elements at the given element offsets. The switch only lets the compiler see a
 * constant width in bitcts_ref_load; every case does the same thing. */
static void gather(uint64_t *dst, const uint8_t *base, uint32_t width, const uint64_t *offsets,
                   uint32_t n)
{
    switch (width) {
    case 1: for (uint32_t i = 0; i < n; i++) dst[i] = bitcts_ref_load(base + offsets[i], 1); break;
    case 2: for (uint32_t i = 0; i < n; i++) dst[i] = bitcts_ref_load(base + offsets[i] * 2, 2); break;
    case 4: for (uint32_t i = 0; i < n; i++) dst[i] = bitcts_ref_load(base + offsets[i] * 4, 4); break;
    default: for (uint32_t i = 0; i < n; i++) dst[i] = bitcts_ref_load(base + offsets[i] * 8, 8); break;
    }
}

static void scatter(uint8_t *base, uint32_t width, const uint64_t *offsets, const uint64_t *src,
                    uint32_t n)
{
    switch (width) {
    case 1: for (uint32_t i = 0; i < n; i++) bitcts_ref_store(base + offsets[i], 1, src[i]); break;
    case 2: for (uint32_t i = 0; i < n; i++) bitcts_ref_store(base + offsets[i] * 2, 2, src[i]); break;
    case 4: for (uint32_t i = 0; i < n; i++) bitcts_ref_store(base + offsets[i] * 4, 4, src[i]); break;
    default: for (uint32_t i = 0; i < n; i++) bitcts_ref_store(base + offsets[i] * 8, 8, src[i]); break;
    }
}

int bitcts_ref_execute(const bitcts_op_desc *desc, const void *const *inputs, void *output,
                       int shift_policy)
{
    if (bitcts_validate_op(desc, BITCTS_FL_6_4, NULL) != BITCTS_RULE_OK)
        return BITCTS_E_INVALID_DESCRIPTOR;
    const uint32_t n_in = desc->input_count;
    const uint32_t in_bytes = bitcts_dtype_size(desc->inputs[0].data_type);
    const uint32_t out_bytes = bitcts_dtype_size(desc->output.data_type);

    ref_walk w;
    memset(&w, 0, sizeof w);
    w.rank = desc->output.dimension_count;
    w.tensors = n_in + 1;
    for (uint32_t k = 0; k < w.rank; k++) {
        w.sizes[k] = desc->output.sizes[k];
        for (uint32_t t = 0; t < n_in; t++)
            w.stride[t][k] = bitcts_tensor_stride(&desc->inputs[t], k);
        w.stride[n_in][k] = bitcts_tensor_stride(&desc->output, k);
    }

    /* Per chunk: the offsets of its elements, then gather, compute, scatter. */
    uint64_t offsets[3][REF_CHUNK];
    uint64_t a[REF_CHUNK], b[REF_CHUNK], r[REF_CHUNK];
    uint64_t remaining = bitcts_tensor_element_count(&desc->output);
    while (remaining > 0) {
        const uint32_t n = remaining < REF_CHUNK ? (uint32_t)remaining : REF_CHUNK;
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t t = 0; t < w.tensors; t++)
                offsets[t][i] = w.offset[t];
            walk_advance(&w);
        }
        gather(a, inputs[0], in_bytes, offsets[0], n);
        if (n_in > 1)
            gather(b, inputs[1], in_bytes, offsets[1], n);
        for (uint32_t i = 0; i < n; i++)
            r[i] = bitcts_ref_element(desc->op, in_bytes * 8, a[i], n_in > 1 ? b[i] : 0,
                                      shift_policy);
        scatter(output, out_bytes, offsets[n_in], r, n);
        remaining -= n;
    }
    return BITCTS_OK;
}
