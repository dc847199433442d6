/* SPDX-License-Identifier: MIT */
/* The covering array of the `mixed` family (docs/case-plan.md, "Mixed layouts"): the required
 * pairs in a fixed order, and a fixed greedy construction over them. It depends on nothing but
 * this code: no seed, no machine. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* memset */

#include "bitcts/bitcts_status.h"
#include "case_mixed.h"

#define UNSET (-1)
#define ABSENT (-2)

static const char *const layout_names[BITCTS_ML_COUNT] = {
#define BITCTS_MIXED_NAME(e, n) #n,
    BITCTS_MIXED_LAYOUT_LIST(BITCTS_MIXED_NAME)
#undef BITCTS_MIXED_NAME
};

static const char *const factor_names[BITCTS_MF_COUNT] = {
#define BITCTS_MIXED_NAME(e, n) #n,
    BITCTS_MIXED_FACTOR_LIST(BITCTS_MIXED_NAME)
#undef BITCTS_MIXED_NAME
};

const char *bitcts_mixed_layout_name(uint32_t layout)
{
    return layout < BITCTS_ML_COUNT ? layout_names[layout] : "?";
}

const char *bitcts_mixed_factor_name(uint32_t factor)
{
    return factor < BITCTS_MF_COUNT ? factor_names[factor] : "?";
}

uint32_t bitcts_mixed_layout_of(const bitcts_case_key *key, uint32_t slot)
{
    return (key->layouts >> (4 * slot)) & 0xFu;
}

/* A case under construction: one value per factor, UNSET or ABSENT (a tensor the operator does
 * not have). */
typedef struct mixed_case {
    int v[BITCTS_MF_COUNT];
} mixed_case;

static int is_tensor(uint32_t f)
{
    return f >= BITCTS_MF_A;
}

/* The smallest rank a layout needs: padded_outer is padded_inner at rank 2 (docs). */
static int min_rank(int layout)
{
    switch (layout) {
    case BITCTS_ML_PADDED_OUTER: return 3;
    case BITCTS_ML_PERMUTED:
    case BITCTS_ML_BROADCAST: return 2;
    default: return 1;
    }
}

static int is_inplace(int layout)
{
    return layout == BITCTS_ML_INPLACE_A || layout == BITCTS_ML_INPLACE_B ||
           layout == BITCTS_ML_INPLACE;
}

/* 1 when a tensor factor may take a layout at all: broadcast and scalar are inputs' only, in
 * place is the output's only. */
static int layout_fits_tensor(uint32_t f, int layout)
{
    if (f == BITCTS_MF_OUTPUT) {
        return layout != BITCTS_ML_BROADCAST && layout != BITCTS_ML_SCALAR;
    }
    return !is_inplace(layout);
}

/* The aliased input of an in-place output layout, or -1. */
static int alias_factor(int layout)
{
    switch (layout) {
    case BITCTS_ML_INPLACE_A: return BITCTS_MF_A;
    case BITCTS_ML_INPLACE_B: return BITCTS_MF_B;
    case BITCTS_ML_INPLACE: return BITCTS_MF_INPUT;
    default: return -1;
    }
}

static int set(const mixed_case *c, uint32_t f)
{
    return c->v[f] >= 0;
}

/* The operator kind the set values need: bit 0 binary, bit 1 unary. */
static unsigned needed_kinds(const mixed_case *c)
{
    unsigned k = 0;
    const int out = c->v[BITCTS_MF_OUTPUT];
    if (set(c, BITCTS_MF_A) || set(c, BITCTS_MF_B) || out == BITCTS_ML_INPLACE_A ||
        out == BITCTS_ML_INPLACE_B) {
        k |= 1u;
    }
    if (set(c, BITCTS_MF_INPUT) || out == BITCTS_ML_INPLACE) {
        k |= 2u;
    }
    return k;
}

static int op_accepts(uint32_t op, uint32_t type)
{
    const uint32_t out = op == BITCTS_OP_BIT_COUNT ? BITCTS_DT_UINT8 : type;
    return bitcts_fl_required(op, type, out, 1) != 0;
}

