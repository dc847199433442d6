/* SPDX-License-Identifier: MIT */
/* The backend kit (include/bitcts/bitcts_backend_kit.h): every validation rule broken by one
 * mutation of a valid description, the ABI misuse the kit refuses, negotiation, capability
 * records, the host log and the buffers of an execution. Then the kit against the reference's
 * validation (reference/validate.h), the independent judge: the same verdict and the same rule
 * on every negative case of the plan, the valid cases of the smoke and default tiers, explored
 * descriptions and random mutations of them all. A self-test proves that agreement check real:
 * a validator that ignores any one rule must disagree with the reference somewhere. */
#include <stdint.h> /* fixed-width integers */
#include <stdio.h>  /* printf, snprintf */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memset, strcmp */

#include "bitcts/bitcts_backend_kit.h" /* the kit under test */
#include "case_plan.h"                 /* the plan's cases */
#include "check.h"
#include "explore.h"      /* explored descriptions */
#include "rng.h"          /* bitcts_case_seed */
#include "tensor_model.h" /* bitcts_op_desc */
#include "validate.h"     /* the reference's validation */

/* ---- descriptions: the reference's model, seen through the ABI ---- */

typedef struct abi_desc {
    bitcts_abi_tensor tensors[3]; /* A, B, Output */
    bitcts_abi_operator_desc desc;
} abi_desc;

/* The ABI view of d; it borrows d's arrays. */
static void to_abi(const bitcts_op_desc *d, abi_desc *x)
{
    memset(x, 0, sizeof *x);
    for (uint32_t k = 0; k < 3; ++k) {
        const bitcts_tensor_desc *t = k == 2 ? &d->output : &d->inputs[k];
        x->tensors[k].struct_size = sizeof x->tensors[k];
        x->tensors[k].data_type = t->data_type;
        x->tensors[k].flags = t->flags;
        x->tensors[k].dimension_count = t->dimension_count;
        x->tensors[k].sizes = t->sizes;
        x->tensors[k].strides = t->has_strides ? t->strides : NULL;
        x->tensors[k].total_tensor_size_in_bytes = t->total_tensor_size_in_bytes;
        x->tensors[k].guaranteed_base_offset_alignment = t->guaranteed_base_offset_alignment;
    }
    x->desc.struct_size = sizeof x->desc;
    x->desc.operator_type = d->op;
    x->desc.input_count = d->input_count;
    x->desc.inputs = x->tensors;
    x->desc.output = &x->tensors[2];
}

static bitcts_op_desc make_desc(uint32_t op, uint32_t in_type, uint32_t out_type, uint32_t rank,
                                const uint32_t *sizes)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.input_count = bitcts_op_input_count(op);
    for (uint32_t k = 0; k < d.input_count; ++k) {
        bitcts_tensor_make_packed(in_type, rank, sizes, &d.inputs[k]);
    }
    bitcts_tensor_make_packed(out_type, rank, sizes, &d.output);
    return d;
}

/* The rule id a refusal names: the text before the first ':'. */
static void rule_of(const char *err, char *rule, size_t cap)
{
    size_t n = strcspn(err, ":");
    n = n < cap - 1 ? n : cap - 1;
    memcpy(rule, err, n);
    rule[n] = '\0';
}

/* ---- every rule, one mutation each ---- */

static void expect_kit(const bitcts_op_desc *d, int32_t status, const char *rule, const char *what)
{
    abi_desc x;
    to_abi(d, &x);
    char err[256] = "";
    bitcts_kit_op op;
    const int32_t got = bitcts_kit_validate_op(&x.desc, &op, err, sizeof err);
    char got_rule[32];
    rule_of(err, got_rule, sizeof got_rule);
    CHECK_EQ_U64(got, status);
    if (status != BITCTS_ABI_OK) {
        CHECK_EQ_STR(got_rule, rule);
    }
    /* The reference names the same rule. */
    const bitcts_rule ref = bitcts_validate_op(d, BITCTS_FL_4_1, NULL);
    CHECK_EQ_STR(bitcts_rule_id(ref), status == BITCTS_ABI_OK ? "ok" : rule);
    if (got != status || (status != BITCTS_ABI_OK && strcmp(got_rule, rule) != 0)) {
        fprintf(stderr, "  %s: kit says %d \"%s\"\n", what, got, err);
    }
}

