/* SPDX-License-Identifier: MIT */
/* The logical-element iterator against first principles, exhaustively: for every rank 1-8 and
 * every shape of sizes 1-3 (rank <= 6; ranks 7 and 8 a fixed sample), and for each of the layouts
 * packed (Strides NULL), padded, broadcast (zero strides), permuted and scalar, every step's
 * coordinates must be the row-major decomposition of its index (by division), and every
 * tensor's offset must be dot(coordinates, strides). Operators walk up to three tensors with
 * different layouts in the output's shape. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tensor_iter.h"

enum { LAYOUT_PACKED, LAYOUT_PADDED, LAYOUT_BROADCAST, LAYOUT_PERMUTED, LAYOUT_SCALAR, LAYOUTS };

static uint64_t steps_checked;

/* A tensor of the shape with one of the layouts; `salt` varies the padding and the mask. */
static void make_tensor(bitcts_tensor_desc *t, uint32_t rank, const uint32_t *sizes, int layout,
                        uint32_t salt)
{
    memset(t, 0, sizeof *t);
    t->data_type = BITCTS_DT_UINT8;
    t->dimension_count = rank;
    memcpy(t->sizes, sizes, rank * sizeof sizes[0]);
    if (layout == LAYOUT_PACKED) {
        return;
    }
    t->has_strides = 1;
    uint64_t s = 1;
    for (uint32_t i = rank; i-- > 0;) {
        /* permuted: dims get packed strides in reverse order (the outermost is innermost) */
        const uint32_t k = layout == LAYOUT_PERMUTED ? rank - 1 - i : i;
        const int zero =
            layout == LAYOUT_SCALAR || (layout == LAYOUT_BROADCAST && ((salt >> k) & 1u) != 0);
        t->strides[k] = zero ? 0 : (uint32_t)s;
        if (!zero) {
            s *= sizes[k] + (layout == LAYOUT_PADDED ? 1 + (salt + k) % 3 : 0);
        }
    }
}

/* The row-major coordinates of `index`, by division: independent of the iterator's odometer. */
static void coords_of(uint64_t index, uint32_t rank, const uint32_t *sizes, uint32_t *coord)
{
    for (uint32_t k = rank; k-- > 0;) {
        coord[k] = (uint32_t)(index % sizes[k]);
        index /= sizes[k];
    }
}

static uint64_t dot(const bitcts_tensor_desc *t, const uint32_t *coord)
{
    uint64_t off = 0;
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        off += (uint64_t)coord[k] * bitcts_tensor_stride(t, k);
    }
    return off;
}

/* 1 when two walks stand on the same element with the same offsets. */
static int same_place(const bitcts_tensor_iter *a, const bitcts_tensor_iter *b)
{
    int same = a->index == b->index;
    for (uint32_t k = 0; k < a->rank; ++k) {
        same &= a->coord[k] == b->coord[k];
    }
    for (uint32_t t = 0; t < a->tensors; ++t) {
        same &= a->offset[t] == b->offset[t];
    }
    return same;
}

/* Row steps from `start` (every other row entered one element in) land where as many single
 * steps land, and row_left counts the row's elements from the current one. */
static void check_rows(const bitcts_tensor_iter *start)
{
    bitcts_tensor_iter rows = *start, steps = *start;
    const uint32_t last = start->rank - 1;
    uint64_t row = 0;
    int bad = 0;
    while (bitcts_tensor_iter_more(&rows)) {
        if (row++ % 2 == 1 && rows.coord[last] + 1 < rows.sizes[last]) {
            bitcts_tensor_iter_next(&rows);
            bitcts_tensor_iter_next(&steps);
        }
        const uint64_t left = bitcts_tensor_iter_row_left(&rows);
        bad |= left != (uint64_t)(rows.sizes[last] - rows.coord[last]);
        for (uint64_t i = 0; i < left; ++i) {
            bitcts_tensor_iter_next(&steps);
        }
        bitcts_tensor_iter_next_row(&rows);
        bad |= !same_place(&rows, &steps);
    }
    CHECK(!bad);
    CHECK(!bitcts_tensor_iter_more(&steps));
}

/* Walks to the end, checking every step against tensors[0 .. n), and the row steps from the
 * same start. */
static void check_walk(bitcts_tensor_iter *it, const bitcts_tensor_desc *const *tensors, uint32_t n)
{
    check_rows(it);
    const bitcts_tensor_desc *shape = tensors[n - 1];
    const uint64_t count = bitcts_tensor_element_count(shape);
    CHECK_EQ_U64(it->count, count);
    uint64_t expected_index = 0;
    int bad = 0;
    for (; bitcts_tensor_iter_more(it); bitcts_tensor_iter_next(it)) {
        uint32_t coord[BITCTS_MAX_DIMS];
        coords_of(expected_index, shape->dimension_count, shape->sizes, coord);
        bad |= it->index != expected_index;
        bad |= memcmp(it->coord, coord, shape->dimension_count * sizeof coord[0]) != 0;
        for (uint32_t t = 0; t < n; ++t) {
            bad |= it->offset[t] != dot(tensors[t], coord);
        }
        ++expected_index;
        ++steps_checked;
    }
    CHECK(!bad);
    CHECK_EQ_U64(expected_index, count);
}