static int op_fits(const mixed_case *c, uint32_t op)
{
    const unsigned kind = bitcts_op_input_count(op) == 2 ? 1u : 2u;
    if ((needed_kinds(c) & ~kind) != 0) {
        return 0;
    }
    if (set(c, BITCTS_MF_TYPE) && !op_accepts(op, (uint32_t)c->v[BITCTS_MF_TYPE])) {
        return 0;
    }
    return !is_inplace(c->v[BITCTS_MF_OUTPUT]) || bitcts_op_allows_in_place(op);
}

/* 1 when the set values of c can be completed into a valid mixed case. */
static int consistent(const mixed_case *c)
{
    if (needed_kinds(c) == 3u) {
        return 0;
    }
    for (uint32_t f = BITCTS_MF_A; f < BITCTS_MF_COUNT; ++f) {
        if (!set(c, f)) {
            continue;
        }
        if (!layout_fits_tensor(f, c->v[f]) ||
            (set(c, BITCTS_MF_RANK) && c->v[BITCTS_MF_RANK] < min_rank(c->v[f]))) {
            return 0;
        }
    }
    const int alias = alias_factor(c->v[BITCTS_MF_OUTPUT]);
    if (alias >= 0 && set(c, (uint32_t)alias) &&
        (c->v[alias] == BITCTS_ML_BROADCAST || c->v[alias] == BITCTS_ML_SCALAR)) {
        return 0;
    }
    if (set(c, BITCTS_MF_OP)) {
        return op_fits(c, (uint32_t)c->v[BITCTS_MF_OP]);
    }
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) { /* some operator must fit */
        if (op_fits(c, bitcts_op_all[o])) {
            return 1;
        }
    }
    return 0;
}

/* The values of a factor, in their fixed order. */
static size_t domain(uint32_t f, int *out)
{
    size_t n = 0;
    if (f == BITCTS_MF_OP) {
        for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
            out[n++] = (int)bitcts_op_all[o];
        }
    } else if (f == BITCTS_MF_TYPE) {
        for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
            out[n++] = (int)t;
        }
    } else if (f == BITCTS_MF_RANK) {
        for (uint32_t r = 1; r <= BITCTS_MAX_DIMS; ++r) {
            out[n++] = (int)r;
        }
    } else {
        for (int l = 0; l < (int)BITCTS_ML_COUNT; ++l) {
            out[n++] = l;
        }
    }
    return n;
}

/* Sets every unset factor of c, in the order A, B, Input, Output, operator, type, rank, to its
 * first consistent value (a tensor with none is the other kind's: absent); 0 when the operator,
 * type or rank has none. With `covered` (the construction), each takes instead the consistent
 * value that covers the most pairs not yet covered (the first among equals). */
static int complete(mixed_case *c, const bitcts_mixed_pair *pairs, size_t n_pairs,
                    const unsigned char *covered);

static int has_pair(const mixed_case *c, const bitcts_mixed_pair *p)
{
    return c->v[p->fa] == (int)p->va && c->v[p->fb] == (int)p->vb;
}

static size_t newly_covered(const mixed_case *c, const bitcts_mixed_pair *pairs, size_t n,
                            const unsigned char *covered)
{
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        count += !covered[i] && has_pair(c, &pairs[i]);
    }
    return count;
}

static void mark_absent(mixed_case *c)
{
    const int binary = bitcts_op_input_count((uint32_t)c->v[BITCTS_MF_OP]) == 2;
    const uint32_t gone[2][2] = {{BITCTS_MF_A, BITCTS_MF_B}, {BITCTS_MF_INPUT, BITCTS_MF_INPUT}};
    for (int i = 0; i < 2; ++i) {
        c->v[gone[binary][i]] = ABSENT;
    }
}

static int complete(mixed_case *c, const bitcts_mixed_pair *pairs, size_t n_pairs,
                    const unsigned char *covered)
{
    static const uint32_t order[BITCTS_MF_COUNT] = {BITCTS_MF_A,      BITCTS_MF_B,  BITCTS_MF_INPUT,
                                                    BITCTS_MF_OUTPUT, BITCTS_MF_OP, BITCTS_MF_TYPE,
                                                    BITCTS_MF_RANK};
    for (size_t k = 0; k < BITCTS_MF_COUNT; ++k) {
        const uint32_t f = order[k];
        if (c->v[f] != UNSET) {
            continue;
        }
        int values[16];
        const size_t n = domain(f, values);
        int best = UNSET;
        size_t best_score = 0;
        for (size_t i = 0; i < n; ++i) {
            c->v[f] = values[i];
            if (!consistent(c)) {
                continue;
            }
            const size_t score = covered != NULL ? newly_covered(c, pairs, n_pairs, covered) : 0;
            if (best == UNSET || score > best_score) {
                best = values[i];
                best_score = score;
            }
            if (covered == NULL) {
                break;
            }
        }
        if (best == UNSET && !is_tensor(f)) {
            c->v[f] = UNSET;
            return 0;
        }
        c->v[f] = best == UNSET ? ABSENT : best; /* a tensor no value fits: the other kind's */
        if (f == BITCTS_MF_OP) {
            mark_absent(c);
        }
    }
    return 1;
}