static void test_rules(void)
{
    const uint32_t s4[4] = {2, 3, 4, 5};
    const bitcts_op_desc base =
        make_desc(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 4, s4);
    expect_kit(&base, BITCTS_ABI_OK, NULL, "valid");
    bitcts_op_desc d = base;
    d.op = 99;
    expect_kit(&d, BITCTS_ABI_E_NOT_SUPPORTED, "unknown_operator", "operator 99");
    d = base;
    d.input_count = 1;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "input_count", "one input to XOR");
    d = base;
    d.inputs[1].dimension_count = 9;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "dimension_count", "B of rank 9");
    d = base;
    d.output.dimension_count = 0;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "dimension_count", "Output of rank 0");
    d = base;
    d.inputs[0].sizes[2] = 0;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "size_zero", "A size 0");
    d = base;
    d.output.data_type = BITCTS_DT_COUNT;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "unknown_type", "Output type 12");
    d = base;
    d.inputs[1].flags = 0x2;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "unknown_flags", "B flags 2");
    d = base;
    d.output.flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_flags", "Output OWNED_BY_DML");
    d = base;
    d.inputs[0].guaranteed_base_offset_alignment = 3;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "alignment", "alignment 3");
    d.inputs[0].guaranteed_base_offset_alignment = 1;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "alignment", "alignment 1 < 2 bytes");
    d = base;
    d.inputs[1].dimension_count = 3;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "dims_mismatch", "B of rank 3");
    d = base;
    d.output.sizes[3] = 6;
    d.output.total_tensor_size_in_bytes = 1024;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "sizes_mismatch", "Output Sizes[3] 6");
    d = base;
    d.inputs[1].data_type = BITCTS_DT_INT16;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "type_mismatch", "B INT16");
    d = make_desc(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT16, BITCTS_DT_UINT16, 4, s4);
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_type_not_allowed", "COUNT to UINT16");
    d = make_desc(BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_INT32, BITCTS_DT_INT32, 4, s4);
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "type_not_allowed", "shift of INT32");
    const uint32_t big[4] = {65536, 65536, 1, 1};
    d = base;
    for (uint32_t k = 0; k < 3; ++k) {
        bitcts_tensor_desc *t = k == 2 ? &d.output : &d.inputs[k];
        memcpy(t->sizes, big, sizeof big);
        t->total_tensor_size_in_bytes = UINT64_MAX;
    }
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "too_many_elements", "2^32 elements");
    const uint32_t widest[4] = {0xFFFFFFFFu, 1, 1, 1};
    d = base;
    for (uint32_t k = 0; k < 3; ++k) {
        bitcts_tensor_desc *t = k == 2 ? &d.output : &d.inputs[k];
        memcpy(t->sizes, widest, sizeof widest);
        t->total_tensor_size_in_bytes = UINT64_MAX;
    }
    d.inputs[0].has_strides = 1;
    d.inputs[0].strides[0] = 0xFFFFFFFFu;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "size_overflow", "index beyond 64 bits");
    d = base;
    d.output.total_tensor_size_in_bytes -= 1;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "buffer_too_small", "Output 1 byte short");
    d = base;
    d.output.has_strides = 1;
    const uint32_t zero_stride[4] = {60, 20, 0, 1};
    memcpy(d.output.strides, zero_stride, sizeof zero_stride);
    d.output.total_tensor_size_in_bytes = 1024;
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_zero_stride", "Output stride 0");
    const uint32_t overlap[4] = {20, 5, 2, 1};
    memcpy(d.output.strides, overlap, sizeof overlap);
    expect_kit(&d, BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_overlap", "Output overlapping");

    /* Valid corners: broadcast inputs with OWNED_BY_DML, an interleaved output that the sorted
     * strides cannot prove disjoint, alignment 16, BIT_COUNT of UINT64 to UINT32. */
    const uint32_t s2[2] = {3, 2};
    d = make_desc(BITCTS_OP_BIT_AND, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 2, s2);
    d.inputs[1].has_strides = 1; /* strides {0, 0}: one element for all */
    d.inputs[1].flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML;
    d.output.has_strides = 1;
    d.output.strides[0] = 2;
    d.output.strides[1] = 3; /* offsets 0 3 2 5 4 7 */
    d.output.total_tensor_size_in_bytes = 8;
    d.output.guaranteed_base_offset_alignment = 16;
    expect_kit(&d, BITCTS_ABI_OK, NULL, "broadcast, interleaved");
    d = make_desc(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT64, BITCTS_DT_UINT32, 4, s4);
    expect_kit(&d, BITCTS_ABI_OK, NULL, "COUNT UINT64 to UINT32");
}

