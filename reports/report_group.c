/* SPDX-License-Identifier: MIT */
/* Grouping of listed failures by verdict, operator and message signature, with the facets of
 * each case parsed from its id (report_group.h). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free, qsort */
#include <string.h> /* strcmp, strchr */

#include "report_group.h"

static const char *const facet_names[BITCTS_REPORT_FACETS] = {"operator", "type", "rank",
                                                              "pattern"};

const char *bitcts__report_facet_name(int facet)
{
    return facet >= 0 && facet < BITCTS_REPORT_FACETS ? facet_names[facet] : "?";
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "r" and digits only: the rank part of an id. */
static int is_rank_part(const char *s, size_t len)
{
    if (len < 2 || s[0] != 'r') {
        return 0;
    }
    for (size_t i = 1; i < len; ++i) {
        if (!is_digit(s[i])) {
            return 0;
        }
    }
    return 1;
}

/* Appends part (len bytes) to a facet, with `sep` between parts. */
static void facet_append(char *facet, const char *part, size_t len, char sep)
{
    size_t n = strlen(facet);
    if (n > 0 && n + 1 < BITCTS_REPORT_FACET_LEN) {
        facet[n++] = sep;
    }
    for (size_t i = 0; i < len && n + 1 < BITCTS_REPORT_FACET_LEN; ++i) {
        facet[n++] = part[i];
    }
    facet[n] = '\0';
}

void bitcts__report_case_facets(const json_t *case_obj, bitcts__report_facets *out)
{
    *out = (bitcts__report_facets){0};
    const char *id = bitcts_report_str(case_obj, "id");
    const char *parts[64];
    size_t lens[64];
    size_t n = 0;
    for (const char *p = id; n < 64;) {
        const char *dot = strchr(p, '.');
        parts[n] = p;
        lens[n] = dot != NULL ? (size_t)(dot - p) : strlen(p);
        ++n;
        if (dot == NULL) {
            break;
        }
        p = dot + 1;
    }
    size_t rank = 0;
    for (size_t i = 1; i + 1 < n && rank == 0; ++i) {
        rank = is_rank_part(parts[i], lens[i]) ? i : 0;
    }
    const char *op = bitcts_report_str(case_obj, "operator");
    if (*op != '\0') {
        facet_append(out->value[BITCTS_REPORT_FACET_OP], op, strlen(op), '.');
    } else if (n > 1) {
        facet_append(out->value[BITCTS_REPORT_FACET_OP], parts[0], lens[0], '.');
    }
    if (rank == 0) {
        return; /* not the plan's form: the operator alone */
    }
    for (size_t i = 1; i < rank; ++i) {
        facet_append(out->value[BITCTS_REPORT_FACET_TYPE], parts[i], lens[i], '>');
    }
    facet_append(out->value[BITCTS_REPORT_FACET_RANK], parts[rank], lens[rank], '.');
    for (size_t i = rank + 1; i + 1 < n; ++i) {
        facet_append(out->value[BITCTS_REPORT_FACET_PATTERN], parts[i], lens[i], '.');
    }
}

void bitcts__report_signature(const char *detail, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0) {
        return;
    }
    for (const char *p = detail; *p != '\0' && n + 1 < cap;) {
        if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && is_hex(p[2])) {
            for (p += 2; is_hex(*p); ++p) {
            }
            out[n++] = '#';
        } else if (is_digit(*p)) {
            for (; is_digit(*p) || (*p == '.' && is_digit(p[1])); ++p) {
            }
            out[n++] = '#';
        } else {
            out[n++] = *p++;
        }
    }
    /* Cut short inside a UTF-8 sequence: drop its first bytes too (the views must stay UTF-8). */
    size_t lead = n;
    while (lead > 0 && ((unsigned char)out[lead - 1] & 0xC0) == 0x80) {
        --lead;
    }
    if (lead > 0 && ((unsigned char)out[lead - 1] & 0x80) != 0) {
        const unsigned char c = (unsigned char)out[lead - 1];
        const size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (n - (lead - 1) < want) {
            n = lead - 1;
        }
    }
    out[n] = '\0';
}

/* ---- grouping ---- */

typedef struct group_rec {
    const char *op;
    const char *sig;
    int verdict;
    size_t pos; /* in the cases array */
    size_t k;   /* in the scratch arrays */
} group_rec;

static int rec_cmp(const void *a, const void *b)
{
    const group_rec *x = a;
    const group_rec *y = b;
    int c = strcmp(x->op, y->op);
    if (c == 0) {
        c = x->verdict != y->verdict ? (x->verdict < y->verdict ? -1 : 1) : strcmp(x->sig, y->sig);
    }
    return c != 0 ? c : (x->pos < y->pos ? -1 : x->pos > y->pos);
}

static int group_cmp(const void *a, const void *b)
{
    const bitcts__report_group *x = a;
    const bitcts__report_group *y = b;
    if (x->count != y->count) {
        return x->count > y->count ? -1 : 1;
    }
    if (x->verdict != y->verdict) {
        return x->verdict > y->verdict ? -1 : 1;
    }
    return x->start < y->start ? -1 : x->start > y->start;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct value_count {
    const char *value;
    size_t count;
} value_count;

static int value_count_cmp(const void *a, const void *b)
{
    const value_count *x = a;
    const value_count *y = b;
    if (x->count != y->count) {
        return x->count > y->count ? -1 : 1;
    }
    return strcmp(x->value, y->value);
}

/* Sorts `vals` (n values) and run-length counts them into `out`; returns the distinct count. */
static size_t count_values(const char **vals, size_t n, value_count *out)
{
    qsort(vals, n, sizeof *vals, str_cmp);
    size_t d = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i == 0 || strcmp(vals[i], vals[i - 1]) != 0) {
            out[d++] = (value_count){.value = vals[i], .count = 0};
        }
        ++out[d - 1].count;
    }
    qsort(out, d, sizeof *out, value_count_cmp);
    return d;
}

