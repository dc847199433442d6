/* SPDX-License-Identifier: MIT */
/* The vector export into a folder (format 2.0): the manifest parses, every blob's digests
 * (XXH3-128 and CRC-32) and size match its bytes, an expected buffer without a blob is the initial
 * buffer with its elements complemented, negative cases say nothing of what they are, a case's
 * blobs and entry do not depend on the selection, and failures leave nothing behind. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "digest.h"
#include "export_dir.h"
#include "fs_util.h"
#include "tensor_iter.h"
#include "vec_results.h"

static char root[256];

static json_t *load_manifest(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_error_t e;
    json_t *m = json_load_file(path, 0, &e);
    if (m == NULL) {
        fprintf(stderr, "%s: %s\n", path, e.text);
    }
    return m;
}

static int export_to(const bitcts_plan *plan, const char *dir, const char *filter, uint32_t tiers,
                     char *err, size_t cap)
{
    bitcts_export_options opt = {.seed = BITCTS_DEFAULT_SEED, .selection = {.tiers = tiers}};
    if (filter != NULL) {
        opt.selection.filter.globs[opt.selection.filter.count++] = filter;
    }
    bitcts_export_stats stats;
    return bitcts_export_dir(plan, &opt, dir, NULL, &stats, err, cap);
}

/* The bytes of one blob record ({path, offset, bytes, xxh3_128, crc32}), checked against its
 * digests; malloc'd, or NULL. Only the record's range is read (a data file holds every case's
 * blobs: reading it whole for each record made the test quadratic). */
static uint8_t *read_blob(const char *dir, const json_t *rec)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(rec, "path")));
    const size_t offset = (size_t)json_integer_value(json_object_get(rec, "offset"));
    const size_t bytes = (size_t)json_integer_value(json_object_get(rec, "bytes"));
    FILE *f = fopen(path, "rb");
    struct stat st;
    CHECK(f != NULL && fstat(fileno(f), &st) == 0);
    const size_t size = f != NULL ? (size_t)st.st_size : 0;
    CHECK(offset % 64 == 0 && offset + bytes <= size);
    uint8_t *blob = f != NULL && offset + bytes <= size ? malloc(bytes + 1) : NULL;
    if (blob != NULL &&
        (fseek(f, (long)offset, SEEK_SET) != 0 || fread(blob, 1, bytes, f) != bytes)) {
        CHECK(0 && "reading the blob's range");
        free(blob);
        blob = NULL;
    }
    if (f != NULL) {
        fclose(f);
    }
    return blob;
}

/* A buffer against a record's digests (xxh3_128, crc32, and logical_xxh3_128 where given). */
static void check_digests(const json_t *rec, const uint8_t *data, const bitcts_tensor_desc *t)
{
    const size_t bytes = (size_t)json_integer_value(json_object_get(rec, "bytes"));
    char digest[BITCTS_DIGEST_HEX], crc[9];
    bitcts_digest_bytes(data, bytes, digest);
    CHECK_EQ_STR(json_string_value(json_object_get(rec, "xxh3_128")), digest);
    snprintf(crc, sizeof crc, "%08x", (unsigned)bitcts_crc32(0, data, bytes));
    CHECK_EQ_STR(json_string_value(json_object_get(rec, "crc32")), crc);
    if (json_object_get(rec, "logical_xxh3_128") != NULL) {
        bitcts_digest_logical(t, data, digest);
        CHECK_EQ_STR(json_string_value(json_object_get(rec, "logical_xxh3_128")), digest);
    }
}

/* The output tensor of a case entry. */
static bitcts_tensor_desc output_of(const json_t *c)
{
    json_t *out = json_array_get(json_object_get(c, "tensors"),
                                 json_array_size(json_object_get(c, "tensors")) - 1);
    bitcts_tensor_desc t;
    memset(&t, 0, sizeof t);
    t.data_type = (uint32_t)json_integer_value(json_object_get(out, "DataTypeValue"));
    t.dimension_count = (uint32_t)json_integer_value(json_object_get(out, "DimensionCount"));
    t.total_tensor_size_in_bytes =
        (uint64_t)json_integer_value(json_object_get(out, "TotalTensorSizeInBytes"));
    json_t *strides = json_object_get(out, "Strides");
    t.has_strides = json_is_array(strides);
    for (uint32_t k = 0; k < t.dimension_count; ++k) {
        t.sizes[k] = (uint32_t)json_integer_value(json_array_get(json_object_get(out, "Sizes"), k));
        if (t.has_strides) {
            t.strides[k] = (uint32_t)json_integer_value(json_array_get(strides, k));
        }
    }
    return t;
}