/* Misuse of the ABI, which the reference's model cannot express: INVALID_ARGUMENT, "abi". */
static void expect_abi(const bitcts_abi_operator_desc *desc, const char *what)
{
    char err[256] = "";
    const int32_t got = bitcts_kit_validate_op(desc, NULL, err, sizeof err);
    CHECK_EQ_U64(got, BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(strncmp(err, "abi: ", 5) == 0);
    if (got != BITCTS_ABI_E_INVALID_ARGUMENT) {
        fprintf(stderr, "  %s: kit says %d \"%s\"\n", what, got, err);
    }
}

static void test_abi_misuse(void)
{
    const uint32_t s4[4] = {2, 3, 4, 5};
    const bitcts_op_desc base =
        make_desc(BITCTS_OP_BIT_OR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 4, s4);
    abi_desc x;
    to_abi(&base, &x);
    expect_abi(NULL, "no description");
    x.desc.struct_size = 8;
    expect_abi(&x.desc, "description struct_size 8");
    to_abi(&base, &x);
    x.desc.inputs = NULL;
    expect_abi(&x.desc, "no inputs");
    to_abi(&base, &x);
    x.desc.output = NULL;
    expect_abi(&x.desc, "no output");
    to_abi(&base, &x);
    x.tensors[1].struct_size =
        (uint32_t)offsetof(bitcts_abi_tensor, guaranteed_base_offset_alignment);
    expect_abi(&x.desc, "tensor struct_size short of its last field");
    to_abi(&base, &x);
    x.tensors[2].sizes = NULL;
    expect_abi(&x.desc, "Sizes NULL");
    /* A tensor record of exactly the fields the kit reads is enough (PLG-3). */
    to_abi(&base, &x);
    x.tensors[0].struct_size = (uint32_t)offsetof(bitcts_abi_tensor, reserved0);
    CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, NULL, NULL, 0), BITCTS_ABI_OK);
}

/* ---- the validated record, negotiation, capabilities, log, buffers ---- */

static void test_op_fill(void)
{
    const uint32_t s3[3] = {2, 3, 4};
    bitcts_op_desc d =
        make_desc(BITCTS_OP_BIT_SHIFT_RIGHT, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 3, s3);
    d.inputs[1].has_strides = 1;
    d.inputs[1].strides[0] = 0;
    d.inputs[1].strides[1] = 0;
    d.inputs[1].strides[2] = 1;
    d.inputs[1].total_tensor_size_in_bytes = 16;
    abi_desc x;
    to_abi(&d, &x);
    bitcts_kit_op op;
    CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, &op, NULL, 0), BITCTS_ABI_OK);
    CHECK_EQ_U64(op.operator_type, BITCTS_OP_BIT_SHIFT_RIGHT);
    CHECK_EQ_U64(op.input_count, 2);
    CHECK_EQ_U64(op.rank, 3);
    CHECK_EQ_U64(op.elements, 24);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_A].has_strides, 0);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_A].strides[0], 12); /* packed, filled in */
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_A].strides[1], 4);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_A].strides[2], 1);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_B].has_strides, 1);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_B].strides[0], 0);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_B].total_bytes, 16);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_OUTPUT].width, 4);
    CHECK_EQ_STR(bitcts_kit_role_name(2, BITCTS_KIT_A), "A");
    CHECK_EQ_STR(bitcts_kit_role_name(1, BITCTS_KIT_A), "Input");
    CHECK_EQ_STR(bitcts_kit_role_name(2, BITCTS_KIT_B), "B");
    CHECK_EQ_STR(bitcts_kit_role_name(1, BITCTS_KIT_OUTPUT), "Output");
    d = make_desc(BITCTS_OP_BIT_NOT, BITCTS_DT_INT8, BITCTS_DT_INT8, 3, s3);
    to_abi(&d, &x);
    CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, &op, NULL, 0), BITCTS_ABI_OK);
    CHECK_EQ_U64(op.tensors[BITCTS_KIT_B].width, 0); /* a unary operator has no B */
}

