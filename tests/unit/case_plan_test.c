/* SPDX-License-Identifier: MIT */
/* The case plan and generators: size and uniqueness of the plan, id format, feature-level tags,
 * negative cases breaking exactly their rule, every pattern's layout property, value-class
 * bounds, and determinism pinned by known answers (the same on every platform and compiler). */
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_status.h"
#include "case_mixed.h"
#include "case_plan.h"
#include "check.h"
#include "digest.h"
#include "explore.h"
#include "rng.h"

/* Pinned known answers for bit_xor.uint16.r5.broadcast_b.1 under the default seed; they change
 * only with BITCTS_GENERATOR_VERSION. */
#define BITCTS_TEST_PIN_SEED 0x933ed5998e87fccfull
#define BITCTS_TEST_PIN_DIGEST "bed6c4b2ecb04073f0f66ba98a31f24e"

static int compare_ids(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_plan_shape(const bitcts_plan *plan)
{
    size_t n_default = 0;
    const char **ids = malloc(plan->count * sizeof *ids);
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        ids[i] = k->id;
        n_default += (k->tiers & BITCTS_TIER_DEFAULT) != 0;
        if (k->tiers & BITCTS_TIER_SMOKE) {
            CHECK(k->tiers & BITCTS_TIER_DEFAULT);
        }
        /* The id names the operator, the types and the rank. */
        char prefix[64];
        if (k->op == BITCTS_OP_BIT_COUNT) {
            snprintf(prefix, sizeof prefix, "%s.%s.%s.r%u.", bitcts_op_name(k->op),
                     bitcts_dtype_name(k->in_type), bitcts_dtype_name(k->out_type), k->rank);
        } else {
            snprintf(prefix, sizeof prefix, "%s.%s.r%u.", bitcts_op_name(k->op),
                     bitcts_dtype_name(k->in_type), k->rank);
        }
        CHECK(strncmp(k->id, prefix, strlen(prefix)) == 0);
        CHECK(k->feature_level != 0);
    }
    CHECK(n_default >= 10000);
    qsort(ids, plan->count, sizeof *ids, compare_ids);
    for (size_t i = 1; i < plan->count; ++i) {
        if (strcmp(ids[i], ids[i - 1]) == 0) {
            CHECK_EQ_STR(ids[i], "a unique id");
            break;
        }
    }
    free(ids);
    const bitcts_case_key *k = bitcts_plan_find(plan, "bit_shift_left.uint8.r4.packed.0");
    CHECK(k != NULL && k->feature_level == BITCTS_FL_2_1);
    k = bitcts_plan_find(plan, "bit_shift_left.uint8.r5.packed.0");
    CHECK(k != NULL && k->feature_level == BITCTS_FL_3_0);
    k = bitcts_plan_find(plan, "bit_shift_right.uint64.r4.packed.0");
    CHECK(k != NULL && k->feature_level == BITCTS_FL_4_1);
    k = bitcts_plan_find(plan, "bit_count.int64.uint8.r3.permuted.0");
    CHECK(k != NULL && k->feature_level == BITCTS_FL_4_1);
    k = bitcts_plan_find(plan, "bit_xor.uint16.r5.broadcast_b.1");
    CHECK(k != NULL && k->feature_level == BITCTS_FL_3_0 && k->values == BITCTS_VALUES_EDGE);
    CHECK(bitcts_plan_find(plan, "bit_count.uint8.uint8.r2.inplace.0") == NULL);
    CHECK(bitcts_plan_find(plan, "bit_shift_left.int32.r2.packed.0") == NULL);
    bitcts_selection sel = {.tiers = BITCTS_TIER_DEFAULT,
                            .filter = {.globs = {"bit_xor.*.r2.*"}, .count = 1}};
    CHECK(bitcts_selection_matches(&sel, bitcts_plan_find(plan, "bit_xor.int8.r2.permuted.1")));
    CHECK(!bitcts_selection_matches(&sel, bitcts_plan_find(plan, "bit_xor.int8.r3.permuted.1")));
    /* Several globs: any of them selects (the union), and the join names every one. */
    sel.filter.globs[sel.filter.count++] = "bit_xor.*.r3.*";
    CHECK(bitcts_selection_matches(&sel, bitcts_plan_find(plan, "bit_xor.int8.r2.permuted.1")));
    CHECK(bitcts_selection_matches(&sel, bitcts_plan_find(plan, "bit_xor.int8.r3.permuted.1")));
    CHECK(!bitcts_selection_matches(&sel, bitcts_plan_find(plan, "bit_and.int8.r3.permuted.1")));
    char joined[64];
    bitcts_filter_join(&sel.filter, joined, sizeof joined);
    CHECK_EQ_STR(joined, "bit_xor.*.r2.*,bit_xor.*.r3.*");
    sel.filter.count = 0;
    bitcts_filter_join(&sel.filter, joined, sizeof joined);
    CHECK_EQ_STR(joined, "*");
    sel.max_feature_level = BITCTS_FL_3_0;
    CHECK(!bitcts_selection_matches(&sel, bitcts_plan_find(plan, "bit_xor.int8.r2.permuted.1")));
}

