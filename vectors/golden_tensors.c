/* SPDX-License-Identifier: MIT */
/* A description's tensors as the golden manifest writes them (docs/golden-vectors.md), for the
 * cases (golden.c) and the literal vectors (golden_literals.c) alike. */
#include "case_json.h"
#include "golden_internal.h"

json_t *bitcts__golden_tensors(const bitcts_op_desc *d)
{
    json_t *all = json_array();
    for (uint32_t i = 0; i <= d->input_count; ++i) {
        const bitcts_tensor_desc *t = i < d->input_count ? &d->inputs[i] : &d->output;
        json_t *sizes = NULL;
        json_t *strides = NULL;
        bitcts_json_dims(t, &sizes, &strides);
        json_array_append_new(all, json_pack("[s, I, I, o, o, I, I]",
                                             bitcts_role_name(d->input_count, i),
                                             (json_int_t)t->data_type, (json_int_t)t->flags, sizes,
                                             strides, (json_int_t)t->total_tensor_size_in_bytes,
                                             (json_int_t)t->guaranteed_base_offset_alignment));
    }
    return all;
}
