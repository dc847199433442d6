/* SPDX-License-Identifier: MIT */
/* Failures grouped by what they share, for views that must stay readable at 10,000 failures:
 * each case's facets (operator, type, rank, pattern, parsed from its id) and its message
 * signature (the detail with every number replaced), and the groups of cases with one verdict,
 * operator and signature, largest first, each with the spread of its facets. Every case the
 * view lists is in exactly one group: nothing is capped. Internal to reports/.
 * Thread-safety: a grouping is immutable after create and only reads its report. */
#ifndef BITCTS_REPORTS_REPORT_GROUP_H
#define BITCTS_REPORTS_REPORT_GROUP_H

#include <stddef.h> /* size_t */

#include <jansson.h> /* json_t */

#include "report_model.h" /* bitcts_status */

/* The facets of a case id (docs/case-plan.md: <op>.<in>[.<out>].r<rank>.<pattern>.<n>). An id
 * that does not follow the plan's form (a result set's own names) keeps "" for what is absent. */
#define BITCTS_REPORT_FACET_LEN 64
#define BITCTS_REPORT_SIGNATURE_LEN 160
typedef enum bitcts__report_facet {
    BITCTS_REPORT_FACET_OP = 0,
    BITCTS_REPORT_FACET_TYPE = 1,    /* "uint16", or "int64>uint8" for BIT_COUNT */
    BITCTS_REPORT_FACET_RANK = 2,    /* "r3" */
    BITCTS_REPORT_FACET_PATTERN = 3, /* "padded_inner" */
    BITCTS_REPORT_FACETS = 4
} bitcts__report_facet;

typedef struct bitcts__report_facets {
    char value[BITCTS_REPORT_FACETS][BITCTS_REPORT_FACET_LEN];
} bitcts__report_facets;

/** Fills the facets of a case from its id (the operator from "operator" when it has one). */
void bitcts__report_case_facets(const json_t *case_obj, bitcts__report_facets *out);
/** The facet's name: "operator", "type", "rank", "pattern". */
const char *bitcts__report_facet_name(int facet);
/** The message signature of a detail: each run of digits (and each 0x-hex number) replaced by
 * "#", at most `cap` - 1 bytes. */
void bitcts__report_signature(const char *detail, char *out, size_t cap);

/** The spread of one facet over a group: how many distinct values, and the most common. */
typedef struct bitcts__report_spread {
    size_t distinct;
    const char *top; /* the most common value (borrowed from the grouping) */
    size_t top_count;
} bitcts__report_spread;

typedef struct bitcts__report_group {
    int verdict; /* the verdict shared by the group's cases */
    const char *op;
    const char *signature;
    size_t start; /* its cases are order[start .. start + count), in plan order */
    size_t count;
    double ms; /* summed duration_ms */
    bitcts__report_spread spread[BITCTS_REPORT_FACETS];
} bitcts__report_group;

typedef struct bitcts__report_groups {
    size_t n;                      /* cases grouped */
    size_t *order;                 /* case positions in the cases array, group by group */
    bitcts__report_facets *facets; /* per grouped case, parallel to order */
    char (*signatures)[BITCTS_REPORT_SIGNATURE_LEN]; /* per grouped case, parallel to order */
    bitcts__report_group *groups; /* largest first; ties: worse verdict, then first case */
    size_t n_groups;
    /* Every facet's values over all grouped cases, most common first: value i of facet f is
     * values[f][i] with count counts[f][i], for i < n_values[f]. */
    const char **values[BITCTS_REPORT_FACETS];
    size_t *counts[BITCTS_REPORT_FACETS];
    size_t n_values[BITCTS_REPORT_FACETS];
} bitcts__report_groups;

/** Groups the cases of `cases` whose verdict passes `keep` (e.g. bitcts__report_is_listed).
 * @return BITCTS_OK; BITCTS_E_OUT_OF_MEMORY. */
bitcts_status bitcts__report_groups_create(const json_t *cases, int (*keep)(int verdict),
                                           bitcts__report_groups **out);
void bitcts__report_groups_destroy(bitcts__report_groups *g);

#endif
