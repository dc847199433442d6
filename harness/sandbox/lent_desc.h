/* SPDX-License-Identifier: MIT */
/* The operator description a backend is lent. The backend never holds the harness's own
 * description: it gets a copy (the ABI records, their sizes and strides arrays) in a mapping of
 * its own that is read-only while the backend runs, and a second copy the backend never sees
 * is compared with it after every call. A write through the lent pointers faults (the fault
 * report names "the operator description"); a backend that makes the pages writable again and
 * changes them is caught by the comparison, and the harness's judgement always uses its own
 * description. Thread-safety: one worker process, one thread. */
#ifndef BITCTS_HARNESS_LENT_DESC_H
#define BITCTS_HARNESS_LENT_DESC_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_abi_operator_desc */
#include "guard_mem.h"            /* bitcts_guard_buf */
#include "tensor_model.h"         /* bitcts_op_desc */

/** The lent copy and the pristine one. Zero-initialise, then lend; free at the end. */
typedef struct bitcts_lent_desc {
    bitcts_guard_buf map; /* what the backend sees: read-only between lend and free */
    const bitcts_abi_operator_desc *desc; /* into map */
    unsigned char pristine[1024];         /* map's bytes as lent */
    size_t bytes;                         /* how many of them */
} bitcts_lent_desc;

/** Writes the ABI view of `d` into the lent mapping (made on first use, reused after) for the
 * case `case_index`, keeps a pristine copy, and makes the mapping read-only.
 * @return the description to hand the backend, or NULL when the mapping cannot be made. */
const bitcts_abi_operator_desc *bitcts_lent_desc_lend(bitcts_lent_desc *l, const bitcts_op_desc *d,
                                                      uint64_t case_index);

/** After a backend call: 0 when the lent description is as lent, else 1 with `out` naming the
 * first difference, as "the backend changed the operator description it was lent during
 * <call>: Output sizes[0] 4 -> 1". */
int bitcts_lent_desc_changed(const bitcts_lent_desc *l, const char *call, char *out, size_t cap);

/** Unmaps the lent description. */
void bitcts_lent_desc_free(bitcts_lent_desc *l);

#endif
