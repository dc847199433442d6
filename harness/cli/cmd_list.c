/* SPDX-License-Identifier: MIT */
/* `bitcts list`: case ids of a selection, one a line, or with --count a coverage summary
 * (operator x type x rank, operator x pattern, feature levels, empty applicable cells). */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

#include <jansson.h> /* json_dumps */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "case_mixed.h"
#include "case_plan.h"
#include "cli_util.h"
#include "commands.h"

static int parse_tier(const char *v, void *dest, char *err, size_t cap)
{
    bitcts_cli_selection *s = dest;
    s->sel.tiers = bitcts_tier_parse(v);
    if (s->sel.tiers == 0) {
        snprintf(err, cap, "unknown tier '%s' (smoke, default, large, exhaustive, all)", v);
        return -1;
    }
    s->tier_text = v;
    return 0;
}

static int parse_feature_level(const char *v, void *dest, char *err, size_t cap)
{
    uint32_t *fl = dest;
    *fl = bitcts_fl_parse(v);
    if (*fl == 0) {
        snprintf(err, cap, "unknown feature level '%s' (e.g. 2_1, 3_0, 4_1)", v);
        return -1;
    }
    return 0;
}

static const bitcts_cli_option selection_options[] = {
    BITCTS_OPT_GLOB("--filter", "GLOB", offsetof(bitcts_cli_selection, sel.filter), 0,
                    "cases whose id matches the shell glob (fnmatch), e.g. 'bit_xor.uint16.*'; "
                    "given several times, the cases matching any of them"),
    BITCTS_OPT_GLOB("--exclude", "GLOB", offsetof(bitcts_cli_selection, sel.exclude), 0,
                    "leave out the cases whose id matches, even where a --filter matches them"),
    BITCTS_OPT_CUSTOM("--tier", "T", 0, parse_tier,
                      "smoke, default, large, exhaustive or all; comma lists (default: default)"),
    BITCTS_OPT_CUSTOM("--feature-level", "FL",
                      offsetof(bitcts_cli_selection, sel.max_feature_level), parse_feature_level,
                      "only cases whose required feature level is <= FL (e.g. 3_0, 4_1)"),
};

BITCTS_CLI_TABLE_FN(bitcts_cli_selection_table, bitcts_cli_selection, selection_options)