/* --exclude: an id matching an exclude glob is never selected, whatever the filters say; with
 * no filter every other id is. */
static void test_exclude(const bitcts_plan *plan)
{
    bitcts_selection sel = {.tiers = BITCTS_TIER_DEFAULT,
                            .filter = {.globs = {"bit_xor.*", "bit_and.*"}, .count = 2},
                            .exclude = {.globs = {"*.permuted.*", "bit_and.int8.*"}, .count = 2}};
    static const struct {
        const char *id;
        int with_filter, without_filter; /* selected with the two filters, and with none */
    } want[] = {
        {"bit_xor.int8.r2.packed.0", 1, 1},   {"bit_and.int16.r2.packed.0", 1, 1},
        {"bit_xor.int8.r2.permuted.1", 0, 0}, {"bit_and.int8.r2.packed.0", 0, 0},
        {"bit_or.int8.r2.packed.0", 0, 1},    {"bit_or.int8.r2.permuted.1", 0, 0},
    };
    const size_t filters = sel.filter.count;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const bitcts_case_key *k = bitcts_plan_find(plan, want[i].id);
        sel.filter.count = filters;
        CHECK(k != NULL && bitcts_selection_matches(&sel, k) == want[i].with_filter);
        sel.filter.count = 0;
        CHECK(k != NULL && bitcts_selection_matches(&sel, k) == want[i].without_filter);
    }
    CHECK(bitcts_ids_select(&sel.filter, NULL, "anything"));
    char joined[64] = "unchanged";
    bitcts_exclude_join(&sel.exclude, joined, sizeof joined);
    CHECK_EQ_STR(joined, "*.permuted.*,bit_and.int8.*");
    const bitcts_filter none = {.count = 0};
    bitcts_exclude_join(&none, joined, sizeof joined);
    CHECK_EQ_STR(joined, ""); /* "" in reports, where an empty filter reads "*" */
}

static void test_negative_cases(const bitcts_plan *plan)
{
    static const uint32_t fls[] = {0x2100, 0x3000, 0x4100, 0x6400};
    size_t n = 0;
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if (k->pattern != BITCTS_PAT_INVALID) {
            continue;
        }
        ++n;
        bitcts_case_data d;
        CHECK_EQ_U64(bitcts_case_build(BITCTS_DEFAULT_SEED, k, &d), BITCTS_OK);
        for (size_t f = 0; f < 4; ++f) { /* broken at every feature level the case exists at */
            if (fls[f] < k->feature_level) {
                continue;
            }
            const bitcts_rule got = bitcts_validate_op(&d.desc, fls[f], NULL);
            if (got != k->rule) {
                fprintf(stderr, "%s at 0x%x\n", k->id, fls[f]);
                CHECK_EQ_STR(bitcts_rule_id(got), bitcts_rule_id((int)k->rule));
            }
        }
        bitcts_case_free(&d);
    }
    CHECK(n >= 100);
}

static int has_broadcast_dim(const bitcts_tensor_desc *t)
{
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        if (t->has_strides && t->strides[k] == 0 && t->sizes[k] > 1) {
            return 1;
        }
    }
    return 0;
}

/* Every valid case of the tier: valid at its own feature level (and not below, unless the
 * operator existed there), its pattern's property holds, values respect their class. */
