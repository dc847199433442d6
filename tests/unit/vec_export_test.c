/* SPDX-License-Identifier: MIT */
/* The vector export into a folder: the manifest parses, every file's digest and size match its
 * bytes, the logical digest matches the expected elements, a case's files and manifest entry do
 * not depend on the selection, and failures leave nothing behind. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "digest.h"
#include "export_dir.h"
#include "fs_util.h"

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

/* Checks one file record against the bytes on disk. */
static void check_file(const char *dir, json_t *rec)
{
    char path[1024], *data = NULL, err[256];
    size_t size = 0;
    snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(rec, "path")));
    CHECK_EQ_U64(bitcts_fs_read(path, 1u << 28, &data, &size, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(size, json_integer_value(json_object_get(rec, "bytes")));
    char digest[BITCTS_DIGEST_HEX];
    bitcts_digest_bytes(data, size, digest);
    CHECK_EQ_STR(json_string_value(json_object_get(rec, "xxh3_128")), digest);
    free(data);
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
    json_t *cases = json_object_get(m, "cases");
    CHECK(json_array_size(cases) > 100);
    CHECK_EQ_U64(json_integer_value(json_object_get(m, "case_count")), json_array_size(cases));
    size_t i;
    json_t *c;
    int saw_reject = 0, saw_alias = 0;
    json_array_foreach(cases, i, c)
    {
        const char *expect = json_string_value(json_object_get(c, "expect"));
        if (strcmp(expect, "reject") == 0) {
            saw_reject = 1;
            CHECK(json_object_get(c, "rule") != NULL && json_object_get(c, "files") == NULL);
            continue;
        }
        saw_alias |= !json_is_null(json_object_get(c, "output_aliases"));
        const char *key;
        json_t *rec;
        json_object_foreach(json_object_get(c, "files"), key, rec)
        {
            check_file(dir, rec);
        }
        json_t *exp = json_object_get(c, "expected");
        CHECK(exp != NULL);
        if (exp == NULL) {
            continue;
        }
        check_file(dir, exp);
        /* The logical digest: recompute from expected.bin and the Output description. */
        json_t *out = json_array_get(json_object_get(c, "tensors"),
                                     json_array_size(json_object_get(c, "tensors")) - 1);
        bitcts_tensor_desc t;
        memset(&t, 0, sizeof t);
        t.data_type = (uint32_t)json_integer_value(json_object_get(out, "DataTypeValue"));
        t.dimension_count = (uint32_t)json_integer_value(json_object_get(out, "DimensionCount"));
        json_t *strides = json_object_get(out, "Strides");
        t.has_strides = json_is_array(strides);
        for (uint32_t k = 0; k < t.dimension_count; ++k) {
            t.sizes[k] =
                (uint32_t)json_integer_value(json_array_get(json_object_get(out, "Sizes"), k));
            if (t.has_strides) {
                t.strides[k] = (uint32_t)json_integer_value(json_array_get(strides, k));
            }
        }
        char path[1024], *data = NULL, e2[256];
        snprintf(path, sizeof path, "%s/%s", dir, json_string_value(json_object_get(exp, "path")));
        bitcts_fs_read(path, 1u << 28, &data, NULL, e2, sizeof e2);
        char digest[BITCTS_DIGEST_HEX];
        bitcts_digest_logical(&t, (const uint8_t *)data, digest);
        CHECK_EQ_STR(json_string_value(json_object_get(exp, "logical_xxh3_128")), digest);
        free(data);
    }
    CHECK(saw_reject && saw_alias);
    json_decref(m);
}

/* A case exported alone equals the same case exported among others: files and entry. */
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
    CHECK(entry_full != NULL && json_equal(entry_full, entry_one));
    const char *names[3] = {"A.bin", "B.bin", "expected.bin"};
    for (int n = 0; n < 3; ++n) {
        char p1[1024], p2[1024], *d1 = NULL, *d2 = NULL;
        size_t s1 = 0, s2 = 0;
        snprintf(p1, sizeof p1, "%s/cases/%s/%s", full, id, names[n]);
        snprintf(p2, sizeof p2, "%s/cases/%s/%s", one, id, names[n]);
        CHECK_EQ_U64(bitcts_fs_read(p1, 1u << 28, &d1, &s1, err, sizeof err), BITCTS_OK);
        CHECK_EQ_U64(bitcts_fs_read(p2, 1u << 28, &d2, &s2, err, sizeof err), BITCTS_OK);
        CHECK(d1 != NULL && d2 != NULL && s1 == s2 && memcmp(d1, d2, s1) == 0);
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
    CHECK_EQ_U64(
        export_to(plan, again, "bit_not.uint16.r1.*", BITCTS_TIER_DEFAULT, err, sizeof err),
        BITCTS_OK);
    snprintf(stale, sizeof stale, "%s/cases/bit_not.uint8.r1.packed.0", again);
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
