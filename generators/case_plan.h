/* SPDX-License-Identifier: MIT */
/* The case plan (docs/case-plan.md): stable, hierarchical case ids, each tagged with its tiers
 * and the lowest feature level that requires it; and the materialisation of a case into tensor
 * descriptions and buffer bytes, all derived from (suite seed, case id) alone.
 * Thread-safety: a plan is immutable after creation; bitcts_case_build is reentrant. */
#ifndef BITCTS_GENERATORS_CASE_PLAN_H
#define BITCTS_GENERATORS_CASE_PLAN_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t */

#include "tensor_model.h" /* bitcts_op_desc */
#include "validate.h"     /* bitcts_rule, for negative cases */

#ifdef __cplusplus
extern "C" {
#endif

#define BITCTS_DEFAULT_SEED 0x62697463747331ull /* "bitcts1" */
#define BITCTS_GENERATOR_VERSION 2u

/* Tiers, as a mask. smoke cases are also default cases. */
#define BITCTS_TIER_SMOKE 0x1u
#define BITCTS_TIER_DEFAULT 0x2u
#define BITCTS_TIER_LARGE 0x4u
#define BITCTS_TIER_EXHAUSTIVE 0x8u
#define BITCTS_TIER_ALL 0xFu

/* Layout patterns. */
typedef enum bitcts_pattern {
    BITCTS_PAT_PACKED,
    BITCTS_PAT_PADDED_INNER,
    BITCTS_PAT_PADDED_OUTER,
    BITCTS_PAT_BROADCAST, /* unary: zero strides on some input dims */
    BITCTS_PAT_BROADCAST_A,
    BITCTS_PAT_BROADCAST_B,
    BITCTS_PAT_BROADCAST_BOTH, /* A and B broadcast along different dims */
    BITCTS_PAT_SCALAR,         /* unary: the input is one element */
    BITCTS_PAT_SCALAR_A,
    BITCTS_PAT_SCALAR_B,
    BITCTS_PAT_PERMUTED,
    BITCTS_PAT_INPLACE,   /* unary: output aliases the input */
    BITCTS_PAT_INPLACE_A, /* output aliases A */
    BITCTS_PAT_INPLACE_B, /* output aliases B */
    BITCTS_PAT_OVERSIZED, /* buffers larger than their minimum size */
    BITCTS_PAT_LARGE_PACKED,
    BITCTS_PAT_LARGE_PERMUTED,
    BITCTS_PAT_LARGE_BROADCAST,
    BITCTS_PAT_EXHAUSTIVE,
    BITCTS_PAT_INVALID, /* a negative case; the rule is in bitcts_case_key.rule */
    BITCTS_PAT_EXPLORE, /* an explored case, drawn from its seed (generators/explore.h) */
    BITCTS_PAT_MIXED,   /* each tensor its own layout (generators/case_mixed.h) */
    BITCTS_PAT_COUNT
} bitcts_pattern;

/* Value classes, selected by the case's index n (docs/case-plan.md). */
typedef enum bitcts_values {
    BITCTS_VALUES_RANDOM = 0,    /* uniform random bits; shift counts in [0, width) */
    BITCTS_VALUES_EDGE = 1,      /* edge sets and float specials; shift counts in [0, width) */
    BITCTS_VALUES_SHIFT_OOB = 2, /* shifts only: counts >= width mixed in (recorded) */
    BITCTS_VALUES_ENUMERATED = 3 /* exhaustive tiers: every value or pair, in order */
} bitcts_values;

/** The identity of a case. Everything else is derived from the id and the suite seed. */
typedef struct bitcts_case_key {
    char id[96];
    uint32_t op;
    uint32_t in_type;
    uint32_t out_type;
    uint32_t rank;
    uint32_t pattern; /* bitcts_pattern */
    uint32_t index;   /* n, the last id component */
    uint32_t values;  /* bitcts_values */
    uint32_t tiers;   /* BITCTS_TIER_* mask */
    uint32_t feature_level;
    uint32_t rule;    /* bitcts_rule for negative cases, else 0 */
    uint32_t layouts; /* mixed cases: 4 bits per tensor (A or Input, B, Output), else 0 */
} bitcts_case_key;

typedef struct bitcts_case_data bitcts_case_data;

typedef struct bitcts_plan {
    bitcts_case_key *cases;
    size_t count;
    /* NULL, or per case: explicit data to run instead of building the case from its key
     * (shrinking's candidates); owned by the plan (bitcts_plan_destroy frees them). */
    bitcts_case_data **fixed;
} bitcts_plan;

/** Builds the full plan (every tier) in its fixed order. @return BITCTS_OK or OUT_OF_MEMORY. */
int bitcts_plan_create(bitcts_plan **out);
void bitcts_plan_destroy(bitcts_plan *plan);

/** The most globs a filter holds (--filter given that many times). */
#define BITCTS_MAX_FILTERS 64

/** Globs on case ids (fnmatch): an id matching any of them is selected; none selects every id.
 * The strings are borrowed (argv). */
typedef struct bitcts_filter {
    const char *globs[BITCTS_MAX_FILTERS];
    size_t count;
} bitcts_filter;

/** 1 when `id` matches one of the filter's globs, or the filter has none. */
int bitcts_filter_matches(const bitcts_filter *filter, const char *id);
/** The globs joined by ',' ("*" when there are none), for reports and manifests; truncated to
 * cap. */
void bitcts_filter_join(const bitcts_filter *filter, char *out, size_t cap);

/** 1 when `id` is selected by globs: it matches one of `filter`'s (or `filter` has none) and
 * none of `exclude`'s. The one meaning of --filter and --exclude in every command. */
int bitcts_ids_select(const bitcts_filter *filter, const bitcts_filter *exclude, const char *id);
/** The exclude globs joined by ',' ("" when there are none), for reports and manifests. */
void bitcts_exclude_join(const bitcts_filter *exclude, char *out, size_t cap);

/** Selection: tier mask, globs on the id, maximum feature level (0 = any), globs that take ids
 * out again (--exclude). */
typedef struct bitcts_selection {
    uint32_t tiers;
    bitcts_filter filter;
    uint32_t max_feature_level;
    bitcts_filter exclude;
} bitcts_selection;

int bitcts_selection_matches(const bitcts_selection *sel, const bitcts_case_key *key);
/** 1 when `glob` is a well-formed fnmatch pattern: every '[' closed by a ']' (classes such as
 * [[:digit:]] included), no '\\' at the end. A malformed one would match nothing silently. */
int bitcts_glob_is_valid(const char *glob);
/** Finds a case by exact id; NULL when there is none. */
const bitcts_case_key *bitcts_plan_find(const bitcts_plan *plan, const char *id);
/** As bitcts_plan_find, searching from *cursor (wrapping around) and leaving *cursor after the
 * case found: ids read in plan order (a manifest, a report) cost one pass over the plan in all. */
const bitcts_case_key *bitcts_plan_find_from(const bitcts_plan *plan, const char *id,
                                             size_t *cursor);

const char *bitcts_pattern_name(uint32_t pattern);
const char *bitcts_values_name(uint32_t values);
/** Parses "smoke", "default", "large", "exhaustive", "all" (comma lists allowed); 0 if bad. */
uint32_t bitcts_tier_parse(const char *text);
/** The name of the single lowest tier in a mask. */
const char *bitcts_tier_name(uint32_t tiers);

/** A materialised case. Buffers are owned. alias_input >= 0 means the output IS that input's
 * buffer (in place): output then points at inputs[alias_input]. */
struct bitcts_case_data {
    bitcts_op_desc desc;
    uint64_t case_seed;
    int alias_input;
    uint8_t *inputs[2];
    uint8_t *output; /* initial output contents (or the aliased input) */
    uint8_t *owned_output;
};

/** Derives the case's tensors and bytes. Negative cases get descriptions but no buffers.
 * @return BITCTS_OK, BITCTS_E_OUT_OF_MEMORY. */
int bitcts_case_build(uint64_t suite_seed, const bitcts_case_key *key, bitcts_case_data *out);
void bitcts_case_free(bitcts_case_data *data);
/** A deep copy of a case's data (description and buffers, aliasing kept).
 * @return BITCTS_OK or BITCTS_E_OUT_OF_MEMORY (then dst holds nothing). */
int bitcts_case_copy(const bitcts_case_data *src, bitcts_case_data *dst);
/** The data of plan case `index`: its fixed data copied, or built from its key. */
int bitcts_plan_case_data(const bitcts_plan *plan, size_t index, uint64_t suite_seed,
                          bitcts_case_data *out);

/** The expected output buffer of a valid case: a copy of the initial output buffer (or of the
 * aliased input) with the logical elements computed by the reference under `shift_policy`.
 * The case's own buffers are not modified. @return BITCTS_OK, OUT_OF_MEMORY or the reference's
 * status. */
int bitcts_case_expected(const bitcts_case_data *data, int shift_policy, uint8_t **out);
/** As bitcts_case_expected, into `dst` (total_tensor_size_in_bytes of the output). */
int bitcts_case_expected_into(const bitcts_case_data *data, int shift_policy, uint8_t *dst);

/** 1 for shift cases whose B holds counts >= the width: those elements are recorded, not
 * asserted (spec section 0). */
int bitcts_case_is_recorded(const bitcts_case_key *key);

#ifdef __cplusplus
}
#endif
#endif
