/* SPDX-License-Identifier: MIT */
/* Enumeration of the case plan in its fixed order (docs/case-plan.md). The plan depends on
 * nothing but this code: no seed, no machine, no selection. */
#include <fnmatch.h> /* fnmatch */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* realloc */
#include <string.h>  /* strcmp */

#include "bitcts/bitcts_status.h"
#include "case_mixed.h"
#include "case_plan.h"

static const char *const pattern_names[BITCTS_PAT_COUNT] = {
    [BITCTS_PAT_PACKED] = "packed",
    [BITCTS_PAT_PADDED_INNER] = "padded_inner",
    [BITCTS_PAT_PADDED_OUTER] = "padded_outer",
    [BITCTS_PAT_BROADCAST] = "broadcast",
    [BITCTS_PAT_BROADCAST_A] = "broadcast_a",
    [BITCTS_PAT_BROADCAST_B] = "broadcast_b",
    [BITCTS_PAT_BROADCAST_BOTH] = "broadcast_both",
    [BITCTS_PAT_SCALAR] = "scalar",
    [BITCTS_PAT_SCALAR_A] = "scalar_a",
    [BITCTS_PAT_SCALAR_B] = "scalar_b",
    [BITCTS_PAT_PERMUTED] = "permuted",
    [BITCTS_PAT_INPLACE] = "inplace",
    [BITCTS_PAT_INPLACE_A] = "inplace_a",
    [BITCTS_PAT_INPLACE_B] = "inplace_b",
    [BITCTS_PAT_OVERSIZED] = "oversized",
    [BITCTS_PAT_LARGE_PACKED] = "large_packed",
    [BITCTS_PAT_LARGE_PERMUTED] = "large_permuted",
    [BITCTS_PAT_LARGE_BROADCAST] = "large_broadcast",
    [BITCTS_PAT_EXHAUSTIVE] = "exhaustive",
    [BITCTS_PAT_INVALID] = "invalid",
    [BITCTS_PAT_EXPLORE] = "explore",
    [BITCTS_PAT_MIXED] = "mixed",
};

const char *bitcts_pattern_name(uint32_t p)
{
    return p < BITCTS_PAT_COUNT ? pattern_names[p] : "?";
}

const char *bitcts_values_name(uint32_t v)
{
    static const char *const names[] = {"random", "edge", "shift_oob", "enumerated"};
    return v < 4 ? names[v] : "?";
}

uint32_t bitcts_tier_parse(const char *text)
{
    static const struct {
        const char *name;
        uint32_t mask;
    } tiers[] = {{"smoke", BITCTS_TIER_SMOKE},
                 {"default", BITCTS_TIER_DEFAULT},
                 {"large", BITCTS_TIER_LARGE},
                 {"exhaustive", BITCTS_TIER_EXHAUSTIVE},
                 {"all", BITCTS_TIER_ALL}};
    uint32_t mask = 0;
    const char *p = text;
    while (p != NULL && *p) {
        const char *comma = strchr(p, ',');
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        uint32_t found = 0;
        for (size_t i = 0; i < sizeof tiers / sizeof tiers[0]; ++i) {
            if (strlen(tiers[i].name) == len && strncmp(p, tiers[i].name, len) == 0) {
                found = tiers[i].mask;
            }
        }
        if (!found) {
            return 0;
        }
        mask |= found;
        p = comma != NULL ? comma + 1 : NULL;
    }
    return mask;
}

const char *bitcts_tier_name(uint32_t tiers)
{
    if (tiers & BITCTS_TIER_SMOKE) {
        return "smoke";
    }
    if (tiers & BITCTS_TIER_DEFAULT) {
        return "default";
    }
    if (tiers & BITCTS_TIER_LARGE) {
        return "large";
    }
    return "exhaustive";
}

int bitcts_case_is_recorded(const bitcts_case_key *key)
{
    const int shift = bitcts_op_is_shift(key->op);
    return shift &&
           (key->values == BITCTS_VALUES_SHIFT_OOB ||
            (key->values == BITCTS_VALUES_ENUMERATED && key->pattern == BITCTS_PAT_EXHAUSTIVE));
}

typedef struct plan_builder {
    bitcts_plan *plan;
    size_t cap;
    int failed;
} plan_builder;