static void test_negotiate(void)
{
    static const bitcts_plugin_table table = {.struct_size = sizeof(bitcts_plugin_table)};
    static const bitcts_abi_host host = {.struct_size = sizeof(bitcts_abi_host)};
    const uint32_t v10 = BITCTS_ABI_VERSION_1_0;
    const struct {
        uint32_t min, max;
        int32_t status;
    } ranges[] = {
        {v10, v10, BITCTS_ABI_OK},
        {v10, BITCTS_ABI_VERSION(1, 7), BITCTS_ABI_OK},
        {BITCTS_ABI_VERSION(0, 9), BITCTS_ABI_VERSION(2, 0), BITCTS_ABI_OK},
        {BITCTS_ABI_VERSION(1, 1), BITCTS_ABI_VERSION(1, 2), BITCTS_ABI_E_INCOMPATIBLE},
        {BITCTS_ABI_VERSION(2, 0), BITCTS_ABI_VERSION(2, 0), BITCTS_ABI_E_INCOMPATIBLE},
        {BITCTS_ABI_VERSION(0, 1), BITCTS_ABI_VERSION(0, 9), BITCTS_ABI_E_INCOMPATIBLE},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; ++i) {
        bitcts_plugin_negotiation n = {sizeof n, ranges[i].min, ranges[i].max, 0, &host, NULL};
        const bitcts_abi_host *kept = NULL;
        CHECK_EQ_U64(bitcts_kit_negotiate(&n, &table, &kept), ranges[i].status);
        const int ok = ranges[i].status == BITCTS_ABI_OK;
        CHECK_EQ_U64(n.chosen_version, ok ? v10 : 0);
        CHECK(n.table == (ok ? &table : NULL));
        CHECK(kept == (ok ? &host : NULL));
    }
    bitcts_plugin_negotiation n = {sizeof n - 1, v10, v10, 0, &host, NULL};
    CHECK_EQ_U64(bitcts_kit_negotiate(&n, &table, NULL), BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK_EQ_U64(bitcts_kit_negotiate(NULL, &table, NULL), BITCTS_ABI_E_INVALID_ARGUMENT);
    n.struct_size = sizeof n;
    CHECK_EQ_U64(bitcts_kit_negotiate(&n, &table, NULL), BITCTS_ABI_OK);
}

static void test_caps(void)
{
    bitcts_abi_caps caps = {sizeof caps, 0};
    CHECK_EQ_U64(bitcts_kit_caps_fill(&caps, BITCTS_FL_4_1), BITCTS_ABI_OK);
    CHECK_EQ_U64(caps.feature_level, BITCTS_FL_4_1);
    caps.struct_size = 4;
    CHECK_EQ_U64(bitcts_kit_caps_fill(&caps, BITCTS_FL_4_1), BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK_EQ_U64(bitcts_kit_caps_fill(NULL, BITCTS_FL_4_1), BITCTS_ABI_E_INVALID_ARGUMENT);
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        const uint32_t op = bitcts_op_all[i];
        bitcts_abi_op_caps oc = {sizeof oc, 0, 0, 0, 0, 0};
        CHECK_EQ_U64(bitcts_kit_op_caps_fill(&oc, op), BITCTS_ABI_OK);
        CHECK_EQ_U64(oc.operator_type, op);
        CHECK_EQ_U64(oc.dimension_counts, 0x1FEu);
        CHECK_EQ_U64(oc.flags, bitcts_op_allows_in_place(op) ? BITCTS_ABI_CAP_IN_PLACE : 0u);
        /* The type masks are exactly the types the reference accepts at FL 4_1. */
        for (uint32_t t = 0; t < 16; ++t) {
            const uint32_t out = op == BITCTS_OP_BIT_COUNT ? BITCTS_DT_UINT32 : t;
            const uint32_t need = bitcts_fl_required(op, t, out, 3);
            CHECK_EQ_U64((oc.input_types >> t) & 1u, need != 0 && need <= BITCTS_FL_4_1);
        }
    }
    bitcts_abi_op_caps oc = {sizeof oc, 0, 0, 0, 0, 0};
    CHECK_EQ_U64(bitcts_kit_op_caps_fill(&oc, 96), BITCTS_ABI_E_NOT_SUPPORTED);
    oc.struct_size = 8;
    CHECK_EQ_U64(bitcts_kit_op_caps_fill(&oc, BITCTS_OP_BIT_AND), BITCTS_ABI_E_INVALID_ARGUMENT);
}

static int logged;
static void BITCTS_PLUGIN_CALL count_log(void *user, int32_t level, const char *message)
{
    (void)level;
    CHECK(user == &logged);
    CHECK_EQ_STR(message, "hello");
    ++logged;
}

static void test_host_log(void)
{
    bitcts_abi_host host = {sizeof host, 0, &logged, count_log, NULL};
    bitcts_kit_host_log(&host, BITCTS_ABI_LOG_INFO, "hello");
    host.struct_size = (uint32_t)offsetof(bitcts_abi_host, log); /* the slot lies outside */
    bitcts_kit_host_log(&host, BITCTS_ABI_LOG_INFO, "hello");
    host.struct_size = sizeof host;
    host.log = NULL;
    bitcts_kit_host_log(&host, BITCTS_ABI_LOG_INFO, "hello");
    bitcts_kit_host_log(NULL, BITCTS_ABI_LOG_INFO, "hello");
    CHECK_EQ_U64(logged, 1);
}

static void test_buffers(void)
{
    const uint32_t s2[2] = {4, 4};
    bitcts_op_desc d = make_desc(BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 2, s2);
    abi_desc x;
    to_abi(&d, &x);
    bitcts_kit_op op;
    CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, &op, NULL, 0), BITCTS_ABI_OK);
    static uint8_t arena[256];
    const void *apart[2] = {arena, arena + 64};
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, apart, arena + 128, NULL, 0), BITCTS_ABI_OK);
    const void *both_same[2] = {arena, arena}; /* inputs may overlap each other */
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, both_same, arena + 128, NULL, 0), BITCTS_ABI_OK);
    const void *in_place_b[2] = {arena, arena + 128};
    CHECK(bitcts_kit_may_alias(&op, BITCTS_KIT_B));
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, in_place_b, arena + 128, NULL, 0), BITCTS_ABI_OK);
    char err[256] = "";
    const void *partly[2] = {arena, arena + 120};
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, partly, arena + 128, err, sizeof err),
                 BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(strstr(err, "B") != NULL);
    const void *missing[2] = {arena, NULL};
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, missing, arena + 128, NULL, 0),
                 BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, NULL, arena + 128, NULL, 0),
                 BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, apart, NULL, NULL, 0),
                 BITCTS_ABI_E_INVALID_ARGUMENT);
    /* In place needs the identical layout: a transposed output may not alias A. */
    d.output.has_strides = 1;
    d.output.strides[0] = 1;
    d.output.strides[1] = 4;
    to_abi(&d, &x);
    CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, &op, NULL, 0), BITCTS_ABI_OK);
    CHECK(!bitcts_kit_may_alias(&op, BITCTS_KIT_A));
    const void *in_place_a[2] = {arena + 128, arena};
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, in_place_a, arena + 128, NULL, 0),
                 BITCTS_ABI_E_INVALID_ARGUMENT);
    /* BIT_COUNT never runs in place. */
    d = make_desc(BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 2, s2);
    to_abi(&d, &x);
    CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, &op, NULL, 0), BITCTS_ABI_OK);
    CHECK(!bitcts_kit_may_alias(&op, BITCTS_KIT_A));
    const void *count_in[1] = {arena};
    CHECK_EQ_U64(bitcts_kit_check_buffers(&op, count_in, arena, NULL, 0),
                 BITCTS_ABI_E_INVALID_ARGUMENT);
}

