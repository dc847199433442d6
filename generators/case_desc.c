/* SPDX-License-Identifier: MIT */
/* The part of a description every case shares, planned or explored: the operator, its input
 * count, and each tensor's data type, rank and sizes (case_build.c and explore.c both start
 * from it, and neither calls the other for it). */
#include <string.h> /* memcpy */

#include "case_plan.h"
#include "tensor_model.h" /* bitcts_op_input_count */

void bitcts_case_set_tensors(bitcts_op_desc *d, uint32_t op, uint32_t in_type, uint32_t out_type,
                             uint32_t rank, const uint32_t *sizes)
{
    d->op = op;
    d->input_count = bitcts_op_input_count(op);
    bitcts_tensor_desc *all[3] = {&d->inputs[0], &d->inputs[1], &d->output};
    for (int i = 0; i < 3; ++i) {
        all[i]->data_type = i == 2 ? out_type : in_type;
        all[i]->dimension_count = rank;
        memcpy(all[i]->sizes, sizes, rank * sizeof sizes[0]);
    }
}
