/* SPDX-License-Identifier: MIT */
/* `bitcts list`: case ids of a selection, one a line, or with --count a coverage summary
 * (operator x type x rank, operator x pattern, feature levels, empty applicable cells). */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp */

#include <jansson.h> /* json_dumps */

#include "bitcts/bitcts_status.h"
#include "case_json.h"
#include "case_plan.h"
#include "cli_util.h"
#include "commands.h"

static const char list_usage[] =
    "usage: bitcts list [--filter GLOB] [--tier T] [--feature-level FL] [--count | --json]\n"
    "\n"
    "Prints the id of every selected case, one a line, in plan order.\n"
    "  --filter GLOB        shell glob on case ids (fnmatch), e.g. 'bit_xor.uint16.*'\n"
    "  --tier T             smoke, default, large, exhaustive or all; comma lists (default: "
    "default)\n"
    "  --feature-level FL   only cases whose required feature level is <= FL (e.g. 3_0, 4_1)\n"
    "  --count              print a summary table instead of ids\n"
    "  --json               print each case's manifest entry (docs/vector-format.md, without\n"
    "                       files), one JSON object a line, under the default seed\n";

int bitcts_parse_selection(const char *cmd, int argc, char **argv, int *i, bitcts_selection *sel,
                           const char **tier_text, int *handled)
{
    const char *v = NULL;
    int r;
    *handled = 1;
    if ((r = bitcts_cli_option(argc, argv, i, "--filter", &v)) != 0) {
        if (r < 0 || !*v) {
            return bitcts_cli_error(cmd, "--filter needs a glob");
        }
        if (!bitcts_glob_is_valid(v)) {
            return bitcts_cli_error(cmd, "--filter: '%s' is a malformed glob (%s)", v,
                                    BITCTS_CLI_GLOB_RULE);
        }
        sel->filter = v;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--tier", &v)) != 0) {
        if (r < 0 || (sel->tiers = bitcts_tier_parse(v)) == 0) {
            return bitcts_cli_error(
                cmd, "unknown tier '%s' (smoke, default, large, exhaustive, all)", r < 0 ? "" : v);
        }
        *tier_text = v;
    } else if ((r = bitcts_cli_option(argc, argv, i, "--feature-level", &v)) != 0) {
        if (r < 0 || (sel->max_feature_level = bitcts_fl_parse(v)) == 0) {
            return bitcts_cli_error(cmd, "unknown feature level '%s' (e.g. 2_1, 3_0, 4_1)",
                                    r < 0 ? "" : v);
        }
    } else {
        *handled = 0;
    }
    return 0;
}

