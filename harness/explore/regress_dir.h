/* SPDX-License-Identifier: MIT */
/* A folder of regression case files (docs/regressions.md): `explore --save DIR` and `run
 * --shrink --save DIR` add each shrunk failure to it (one file per case, named by its digest,
 * written atomically, an existing one left as it is); `run --regressions DIR` reads it whole
 * into a plan, each case with its own data and its origin. Reading refuses the whole folder
 * when one file is damaged, hostile or truncated, naming the file.
 * Thread-safety: reentrant. */
#ifndef BITCTS_HARNESS_REGRESS_DIR_H
#define BITCTS_HARNESS_REGRESS_DIR_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */

#include "case_plan.h"       /* bitcts_plan */
#include "runner.h"          /* bitcts_run_config */
#include "shrink.h"          /* bitcts_shrink_result */
#include "shrink_failures.h" /* bitcts_shrunk */

/** Where a shrunk failure came from: the backend (its file name, no folder), the suite seed,
 * the original case and its explore index, the signature and detail of the shrunk case's
 * failure, its size before and after, the bitcts and generator versions. New reference. */
json_t *bitcts_regress_origin(const bitcts_run_config *run, const bitcts_shrunk *s,
                              const bitcts_shrink_result *r);

/** Adds a case to `dir` (created if missing) as <name>.json; a file of that name is kept.
 * @param path [out] the file's path.
 * @return BITCTS_OK; BITCTS_E_IO (err names the path); BITCTS_E_INVALID_ARGUMENT (a negative
 *         case); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_regress_save(const char *dir, const bitcts_case_key *key, const bitcts_case_data *data,
                        const json_t *origin, char *path, size_t path_cap, char *err, size_t cap);

/** Reads every <name>.json of `dir` (other names are not cases and are ignored), in name order,
 * into a plan: `base`'s cases (copied; may be NULL), then the regression cases with their data.
 * @param origins [out] an object: regression case id -> its origin (new reference).
 * @param added [out] the regression cases read.
 * @return BITCTS_OK; BITCTS_E_IO, BITCTS_E_PARSE, BITCTS_E_FORMAT_VERSION with one line in err
 *         naming the file and the problem; BITCTS_E_OUT_OF_MEMORY. */
int bitcts_regress_load(const char *dir, const bitcts_plan *base, bitcts_plan **out,
                        json_t **origins, size_t *added, char *err, size_t cap);

#endif