static void check_valid_case(const bitcts_case_key *k)
{
    bitcts_case_data d;
    CHECK_EQ_U64(bitcts_case_build(BITCTS_DEFAULT_SEED, k, &d), BITCTS_OK);
    bitcts_validation why;
    if (bitcts_validate_op(&d.desc, k->feature_level, &why) != BITCTS_RULE_OK) {
        fprintf(stderr, "%s: %s %s\n", k->id, bitcts_rule_id(why.rule), why.detail);
        CHECK(0);
    }
    const uint32_t n_in = d.desc.input_count;
    for (uint32_t t = 0; t <= n_in; ++t) { /* spec: validation.md, not a multiple of 4 */
        const bitcts_tensor_desc *x = t < n_in ? &d.desc.inputs[t] : &d.desc.output;
        CHECK(x->total_tensor_size_in_bytes % 4 == 0);
    }
    switch (k->pattern) {
    case BITCTS_PAT_BROADCAST:
    case BITCTS_PAT_BROADCAST_B: CHECK(has_broadcast_dim(&d.desc.inputs[n_in - 1])); break;
    case BITCTS_PAT_BROADCAST_A: CHECK(has_broadcast_dim(&d.desc.inputs[0])); break;
    case BITCTS_PAT_BROADCAST_BOTH:
        CHECK(has_broadcast_dim(&d.desc.inputs[0]) && has_broadcast_dim(&d.desc.inputs[1]));
        break;
    case BITCTS_PAT_SCALAR_A:
    case BITCTS_PAT_SCALAR_B:
    case BITCTS_PAT_SCALAR: {
        const bitcts_tensor_desc *t =
            &d.desc.inputs[k->pattern == BITCTS_PAT_SCALAR_A ? 0 : n_in - 1];
        uint64_t need = 0;
        bitcts_tensor_calc_buffer_size(t, &need);
        CHECK(need <= 8);
        break;
    }
    case BITCTS_PAT_INPLACE:
    case BITCTS_PAT_INPLACE_A:
    case BITCTS_PAT_INPLACE_B:
        CHECK(d.alias_input == (k->pattern == BITCTS_PAT_INPLACE_B ? 1 : 0));
        CHECK(memcmp(&d.desc.output, &d.desc.inputs[d.alias_input], sizeof d.desc.output) == 0);
        CHECK(d.output == d.inputs[d.alias_input]);
        break;
    case BITCTS_PAT_PERMUTED: {
        int transposed = 0; /* among dims of size > 1, some stride exceeds an outer one */
        uint32_t outer = 0;
        int seen = 0;
        for (uint32_t i = 0; i < k->rank; ++i) {
            if (d.desc.inputs[0].sizes[i] == 1) {
                continue;
            }
            transposed |= seen && d.desc.inputs[0].strides[i] > outer;
            outer = d.desc.inputs[0].strides[i];
            seen = 1;
        }
        CHECK(transposed);
        break;
    }
    case BITCTS_PAT_OVERSIZED: {
        uint64_t need = 0;
        bitcts_tensor_calc_buffer_size(&d.desc.output, &need);
        CHECK(d.desc.output.total_tensor_size_in_bytes > need);
        break;
    }
    default: break;
    }
    const int shift = bitcts_op_is_shift(k->op);
    if (shift) { /* counts in range, except the shift_oob class which has some out of range */
        const uint32_t es = bitcts_dtype_size(k->in_type);
        int oob = 0;
        for (uint64_t off = 0; off + es <= d.desc.inputs[1].total_tensor_size_in_bytes; off += es) {
            uint64_t v = 0;
            memcpy(&v, d.inputs[1] + off, es);
            oob |= v >= es * 8;
        }
        CHECK(oob == (k->values == BITCTS_VALUES_SHIFT_OOB));
        CHECK(oob == bitcts_case_is_recorded(k));
    }
    uint8_t *expected = NULL;
    CHECK_EQ_U64(bitcts_case_expected(&d, 2, &expected), BITCTS_OK);
    free(expected);
    bitcts_case_free(&d);
}