static void empty_case(mixed_case *c)
{
    for (uint32_t f = 0; f < BITCTS_MF_COUNT; ++f) {
        c->v[f] = UNSET;
    }
}

/* 1 when some valid mixed case holds both values of p. */
static int pair_is_feasible(const bitcts_mixed_pair *p)
{
    mixed_case c;
    empty_case(&c);
    c.v[p->fa] = (int)p->va;
    c.v[p->fb] = (int)p->vb;
    return consistent(&c) && complete(&c, NULL, 0, NULL);
}

static void add_pairs_with(uint32_t fa, uint32_t fb, bitcts_mixed_pair *out, size_t *n)
{
    int va[16];
    int vb[16];
    const size_t na = domain(fa, va);
    const size_t nb = domain(fb, vb);
    for (size_t i = 0; i < na; ++i) {
        for (size_t j = 0; j < nb; ++j) {
            const bitcts_mixed_pair p = {fa, (uint32_t)va[i], fb, (uint32_t)vb[j]};
            if (*n < BITCTS_MIXED_MAX_PAIRS && pair_is_feasible(&p)) {
                out[(*n)++] = p;
            }
        }
    }
}

size_t bitcts_mixed_pairs(bitcts_mixed_pair *out)
{
    static const uint32_t tensor_pairs[][2] = {{BITCTS_MF_A, BITCTS_MF_B},
                                               {BITCTS_MF_A, BITCTS_MF_OUTPUT},
                                               {BITCTS_MF_B, BITCTS_MF_OUTPUT},
                                               {BITCTS_MF_INPUT, BITCTS_MF_OUTPUT}};
    size_t n = 0;
    for (size_t i = 0; i < sizeof tensor_pairs / sizeof tensor_pairs[0]; ++i) {
        add_pairs_with(tensor_pairs[i][0], tensor_pairs[i][1], out, &n);
    }
    for (uint32_t other = BITCTS_MF_OP; other <= BITCTS_MF_RANK; ++other) {
        for (uint32_t t = BITCTS_MF_A; t < BITCTS_MF_COUNT; ++t) {
            add_pairs_with(t, other, out, &n);
        }
    }
    return n;
}

int bitcts_mixed_covers(const bitcts_case_key *key, const bitcts_mixed_pair *pair)
{
    if (key->pattern != BITCTS_PAT_MIXED) {
        return 0;
    }
    mixed_case c;
    empty_case(&c);
    c.v[BITCTS_MF_OP] = (int)key->op;
    c.v[BITCTS_MF_TYPE] = (int)key->in_type;
    c.v[BITCTS_MF_RANK] = (int)key->rank;
    mark_absent(&c);
    const int binary = bitcts_op_input_count(key->op) == 2;
    c.v[binary ? BITCTS_MF_A : BITCTS_MF_INPUT] = (int)bitcts_mixed_layout_of(key, 0);
    if (binary) {
        c.v[BITCTS_MF_B] = (int)bitcts_mixed_layout_of(key, 1);
    }
    c.v[BITCTS_MF_OUTPUT] = (int)bitcts_mixed_layout_of(key, 2);
    return has_pair(&c, pair);
}

static void value_text(uint32_t f, uint32_t v, char *out, size_t cap)
{
    const char *name = f == BITCTS_MF_OP     ? bitcts_op_name(v)
                       : f == BITCTS_MF_TYPE ? bitcts_dtype_name(v)
                       : is_tensor(f)        ? bitcts_mixed_layout_name(v)
                                             : NULL;
    if (name != NULL) {
        snprintf(out, cap, "%s=%s", bitcts_mixed_factor_name(f), name);
    } else {
        snprintf(out, cap, "%s=%u", bitcts_mixed_factor_name(f), v);
    }
}