/* ---- the kit against the reference ---- */

static uint64_t rng_state = 0x6b69745f74657374ull;
static uint32_t rnd(uint32_t n)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) % n);
}

typedef struct corpus {
    bitcts_op_desc *descs;
    bitcts_rule *ref; /* the reference's verdict at FL 4_1 */
    size_t count;
    size_t cap;
    size_t skipped; /* mutations beyond the exact overlap checks (see add) */
} corpus;

/* Output layouts whose overlap either side decides conservatively: the reference beyond 2^22
 * elements, the kit beyond a span of BITCTS_KIT_OVERLAP_BITMAP_SPAN; and mutations whose
 * reference would enumerate more than 2^20 offsets. They are left out. */
static int beyond_exact_overlap(const bitcts_tensor_desc *t)
{
    if (!t->has_strides || t->dimension_count < 1 || t->dimension_count > BITCTS_MAX_DIMS) {
        return 0;
    }
    uint64_t elements = 1;
    uint64_t reach = 0;
    for (uint32_t d = 0; d < t->dimension_count; ++d) {
        elements *= t->sizes[d] != 0 ? t->sizes[d] : 1;
        reach += (uint64_t)(t->sizes[d] != 0 ? t->sizes[d] - 1 : 0) * t->strides[d];
        if (elements > (1u << 20)) {
            return 1;
        }
    }
    return reach + 1 >= BITCTS_KIT_OVERLAP_BITMAP_SPAN;
}

