/* SPDX-License-Identifier: MIT */
/* Results computed outside bitcts (docs/vector-format.md, "Results"): the readers of an
 * export's manifest.json (what `bitcts check` needs from it) and of a producer's results.json.
 * Bytes in, a checked structure out: no file system, any bytes give a structure or a one-line
 * error (both are fuzz targets). A results.json whose header is sound but one of whose case
 * entries is not keeps that entry, with the problem, so that the other cases are still checked.
 * Thread-safety: the parsed structures are immutable; functions are reentrant. */
#ifndef BITCTS_VECTORS_VEC_RESULTS_H
#define BITCTS_VECTORS_VEC_RESULTS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#include <jansson.h> /* json_t */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS_RESULTS_FORMAT "bitcts-results"
#define BITCTS_RESULTS_FORMAT_VERSION "1.0"
#define BITCTS_RESULTS_FORMAT_MAJOR 1u
#define BITCTS_RESULTS_MAX_ID 95u     /* bytes of a case id (the plan's ids are shorter) */
#define BITCTS_RESULTS_MAX_TEXT 4096u /* bytes of a reason, a name, a path */
#define BITCTS_RESULTS_MAX_CASES 4000000u

/* ---- the export's manifest ---- */

/* The highest major version of the vector format read (1.x, and 2.x: docs/vector-format.md). */
#define BITCTS_EXPORT_MAJOR_MAX 2u

/** What `bitcts check` reads from an export's manifest.json. Strings live as long as it. */
typedef struct bitcts_export_manifest {
    uint32_t format_major;
    uint32_t format_minor;
    uint32_t generator_version;
    uint64_t seed;
    const char *tier;
    const char *filter;
    const char *feature_level; /* "" when the export had no --feature-level */
    size_t count;
    const char **ids; /* count case ids, in the manifest's order */
    json_t *root;     /* owns the strings */
} bitcts_export_manifest;

/** Parses an export's manifest.json from `size` bytes (any bytes; never read past).
 * @param out [out] release with bitcts_export_manifest_free (also on failure: then empty).
 * @return BITCTS_OK; BITCTS_E_PARSE (not JSON, a field missing or of the wrong kind: err names
 *         it); BITCTS_E_FORMAT_VERSION (not a bitcts vector export, or an unknown major
 *         version); BITCTS_E_OUT_OF_MEMORY. */
int bitcts_export_manifest_parse(const void *data, size_t size, bitcts_export_manifest *out,
                                 char *err, size_t cap);
void bitcts_export_manifest_free(bitcts_export_manifest *m);

/* ---- a producer's results.json ---- */

/* What a producer says about a case. */
typedef enum bitcts_result_status {
    BITCTS_RESULT_DONE = 0,          /* it ran the case: the output is in a file */
    BITCTS_RESULT_NOT_SUPPORTED = 1, /* it cannot run the case (reason) */
    BITCTS_RESULT_REJECTED = 2,      /* it refused the description (negative cases) */
    BITCTS_RESULT_ACCEPTED = 3,      /* it accepted the description and ran nothing */
    BITCTS_RESULT_ERROR = 4,         /* it tried and failed (reason) */
    BITCTS_RESULT_BAD = 5            /* the entry is malformed: see `problem` */
} bitcts_result_status;

/* How the output bytes are laid out in the file. */
typedef enum bitcts_result_layout {
    BITCTS_RESULT_BUFFER = 0,  /* the whole output buffer, TotalTensorSizeInBytes bytes */
    BITCTS_RESULT_ELEMENTS = 1 /* the logical elements only, row-major, little-endian */
} bitcts_result_layout;

typedef struct bitcts_result_entry {
    const char *id;
    int status; /* bitcts_result_status */
    int layout; /* bitcts_result_layout, for DONE */
    const char *path;
    uint64_t offset;
    uint64_t bytes;
    uint32_t crc32;
    double duration_ms; /* -1 when not given */
    const char *reason; /* "" when none */
    char problem[200];  /* BAD: what is wrong with the entry */
} bitcts_result_entry;

typedef struct bitcts_result_set {
    uint32_t format_major;
    uint32_t format_minor;
    uint32_t generator_version;
    uint64_t seed;
    const char *producer_name;
    const char *producer_version;
    const json_t *producer_info; /* an object of strings (may be empty) */
    size_t count;
    bitcts_result_entry *entries; /* sorted by id for lookups */
    size_t unattributed;          /* entries without a usable id (malformed) */
    char first_unattributed[200]; /* the first such entry's problem */
    json_t *root;                 /* owns the strings */
} bitcts_result_set;

/** Parses results.json from `size` bytes (any bytes; never read past). The header (format,
 * version, producer, vectors) must be sound; a case entry that is not becomes a BAD entry
 * (or, without a usable id, is counted in `unattributed`).
 * @param out [out] release with bitcts_result_set_free (also on failure: then empty).
 * @return BITCTS_OK; BITCTS_E_PARSE; BITCTS_E_FORMAT_VERSION (another format or an unknown
 *         major version); BITCTS_E_OUT_OF_MEMORY. err names the field on failure. */
int bitcts_results_parse(const void *data, size_t size, bitcts_result_set *out, char *err,
                         size_t cap);
void bitcts_result_set_free(bitcts_result_set *set);
/** The entry of a case, or NULL. */
const bitcts_result_entry *bitcts_results_find(const bitcts_result_set *set, const char *id);
/** "done", "not_supported", "rejected", "accepted", "error", "bad". */
const char *bitcts_result_status_name(int status);

/** CRC-32 (ISO-HDLC, as zlib's crc32 and Python's zlib.crc32), continuing from `crc` (0 at
 * the start). */
uint32_t bitcts_crc32(uint32_t crc, const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