void bitcts_mixed_pair_text(const bitcts_mixed_pair *pair, char *out, size_t cap)
{
    char a[48];
    char b[48];
    value_text(pair->fa, pair->va, a, sizeof a);
    value_text(pair->fb, pair->vb, b, sizeof b);
    snprintf(out, cap, "%s %s", a, b);
}

/* The key of a finished case; `seen` counts the cases per id prefix for <n>, `count_cases` the
 * BIT_COUNT cases (their output type alternates UINT8, UINT32). */
static bitcts_case_key mixed_key(const mixed_case *c, size_t number, uint32_t *count_cases,
                                 unsigned char (*seen)[BITCTS_DT_COUNT][2][BITCTS_MAX_DIMS + 1])
{
    const uint32_t op = (uint32_t)c->v[BITCTS_MF_OP];
    const uint32_t type = (uint32_t)c->v[BITCTS_MF_TYPE];
    const uint32_t rank = (uint32_t)c->v[BITCTS_MF_RANK];
    uint32_t out_type = type;
    if (op == BITCTS_OP_BIT_COUNT) {
        out_type = (*count_cases)++ % 2 == 0 ? BITCTS_DT_UINT8 : BITCTS_DT_UINT32;
    }
    const int binary = bitcts_op_input_count(op) == 2;
    const uint32_t l0 = (uint32_t)c->v[binary ? BITCTS_MF_A : BITCTS_MF_INPUT];
    const uint32_t l1 = binary ? (uint32_t)c->v[BITCTS_MF_B] : 0u;
    const uint32_t l2 = (uint32_t)c->v[BITCTS_MF_OUTPUT];
    unsigned char *n = &seen[bitcts_op_index(op)][type][out_type == BITCTS_DT_UINT32][rank];
    return (bitcts_case_key){.op = op,
                             .in_type = type,
                             .out_type = out_type,
                             .rank = rank,
                             .pattern = BITCTS_PAT_MIXED,
                             .index = (*n)++,
                             .values = number % 2 == 0 ? BITCTS_VALUES_RANDOM : BITCTS_VALUES_EDGE,
                             .tiers = BITCTS_TIER_DEFAULT,
                             .layouts = l0 | (l1 << 4) | (l2 << 8)};
}

/* Hands the keys to `add` by operator in plan order, in construction order within an operator
 * (the plan keeps one operator's cases together). */
static void add_by_operator(const bitcts_case_key *keys, size_t n, bitcts_mixed_add_fn add,
                            void *ctx)
{
    for (int o = 0; o < (int)BITCTS_OP_COUNT; ++o) {
        for (size_t i = 0; i < n; ++i) {
            if (keys[i].op == bitcts_op_all[o]) {
                add(ctx, &keys[i]);
            }
        }
    }
}

/* The construction's working memory, one allocation. */
typedef struct mixed_work {
    bitcts_mixed_pair pairs[BITCTS_MIXED_MAX_PAIRS];
    unsigned char covered[BITCTS_MIXED_MAX_PAIRS];
    unsigned char seen[BITCTS_OP_COUNT][BITCTS_DT_COUNT][2][BITCTS_MAX_DIMS + 1];
    bitcts_case_key keys[BITCTS_MIXED_MAX_PAIRS]; /* at most one case per pair */
} mixed_work;

int bitcts_mixed_build(bitcts_mixed_add_fn add, void *ctx)
{
    mixed_work *w = calloc(1, sizeof *w);
    if (w == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    bitcts_mixed_pair *pairs = w->pairs;
    unsigned char *covered = w->covered;
    const size_t n = bitcts_mixed_pairs(pairs);
    uint32_t count_cases = 0;
    size_t number = 0;
    for (size_t first = 0; first < n; ++first) {
        if (covered[first]) {
            continue;
        }
        mixed_case c;
        empty_case(&c);
        c.v[pairs[first].fa] = (int)pairs[first].va;
        c.v[pairs[first].fb] = (int)pairs[first].vb;
        complete(&c, pairs, n, covered); /* cannot fail: the pair is feasible */
        for (size_t i = first; i < n; ++i) {
            covered[i] |= has_pair(&c, &pairs[i]);
        }
        w->keys[number] = mixed_key(&c, number, &count_cases, w->seen);
        ++number;
    }
    add_by_operator(w->keys, number, add, ctx);
    free(w);
    return BITCTS_OK;
}