/* A negative case's entry says nothing of what it is (format 2.0): no verdict, no rule, no
 * "invalid" pattern, no buffers. */
static void check_negative(const json_t *c)
{
    static const char *const hidden[] = {"expect", "rule",    "pattern",
                                         "values", "initial", "expected"};
    for (size_t k = 0; k < sizeof hidden / sizeof hidden[0]; ++k) {
        CHECK(json_object_get(c, hidden[k]) == NULL);
    }
}

/* A valid case: every blob against its digests; the expected buffer, when it has no blob of
 * its own, is the initial output buffer with every logical element complemented. Returns 1
 * when the expected buffer was derived. */
static int check_valid(const char *dir, const json_t *c)
{
    const char *key;
    json_t *rec;
    const bitcts_tensor_desc t = output_of(c);
    json_object_foreach(json_object_get(c, "files"), key, rec)
    {
        uint8_t *blob = read_blob(dir, rec);
        if (blob != NULL) {
            check_digests(rec, blob, &t);
        }
        free(blob);
    }
    const json_t *initial = json_object_get(c, "initial");
    const json_t *exp = json_object_get(c, "expected");
    CHECK(exp != NULL && (initial != NULL) == json_is_null(json_object_get(c, "output_aliases")));
    const int derived = exp != NULL && json_object_get(exp, "path") == NULL;
    uint8_t *buf = read_blob(dir, derived ? initial : exp);
    if (buf == NULL) {
        return derived;
    }
    if (derived) {
        check_digests(initial, buf, &t);
        const uint32_t w = bitcts_dtype_size(t.data_type);
        bitcts_tensor_iter it;
        for (bitcts_tensor_iter_init(&it, &t); bitcts_tensor_iter_more(&it);
             bitcts_tensor_iter_next(&it)) {
            for (uint32_t b = 0; b < w; ++b) {
                buf[it.offset[0] * w + b] = (uint8_t)~buf[it.offset[0] * w + b];
            }
        }
    }
    check_digests(exp, buf, &t);
    free(buf);
    return derived;
}

static void test_manifest(const bitcts_plan *plan)
{
    char dir[512], err[1024];
    snprintf(dir, sizeof dir, "%s/full", root);
    CHECK_EQ_U64(export_to(plan, dir, "bit_[xc]*.r[14].*", BITCTS_TIER_DEFAULT, err, sizeof err),
                 BITCTS_OK);
    json_t *m = load_manifest(dir);
    CHECK(m != NULL);
    if (m == NULL) {
        return;
    }
    CHECK_EQ_STR(json_string_value(json_object_get(m, "format")), "bitcts-vectors");
    CHECK_EQ_STR(json_string_value(json_object_get(m, "format_version")), "2.0");
    json_t *cases = json_object_get(m, "cases");
    CHECK(json_array_size(cases) > 100);
    CHECK_EQ_U64(json_integer_value(json_object_get(m, "case_count")), json_array_size(cases));
    size_t i;
    json_t *c;
    int saw_negative = 0, saw_alias = 0, saw_derived = 0;
    json_array_foreach(cases, i, c)
    {
        if (json_object_get(c, "files") == NULL) {
            saw_negative |=
                strstr(json_string_value(json_object_get(c, "id")), ".invalid_") != NULL;
            check_negative(c);
            continue;
        }
        saw_alias |= !json_is_null(json_object_get(c, "output_aliases"));
        saw_derived |= check_valid(dir, c);
    }
    CHECK(saw_negative && saw_alias && saw_derived);
    json_decref(m);
}

/* An entry without the places of its blobs (path and offset depend on the other cases). */
static json_t *without_places(const json_t *entry)
{
    json_t *copy = json_deep_copy(entry);
    static const char *const records[] = {"initial", "expected"};
    for (size_t k = 0; k < 2; ++k) {
        json_object_del(json_object_get(copy, records[k]), "path");
        json_object_del(json_object_get(copy, records[k]), "offset");
    }
    const char *key;
    json_t *rec;
    json_object_foreach(json_object_get(copy, "files"), key, rec)
    {
        json_object_del(rec, "path");
        json_object_del(rec, "offset");
    }
    return copy;
}

