/* SPDX-License-Identifier: MIT */
/* The scalar reference of the seven operators (docs/spec/operators.md). Every element is a raw
 * little-endian word of its type's width; the operator sees only those bits. Elements are
 * visited in logical row-major order, gathered in chunks, computed, then scattered, which is
 * correct in place as well: element i reads and writes only its own offset. */
#include "ref_ops.h"
#include "bitcts/bitcts_status.h"
#include "tensor_iter.h"
#include "validate.h"

static uint64_t width_mask(uint32_t width)
{
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

#if defined(__GNUC__)
#define BITCTS_REF_INLINE static inline __attribute__((always_inline))
#else
#define BITCTS_REF_INLINE static inline
#endif

/* Spec 1.4 and 1.5. `a` and `b` hold raw bits; bits above `width` are ignored. */
BITCTS_REF_INLINE uint64_t element(uint32_t op, uint32_t width, uint64_t a, uint64_t b,
                                   int shift_policy)
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
        for (uint32_t bit = 0; bit < width; ++bit) {
            count += (a >> bit) & 1;
        }
        return count;
    }
    case BITCTS_OP_BIT_SHIFT_LEFT:
    case BITCTS_OP_BIT_SHIFT_RIGHT: {
        uint64_t count = b;
        if (count >= width) {
            if (shift_policy != BITCTS_SHIFT_POLICY_MASK) {
                return 0;
            }
            count &= width - 1; /* widths are powers of two */
        }
        return (op == BITCTS_OP_BIT_SHIFT_LEFT ? (a << count) : (a >> count)) & mask;
    }
    default: return 0;
    }
}

/* The result as given, but in test builds only (tests/vectors, "a moved reference"): there bit 0
 * of one operator's results at one input width is flipped, so that `bitcts vectors verify` must
 * name exactly the moved cases. bitcts itself never defines these. */
BITCTS_REF_INLINE uint64_t moved(uint32_t op, uint32_t width, uint64_t r)
{
#if defined(BITCTS_REF_MOVE_OP) && defined(BITCTS_REF_MOVE_WIDTH)
    if (op == BITCTS_REF_MOVE_OP && width == BITCTS_REF_MOVE_WIDTH) {
        return r ^ 1;
    }
#else
    (void)op;
    (void)width;
#endif
    return r;
}

uint64_t bitcts_ref_element(uint32_t op, uint32_t width, uint64_t a, uint64_t b, int shift_policy)
{
    return moved(op, width, element(op, width, a, b, shift_policy));
}

/* A chunk's results, element by element. The switches give each operator and width a loop of
 * its own in which element() sees constants; what each element gets is element()'s answer. */
#define REF_LOOP(OP, WIDTH)                                                                        \
    for (uint32_t i = 0; i < n; ++i) {                                                             \
        r[i] = moved(OP, WIDTH, element(OP, WIDTH, a[i], b[i], shift_policy));                     \
    }                                                                                              \
    break
#define REF_WIDTHS(OP)                                                                             \
    switch (width) {                                                                               \
    case 8: REF_LOOP(OP, 8);                                                                       \
    case 16: REF_LOOP(OP, 16);                                                                     \
    case 32: REF_LOOP(OP, 32);                                                                     \
    case 64: REF_LOOP(OP, 64);                                                                     \
    default: REF_LOOP(OP, width);                                                                  \
    }                                                                                              \
    break

static void compute(uint32_t op, uint32_t width, const uint64_t *a, const uint64_t *b, uint64_t *r,
                    uint32_t n, int shift_policy)
{
    switch (op) {
    case BITCTS_OP_BIT_AND: REF_WIDTHS(BITCTS_OP_BIT_AND);
    case BITCTS_OP_BIT_OR: REF_WIDTHS(BITCTS_OP_BIT_OR);
    case BITCTS_OP_BIT_XOR: REF_WIDTHS(BITCTS_OP_BIT_XOR);
    case BITCTS_OP_BIT_NOT: REF_WIDTHS(BITCTS_OP_BIT_NOT);
    case BITCTS_OP_BIT_COUNT: REF_WIDTHS(BITCTS_OP_BIT_COUNT);
    case BITCTS_OP_BIT_SHIFT_LEFT: REF_WIDTHS(BITCTS_OP_BIT_SHIFT_LEFT);
    case BITCTS_OP_BIT_SHIFT_RIGHT: REF_WIDTHS(BITCTS_OP_BIT_SHIFT_RIGHT);
    default: REF_LOOP(op, width);
    }
}
#undef REF_WIDTHS
#undef REF_LOOP