/* 1 when, among the dims of size > 1, some stride exceeds an outer one. */
static int is_transposed(const bitcts_tensor_desc *t)
{
    int transposed = 0;
    uint32_t outer = 0;
    int seen = 0;
    for (uint32_t i = 0; i < t->dimension_count; ++i) {
        if (t->sizes[i] > 1) {
            transposed |= seen && t->strides[i] > outer;
            outer = t->strides[i];
            seen = 1;
        }
    }
    return t->has_strides && transposed;
}

/* A mixed case's tensor has the property of its own layout. */
static void check_mixed_tensor(const bitcts_case_data *d, uint32_t layout,
                               const bitcts_tensor_desc *t)
{
    uint64_t need = 0;
    bitcts_tensor_calc_buffer_size(t, &need);
    uint64_t elements = 1;
    for (uint32_t k = 0; k < t->dimension_count; ++k) {
        elements *= t->sizes[k];
    }
    const uint64_t packed = (elements * bitcts_dtype_size(t->data_type) + 3) & ~(uint64_t)3;
    switch (layout) {
    case BITCTS_ML_PACKED: CHECK(!t->has_strides && t->total_tensor_size_in_bytes == need); break;
    case BITCTS_ML_PADDED_INNER:
    case BITCTS_ML_PADDED_OUTER: CHECK(t->has_strides && !is_transposed(t)); break;
    case BITCTS_ML_PERMUTED: CHECK(is_transposed(t)); break;
    case BITCTS_ML_OVERSIZED:
        CHECK(t->total_tensor_size_in_bytes > need && need == packed);
        CHECK(t->guaranteed_base_offset_alignment == 16);
        break;
    case BITCTS_ML_BROADCAST: CHECK(has_broadcast_dim(t) && need < packed); break;
    case BITCTS_ML_SCALAR: CHECK(need <= 8); break;
    default: CHECK(d->alias_input >= 0); break; /* in place */
    }
}

/* Every mixed case: each tensor laid out as its layout says, the in-place output the aliased
 * input; the construction is the same twice (no state, no seed). */
static void test_mixed_cases(const bitcts_plan *plan)
{
    bitcts_plan *again = NULL;
    CHECK_EQ_U64(bitcts_plan_create(&again), BITCTS_OK);
    size_t mixed = 0;
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        CHECK(strcmp(k->id, again->cases[i].id) == 0 && k->layouts == again->cases[i].layouts);
        if (k->pattern != BITCTS_PAT_MIXED) {
            CHECK(k->layouts == 0);
            continue;
        }
        ++mixed;
        bitcts_case_data d;
        CHECK_EQ_U64(bitcts_case_build(BITCTS_DEFAULT_SEED, k, &d), BITCTS_OK);
        const uint32_t n_in = d.desc.input_count;
        for (uint32_t s = 0; s < 3; ++s) {
            if (s == 1 && n_in == 1) {
                continue;
            }
            const bitcts_tensor_desc *t = s < 2 ? &d.desc.inputs[s] : &d.desc.output;
            check_mixed_tensor(&d, bitcts_mixed_layout_of(k, s), t);
        }
        const uint32_t out = bitcts_mixed_layout_of(k, 2);
        const int alias = out == BITCTS_ML_INPLACE_B                               ? 1
                          : out == BITCTS_ML_INPLACE_A || out == BITCTS_ML_INPLACE ? 0
                                                                                   : -1;
        CHECK(d.alias_input == alias);
        bitcts_case_free(&d);
    }
    CHECK(mixed > 0);
    bitcts_plan_destroy(again);
}

/* Explored cases: every TotalTensorSizeInBytes a multiple of 4 (docs/spec/validation.md). */
static void test_explore_sizes(void)
{
    for (uint64_t i = 0; i < 2000; ++i) {
        bitcts_case_key k;
        CHECK_EQ_U64(bitcts_explore_key(BITCTS_DEFAULT_SEED, i, &k), BITCTS_OK);
        bitcts_op_desc desc;
        int alias = -1;
        bitcts_explore_describe(bitcts_case_seed(BITCTS_DEFAULT_SEED, k.id), &k, &desc, &alias);
        for (uint32_t t = 0; t <= desc.input_count; ++t) {
            const bitcts_tensor_desc *x = t < desc.input_count ? &desc.inputs[t] : &desc.output;
            if (x->total_tensor_size_in_bytes % 4 != 0) {
                fprintf(stderr, "%s: a buffer of %llu bytes\n", k.id,
                        (unsigned long long)x->total_tensor_size_in_bytes);
                CHECK(0);
            }
        }
    }
}

