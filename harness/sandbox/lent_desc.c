/* SPDX-License-Identifier: MIT */
/* The lent description: one small mapping laid out as the operator record, three tensor
 * records, then each tensor's sizes and strides arrays; a pristine copy to compare with. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memcpy, memcmp */

#include "lent_desc.h"

#define LENT_TENSORS 3u
#define LENT_DIMS (BITCTS_MAX_DIMS + 1u) /* a negative case may carry one dimension too many */

/* Where each part of the lent bytes lies. */
typedef struct lent_layout {
    bitcts_abi_operator_desc op;
    bitcts_abi_tensor tensors[LENT_TENSORS];
    uint32_t sizes[LENT_TENSORS][LENT_DIMS];
    uint32_t strides[LENT_TENSORS][LENT_DIMS];
} lent_layout;

_Static_assert(sizeof(lent_layout) <= sizeof(((bitcts_lent_desc *)0)->pristine),
               "the pristine copy holds the whole lent description");

static void fill(lent_layout *m, const bitcts_op_desc *d)
{
    memset(m, 0, sizeof *m);
    for (uint32_t t = 0; t <= d->input_count && t < LENT_TENSORS; ++t) {
        const bitcts_tensor_desc *s = t < d->input_count ? &d->inputs[t] : &d->output;
        bitcts_abi_tensor *a = &m->tensors[t];
        const uint32_t dims = s->dimension_count < LENT_DIMS ? s->dimension_count : LENT_DIMS;
        memcpy(m->sizes[t], s->sizes, dims * sizeof(uint32_t));
        memcpy(m->strides[t], s->strides, dims * sizeof(uint32_t));
        a->struct_size = sizeof *a;
        a->data_type = s->data_type;
        a->flags = s->flags;
        a->dimension_count = s->dimension_count;
        a->sizes = m->sizes[t];
        a->strides = s->has_strides ? m->strides[t] : NULL;
        a->total_tensor_size_in_bytes = s->total_tensor_size_in_bytes;
        a->guaranteed_base_offset_alignment = s->guaranteed_base_offset_alignment;
    }
    m->op.struct_size = sizeof m->op;
    m->op.operator_type = d->op;
    m->op.input_count = d->input_count;
    m->op.inputs = m->tensors;
    m->op.output = &m->tensors[d->input_count < LENT_TENSORS ? d->input_count : 0];
}

const bitcts_abi_operator_desc *bitcts_lent_desc_lend(bitcts_lent_desc *l, const bitcts_op_desc *d,
                                                      uint64_t case_index)
{
    const int fresh = l->map.base == NULL;
    if (fresh ? bitcts_guard_map(sizeof(lent_layout), 0, BITCTS_GUARD_KIND_HARNESS,
                                 "operator description", case_index, &l->map) != 0
              : bitcts_guard_reuse(&l->map, sizeof(lent_layout), 0, BITCTS_GUARD_KIND_HARNESS,
                                   "operator description", case_index) != 0) {
        return NULL;
    }
    lent_layout *m = (lent_layout *)(void *)l->map.data; /* 64-byte aligned */
    fill(m, d);
    l->bytes = sizeof *m;
    memcpy(l->pristine, m, l->bytes);
    bitcts_guard_protect(&l->map, 1);
    l->desc = &m->op;
    return l->desc;
}

/* The name of the field holding byte `off` of the layout, and its value in both copies when it
 * is a 32- or 64-bit number. */
static void name_field(const lent_layout *was, const lent_layout *now, size_t off, char *out,
                       size_t cap)
{
    const size_t tensors = offsetof(lent_layout, tensors);
    const size_t sizes = offsetof(lent_layout, sizes);
    const size_t strides = offsetof(lent_layout, strides);
    const uint32_t inputs = was->op.input_count;
    if (off < tensors) {
        snprintf(out, cap, "the operator record (byte %zu)", off);
    } else if (off < sizes) {
        const size_t t = (off - tensors) / sizeof(bitcts_abi_tensor);
        snprintf(out, cap, "%s's tensor record (byte %zu)", bitcts_role_name(inputs, (uint32_t)t),
                 (off - tensors) % sizeof(bitcts_abi_tensor));
    } else {
        const int is_sizes = off < strides;
        const size_t at = (off - (is_sizes ? sizes : strides)) / sizeof(uint32_t);
        const size_t t = at / LENT_DIMS;
        const size_t i = at % LENT_DIMS;
        const uint32_t a = is_sizes ? was->sizes[t][i] : was->strides[t][i];
        const uint32_t b = is_sizes ? now->sizes[t][i] : now->strides[t][i];
        snprintf(out, cap, "%s %s[%zu] %u -> %u", bitcts_role_name(inputs, (uint32_t)t),
                 is_sizes ? "sizes" : "strides", i, a, b);
    }
}

int bitcts_lent_desc_changed(const bitcts_lent_desc *l, const char *call, char *out, size_t cap)
{
    if (l->desc == NULL) {
        return 0;
    }
    const unsigned char *now = (const unsigned char *)l->desc;
    if (memcmp(now, l->pristine, l->bytes) == 0) {
        return 0;
    }
    size_t off = 0;
    while (off < l->bytes && now[off] == l->pristine[off]) {
        ++off;
    }
    lent_layout was;
    memcpy(&was, l->pristine, sizeof was);
    char field[160];
    name_field(&was, (const lent_layout *)(const void *)now, off, field, sizeof field);
    snprintf(out, cap,
             "the backend changed the operator description it was lent during %s: %s (the "
             "description is the host's, borrowed read-only for the call: PLG-6)",
             call, field);
    return 1;
}

void bitcts_lent_desc_free(bitcts_lent_desc *l)
{
    bitcts_guard_unmap(&l->map);
    l->desc = NULL;
    l->bytes = 0;
}