static void add_case(plan_builder *b, bitcts_case_key key)
{
    if (b->failed) {
        return;
    }
    if (b->plan->count == b->cap) {
        const size_t cap = b->cap ? b->cap * 2 : 4096;
        bitcts_case_key *grown = realloc(b->plan->cases, cap * sizeof *grown);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->plan->cases = grown;
        b->cap = cap;
    }
    const char *pat = key.pattern == BITCTS_PAT_INVALID ? NULL : bitcts_pattern_name(key.pattern);
    char pattern_buf[48];
    if (pat == NULL) {
        snprintf(pattern_buf, sizeof pattern_buf, "invalid_%s", bitcts_rule_id((int)key.rule));
        pat = pattern_buf;
    }
    if (key.op == BITCTS_OP_BIT_COUNT) {
        snprintf(key.id, sizeof key.id, "%s.%s.%s.r%u.%s.%u", bitcts_op_name(key.op),
                 bitcts_dtype_name(key.in_type), bitcts_dtype_name(key.out_type), key.rank, pat,
                 key.index);
    } else {
        snprintf(key.id, sizeof key.id, "%s.%s.r%u.%s.%u", bitcts_op_name(key.op),
                 bitcts_dtype_name(key.in_type), key.rank, pat, key.index);
    }
    if (key.feature_level == 0) {
        key.feature_level = bitcts_fl_required(key.op, key.in_type, key.out_type, key.rank);
    }
    b->plan->cases[b->plan->count++] = key;
}

/* The patterns that apply to an operator at a rank (docs/case-plan.md, "Patterns"). */
static size_t applicable_patterns(uint32_t op, uint32_t rank, uint32_t *out)
{
    size_t n = 0;
    const int binary = bitcts_op_input_count(op) == 2;
    out[n++] = BITCTS_PAT_PACKED;
    out[n++] = BITCTS_PAT_PADDED_INNER;
    if (rank >= 2) {
        out[n++] = BITCTS_PAT_PADDED_OUTER;
    }
    if (binary) {
        if (rank >= 2) {
            out[n++] = BITCTS_PAT_BROADCAST_A;
            out[n++] = BITCTS_PAT_BROADCAST_B;
            out[n++] = BITCTS_PAT_BROADCAST_BOTH;
        }
        out[n++] = BITCTS_PAT_SCALAR_A;
        out[n++] = BITCTS_PAT_SCALAR_B;
    } else {
        if (rank >= 2) {
            out[n++] = BITCTS_PAT_BROADCAST;
        }
        out[n++] = BITCTS_PAT_SCALAR;
    }
    if (rank >= 2) {
        out[n++] = BITCTS_PAT_PERMUTED;
    }
    if (bitcts_op_allows_in_place(op)) {
        if (binary) {
            out[n++] = BITCTS_PAT_INPLACE_A;
            out[n++] = BITCTS_PAT_INPLACE_B;
        } else {
            out[n++] = BITCTS_PAT_INPLACE;
        }
    }
    out[n++] = BITCTS_PAT_OVERSIZED;
    return n;
}

static int is_smoke(uint32_t rank, uint32_t pattern, uint32_t index)
{
    if (index != 0 || (rank != 1 && rank != 4)) {
        return 0;
    }
    return pattern == BITCTS_PAT_PACKED || pattern == BITCTS_PAT_SCALAR_B ||
           pattern == BITCTS_PAT_BROADCAST || pattern == BITCTS_PAT_PERMUTED ||
           pattern == BITCTS_PAT_INPLACE_A || pattern == BITCTS_PAT_INPLACE;
}

/* Output types of an (operator, input type): the input type, or UINT8 and UINT32 for COUNT. */
static size_t output_types(uint32_t op, uint32_t in_type, uint32_t *out)
{
    if (op != BITCTS_OP_BIT_COUNT) {
        out[0] = in_type;
        return 1;
    }
    out[0] = BITCTS_DT_UINT8;
    out[1] = BITCTS_DT_UINT32;
    return 2;
}