static void check_shape(uint32_t rank, const uint32_t *sizes)
{
    for (int layout = 0; layout < LAYOUTS; ++layout) {
        bitcts_tensor_desc t;
        make_tensor(&t, rank, sizes, layout, rank * 7u + (uint32_t)layout);
        bitcts_tensor_iter it;
        bitcts_tensor_iter_init(&it, &t);
        const bitcts_tensor_desc *one[1] = {&t};
        check_walk(&it, one, 1);
    }
    /* An operator: A, B and the output each with its own layout (the output never
     * broadcast), in the output's shape. */
    static const int combos[][3] = {{LAYOUT_PACKED, LAYOUT_BROADCAST, LAYOUT_PADDED},
                                    {LAYOUT_PERMUTED, LAYOUT_SCALAR, LAYOUT_PACKED},
                                    {LAYOUT_BROADCAST, LAYOUT_PERMUTED, LAYOUT_PERMUTED}};
    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; ++c) {
        bitcts_op_desc d;
        memset(&d, 0, sizeof d);
        d.op = BITCTS_OP_BIT_XOR;
        d.input_count = 2;
        make_tensor(&d.inputs[0], rank, sizes, combos[c][0], 3u);
        make_tensor(&d.inputs[1], rank, sizes, combos[c][1], 5u);
        make_tensor(&d.output, rank, sizes, combos[c][2], 1u);
        bitcts_tensor_iter it;
        bitcts_tensor_iter_init_op(&it, &d);
        CHECK_EQ_U64(it.tensors, 3);
        const bitcts_tensor_desc *three[3] = {&d.inputs[0], &d.inputs[1], &d.output};
        check_walk(&it, three, 3);
    }
    /* A unary operator: the output's offset is offset[1]. */
    bitcts_op_desc u;
    memset(&u, 0, sizeof u);
    u.op = BITCTS_OP_BIT_NOT;
    u.input_count = 1;
    make_tensor(&u.inputs[0], rank, sizes, LAYOUT_BROADCAST, 6u);
    make_tensor(&u.output, rank, sizes, LAYOUT_PADDED, 2u);
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init_op(&it, &u);
    const bitcts_tensor_desc *two[2] = {&u.inputs[0], &u.output};
    check_walk(&it, two, 2);
}

/* Every shape with sizes in 1..3 for ranks 1-6; for ranks 7 and 8 every 5th and 23rd one. */
static void test_all_shapes(void)
{
    for (uint32_t rank = 1; rank <= BITCTS_MAX_DIMS; ++rank) {
        uint32_t total = 1;
        for (uint32_t k = 0; k < rank; ++k) {
            total *= 3;
        }
        const uint32_t step = rank <= 6 ? 1 : (rank == 7 ? 5 : 23);
        for (uint32_t code = 0; code < total; code += step) {
            uint32_t sizes[BITCTS_MAX_DIMS];
            uint32_t c = code;
            for (uint32_t k = 0; k < rank; ++k) {
                sizes[k] = 1 + c % 3;
                c /= 3;
            }
            check_shape(rank, sizes);
        }
    }
}

/* Larger extents and 64-bit offsets: a rank-2 walk whose strides reach past 2^32 elements. */
static void test_wide_strides(void)
{
    bitcts_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.data_type = BITCTS_DT_UINT8;
    t.dimension_count = 3;
    t.sizes[0] = 3;
    t.sizes[1] = 1000;
    t.sizes[2] = 2;
    t.has_strides = 1;
    t.strides[0] = 0xFFFFFFF0u;
    t.strides[1] = 0x10000u;
    t.strides[2] = 0x80000000u;
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init(&it, &t);
    const bitcts_tensor_desc *one[1] = {&t};
    check_walk(&it, one, 1);
}

/* The iterator visits nothing more after the end, and a one-element tensor once. */
static void test_ends(void)
{
    bitcts_tensor_desc t;
    const uint32_t one_sizes[1] = {1};
    make_tensor(&t, 1, one_sizes, LAYOUT_PACKED, 0);
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init(&it, &t);
    CHECK(bitcts_tensor_iter_more(&it));
    CHECK_EQ_U64(it.offset[0], 0);
    bitcts_tensor_iter_next(&it);
    CHECK(!bitcts_tensor_iter_more(&it));
}

int main(void)
{
    test_all_shapes();
    test_wide_strides();
    test_ends();
    printf("%llu iterator steps checked\n", (unsigned long long)steps_checked);
    CHECK(steps_checked > 1000000);
    return check_exit();
}
