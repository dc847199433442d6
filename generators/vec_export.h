/* SPDX-License-Identifier: MIT */
/* `bitcts vectors export`: writes the selected cases' descriptions, input bytes and expected
 * output bytes with their digests, in the format of docs/vector-format.md. The folder appears
 * whole or not at all (staged beside the destination, then renamed).
 * Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_VEC_EXPORT_H
#define BITCTS_GENERATORS_VEC_EXPORT_H

#include <stddef.h> /* size_t */

#include "case_plan.h" /* bitcts_plan, bitcts_selection */

#define BITCTS_VECTOR_FORMAT "bitcts-vectors"
#define BITCTS_VECTOR_FORMAT_VERSION "1.0"

typedef struct bitcts_export_options {
    uint64_t seed;
    bitcts_selection selection;
    const char *tier_text;   /* as given, for the manifest */
    const char *out_dir;
} bitcts_export_options;

typedef struct bitcts_export_stats {
    size_t cases;
    size_t files;
    uint64_t bytes;
} bitcts_export_stats;

/** @return BITCTS_OK, BITCTS_E_IO (err names the path), BITCTS_E_EXISTS, OUT_OF_MEMORY. */
int bitcts_vectors_export(const bitcts_plan *plan, const bitcts_export_options *opt,
                          bitcts_export_stats *stats, char *err, size_t cap);

#endif
