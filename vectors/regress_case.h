/* SPDX-License-Identifier: MIT */
/* The regression case file (docs/regressions.md, format 1.0): one failing case kept forever,
 * as bytes. Its full description, the exact bytes of its input buffers and initial output
 * buffer (hex), and where it came from; named by a digest of the description and the bytes, so
 * the same case written twice is one file. Reading is strict: a file that is damaged, truncated,
 * contradicts itself or describes a case DirectML calls invalid is refused with one line.
 * No file system here: the caller reads and writes the bytes. Thread-safety: reentrant. */
#ifndef BITCTS_VECTORS_REGRESS_CASE_H
#define BITCTS_VECTORS_REGRESS_CASE_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */

#include "case_plan.h" /* bitcts_case_key, bitcts_case_data */

#define BITCTS_REGRESS_FORMAT "bitcts-regression"
#define BITCTS_REGRESS_FORMAT_VERSION "1.0"
/** Hex digits of a case's name (the file is <name>.json, the case regression.<name>). */
#define BITCTS_REGRESS_NAME_HEX 16
/** The largest case file read (hex doubles the buffers: about 32 MiB of them). */
#define BITCTS_REGRESS_MAX_FILE ((size_t)64 << 20)
/** The prefix of every regression case id. */
#define BITCTS_REGRESS_ID_PREFIX "regression."

/** The name of a case: the first BITCTS_REGRESS_NAME_HEX hex digits of XXH3-128 over its
 * canonical description (without its id) and its buffers' bytes. */
void bitcts_regress_name(const bitcts_case_key *key, const bitcts_case_data *data,
                         char out[BITCTS_REGRESS_NAME_HEX + 1]);

/** The case file of a valid case.
 * @param origin [borrowed] an object of strings, integers and nulls (docs/regressions.md).
 * @param text [out] the file's bytes (malloc'd), ending in a newline.
 * @param name [out] the case's name.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (a negative case, an origin of other values);
 *         BITCTS_E_OUT_OF_MEMORY. */
int bitcts_regress_encode(const bitcts_case_key *key, const bitcts_case_data *data,
                          const json_t *origin, char **text, size_t *size,
                          char name[BITCTS_REGRESS_NAME_HEX + 1]);

/** Reads a case file: the key (id regression.<name>, every tier, explore's pattern with index
 * UINT32_MAX: a case whose data is its own), the data, the origin and the name.
 * @param origin [out] new reference; may be NULL when not wanted.
 * @return BITCTS_OK; BITCTS_E_PARSE or BITCTS_E_FORMAT_VERSION with one line in err naming
 *         the problem (not the file); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_regress_decode(const char *text, size_t size, bitcts_case_key *key,
                          bitcts_case_data *data, json_t **origin,
                          char name[BITCTS_REGRESS_NAME_HEX + 1], char *err, size_t cap);

#endif