static bitcts_status groups_spread(bitcts__report_groups *g)
{
    const char **vals = calloc(g->n + 1, sizeof *vals);
    value_count *counts = calloc(g->n + 1, sizeof *counts);
    if (vals == NULL || counts == NULL) {
        free(vals);
        free(counts);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    bitcts_status st = BITCTS_OK;
    for (int f = 0; f < BITCTS_REPORT_FACETS && st == BITCTS_OK; ++f) {
        for (size_t i = 0; i < g->n_groups; ++i) {
            bitcts__report_group *grp = &g->groups[i];
            for (size_t j = 0; j < grp->count; ++j) {
                vals[j] = g->facets[grp->start + j].value[f];
            }
            const size_t d = count_values(vals, grp->count, counts);
            grp->spread[f] = (bitcts__report_spread){.distinct = d,
                                                     .top = d ? counts[0].value : "",
                                                     .top_count = d ? counts[0].count : 0};
        }
        for (size_t j = 0; j < g->n; ++j) {
            vals[j] = g->facets[j].value[f];
        }
        const size_t d = count_values(vals, g->n, counts);
        g->values[f] = calloc(d + 1, sizeof *g->values[f]);
        g->counts[f] = calloc(d + 1, sizeof *g->counts[f]);
        if (g->values[f] == NULL || g->counts[f] == NULL) {
            st = BITCTS_E_OUT_OF_MEMORY;
            break;
        }
        for (size_t j = 0; j < d; ++j) {
            g->values[f][j] = counts[j].value;
            g->counts[f][j] = counts[j].count;
        }
        g->n_values[f] = d;
    }
    free(vals);
    free(counts);
    return st;
}

/* Fills the scratch facets and signatures of the kept cases and their records. */
static size_t groups_collect(const json_t *cases, int (*keep)(int), bitcts__report_facets *facets,
                             char (*sigs)[BITCTS_REPORT_SIGNATURE_LEN], group_rec *recs)
{
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        const int verdict = bitcts_report_case_verdict(c);
        if (!keep(verdict)) {
            continue;
        }
        bitcts__report_case_facets(c, &facets[n]);
        bitcts__report_signature(bitcts_report_str(c, "detail"), sigs[n], sizeof sigs[n]);
        recs[n] = (group_rec){.op = facets[n].value[BITCTS_REPORT_FACET_OP],
                              .sig = sigs[n],
                              .verdict = verdict,
                              .pos = i,
                              .k = n};
        ++n;
    }
    return n;
}

bitcts_status bitcts__report_groups_create(const json_t *cases, int (*keep)(int verdict),
                                           bitcts__report_groups **out)
{
    *out = NULL;
    const size_t total = json_array_size(cases);
    bitcts__report_groups *g = calloc(1, sizeof *g);
    bitcts__report_facets *facets = calloc(total + 1, sizeof *facets);
    char(*sigs)[BITCTS_REPORT_SIGNATURE_LEN] = calloc(total + 1, sizeof *sigs);
    group_rec *recs = calloc(total + 1, sizeof *recs);
    if (g == NULL || facets == NULL || sigs == NULL || recs == NULL) {
        free(g);
        free(facets);
        free(sigs);
        free(recs);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    const size_t n = groups_collect(cases, keep, facets, sigs, recs);
    qsort(recs, n, sizeof *recs, rec_cmp);
    g->n = n;
    g->order = calloc(n + 1, sizeof *g->order);
    g->facets = calloc(n + 1, sizeof *g->facets);
    g->signatures = calloc(n + 1, sizeof *g->signatures);
    g->groups = calloc(n + 1, sizeof *g->groups);
    bitcts_status st =
        g->order != NULL && g->facets != NULL && g->signatures != NULL && g->groups != NULL
            ? BITCTS_OK
            : BITCTS_E_OUT_OF_MEMORY;
    for (size_t i = 0; i < n && st == BITCTS_OK; ++i) {
        g->order[i] = recs[i].pos;
        g->facets[i] = facets[recs[i].k];
        memcpy(g->signatures[i], sigs[recs[i].k], sizeof g->signatures[i]);
        const int same = i > 0 && strcmp(recs[i - 1].op, recs[i].op) == 0 &&
                         recs[i - 1].verdict == recs[i].verdict &&
                         strcmp(recs[i - 1].sig, recs[i].sig) == 0;
        if (!same) {
            g->groups[g->n_groups++] =
                (bitcts__report_group){.verdict = recs[i].verdict,
                                       .op = g->facets[i].value[BITCTS_REPORT_FACET_OP],
                                       .signature = g->signatures[i],
                                       .start = i};
        }
        bitcts__report_group *grp = &g->groups[g->n_groups - 1];
        ++grp->count;
        grp->ms += bitcts_report_num(json_array_get(cases, recs[i].pos), "duration_ms");
    }
    free(facets);
    free(sigs);
    free(recs);
    if (st == BITCTS_OK) {
        qsort(g->groups, g->n_groups, sizeof *g->groups, group_cmp);
        st = groups_spread(g);
    }
    if (st != BITCTS_OK) {
        bitcts__report_groups_destroy(g);
        return st;
    }
    *out = g;
    return BITCTS_OK;
}

void bitcts__report_groups_destroy(bitcts__report_groups *g)
{
    if (g == NULL) {
        return;
    }
    for (int f = 0; f < BITCTS_REPORT_FACETS; ++f) {
        free(g->values[f]);
        free(g->counts[f]);
    }
    free(g->order);
    free(g->facets);
    free(g->signatures);
    free(g->groups);
    free(g);
}
