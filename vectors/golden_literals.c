/* SPDX-License-Identifier: MIT */
/* The literal golden vectors (docs/golden-vectors.md, "Literal vectors"): the examples of
 * DirectML's documentation, the XOR page's wrong one included as it is printed, and bitcts's
 * corrected XOR example (docs/spec/operators.md, "The documentation's examples"). The inputs and
 * documented outputs are data here; what bitcts makes of them (the expected output, or the rule
 * a description breaks, and which operator reproduces a documented output) is computed with
 * the reference every time, so a moved reference shows in `bitcts vectors verify`. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memset */

#include "bitcts/bitcts_status.h"
#include "golden_internal.h"
#include "ref_ops.h"
#include "validate.h"

#define LITERAL_MAX 8 /* elements */

/* An example's tensors: the inputs' and the output's type, the sizes, each input's elements in
 * logical order and the documented output's (documented_count 0: none documented). */
typedef struct literal_data {
    uint32_t input_count;
    uint32_t in_type;
    uint32_t out_type;
    uint32_t rank;
    uint32_t sizes[2];
    uint64_t values[2][LITERAL_MAX];
    uint32_t documented_count;
    uint64_t documented[LITERAL_MAX];
} literal_data;

typedef struct literal_def {
    const char *name;
    const char *source;
    const char *note;
    uint32_t op;           /* the description's operator */
    const literal_data *t; /* its tensors */
} literal_def;

#define DOC_PAGE "https://learn.microsoft.com/en-us/windows/win32/api/directml/"

/* DirectML's BIT_NOT example, which its BIT_XOR page prints as well; its BIT_COUNT example;
 * bitcts's BIT_XOR example: BIT_NOT's A with a B that makes every element differ. */
static const literal_data not_tensors = {
    1, BITCTS_DT_UINT8, BITCTS_DT_UINT8, 2, {2, 2}, {{0, 128, 42, 255}}, 4, {255, 127, 213, 0}};
static const literal_data count_tensors = {
    1, BITCTS_DT_UINT32, BITCTS_DT_UINT32, 1, {4}, {{0, 123, 456, 789}}, 4, {0, 6, 4, 5}};
static const literal_data xor_tensors = {
    2, BITCTS_DT_UINT8,  BITCTS_DT_UINT8, 2, {2, 2}, {{0, 128, 42, 255}, {255, 128, 15, 1}},
    4, {255, 0, 37, 254}};

static const literal_def literals[] = {
    {.name = "directml_bit_not_example",
     .source = DOC_PAGE "ns-directml-dml_element_wise_bit_not_operator_desc",
     .note = "DirectML's BIT_NOT example: UINT8 {{0, 128}, {42, 255}} -> {{255, 127}, {213, 0}}.",
     .op = BITCTS_OP_BIT_NOT,
     .t = &not_tensors},
    {.name = "directml_bit_count_example",
     .source = DOC_PAGE "ns-directml-dml_element_wise_bit_count_operator_desc",
     .note = "DirectML's BIT_COUNT example: UINT32 {0, 123, 456, 789} -> {0, 6, 4, 5}, written as "
             "UINT32.",
     .op = BITCTS_OP_BIT_COUNT,
     .t = &count_tensors},
    {.name = "directml_bit_xor_example_as_documented",
     .source = DOC_PAGE "ns-directml-dml_element_wise_bit_xor_operator_desc",
     .note = "Wrong in DirectML's documentation, kept as printed: the BIT_XOR page shows one "
             "input and an output that is BIT_NOT of it, the BIT_NOT page's example copied (every "
             "locale). As a BIT_XOR description it has one input, so it is invalid (rule "
             "input_count); documented_output_is names the operator that does give the printed "
             "output. bitcts_bit_xor_example is the correction.",
     .op = BITCTS_OP_BIT_XOR,
     .t = &not_tensors},
    {.name = "bitcts_bit_xor_example",
     .source = "docs/spec/operators.md",
     .note = "bitcts's correction of the BIT_XOR example: the same A, with a B that makes every "
             "element differ: 0^255, 128^128, 42^15 (0x2A^0x0F = 0x25), 255^1.",
     .op = BITCTS_OP_BIT_XOR,
     .t = &xor_tensors},
};

static uint32_t element_count(const literal_def *l)
{
    uint32_t n = 1;
    for (uint32_t k = 0; k < l->t->rank; ++k) {
        n *= l->t->sizes[k];
    }
    return n;
}