static void add_default_cases(plan_builder *b)
{
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
        const uint32_t op = bitcts_op_all[o];
        const int shift = bitcts_op_is_shift(op);
        for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
            uint32_t outs[2];
            const size_t n_out = output_types(op, t, outs);
            for (size_t j = 0; j < n_out; ++j) {
                if (bitcts_fl_required(op, t, outs[j], 1) == 0) {
                    continue;
                }
                for (uint32_t rank = 1; rank <= BITCTS_MAX_DIMS; ++rank) {
                    uint32_t pats[16];
                    const size_t n_pat = applicable_patterns(op, rank, pats);
                    for (size_t p = 0; p < n_pat; ++p) {
                        const uint32_t n_values = shift ? 3 : 2;
                        for (uint32_t v = 0; v < n_values; ++v) {
                            bitcts_case_key k = {.op = op,
                                                 .in_type = t,
                                                 .out_type = outs[j],
                                                 .rank = rank,
                                                 .pattern = pats[p],
                                                 .index = v,
                                                 .values = v,
                                                 .tiers = BITCTS_TIER_DEFAULT};
                            if (is_smoke(rank, pats[p], v)) {
                                k.tiers |= BITCTS_TIER_SMOKE;
                            }
                            add_case(b, k);
                        }
                    }
                }
            }
        }
    }
}

/* Negative cases: descriptions every conforming implementation must reject (spec section 0).
 * Each entry mutates a valid rank-4 base description; see bitcts_case_build. */
static void add_negative_cases(plan_builder *b)
{
    static const struct {
        bitcts_rule rule;
        uint32_t variants;
    } rules[] = {
        {BITCTS_RULE_SIZE_ZERO, 1},          {BITCTS_RULE_DIMENSION_COUNT, 2},
        {BITCTS_RULE_DIMS_MISMATCH, 1},      {BITCTS_RULE_SIZES_MISMATCH, 1},
        {BITCTS_RULE_TYPE_MISMATCH, 1},      {BITCTS_RULE_UNKNOWN_TYPE, 2},
        {BITCTS_RULE_TYPE_NOT_ALLOWED, 2},   {BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED, 3},
        {BITCTS_RULE_TOO_MANY_ELEMENTS, 1},  {BITCTS_RULE_BUFFER_TOO_SMALL, 2},
        {BITCTS_RULE_OUTPUT_ZERO_STRIDE, 1}, {BITCTS_RULE_OUTPUT_OVERLAP, 1},
        {BITCTS_RULE_ALIGNMENT, 2},          {BITCTS_RULE_OUTPUT_FLAGS, 1},
        {BITCTS_RULE_UNKNOWN_FLAGS, 1},      {BITCTS_RULE_UNKNOWN_OPERATOR, 2},
        {BITCTS_RULE_INPUT_COUNT, 2},        {BITCTS_RULE_SIZE_OVERFLOW, 1},
    };
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
        const uint32_t op = bitcts_op_all[o];
        const int shift = bitcts_op_is_shift(op);
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; ++r) {
            const bitcts_rule rule = rules[r].rule;
            /* Rules that cannot be broken by this operator: every type is allowed for
             * AND/OR/XOR/NOT at 4_1; only COUNT has a separate output type; COUNT's types may
             * differ. */
            if (rule == BITCTS_RULE_TYPE_NOT_ALLOWED && !shift) {
                continue;
            }
            if (rule == BITCTS_RULE_OUTPUT_TYPE_NOT_ALLOWED && op != BITCTS_OP_BIT_COUNT) {
                continue;
            }
            if (rule == BITCTS_RULE_TYPE_MISMATCH && op == BITCTS_OP_BIT_COUNT) {
                continue;
            }
            for (uint32_t v = 0; v < rules[r].variants; ++v) {
                bitcts_case_key k = {.op = op,
                                     .in_type = BITCTS_DT_UINT8,
                                     .out_type = BITCTS_DT_UINT8,
                                     .rank = 4,
                                     .pattern = BITCTS_PAT_INVALID,
                                     .index = v,
                                     .tiers = BITCTS_TIER_DEFAULT,
                                     .rule = rule};
                if (v == 0 && rule == BITCTS_RULE_SIZE_ZERO) {
                    k.tiers |= BITCTS_TIER_SMOKE;
                }
                add_case(b, k);
            }
        }
    }
}

static void add_mixed_case(void *ctx, const bitcts_case_key *key)
{
    add_case(ctx, *key);
}

