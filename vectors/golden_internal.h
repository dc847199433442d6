/* SPDX-License-Identifier: MIT */
/* Internals of the golden vectors shared by golden.c (build, write, compare), golden_parse.c,
 * golden_literals.c and golden_tensors.c. Not installed. Thread-safety: as golden.h. */
#ifndef BITCTS_VECTORS_GOLDEN_INTERNAL_H
#define BITCTS_VECTORS_GOLDEN_INTERNAL_H

#include <jansson.h> /* json_t */

#include "golden.h"
#include "tensor_model.h" /* bitcts_op_desc */

/* An entry of a set by its key (a case id or a literal name), for lookups. */
typedef struct bitcts_golden_key {
    const char *key;
    json_t *entry;
    size_t position;
} bitcts_golden_key;

struct bitcts_golden {
    json_t *root; /* owns the header fields, "literals" and "cases" */
    bitcts_golden_info info;
    bitcts_golden_key *cases_by_id; /* sorted by key */
    bitcts_golden_key *literals_by_name;
};

/** Fills info and the sorted indexes from root (which the set takes). Keys must be unique.
 * @return BITCTS_OK, BITCTS_E_PARSE (a duplicate key; err names it), BITCTS_E_OUT_OF_MEMORY. */
int bitcts__golden_finish(bitcts_golden *g, char *err, size_t cap);
/** Finds an entry by key in an index of n entries; NULL when absent. */
const bitcts_golden_key *bitcts__golden_find(const bitcts_golden_key *index, size_t n,
                                             const char *key);

/** A description's tensors as the manifest writes them: [role, DataTypeValue, Flags, Sizes,
 * Strides or null, TotalTensorSizeInBytes, GuaranteedBaseOffsetAlignment] each. New reference. */
json_t *bitcts__golden_tensors(const bitcts_op_desc *desc);

/** The literal vectors, computed with the reference. New reference (an array), or NULL with
 * err set. */
json_t *bitcts__golden_literals(char *err, size_t cap);

#endif