static void make_desc(const literal_def *l, uint32_t op, bitcts_op_desc *d)
{
    memset(d, 0, sizeof *d);
    d->op = op;
    d->input_count = l->t->input_count;
    for (uint32_t i = 0; i < l->t->input_count; ++i) {
        bitcts_tensor_make_packed(l->t->in_type, l->t->rank, l->t->sizes, &d->inputs[i]);
    }
    bitcts_tensor_make_packed(l->t->out_type, l->t->rank, l->t->sizes, &d->output);
}

/* The reference's output elements for the literal's inputs under operator `op`; 0 when the
 * description is valid and computed. */
static int run(const literal_def *l, uint32_t op, uint64_t *out)
{
    bitcts_op_desc d;
    make_desc(l, op, &d);
    if (bitcts_validate_op(&d, BITCTS_FL_6_4, NULL) != BITCTS_RULE_OK) {
        return -1;
    }
    uint8_t in[2][LITERAL_MAX * 8];
    uint8_t result[LITERAL_MAX * 8];
    const uint32_t n = element_count(l);
    const uint32_t in_size = bitcts_dtype_size(l->t->in_type);
    const uint32_t out_size = bitcts_dtype_size(l->t->out_type);
    memset(in, 0, sizeof in);
    memset(result, 0, sizeof result);
    for (uint32_t i = 0; i < l->t->input_count; ++i) {
        for (uint32_t e = 0; e < n; ++e) {
            bitcts_ref_store(in[i] + e * in_size, in_size, l->t->values[i][e]);
        }
    }
    const void *inputs[2] = {in[0], in[1]};
    if (bitcts_ref_execute(&d, inputs, result, BITCTS_SHIFT_POLICY_SATURATE) != BITCTS_OK) {
        return -1;
    }
    for (uint32_t e = 0; e < n; ++e) {
        out[e] = bitcts_ref_load(result + e * out_size, out_size);
    }
    return 0;
}

static json_t *values_json(const uint64_t *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t e = 0; e < n; ++e) {
        json_array_append_new(a, json_integer((json_int_t)v[e]));
    }
    return a;
}

/* The first of the seven operators, with the literal's inputs and tensors, whose output is the
 * documented one; NULL when none is. */
static const char *documented_operator(const literal_def *l)
{
    const uint32_t n = element_count(l);
    for (uint32_t o = 0; o < BITCTS_OP_COUNT; ++o) {
        uint64_t got[LITERAL_MAX];
        if (bitcts_op_input_count(bitcts_op_all[o]) == l->t->input_count &&
            run(l, bitcts_op_all[o], got) == 0 && memcmp(got, l->t->documented, n * 8) == 0) {
            return bitcts_op_name(bitcts_op_all[o]);
        }
    }
    return NULL;
}

static json_t *literal_json(const literal_def *l)
{
    const uint32_t n = element_count(l);
    bitcts_op_desc d;
    make_desc(l, l->op, &d);
    json_t *inputs = json_object();
    for (uint32_t i = 0; i < l->t->input_count; ++i) {
        json_object_set_new(inputs, bitcts_role_name(l->t->input_count, i),
                            values_json(l->t->values[i], n));
    }
    json_t *e =
        json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o}", "name", l->name, "source", l->source,
                  "note", l->note, "operator", bitcts_op_name(l->op), "op", (json_int_t)l->op,
                  "tensors", bitcts__golden_tensors(&d), "inputs", inputs);
    if (e == NULL) {
        return NULL;
    }
    const bitcts_rule rule = bitcts_validate_op(&d, BITCTS_FL_6_4, NULL);
    uint64_t out[LITERAL_MAX];
    if (rule != BITCTS_RULE_OK) {
        json_object_set_new(e, "reject", json_string(bitcts_rule_id((int)rule)));
    } else if (run(l, l->op, out) == 0) {
        json_object_set_new(e, "expected", values_json(out, n));
    }
    if (l->t->documented_count != 0) {
        const char *who = documented_operator(l);
        json_object_set_new(e, "documented_output", values_json(l->t->documented, n));
        json_object_set_new(e, "documented_output_is",
                            who != NULL ? json_string(who) : json_null());
    }
    return e;
}

json_t *bitcts__golden_literals(char *err, size_t cap)
{
    json_t *all = json_array();
    for (size_t i = 0; all != NULL && i < sizeof literals / sizeof literals[0]; ++i) {
        json_t *e = literal_json(&literals[i]);
        if (e == NULL || json_array_append_new(all, e) != 0) {
            snprintf(err, cap, "literal %s: out of memory", literals[i].name);
            json_decref(all);
            return NULL;
        }
    }
    return all;
}
