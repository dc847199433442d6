/* SPDX-License-Identifier: MIT */
/* The regression case file (vectors/regress_case.c): a case read back is the case written
 * (description, bytes, seed, origin), byte-identical when written again; its name depends on the
 * case alone, not on the origin; and no damage passes unseen: every truncation is refused, every
 * one-byte change either is refused or leaves the case as it was (whitespace, origin text), a
 * valid-looking file of an invalid case, a contradicting field, a wrong alias and an unknown
 * major version are refused with their own message. */
#include <stdlib.h> /* free */
#include <string.h> /* memcmp, strstr */

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "explore.h"
#include "regress_case.h"

#define SEED BITCTS_DEFAULT_SEED

static json_t *origin_of(const char *backend)
{
    return json_pack("{s:s, s:i, s:n}", "backend", backend, "elements_after", 2, "explore_index");
}

/* 1 when the tensors are described alike (the slots past DimensionCount are not part of it). */
static int same_tensor(const bitcts_tensor_desc *a, const bitcts_tensor_desc *b)
{
    int same = a->data_type == b->data_type && a->flags == b->flags &&
               a->dimension_count == b->dimension_count && a->has_strides == b->has_strides &&
               a->total_tensor_size_in_bytes == b->total_tensor_size_in_bytes &&
               a->guaranteed_base_offset_alignment == b->guaranteed_base_offset_alignment;
    for (uint32_t k = 0; same && k < a->dimension_count; ++k) {
        same = a->sizes[k] == b->sizes[k] && (!a->has_strides || a->strides[k] == b->strides[k]);
    }
    return same;
}

/* 1 when b is the case a holds: description, seed, every buffer byte, the aliasing. */
static int same_case(const bitcts_case_data *a, const bitcts_case_data *b)
{
    if (a->desc.op != b->desc.op || a->desc.input_count != b->desc.input_count ||
        !same_tensor(&a->desc.output, &b->desc.output) || a->case_seed != b->case_seed ||
        a->alias_input != b->alias_input) {
        return 0;
    }
    for (uint32_t i = 0; i < a->desc.input_count; ++i) {
        if (!same_tensor(&a->desc.inputs[i], &b->desc.inputs[i])) {
            return 0;
        }
    }
    for (uint32_t i = 0; i < a->desc.input_count; ++i) {
        if (memcmp(a->inputs[i], b->inputs[i],
                   (size_t)a->desc.inputs[i].total_tensor_size_in_bytes) != 0) {
            return 0;
        }
    }
    return memcmp(a->output, b->output, (size_t)a->desc.output.total_tensor_size_in_bytes) == 0;
}

static int build(uint64_t index, bitcts_case_key *key, bitcts_case_data *data)
{
    if (bitcts_explore_key(SEED, index, key) != BITCTS_OK) {
        return -1;
    }
    return bitcts_case_build(SEED, key, data) == BITCTS_OK ? 0 : -1;
}

static void test_round_trip(uint64_t index)
{
    bitcts_case_key key;
    bitcts_case_data data;
    CHECK(build(index, &key, &data) == 0);
    json_t *origin = origin_of("libx.so");
    char *text = NULL;
    size_t size = 0;
    char name[BITCTS_REGRESS_NAME_HEX + 1];
    CHECK_EQ_U64(bitcts_regress_encode(&key, &data, origin, &text, &size, name), BITCTS_OK);
    bitcts_case_key k2;
    bitcts_case_data d2;
    json_t *o2 = NULL;
    char n2[BITCTS_REGRESS_NAME_HEX + 1];
    char err[600] = "";
    CHECK_EQ_U64(bitcts_regress_decode(text, size, &k2, &d2, &o2, n2, err, sizeof err), BITCTS_OK);
    CHECK_EQ_STR(n2, name);
    CHECK(strncmp(k2.id, "regression.", 11) == 0 && strcmp(k2.id + 11, name) == 0);
    CHECK(k2.op == key.op && k2.in_type == key.in_type && k2.out_type == key.out_type);
    CHECK(k2.rank == key.rank && k2.values == key.values && k2.tiers == BITCTS_TIER_ALL);
    CHECK(same_case(&data, &d2));
    CHECK(o2 != NULL && json_equal(o2, origin));
    /* written again from what was read: the same bytes */
    char *again = NULL;
    size_t again_size = 0;
    char n3[BITCTS_REGRESS_NAME_HEX + 1];
    CHECK_EQ_U64(bitcts_regress_encode(&k2, &d2, o2, &again, &again_size, n3), BITCTS_OK);
    CHECK(again_size == size && again != NULL && memcmp(again, text, size) == 0);
    /* another origin: the same name */
    json_t *other = origin_of("liby.so");
    char *text_other = NULL;
    CHECK_EQ_U64(bitcts_regress_encode(&key, &data, other, &text_other, &again_size, n3),
                 BITCTS_OK);
    CHECK_EQ_STR(n3, name);
    free(text_other);
    json_decref(other);
    free(again);
    json_decref(o2);
    bitcts_case_free(&d2);
    free(text);
    json_decref(origin);
    bitcts_case_free(&data);
}

/* The first valid plan case with at most 64 bytes in its buffers: a file small enough to damage
 * at every byte. */
