/* SPDX-License-Identifier: MIT */
/* Vector exports on disk: the folder appears whole or not at all (written into a staging folder
 * beside the destination, then renamed in), and only a missing or empty folder, or an earlier
 * export, is ever replaced. Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_EXPORT_DIR_H
#define BITCTS_HARNESS_EXPORT_DIR_H

#include <stddef.h> /* size_t */

#include "vec_export.h" /* bitcts_export_options, bitcts_export_stats */

/** Exports the selection into the folder out_dir (docs/vector-format.md).
 * @return BITCTS_OK; BITCTS_E_EXISTS (out_dir holds something else); BITCTS_E_IO (err names
 *         the path); the exporter's statuses. Nothing is left behind on failure. */
int bitcts_export_dir(const bitcts_plan *plan, const bitcts_export_options *opt,
                      const char *out_dir, bitcts_export_stats *stats, char *err, size_t cap);

#endif
