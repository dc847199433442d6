/* SPDX-License-Identifier: MIT */
/* The golden vectors (docs/golden-vectors.md): a manifest that pins, for every case of a tier,
 * its description and the XXH3-128 digests of its input buffers and expected output, plus
 * literal vectors (DirectML's documented examples and bitcts's correction). Built from the plan
 * and the reference, written through a sink, parsed from bytes (no file system; the parser takes
 * any bytes and is meant for fuzzing), and compared: what changed and why.
 * Thread-safety: a golden set is immutable after creation; functions are reentrant. */
#ifndef BITCTS_VECTORS_GOLDEN_H
#define BITCTS_VECTORS_GOLDEN_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#include "case_plan.h"  /* bitcts_plan */
#include "vec_export.h" /* bitcts_vec_sink */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS_GOLDEN_FORMAT "bitcts-golden"
#define BITCTS_GOLDEN_FORMAT_MAJOR 1u /* readers refuse another major version */
#define BITCTS_GOLDEN_FORMAT_MINOR 0u /* a higher minor only adds fields, which readers ignore */
#define BITCTS_GOLDEN_FORMAT_VERSION "1.0"

/** A golden set: parsed from a manifest or built from the plan. Opaque. */
typedef struct bitcts_golden bitcts_golden;

/** The manifest's header. Strings live as long as the set. */
typedef struct bitcts_golden_info {
    uint32_t format_major;
    uint32_t format_minor;
    uint32_t generator_version;
    uint64_t seed;
    const char *tier; /* "default", ... (bitcts_tier_parse accepts it) */
    size_t case_count;
    size_t literal_count;
} bitcts_golden_info;

/* ---- lifecycle ---- */

/** Builds the golden set of `tier` (a tier name) of the plan under `seed`: every selected
 * case generated, its buffers and expected outputs digested, and the literal vectors computed
 * with the reference.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (unknown tier); BITCTS_E_OUT_OF_MEMORY;
 *         BITCTS_E_INTERNAL (the reference refused a case; err names it). */
int bitcts_golden_build(const bitcts_plan *plan, uint64_t seed, const char *tier,
                        bitcts_golden **out, char *err, size_t cap);
/** Parses a manifest from `size` bytes (any bytes: no terminator needed, never read past).
 * @return BITCTS_OK; BITCTS_E_PARSE (not JSON, or a field missing or of the wrong kind; err
 *         names it); BITCTS_E_FORMAT_VERSION (another format or an unknown major version);
 *         BITCTS_E_OUT_OF_MEMORY. */
int bitcts_golden_parse(const void *data, size_t size, bitcts_golden **out, char *err, size_t cap);
/** Frees a set; NULL is fine. */
void bitcts_golden_destroy(bitcts_golden *golden);

/* ---- queries ---- */

/** The header of a set. */
void bitcts_golden_get_info(const bitcts_golden *golden, bitcts_golden_info *out);

/* ---- operations ---- */

/** Writes the manifest (docs/golden-vectors.md: one case a line) as file `rel` of the sink.
 * The same set always gives the same bytes.
 * @return BITCTS_OK, BITCTS_E_OUT_OF_MEMORY or the sink's status. */
int bitcts_golden_write(const bitcts_golden *golden, const bitcts_vec_sink *sink, const char *rel,
                        char *err, size_t cap);

/** Kinds of change between a committed set and the current one. */
typedef enum bitcts_golden_change_kind {
    BITCTS_GOLDEN_HEADER,      /* generator version, seed or tier differ */
    BITCTS_GOLDEN_ADDED,       /* in the current set only */
    BITCTS_GOLDEN_REMOVED,     /* in the committed set only */
    BITCTS_GOLDEN_DESCRIPTION, /* the operator or tensor description differs */
    BITCTS_GOLDEN_INPUT,       /* an input buffer's digest differs (what: its role) */
    BITCTS_GOLDEN_EXPECTED,    /* the expected output differs (what: "", "mask", "saturate") */
    BITCTS_GOLDEN_REJECTION,   /* a negative vector's rule differs */
    BITCTS_GOLDEN_DOCUMENTED   /* a literal's documented output is now matched otherwise */
} bitcts_golden_change_kind;

typedef struct bitcts_golden_change {
    bitcts_golden_change_kind kind;
    int literal;      /* 1 for a literal vector, 0 for a case */
    const char *id;   /* the case id or the literal's name ("" for the header) */
    const char *what; /* the field, role or policy; "" when none */
    char before[96];  /* the committed value ("" for added) */
    char after[96];   /* the current value ("" for removed) */
} bitcts_golden_change;

typedef void (*bitcts_golden_change_fn)(void *user, const bitcts_golden_change *change);

/** Compares a committed set with the current one and reports every change: the header first,
 * then each case and literal in the current set's order (added ones where they fall), then the
 * removed ones. @return the number of changes. */
size_t bitcts_golden_compare(const bitcts_golden *committed, const bitcts_golden *current,
                             bitcts_golden_change_fn fn, void *user);
/** One line for a change, as `bitcts vectors verify` prints it: "<id>: input A changed: <before>
 * -> <after>", "<id>: expected output changed: ...", "<id>: added", ... */
void bitcts_golden_change_line(const bitcts_golden_change *change, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