static int build_small(bitcts_case_key *key, bitcts_case_data *data)
{
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return -1;
    }
    int found = -1;
    for (size_t i = 0; i < plan->count && found != 0; ++i) {
        if (plan->cases[i].pattern == BITCTS_PAT_INVALID ||
            bitcts_case_build(SEED, &plan->cases[i], data) != BITCTS_OK) {
            continue;
        }
        uint64_t bytes = data->desc.output.total_tensor_size_in_bytes;
        for (uint32_t k = 0; k < data->desc.input_count; ++k) {
            bytes += data->desc.inputs[k].total_tensor_size_in_bytes;
        }
        if (bytes <= 64 && data->desc.input_count == 2) {
            *key = plan->cases[i];
            found = 0;
        } else {
            bitcts_case_free(data);
        }
    }
    bitcts_plan_destroy(plan);
    return found;
}

/* A small case, its origin and its file. */
typedef struct small_file {
    bitcts_case_key key;
    bitcts_case_data data;
    json_t *origin;
    char *text;
    size_t size;
    char name[BITCTS_REGRESS_NAME_HEX + 1];
} small_file;

static void small_file_make(small_file *f)
{
    memset(f, 0, sizeof *f);
    CHECK(build_small(&f->key, &f->data) == 0);
    f->origin = origin_of("libx.so");
    CHECK_EQ_U64(bitcts_regress_encode(&f->key, &f->data, f->origin, &f->text, &f->size, f->name),
                 BITCTS_OK);
}

static void small_file_free(small_file *f)
{
    free(f->text);
    json_decref(f->origin);
    bitcts_case_free(&f->data);
}

/* Every truncation refused; every one-byte change refused or harmless. */
static void test_damage(void)
{
    small_file f;
    small_file_make(&f);
    char *text = f.text;
    const size_t size = f.size;
    bitcts_case_key k2;
    bitcts_case_data d2;
    char n2[BITCTS_REGRESS_NAME_HEX + 1];
    char err[600];
    int truncations_read = 0;
    for (size_t len = 0; len + 1 < size; ++len) { /* the last byte is the newline */
        truncations_read +=
            bitcts_regress_decode(text, len, &k2, &d2, NULL, n2, err, sizeof err) == BITCTS_OK;
    }
    CHECK_EQ_U64(truncations_read, 0);
    int harmful = 0;
    int refused = 0;
    for (size_t i = 0; i < size; ++i) {
        const char was = text[i];
        text[i] = was == '1' ? '2' : '1';
        if (bitcts_regress_decode(text, size, &k2, &d2, NULL, n2, err, sizeof err) == BITCTS_OK) {
            harmful +=
                !same_case(&f.data, &d2) || strcmp(n2, f.name) != 0 || k2.values != f.key.values;
            bitcts_case_free(&d2);
        } else {
            ++refused;
        }
        text[i] = was;
    }
    CHECK_EQ_U64(harmful, 0);
    CHECK(refused > (int)size / 2);
    small_file_free(&f);
}

/* text with `from` replaced by `to` (once), decoded: the status and the message. */
static int decode_edited(const char *text, const char *from, const char *to, char *err, size_t cap)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL);
    if (at == NULL) {
        return -1;
    }
    char *edited = malloc(strlen(text) + strlen(to) + 1);
    const size_t head = (size_t)(at - text);
    memcpy(edited, text, head);
    strcpy(edited + head, to);
    strcat(edited, at + strlen(from));
    bitcts_case_key k;
    bitcts_case_data d;
    char n[BITCTS_REGRESS_NAME_HEX + 1];
    err[0] = '\0';
    const int st = bitcts_regress_decode(edited, strlen(edited), &k, &d, NULL, n, err, cap);
    if (st == BITCTS_OK) {
        bitcts_case_free(&d);
    }
    free(edited);
    return st;
}

static void test_refusals(void)
{
    small_file f;
    small_file_make(&f);
    const char *text = f.text;
    char err[600];
    CHECK_EQ_U64(decode_edited(text, "\"1.0\"", "\"2.0\"", err, sizeof err),
                 BITCTS_E_FORMAT_VERSION);
    CHECK_EQ_U64(decode_edited(text, "\"1.0\"", "\"1.7\"", err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(decode_edited(text, "\"pass\"", "\"recorded\"", err, sizeof err), BITCTS_E_PARSE);
    CHECK(strstr(err, "contradicts") != NULL);
    CHECK_EQ_U64(decode_edited(text, "\"output_aliases\": null", "\"output_aliases\": \"A\"", err,
                               sizeof err),
                 BITCTS_E_PARSE);
    CHECK_EQ_U64(decode_edited(text, "\"origin\": {", "\"origin\": {\"x\": [1], ", err, sizeof err),
                 BITCTS_E_PARSE);
    CHECK(strstr(err, "origin") != NULL);
    CHECK_EQ_U64(decode_edited(text, "{", "{\"name\": \"0\", ", err, sizeof err), BITCTS_E_PARSE);
    /* an invalid case, its name its own digest: refused by the rules, not by the digest */
    f.data.desc.output.total_tensor_size_in_bytes = 1;
    char *invalid = NULL;
    size_t size = 0;
    char name[BITCTS_REGRESS_NAME_HEX + 1];
    CHECK_EQ_U64(bitcts_regress_encode(&f.key, &f.data, f.origin, &invalid, &size, name),
                 BITCTS_OK);
    bitcts_case_key k2;
    bitcts_case_data d2;
    char n2[BITCTS_REGRESS_NAME_HEX + 1];
    CHECK_EQ_U64(bitcts_regress_decode(invalid, size, &k2, &d2, NULL, n2, err, sizeof err),
                 BITCTS_E_PARSE);
    CHECK(strstr(err, "not valid") != NULL);
    free(invalid);
    small_file_free(&f);
}

int main(void)
{
    for (uint64_t i = 0; i < 16; ++i) { /* every operator, in place and not, several ranks */
        test_round_trip(i);
    }
    test_damage();
    test_refusals();
    return check_exit();
}
