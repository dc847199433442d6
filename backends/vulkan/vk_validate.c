/* SPDX-License-Identifier: MIT */
/* DirectML's rules for a bitwise operator description (docs/spec/validation.md), checked by the
 * SDK's backend kit, and the description it validated in the form the plan builder reads: the
 * operands in the backend's order (output, A, B) with packed strides filled in. */
#include <string.h> /* memcpy, memset */

#include "bitcts/bitcts_backend_kit.h" /* bitcts_kit_validate_op */
#include "vk_internal.h"

int32_t bitcts__vk_validate(const bitcts_abi_operator_desc *abi, bitcts__vk_desc *desc, char *err,
                            size_t cap)
{
    bitcts_kit_op checked;
    const int32_t rc = bitcts_kit_validate_op(abi, &checked, err, cap);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    memset(desc, 0, sizeof *desc);
    desc->op = checked.operator_type;
    desc->input_count = checked.input_count;
    desc->rank = checked.rank;
    memcpy(desc->sizes, checked.sizes, sizeof desc->sizes);
    const uint32_t slot[3] = {BITCTS__VK_A, BITCTS__VK_B, BITCTS__VK_OUT}; /* by BITCTS_KIT_* */
    for (uint32_t k = 0; k < 3; ++k) {
        if (k < checked.input_count || k == BITCTS_KIT_OUTPUT) {
            desc->data_type[slot[k]] = checked.tensors[k].data_type;
            desc->width[slot[k]] = checked.tensors[k].width;
            memcpy(desc->strides[slot[k]], checked.tensors[k].strides, sizeof desc->strides[0]);
        }
    }
    return BITCTS_ABI_OK;
}
