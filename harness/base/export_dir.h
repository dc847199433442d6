/* SPDX-License-Identifier: MIT */
/* Vector exports on disk: the folder appears whole or not at all (written into a staging folder
 * beside the destination, then renamed in), and only a missing or empty folder, or an earlier
 * export, is ever replaced. Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_EXPORT_DIR_H
#define BITCTS_HARNESS_EXPORT_DIR_H

#include <signal.h> /* sig_atomic_t */
#include <stddef.h> /* size_t */

#include "vec_export.h" /* bitcts_export_options, bitcts_export_stats */

/** Exports the selection into the folder out_dir (docs/vector-format.md).
 * @param interrupted [borrowed] set by a signal handler to stop the export; or NULL.
 * @return BITCTS_OK; BITCTS_E_EXISTS (out_dir holds something else); BITCTS_E_IO (err names
 *         the path, or is "interrupted" once *interrupted is set); the exporter's statuses.
 *         Nothing is left behind on failure or interruption. */
int bitcts_export_dir(const bitcts_plan *plan, const bitcts_export_options *opt,
                      const char *out_dir, const volatile sig_atomic_t *interrupted,
                      bitcts_export_stats *stats, char *err, size_t cap);

#endif