static void add_large_cases(plan_builder *b)
{
    static const struct {
        uint32_t op, in, out, rank, pattern;
    } large[] = {
        {BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 2, BITCTS_PAT_LARGE_PACKED},
        {BITCTS_OP_BIT_AND, BITCTS_DT_INT32, BITCTS_DT_INT32, 2, BITCTS_PAT_LARGE_PERMUTED},
        {BITCTS_OP_BIT_OR, BITCTS_DT_FLOAT64, BITCTS_DT_FLOAT64, 3, BITCTS_PAT_LARGE_BROADCAST},
        {BITCTS_OP_BIT_NOT, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 3, BITCTS_PAT_LARGE_PACKED},
        {BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT32, BITCTS_DT_FLOAT32, 2, BITCTS_PAT_LARGE_PERMUTED},
        {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT64, BITCTS_DT_UINT8, 1, BITCTS_PAT_LARGE_PACKED},
        {BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 2, BITCTS_PAT_LARGE_BROADCAST},
        {BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 2, BITCTS_PAT_LARGE_PACKED},
        {BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_UINT64, BITCTS_DT_UINT64, 2,
         BITCTS_PAT_LARGE_PERMUTED},
        {BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4,
         BITCTS_PAT_LARGE_BROADCAST},
    };
    for (size_t i = 0; i < sizeof large / sizeof large[0]; ++i) {
        bitcts_case_key k = {.op = large[i].op,
                             .in_type = large[i].in,
                             .out_type = large[i].out,
                             .rank = large[i].rank,
                             .pattern = large[i].pattern,
                             .values = BITCTS_VALUES_RANDOM,
                             .tiers = BITCTS_TIER_LARGE};
        add_case(b, k);
    }
}

/* The key of an exhaustive case: rank 1, every value (or pair of values) enumerated. */
static bitcts_case_key exhaustive_key(uint32_t op, uint32_t in_type, uint32_t out_type)
{
    return (bitcts_case_key){.op = op,
                             .in_type = in_type,
                             .out_type = out_type,
                             .rank = 1,
                             .pattern = BITCTS_PAT_EXHAUSTIVE,
                             .values = BITCTS_VALUES_ENUMERATED,
                             .tiers = BITCTS_TIER_EXHAUSTIVE};
}

static void add_exhaustive_cases(plan_builder *b)
{
    static const uint32_t binary_ops[] = {BITCTS_OP_BIT_AND, BITCTS_OP_BIT_OR, BITCTS_OP_BIT_XOR,
                                          BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_OP_BIT_SHIFT_RIGHT};
    static const uint32_t small_types[] = {BITCTS_DT_UINT8, BITCTS_DT_INT8, BITCTS_DT_UINT16,
                                           BITCTS_DT_INT16, BITCTS_DT_FLOAT16};
    for (size_t o = 0; o < sizeof binary_ops / sizeof binary_ops[0]; ++o) {
        for (size_t t = 0; t < 2; ++t) { /* all 2^16 pairs of the 8-bit types */
            const bitcts_case_key k = exhaustive_key(binary_ops[o], small_types[t], small_types[t]);
            if (bitcts_fl_required(k.op, k.in_type, k.out_type, 1)) {
                add_case(b, k);
            }
        }
    }
    for (size_t t = 0; t < sizeof small_types / sizeof small_types[0]; ++t) {
        const uint32_t unary[] = {BITCTS_OP_BIT_NOT, BITCTS_OP_BIT_COUNT};
        for (size_t o = 0; o < 2; ++o) { /* every value of every 8- and 16-bit type */
            uint32_t outs[2];
            const size_t n_out = output_types(unary[o], small_types[t], outs);
            for (size_t j = 0; j < n_out; ++j) {
                add_case(b, exhaustive_key(unary[o], small_types[t], outs[j]));
            }
        }
    }
}