static void test_default_cases(const bitcts_plan *plan)
{
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *k = &plan->cases[i];
        if ((k->tiers & BITCTS_TIER_DEFAULT) && k->pattern != BITCTS_PAT_INVALID) {
            check_valid_case(k);
        }
    }
}

static void test_determinism(const bitcts_plan *plan)
{
    /* Known answers: SplitMix64 and the case seed are pinned, so every platform and compiler
     * must produce these exact values. */
    bitcts_rng r = {.state = 0};
    CHECK_EQ_U64(bitcts_rng_next(&r), 0xE220A8397B1DCDAFull); /* SplitMix64 reference output */
    CHECK_EQ_U64(bitcts_rng_next(&r), 0x6E789E6AA1B965F4ull);
    const bitcts_case_key *k = bitcts_plan_find(plan, "bit_xor.uint16.r5.broadcast_b.3");
    CHECK(k == NULL); /* only n = 0, 1 exist for XOR */
    k = bitcts_plan_find(plan, "bit_xor.uint16.r5.broadcast_b.1");
    bitcts_case_data d1, d2;
    CHECK_EQ_U64(bitcts_case_build(BITCTS_DEFAULT_SEED, k, &d1), BITCTS_OK);
    bitcts_case_key copy = *k; /* the same id elsewhere in memory: the same bytes */
    CHECK_EQ_U64(bitcts_case_build(BITCTS_DEFAULT_SEED, &copy, &d2), BITCTS_OK);
    CHECK(memcmp(&d1.desc, &d2.desc, sizeof d1.desc) == 0);
    CHECK(memcmp(d1.inputs[0], d2.inputs[0], d1.desc.inputs[0].total_tensor_size_in_bytes) == 0);
    CHECK(memcmp(d1.inputs[1], d2.inputs[1], d1.desc.inputs[1].total_tensor_size_in_bytes) == 0);
    char h1[BITCTS_DIGEST_HEX];
    bitcts_digest_bytes(d1.inputs[0], d1.desc.inputs[0].total_tensor_size_in_bytes, h1);
    fprintf(stderr, "pin: case seed 0x%016llx A digest %s\n", (unsigned long long)d1.case_seed, h1);
    CHECK_EQ_U64(d1.case_seed, BITCTS_TEST_PIN_SEED);
    CHECK_EQ_STR(h1, BITCTS_TEST_PIN_DIGEST);
    bitcts_case_free(&d1);
    bitcts_case_free(&d2);
    /* Another seed gives other bytes. */
    CHECK_EQ_U64(bitcts_case_build(1, k, &d1), BITCTS_OK);
    CHECK(d1.case_seed != BITCTS_TEST_PIN_SEED);
    bitcts_case_free(&d1);
}

/* A glob is well-formed when every '[' closes and no '\\' ends it (fnmatch would otherwise
 * match nothing, or the literal text, silently). */
static void test_glob_validity(void)
{
    static const char *const good[] = {"*",    "bit_xor.*",   "bit_[ax]*", "[!b]*",
                                       "[]]*", "[[:digit:]]", "a\\[",      "[a-z].?"};
    static const char *const bad[] = {"[", "bit_[and.*", "x\\", "[[:digit:]", "[[:alpha]", "[!"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        CHECK(bitcts_glob_is_valid(good[i]));
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        CHECK(!bitcts_glob_is_valid(bad[i]));
    }
}

int main(void)
{
    test_glob_validity();
    bitcts_plan *plan = NULL;
    CHECK_EQ_U64(bitcts_plan_create(&plan), BITCTS_OK);
    if (plan == NULL) {
        return check_exit();
    }
    test_plan_shape(plan);
    test_negative_cases(plan);
    test_exclude(plan);
    test_default_cases(plan);
    test_mixed_cases(plan);
    test_explore_sizes();
    test_determinism(plan);
    bitcts_plan_destroy(plan);
    return check_exit();
}