void bitcts_cli_selection_text(const bitcts_selection *sel, const char *tier_text, char *out,
                               size_t cap)
{
    char fl[32] = "";
    if (sel->max_feature_level != 0) {
        char name[8];
        bitcts_fl_format(sel->max_feature_level, name, sizeof name);
        snprintf(fl, sizeof fl, ", --feature-level %s", name);
    }
    snprintf(out, cap, "--filter '%s', --tier %s%s", sel->filter != NULL ? sel->filter : "*",
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
    char text[600];
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

static void print_counts(const bitcts_plan *plan, const bitcts_selection *sel)
{
    combo_row rows[128];
    size_t n_rows = 0, total = 0, negative = 0;
    size_t by_fl[16] = {0};
    size_t by_pattern[BITCTS_OP_COUNT][BITCTS_PAT_COUNT];
    memset(by_pattern, 0, sizeof by_pattern);
    /* cells[op][type][out][rank][pattern]: does a selected case fill it? */
    static unsigned char cells[BITCTS_OP_COUNT][BITCTS_DT_COUNT][2][BITCTS_MAX_DIMS + 1]
                              [BITCTS_PAT_COUNT];
    memset(cells, 0, sizeof cells);
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if (!bitcts_selection_matches(sel, k)) {
            continue;
        }
        ++total;
        const int o = bitcts_op_index(k->op);
        by_fl[((k->feature_level >> 12) & 0xF) * 2 + (((k->feature_level >> 8) & 0xF) ? 1 : 0)]++;
        if (k->pattern == BITCTS_PAT_INVALID) {
            ++negative;
            continue;
        }
        ++by_pattern[o][k->pattern];
        combo_row *row = find_row(rows, &n_rows, k);
        ++row->by_rank[k->rank];
        ++row->total;
        cells[o][k->in_type][k->out_type == BITCTS_DT_UINT32 ? 1 : 0][k->rank][k->pattern] = 1;
    }
    printf("%-16s %-8s %-7s %-4s", "operator", "type", "output", "FL");
    for (uint32_t r = 1; r <= BITCTS_MAX_DIMS; ++r) {
        printf(" %5s%u", "r", r);
    }
    printf(" %7s\n", "total");
    for (size_t i = 0; i < n_rows; ++i) {
        char fl[8];
        bitcts_fl_format(bitcts_fl_required(rows[i].op, rows[i].in, rows[i].out, 1), fl, sizeof fl);
        printf("%-16s %-8s %-7s %-4s", bitcts_op_name(rows[i].op), bitcts_dtype_name(rows[i].in),
               bitcts_dtype_name(rows[i].out), fl);
        for (uint32_t r = 1; r <= BITCTS_MAX_DIMS; ++r) {
            printf(" %6zu", rows[i].by_rank[r]);
        }
        printf(" %7zu\n", rows[i].total);
    }
    printf("\n%-16s", "pattern");
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
        printf(" %15s", bitcts_op_name(bitcts_op_all[o]));
    }
    printf("\n");
    for (uint32_t p = 0; p < BITCTS_PAT_COUNT; ++p) {
        size_t any = 0;
        for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
            any += by_pattern[o][p];
        }
        if (!any) {
            continue;
        }
        printf("%-16s", bitcts_pattern_name(p));
        for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
            printf(" %15zu", by_pattern[o][p]);
        }
        printf("\n");
    }
    printf("\nfeature level (lowest that requires the case):");
    static const char *const fl_names[16] = {[5] = "2_1", [6] = "3_0", [9] = "4_1"};
    for (int f = 0; f < 16; ++f) {
        if (by_fl[f]) {
            printf("  %s: %zu", fl_names[f] != NULL ? fl_names[f] : "?", by_fl[f]);
        }
    }
    printf("\n");
    /* Applicable cells of the default-tier matrix with no selected case. */
    size_t applicable = 0, empty = 0;
    if (sel->tiers & BITCTS_TIER_DEFAULT) {
        bitcts_selection all_default = {.tiers = BITCTS_TIER_DEFAULT};
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
            unsigned char *cell =
                &seen[o][k->in_type][k->out_type == BITCTS_DT_UINT32 ? 1 : 0][k->rank][k->pattern];
            if (*cell) {
                continue;
            }
            *cell = 1;
            ++applicable;
            if (!cells[o][k->in_type][k->out_type == BITCTS_DT_UINT32 ? 1 : 0][k->rank]
                      [k->pattern]) {
                ++empty;
            }
        }
    }
    printf("operator x type (x output type) x rank x applicable pattern cells: %zu, empty: %zu\n",
           applicable, empty);
    printf("negative (invalid-descriptor) cases: %zu\n", negative);
    printf("total cases: %zu\n", total);
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

int bitcts_cmd_list(int argc, char **argv)
{
    bitcts_selection sel = {.tiers = BITCTS_TIER_DEFAULT};
    const char *tier_text = NULL;
    int count = 0;
    int json = 0;
    for (int i = 1; i < argc; ++i) {
        int handled = 0;
        const int rc = bitcts_parse_selection("list", argc, argv, &i, &sel, &tier_text, &handled);
        if (rc) {
            return rc;
        }
        if (handled) {
            continue;
        }
        if (strcmp(argv[i], "--count") == 0) {
            count = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(list_usage, stdout);
            return 0;
        } else {
            return bitcts_cli_error("list", "unknown argument '%s' (see bitcts list --help)",
                                    argv[i]);
        }
    }
    if (count && json) {
        return bitcts_cli_error("list", "--count and --json exclude each other");
    }
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != 0) {
        return bitcts_cli_error("list", "out of memory");
    }
    int rc = bitcts_cli_require_cases("list", plan, &sel, tier_text);
    if (rc != 0) {
        /* nothing to print */
    } else if (count) {
        print_counts(plan, &sel);
    } else if (json) {
        rc = print_json(plan, &sel);
    } else {
        for (size_t i = 0; i < plan->count; ++i) {
            if (bitcts_selection_matches(&sel, &plan->cases[i])) {
                puts(plan->cases[i].id);
            }
        }
    }
    bitcts_plan_destroy(plan);
    return rc;
}