#define REF_CHUNK 1024

/* Loads the elements at the given element offsets. The switch only lets the compiler see a
 * constant width in bitcts_ref_load; every case does the same thing. */
static void gather(uint64_t *dst, const uint8_t *base, uint32_t width, const uint64_t *offsets,
                   uint32_t n)
{
    switch (width) {
    case 1:
        for (uint32_t i = 0; i < n; ++i) {
            dst[i] = bitcts_ref_load(base + offsets[i], 1);
        }
        break;
    case 2:
        for (uint32_t i = 0; i < n; ++i) {
            dst[i] = bitcts_ref_load(base + offsets[i] * 2, 2);
        }
        break;
    case 4:
        for (uint32_t i = 0; i < n; ++i) {
            dst[i] = bitcts_ref_load(base + offsets[i] * 4, 4);
        }
        break;
    default:
        for (uint32_t i = 0; i < n; ++i) {
            dst[i] = bitcts_ref_load(base + offsets[i] * 8, 8);
        }
        break;
    }
}

static void scatter(uint8_t *base, uint32_t width, const uint64_t *offsets, const uint64_t *src,
                    uint32_t n)
{
    switch (width) {
    case 1:
        for (uint32_t i = 0; i < n; ++i) {
            bitcts_ref_store(base + offsets[i], 1, src[i]);
        }
        break;
    case 2:
        for (uint32_t i = 0; i < n; ++i) {
            bitcts_ref_store(base + offsets[i] * 2, 2, src[i]);
        }
        break;
    case 4:
        for (uint32_t i = 0; i < n; ++i) {
            bitcts_ref_store(base + offsets[i] * 4, 4, src[i]);
        }
        break;
    default:
        for (uint32_t i = 0; i < n; ++i) {
            bitcts_ref_store(base + offsets[i] * 8, 8, src[i]);
        }
        break;
    }
}

int bitcts_ref_execute(const bitcts_op_desc *desc, const void *const *inputs, void *output,
                       int shift_policy)
{
    if (bitcts_validate_op(desc, BITCTS_FL_6_4, NULL) != BITCTS_RULE_OK) {
        return BITCTS_E_INVALID_DESCRIPTOR;
    }
    const uint32_t n_in = desc->input_count;
    const uint32_t in_bytes = bitcts_dtype_size(desc->inputs[0].data_type);
    const uint32_t out_bytes = bitcts_dtype_size(desc->output.data_type);

    /* Per chunk: the offsets of its elements, then gather, compute, scatter. */
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init_op(&it, desc);
    uint64_t offsets[3][REF_CHUNK];
    uint64_t a[REF_CHUNK], b[REF_CHUNK] = {0}, r[REF_CHUNK];
    /* b stays zeros for unary operators (which ignore it), as bitcts_ref_element gets. */
    while (bitcts_tensor_iter_more(&it)) {
        uint32_t n = 0;
        for (; n < REF_CHUNK && bitcts_tensor_iter_more(&it); ++n) {
            for (uint32_t t = 0; t <= n_in; ++t) {
                offsets[t][n] = it.offset[t];
            }
            bitcts_tensor_iter_next(&it);
        }
        gather(a, inputs[0], in_bytes, offsets[0], n);
        if (n_in > 1) {
            gather(b, inputs[1], in_bytes, offsets[1], n);
        }
        compute(desc->op, in_bytes * 8, a, b, r, n, shift_policy);
        scatter(output, out_bytes, offsets[n_in], r, n);
    }
    return BITCTS_OK;
}