void bitcts_cli_selection_text(const bitcts_selection *sel, const char *tier_text, char *out,
                               size_t cap)
{
    char fl[32] = "";
    if (sel->max_feature_level != 0) {
        char name[8];
        bitcts_fl_format(sel->max_feature_level, name, sizeof name);
        snprintf(fl, sizeof fl, ", --feature-level %s", name);
    }
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i == 0 || i < sel->filter.count; ++i) {
        const int n = snprintf(out + used, cap > used ? cap - used : 0, "--filter '%s', ",
                               sel->filter.count > 0 ? sel->filter.globs[i] : "*");
        used += n > 0 ? (size_t)n : 0;
    }
    for (size_t i = 0; i < sel->exclude.count; ++i) {
        const int n = snprintf(out + used, cap > used ? cap - used : 0, "--exclude '%s', ",
                               sel->exclude.globs[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    snprintf(out + (used < cap ? used : cap - 1), cap > used ? cap - used : 1, "--tier %s%s",
             tier_text != NULL ? tier_text : "default", fl);
}

int bitcts_cli_require_cases(const char *cmd, const bitcts_plan *plan, const bitcts_selection *sel,
                             const char *tier_text)
{
    for (size_t i = 0; i < plan->count; ++i) {
        if (bitcts_selection_matches(sel, &plan->cases[i])) {
            return 0;
        }
    }
    char text[BITCTS_MAX_FILTERS * 64];
    bitcts_cli_selection_text(sel, tier_text, text, sizeof text);
    return bitcts_cli_error(cmd, "the selection matches no case: %s (see bitcts list --tier all)",
                            text);
}

typedef struct combo_row {
    uint32_t op, in, out;
    size_t by_rank[BITCTS_MAX_DIMS + 1];
    size_t total;
} combo_row;

static combo_row *find_row(combo_row *rows, size_t *n, const bitcts_case_key *k)
{
    for (size_t i = 0; i < *n; ++i) {
        if (rows[i].op == k->op && rows[i].in == k->in_type && rows[i].out == k->out_type) {
            return &rows[i];
        }
    }
    rows[*n] = (combo_row){.op = k->op, .in = k->in_type, .out = k->out_type};
    return &rows[(*n)++];
}

/* What --count tallies over the selected cases. */
typedef struct coverage {
    combo_row rows[128];
    size_t n_rows, total, negative;
    size_t by_fl[16];
    size_t by_pattern[BITCTS_OP_COUNT][BITCTS_PAT_COUNT];
    /* cells[op][type][out][rank][pattern]: does a selected case fill it? */
    unsigned char cells[BITCTS_OP_COUNT][BITCTS_DT_COUNT][2][BITCTS_MAX_DIMS + 1][BITCTS_PAT_COUNT];
} coverage;

static void count_selected(const bitcts_plan *plan, const bitcts_selection *sel, coverage *c)
{
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if (!bitcts_selection_matches(sel, k)) {
            continue;
        }
        ++c->total;
        const int o = bitcts_op_index(k->op);
        c->by_fl[((k->feature_level >> 12) & 0xF) * 2 +
                 (((k->feature_level >> 8) & 0xF) ? 1 : 0)]++;
        if (k->pattern == BITCTS_PAT_INVALID) {
            ++c->negative;
            continue;
        }
        ++c->by_pattern[o][k->pattern];
        combo_row *row = find_row(c->rows, &c->n_rows, k);
        ++row->by_rank[k->rank];
        ++row->total;
        c->cells[o][k->in_type][k->out_type == BITCTS_DT_UINT32 ? 1 : 0][k->rank][k->pattern] = 1;
    }
}

static void print_rows(const coverage *c)
{
    printf("%-16s %-8s %-7s %-4s", "operator", "type", "output", "FL");
    for (uint32_t r = 1; r <= BITCTS_MAX_DIMS; ++r) {
        printf(" %5s%u", "r", r);
    }
    printf(" %7s\n", "total");
    for (size_t i = 0; i < c->n_rows; ++i) {
        const combo_row *row = &c->rows[i];
        char fl[8];
        bitcts_fl_format(bitcts_fl_required(row->op, row->in, row->out, 1), fl, sizeof fl);
        printf("%-16s %-8s %-7s %-4s", bitcts_op_name(row->op), bitcts_dtype_name(row->in),
               bitcts_dtype_name(row->out), fl);
        for (uint32_t r = 1; r <= BITCTS_MAX_DIMS; ++r) {
            printf(" %6zu", row->by_rank[r]);
        }
        printf(" %7zu\n", row->total);
    }
}

static void print_patterns_and_levels(const coverage *c)
{
    printf("\n%-16s", "pattern");
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
        printf(" %15s", bitcts_op_name(bitcts_op_all[o]));
    }
    printf("\n");
    for (uint32_t p = 0; p < BITCTS_PAT_COUNT; ++p) {
        size_t any = 0;
        for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
            any += c->by_pattern[o][p];
        }
        if (!any) {
            continue;
        }
        printf("%-16s", bitcts_pattern_name(p));
        for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
            printf(" %15zu", c->by_pattern[o][p]);
        }
        printf("\n");
    }
    printf("\nfeature level (lowest that requires the case):");
    static const char *const fl_names[16] = {[5] = "2_1", [6] = "3_0", [9] = "4_1"};
    for (int f = 0; f < 16; ++f) {
        if (c->by_fl[f]) {
            printf("  %s: %zu", fl_names[f] != NULL ? fl_names[f] : "?", c->by_fl[f]);
        }
    }
    printf("\n");
}

/* Applicable cells of the default-tier matrix, and those with no selected case. */
static void count_empty_cells(const bitcts_plan *plan, const bitcts_selection *sel,
                              const coverage *c, size_t *applicable, size_t *empty)
{
    *applicable = *empty = 0;
    if (!(sel->tiers & BITCTS_TIER_DEFAULT)) {
        return;
    }
    const bitcts_selection all_default = {.tiers = BITCTS_TIER_DEFAULT};
    static unsigned char seen[BITCTS_OP_COUNT][BITCTS_DT_COUNT][2][BITCTS_MAX_DIMS + 1]
                             [BITCTS_PAT_COUNT];
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if (k->pattern == BITCTS_PAT_INVALID || !bitcts_selection_matches(&all_default, k)) {
            continue;
        }
        if (sel->max_feature_level && k->feature_level > sel->max_feature_level) {
            continue;
        }
        const int o = bitcts_op_index(k->op);
        const int out = k->out_type == BITCTS_DT_UINT32 ? 1 : 0;
        unsigned char *cell = &seen[o][k->in_type][out][k->rank][k->pattern];
        if (*cell) {
            continue;
        }
        *cell = 1;
        ++*applicable;
        *empty += !c->cells[o][k->in_type][out][k->rank][k->pattern];
    }
}

static int print_counts(const bitcts_plan *plan, const bitcts_selection *sel)
{
    coverage *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return bitcts_cli_error("list", "out of memory");
    }
    count_selected(plan, sel, c);
    print_rows(c);
    print_patterns_and_levels(c);
    size_t applicable = 0, empty = 0;
    count_empty_cells(plan, sel, c, &applicable, &empty);
    printf("operator x type (x output type) x rank x applicable pattern cells: %zu, empty: %zu\n",
           applicable, empty);
    printf("negative (invalid-descriptor) cases: %zu\n", c->negative);
    printf("total cases: %zu\n", c->total);
    free(c);
    return 0;
}

