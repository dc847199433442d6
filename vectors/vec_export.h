/* SPDX-License-Identifier: MIT */
/* The vector export (docs/vector-format.md, format 2.0): for each selected case its
 * description, the exact bytes of its input buffers, of its initial output buffer and of the
 * expected outputs that do not follow from it, with their digests (XXH3-128 and CRC-32), and a
 * manifest.
 * Files go through a sink the caller gives (a folder, memory, an archive), so this module
 * touches no file system. Thread-safety: reentrant. */
#ifndef BITCTS_VECTORS_VEC_EXPORT_H
#define BITCTS_VECTORS_VEC_EXPORT_H

#include <stddef.h> /* size_t */

#include "case_plan.h" /* bitcts_plan, bitcts_selection */

#define BITCTS_VECTOR_FORMAT "bitcts-vectors"
#define BITCTS_VECTOR_FORMAT_VERSION "2.0"

/** Where the export's files go. Paths are relative to the export's root, '/'-separated:
 * "manifest.json", "data/<operator>.bin". */
typedef struct bitcts_vec_sink {
    void *user;
    /** Creates folder `rel` (its parent exists). @return BITCTS_OK or a status, err set. */
    int (*make_dir)(void *user, const char *rel, char *err, size_t cap);
    /** Writes the whole file `rel`. @return BITCTS_OK or a status, err set. */
    int (*write_file)(void *user, const char *rel, const void *data, size_t size, char *err,
                      size_t cap);
} bitcts_vec_sink;

typedef struct bitcts_export_options {
    uint64_t seed;
    bitcts_selection selection;
    const char *tier_text; /* as given, for the manifest */
    int every_case;        /* 1: every case of the plan, whatever the selection (an explicit
                            * plan: explored or shrunk cases, whose data the plan may hold) */
} bitcts_export_options;

typedef struct bitcts_export_stats {
    size_t cases;
    size_t files;
    uint64_t bytes;
} bitcts_export_stats;

/** Exports the selected cases of the plan through the sink, the manifest last.
 * @return BITCTS_OK; BITCTS_E_INTERNAL (the reference refused a case); BITCTS_E_OUT_OF_MEMORY;
 *         or the sink's status. err names the case or the file. */
int bitcts_vectors_export(const bitcts_plan *plan, const bitcts_export_options *opt,
                          const bitcts_vec_sink *sink, bitcts_export_stats *stats, char *err,
                          size_t cap);

#endif