static void add(corpus *c, const bitcts_op_desc *d)
{
    if (beyond_exact_overlap(&d->output)) {
        ++c->skipped;
        return;
    }
    if (c->count == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->descs = realloc(c->descs, c->cap * sizeof c->descs[0]);
        c->ref = realloc(c->ref, c->cap * sizeof c->ref[0]);
        if (c->descs == NULL || c->ref == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    c->descs[c->count] = *d;
    c->ref[c->count] = bitcts_validate_op(d, BITCTS_FL_4_1, NULL);
    ++c->count;
}

/* One or two random changes of the kinds the rules look at. */
static void mutate(bitcts_op_desc *d)
{
    static const uint32_t ops[] = {97, 98, 121, 122, 123, 124, 125, 0, 96, 126};
    static const uint32_t sizes[] = {0, 1, 2, 3, 7, 64, 65536, 0xFFFFFFFFu};
    static const uint32_t strides[] = {0, 1, 2, 3, 5, 64, 1u << 20, 0xFFFFFFFFu};
    static const uint32_t aligns[] = {0, 1, 2, 3, 4, 6, 8, 16, 64, 0x80000000u};
    static const uint32_t flags[] = {0, 1, 2, 0x80000000u};
    for (uint32_t n = 1 + rnd(2); n > 0; --n) {
        const uint32_t k = rnd(3);
        bitcts_tensor_desc *t = k == 2 ? &d->output : &d->inputs[k];
        const uint32_t rank =
            t->dimension_count >= 1 && t->dimension_count <= 9 ? t->dimension_count : 1;
        uint64_t need = 0;
        switch (rnd(11)) {
        case 0: d->op = ops[rnd(10)]; break;
        case 1: d->input_count = rnd(3); break;
        case 2:
            t->dimension_count = rnd(10);
            for (uint32_t i = 0; i < 9; ++i) {
                t->sizes[i] = t->sizes[i] != 0 ? t->sizes[i] : 1 + rnd(3);
            }
            break;
        case 3: t->sizes[rnd(rank)] = sizes[rnd(8)]; break;
        case 4: t->data_type = rnd(14); break;
        case 5: t->flags = flags[rnd(4)]; break;
        case 6: t->guaranteed_base_offset_alignment = aligns[rnd(10)]; break;
        case 7:
            t->has_strides = 1;
            t->strides[rnd(rank)] = strides[rnd(8)];
            break;
        case 8:
            if (bitcts_tensor_calc_buffer_size(t, &need) != BITCTS_OK) {
                need = 64;
            }
            t->total_tensor_size_in_bytes = rnd(2) ? need - 1 - rnd(4) : need + 4 * rnd(3);
            break;
        case 9: t->total_tensor_size_in_bytes = rnd(2) ? UINT64_MAX : 0; break;
        default: *t = d->inputs[rnd(2)]; break; /* another tensor's layout and type */
        }
    }
}

/* The plan's negative cases and its smoke and default cases, explored ones, and mutations. */
static void build_corpus(corpus *c)
{
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        fprintf(stderr, "no plan\n");
        exit(1);
    }
    const uint64_t seed = 1;
    size_t negative = 0;
    size_t valid = 0;
    for (size_t i = 0; i < plan->count; ++i) {
        const bitcts_case_key *key = &plan->cases[i];
        const int invalid = key->pattern == BITCTS_PAT_INVALID;
        if (!invalid && ((key->tiers & (BITCTS_TIER_SMOKE | BITCTS_TIER_DEFAULT)) == 0 ||
                         key->feature_level > BITCTS_FL_4_1 || i % 3 != 0)) {
            continue; /* a third of the valid cases, the small tiers only */
        }
        bitcts_case_data data;
        if (bitcts_case_build(seed, key, &data) != BITCTS_OK) {
            fprintf(stderr, "%s: cannot build\n", key->id);
            ++check_failures;
            continue;
        }
        add(c, &data.desc);
        negative += invalid;
        valid += !invalid;
        bitcts_case_free(&data);
    }
    bitcts_plan_destroy(plan);
    for (uint64_t i = 0; i < 4000; ++i) {
        bitcts_case_key key;
        if (bitcts_explore_key(seed, i, &key) != BITCTS_OK) {
            ++check_failures;
            continue;
        }
        bitcts_op_desc d;
        int alias = -1;
        bitcts_explore_describe(bitcts_case_seed(seed, key.id), &key, &d, &alias);
        add(c, &d);
    }
    const size_t base = c->count;
    for (size_t i = 0; i < base; ++i) {
        for (int m = 0; m < 8; ++m) {
            bitcts_op_desc d = c->descs[i];
            mutate(&d);
            add(c, &d);
        }
    }
    printf("corpus: %zu negative plan cases, %zu valid plan cases, 4000 explored, %zu mutations "
           "(%zu left out)\n",
           negative, valid, c->count - base, c->skipped);
    CHECK(negative >= 150);
}

/* The validator whose verdicts are compared: the kit, or (for the self-test) the kit with one
 * rule ignored, as a backend that forgot to check it would. */
static const char *ignored_rule;

static int32_t validator(const bitcts_abi_operator_desc *desc, char *err, size_t cap)
{
    const int32_t st = bitcts_kit_validate_op(desc, NULL, err, cap);
    char rule[32];
    rule_of(err, rule, sizeof rule);
    if (st != BITCTS_ABI_OK && ignored_rule != NULL && strcmp(rule, ignored_rule) == 0) {
        err[0] = '\0';
        return BITCTS_ABI_OK;
    }
    return st;
}

/* Disagreements between the validator and the reference over the corpus; prints up to `show`. */
static size_t disagreements(const corpus *c, int show)
{
    size_t bad = 0;
    for (size_t i = 0; i < c->count; ++i) {
        abi_desc x;
        to_abi(&c->descs[i], &x);
        char err[256] = "";
        const int32_t st = validator(&x.desc, err, sizeof err);
        char rule[32];
        rule_of(err, rule, sizeof rule);
        const bitcts_rule r = c->ref[i];
        int same = st == BITCTS_ABI_OK && r == BITCTS_RULE_OK;
        if (r != BITCTS_RULE_OK) {
            const int32_t want = r == BITCTS_RULE_UNKNOWN_OPERATOR
                                     ? BITCTS_ABI_E_NOT_SUPPORTED
                                     : BITCTS_ABI_E_INVALID_DESCRIPTOR;
            same = st == want && strcmp(rule, bitcts_rule_id((int)r)) == 0;
        }
        if (!same && bad++ < (size_t)show) {
            fprintf(stderr, "  disagree on #%zu (op %u): reference %s, kit %d \"%s\"\n", i,
                    c->descs[i].op, bitcts_rule_id((int)r), st, err);
        }
    }
    return bad;
}

static void test_agreement(void)
{
    corpus c = {0};
    build_corpus(&c);
    size_t per_rule[BITCTS_RULE_INPUT_COUNT + 1] = {0};
    for (size_t i = 0; i < c.count; ++i) {
        ++per_rule[c.ref[i]];
    }
    ignored_rule = NULL;
    const size_t bad = disagreements(&c, 10);
    printf("kit against reference: %zu descriptions, %zu disagreements\n", c.count, bad);
    CHECK_EQ_U64(bad, 0);
    /* The check is real: ignoring any one rule is caught. operator_fl never applies at 4_1. */
    for (int r = 1; r <= (int)BITCTS_RULE_INPUT_COUNT; ++r) {
        if (r == BITCTS_RULE_OPERATOR_FL) {
            continue;
        }
        ignored_rule = bitcts_rule_id(r);
        const size_t caught = disagreements(&c, 0);
        printf("  without %-24s %6zu disagreements (%zu descriptions break it first)\n",
               ignored_rule, caught, per_rule[r]);
        CHECK(caught > 0);
    }
    ignored_rule = NULL;
    /* DMLCalcBufferTensorSize and the filled record agree with the reference's model. */
    size_t sized = 0;
    for (size_t i = 0; i < c.count; ++i) {
        const bitcts_op_desc *d = &c.descs[i];
        if (c.ref[i] != BITCTS_RULE_OK) {
            continue;
        }
        abi_desc x;
        to_abi(d, &x);
        bitcts_kit_op op;
        CHECK_EQ_U64(bitcts_kit_validate_op(&x.desc, &op, NULL, 0), BITCTS_ABI_OK);
        CHECK_EQ_U64(op.elements, bitcts_tensor_element_count(&d->output));
        for (uint32_t k = 0; k < 3; ++k) {
            const bitcts_tensor_desc *t = k == 2               ? &d->output
                                          : k < d->input_count ? &d->inputs[k]
                                                               : NULL;
            if (t == NULL) {
                continue;
            }
            uint64_t kit_bytes = 0;
            uint64_t ref_bytes = 0;
            CHECK_EQ_U64(bitcts_kit_calc_buffer_size(&x.tensors[k], &kit_bytes), BITCTS_ABI_OK);
            CHECK_EQ_U64(bitcts_tensor_calc_buffer_size(t, &ref_bytes), BITCTS_OK);
            CHECK_EQ_U64(kit_bytes, ref_bytes);
            for (uint32_t dim = 0; dim < t->dimension_count; ++dim) {
                if (op.tensors[k].strides[dim] != bitcts_tensor_stride(t, dim)) {
                    ++check_failures;
                    fprintf(stderr, "  #%zu tensor %u: stride %u differs\n", i, k, dim);
                }
            }
            ++sized;
        }
    }
    printf("record and DMLCalcBufferTensorSize checked on %zu tensors\n", sized);
    free(c.descs);
    free(c.ref);
}

int main(void)
{
    test_rules();
    test_abi_misuse();
    test_op_fill();
    test_negotiate();
    test_caps();
    test_host_log();
    test_buffers();
    test_agreement();
    return check_exit();
}