/* A case exported alone equals the same case exported among others: entry and blobs. */
static void test_subset_independence(const bitcts_plan *plan)
{
    char full[512], one[512], err[1024];
    snprintf(full, sizeof full, "%s/full", root);
    snprintf(one, sizeof one, "%s/one", root);
    const char *id = "bit_xor.int16.r4.inplace_b.1";
    CHECK_EQ_U64(export_to(plan, one, id, BITCTS_TIER_DEFAULT, err, sizeof err), BITCTS_OK);
    json_t *mf = load_manifest(full), *mo = load_manifest(one);
    CHECK(mf != NULL && mo != NULL && json_array_size(json_object_get(mo, "cases")) == 1);
    if (mf == NULL || mo == NULL) {
        return;
    }
    json_t *entry_one = json_array_get(json_object_get(mo, "cases"), 0), *entry_full = NULL, *c;
    size_t i;
    json_array_foreach(json_object_get(mf, "cases"), i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "id")), id) == 0) {
            entry_full = c;
        }
    }
    CHECK(entry_full != NULL);
    if (entry_full == NULL) {
        return;
    }
    json_t *a = without_places(entry_full), *b = without_places(entry_one);
    CHECK(json_equal(a, b));
    json_decref(a);
    json_decref(b);
    const char *roles[2] = {"A", "B"};
    for (int n = 0; n < 3; ++n) {
        const json_t *r1 = n < 2 ? json_object_get(json_object_get(entry_full, "files"), roles[n])
                                 : json_object_get(entry_full, "expected");
        const json_t *r2 = n < 2 ? json_object_get(json_object_get(entry_one, "files"), roles[n])
                                 : json_object_get(entry_one, "expected");
        uint8_t *d1 = read_blob(full, r1), *d2 = read_blob(one, r2);
        const size_t bytes = (size_t)json_integer_value(json_object_get(r1, "bytes"));
        CHECK(d1 != NULL && d2 != NULL && memcmp(d1, d2, bytes) == 0);
        free(d1);
        free(d2);
    }
    json_decref(mf);
    json_decref(mo);
}

static void test_failures(const bitcts_plan *plan)
{
    char path[512], err[1024];
    /* The destination's parent is a regular file: an error naming the path, nothing left. */
    snprintf(path, sizeof path, "%s/file", root);
    CHECK_EQ_U64(bitcts_fs_write(path, "x", 1, err, sizeof err), BITCTS_OK);
    char out[600];
    snprintf(out, sizeof out, "%s/sub", path);
    CHECK_EQ_U64(export_to(plan, out, "bit_not.uint8.r1.*", BITCTS_TIER_DEFAULT, err, sizeof err),
                 BITCTS_E_IO);
    CHECK(strstr(err, path) != NULL);
    /* A non-empty folder that is not an export is refused and left as it was. */
    char foreign[512], keep[600];
    snprintf(foreign, sizeof foreign, "%s/foreign", root);
    bitcts_fs_mkdirs(foreign, err, sizeof err);
    snprintf(keep, sizeof keep, "%s/notes.txt", foreign);
    bitcts_fs_write(keep, "keep", 4, err, sizeof err);
    CHECK_EQ_U64(
        export_to(plan, foreign, "bit_not.uint8.r1.*", BITCTS_TIER_DEFAULT, err, sizeof err),
        BITCTS_E_EXISTS);
    CHECK(access(keep, F_OK) == 0);
    /* An earlier export is replaced whole: no stale cases remain. */
    char again[512], stale[700];
    snprintf(again, sizeof again, "%s/again", root);
    CHECK_EQ_U64(export_to(plan, again, "bit_not.uint8.r1.*", BITCTS_TIER_DEFAULT, err, sizeof err),
                 BITCTS_OK);
    snprintf(stale, sizeof stale, "%s/data/bit_not.7.bin", again); /* as an older export's */
    CHECK_EQ_U64(bitcts_fs_write(stale, "x", 1, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(
        export_to(plan, again, "bit_not.uint16.r1.*", BITCTS_TIER_DEFAULT, err, sizeof err),
        BITCTS_OK);
    CHECK(access(stale, F_OK) != 0);
    /* No staging folders are left anywhere. */
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls -d %s/*.partial-* %s/*.old-* 2>/dev/null | grep -q .", root,
             root);
    CHECK(system(cmd) != 0);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/bitcts_vec_export_test.%ld", (long)getpid());
    char err[256];
    bitcts_fs_remove_tree(root);
    bitcts_fs_mkdirs(root, err, sizeof err);
    bitcts_plan *plan = NULL;
    CHECK_EQ_U64(bitcts_plan_create(&plan), BITCTS_OK);
    test_manifest(plan);
    test_subset_independence(plan);
    test_failures(plan);
    bitcts_plan_destroy(plan);
    bitcts_fs_remove_tree(root);
    return check_exit();
}