/* One JSON object a line: each case's identity and description, as the export writes it. */
static int print_json(const bitcts_plan *plan, const bitcts_selection *sel)
{
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if (!bitcts_selection_matches(sel, k)) {
            continue;
        }
        bitcts_case_data d;
        const int st = bitcts_case_build(BITCTS_DEFAULT_SEED, k, &d);
        if (st != BITCTS_OK) {
            return bitcts_cli_error("list", "case %s: %s", k->id, bitcts_status_message(st));
        }
        json_t *entry = bitcts_json_case(k, &d);
        bitcts_case_free(&d);
        char *text = entry != NULL ? json_dumps(entry, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
        json_decref(entry);
        if (text == NULL) {
            return bitcts_cli_error("list", "out of memory");
        }
        puts(text);
        free(text);
    }
    return 0;
}

/* --coverage: every required pair of the mixed family (docs/case-plan.md, "Mixed layouts") and
 * the selected cases that cover it; text, or with --json one object a line. */
static void print_pair(const bitcts_plan *plan, const bitcts_selection *sel,
                       const bitcts_mixed_pair *p, int json, size_t *covered)
{
    char text[128];
    bitcts_mixed_pair_text(p, text, sizeof text);
    if (json) {
        printf("{\"pair\":[[\"%s\",", bitcts_mixed_factor_name(p->fa));
        printf("\"%s\"],[\"%s\",", bitcts_mixed_layout_name(p->va),
               bitcts_mixed_factor_name(p->fb));
        if (p->fb == BITCTS_MF_RANK) {
            printf("%u]],\"cases\":[", p->vb);
        } else {
            printf("\"%s\"]],\"cases\":[", p->fb == BITCTS_MF_OP ? bitcts_op_name(p->vb)
                                           : p->fb == BITCTS_MF_TYPE
                                               ? bitcts_dtype_name(p->vb)
                                               : bitcts_mixed_layout_name(p->vb));
        }
    } else {
        printf("%s:", text);
    }
    size_t n = 0;
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if (bitcts_selection_matches(sel, k) && bitcts_mixed_covers(k, p)) {
            printf(json ? "%s\"%s\"" : "%s%s", json ? (n > 0 ? "," : "") : " ", k->id);
            ++n;
        }
    }
    printf(json ? "]}\n" : "%s\n", n == 0 ? " (none)" : "");
    *covered += n > 0;
}

static int print_coverage(const bitcts_plan *plan, const bitcts_selection *sel, int json)
{
    bitcts_mixed_pair *pairs = calloc(BITCTS_MIXED_MAX_PAIRS, sizeof *pairs);
    if (pairs == NULL) {
        return bitcts_cli_error("list", "out of memory");
    }
    const size_t n = bitcts_mixed_pairs(pairs);
    size_t covered = 0;
    for (size_t i = 0; i < n; ++i) {
        print_pair(plan, sel, &pairs[i], json, &covered);
    }
    if (!json) {
        printf("pairs: %zu, covered: %zu, missing: %zu\n", n, covered, n - covered);
    }
    free(pairs);
    return 0;
}

typedef struct list_args {
    int count;
    int json;
    int coverage;
} list_args;

static const bitcts_cli_option list_options[] = {
    BITCTS_OPT_FLAG("--count", offsetof(list_args, count), "print a summary table instead of ids"),
    BITCTS_OPT_FLAG("--json", offsetof(list_args, json),
                    "print each case's manifest entry (docs/vector-format.md, without files), one "
                    "JSON object a line, under the default seed"),
    BITCTS_OPT_FLAG("--coverage", offsetof(list_args, coverage),
                    "print every required pair of per-tensor layouts (docs/case-plan.md, \"Mixed "
                    "layouts\") and the selected cases that cover it; with --json one object a "
                    "line"),
};

int bitcts_cmd_list(int argc, char **argv)
{
    bitcts_cli_selection s = {.sel = {.tiers = BITCTS_TIER_DEFAULT}};
    list_args a = {0};
    const bitcts_cli_table tables[] = {bitcts_cli_selection_table(&s),
                                       BITCTS_CLI_TABLE(list_options, &a)};
    const bitcts_cli_spec spec = {
        .cmd = "list",
        .description = "Prints the id of every selected case, one a line, in plan order.\n",
        .tables = tables,
        .table_count = 2};
    const int parsed = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    if (parsed != 0) {
        return parsed == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : parsed;
    }
    if (a.count && (a.json || a.coverage)) {
        return bitcts_cli_error("list", "--count excludes --json and --coverage");
    }
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != 0) {
        return bitcts_cli_error("list", "out of memory");
    }
    int rc = bitcts_cli_require_cases("list", plan, &s.sel, s.tier_text);
    if (rc != 0) {
        /* nothing to print */
    } else if (a.count) {
        rc = print_counts(plan, &s.sel);
    } else if (a.coverage) {
        rc = print_coverage(plan, &s.sel, a.json);
    } else if (a.json) {
        rc = print_json(plan, &s.sel);
    } else {
        for (size_t i = 0; i < plan->count; ++i) {
            if (bitcts_selection_matches(&s.sel, &plan->cases[i])) {
                puts(plan->cases[i].id);
            }
        }
    }
    bitcts_plan_destroy(plan);
    return rc;
}