int bitcts_plan_create(bitcts_plan **out)
{
    *out = NULL;
    bitcts_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    plan_builder b = {.plan = plan};
    add_default_cases(&b);
    add_negative_cases(&b);
    if (bitcts_mixed_build(add_mixed_case, &b) != BITCTS_OK) {
        b.failed = 1;
    }
    add_large_cases(&b);
    add_exhaustive_cases(&b);
    if (b.failed) {
        bitcts_plan_destroy(plan);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    *out = plan;
    return BITCTS_OK;
}

void bitcts_plan_destroy(bitcts_plan *plan)
{
    if (plan == NULL) {
        return;
    }
    for (size_t i = 0; plan->fixed != NULL && i < plan->count; ++i) {
        if (plan->fixed[i] != NULL) {
            bitcts_case_free(plan->fixed[i]);
            free(plan->fixed[i]);
        }
    }
    free(plan->fixed);
    free(plan->cases);
    free(plan);
}

int bitcts_selection_matches(const bitcts_selection *sel, const bitcts_case_key *key)
{
    if (!(key->tiers & sel->tiers)) {
        return 0;
    }
    if (sel->max_feature_level && key->feature_level > sel->max_feature_level) {
        return 0;
    }
    return bitcts_ids_select(&sel->filter, &sel->exclude, key->id);
}

int bitcts_ids_select(const bitcts_filter *filter, const bitcts_filter *exclude, const char *id)
{
    if (!bitcts_filter_matches(filter, id)) {
        return 0;
    }
    for (size_t i = 0; exclude != NULL && i < exclude->count; ++i) {
        if (fnmatch(exclude->globs[i], id, 0) == 0) {
            return 0;
        }
    }
    return 1;
}

void bitcts_exclude_join(const bitcts_filter *exclude, char *out, size_t cap)
{
    if (exclude->count == 0) {
        if (cap > 0) {
            out[0] = '\0';
        }
        return;
    }
    bitcts_filter_join(exclude, out, cap);
}

int bitcts_filter_matches(const bitcts_filter *filter, const char *id)
{
    for (size_t i = 0; i < filter->count; ++i) {
        if (fnmatch(filter->globs[i], id, 0) == 0) {
            return 1;
        }
    }
    return filter->count == 0;
}

void bitcts_filter_join(const bitcts_filter *filter, char *out, size_t cap)
{
    size_t used = 0;
    if (cap == 0) {
        return;
    }
    out[0] = '\0';
    if (filter->count == 0) {
        snprintf(out, cap, "*");
        return;
    }
    for (size_t i = 0; i < filter->count && used < cap; ++i) {
        const int n = snprintf(out + used, cap - used, "%s%s", i > 0 ? "," : "", filter->globs[i]);
        used += n > 0 ? (size_t)n : 0;
    }
}

/* The end (the closing ']') of the bracket expression opening at p, or NULL. */
static const char *bracket_end(const char *p)
{
    const char *q = p + 1;
    if (*q == '!' || *q == '^') {
        ++q;
    }
    if (*q == ']') {
        ++q; /* a ']' first is a member */
    }
    while (*q != '\0' && *q != ']') {
        if (q[0] == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
            const char kind = q[1];
            const char *e = q + 2;
            while (*e != '\0' && !(e[0] == kind && e[1] == ']')) {
                ++e;
            }
            if (*e == '\0') {
                return NULL;
            }
            q = e + 2;
        } else {
            ++q;
        }
    }
    return *q == ']' ? q : NULL;
}

int bitcts_glob_is_valid(const char *glob)
{
    for (const char *p = glob; *p != '\0'; ++p) {
        if (*p == '\\') {
            if (p[1] == '\0') {
                return 0;
            }
            ++p;
        } else if (*p == '[') {
            p = bracket_end(p);
            if (p == NULL) {
                return 0;
            }
        }
    }
    return 1;
}

const bitcts_case_key *bitcts_plan_find_from(const bitcts_plan *plan, const char *id,
                                             size_t *cursor)
{
    const size_t n = plan->count;
    for (size_t k = 0; k < n; ++k) {
        const size_t i = (*cursor + k) % n;
        if (strcmp(plan->cases[i].id, id) == 0) {
            *cursor = i + 1;
            return &plan->cases[i];
        }
    }
    return NULL;
}

const bitcts_case_key *bitcts_plan_find(const bitcts_plan *plan, const char *id)
{
    for (size_t i = 0; i < plan->count; ++i) {
        if (strcmp(plan->cases[i].id, id) == 0) {
            return &plan->cases[i];
        }
    }
    return NULL;
}
