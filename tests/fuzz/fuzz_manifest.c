/* SPDX-License-Identifier: MIT */
/* Fuzz target: the two manifest readers, the golden manifest's (vectors/golden_parse.c) and an
 * export's as `bitcts check` reads it (vectors/vec_results.c). Any bytes either give a set whose
 * header is in range, or fail with a known status, one error line and nothing allocated. A
 * golden set that parses writes back to a manifest that parses to an equal set (no change when
 * compared with itself); an export manifest's ids are 1 to 95 printable bytes. */
#include <string.h> /* strlen, strchr */

#include "bitcts/bitcts_status.h"
#include "fuzz_check.h"
#include "golden.h"
#include "vec_results.h"

typedef struct mem_file {
    char *data;
    size_t size;
} mem_file;

static int mem_dir(void *user, const char *rel, char *err, size_t cap)
{
    (void)user, (void)rel, (void)err, (void)cap;
    return BITCTS_OK;
}

static int mem_write(void *user, const char *rel, const void *data, size_t size, char *err,
                     size_t cap)
{
    (void)rel, (void)err, (void)cap;
    mem_file *f = user;
    free(f->data);
    f->data = malloc(size + 1);
    FUZZ_CHECK(f->data != NULL);
    memcpy(f->data, data, size);
    f->size = size;
    return BITCTS_OK;
}

static void count_change(void *user, const bitcts_golden_change *change)
{
    (void)change;
    ++*(size_t *)user;
}

static void check_error(int st, const char *err)
{
    FUZZ_CHECK(st == BITCTS_E_PARSE || st == BITCTS_E_FORMAT_VERSION ||
               st == BITCTS_E_OUT_OF_MEMORY);
    FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
}

static void fuzz_golden(const uint8_t *data, size_t size)
{
    bitcts_golden *g = NULL;
    char err[512] = "";
    const int st = bitcts_golden_parse(data, size, &g, err, sizeof err);
    if (st != BITCTS_OK) {
        check_error(st, err);
        FUZZ_CHECK(g == NULL);
        return;
    }
    bitcts_golden_info info;
    bitcts_golden_get_info(g, &info);
    FUZZ_CHECK(info.format_major == BITCTS_GOLDEN_FORMAT_MAJOR);
    FUZZ_CHECK(info.tier != NULL);
    mem_file f = {NULL, 0};
    const bitcts_vec_sink sink = {&f, mem_dir, mem_write};
    FUZZ_CHECK(bitcts_golden_write(g, &sink, "manifest.json", err, sizeof err) == BITCTS_OK);
    bitcts_golden *again = NULL;
    FUZZ_CHECK(bitcts_golden_parse(f.data, f.size, &again, err, sizeof err) == BITCTS_OK);
    size_t changes = 0;
    FUZZ_CHECK(bitcts_golden_compare(g, again, count_change, &changes) == 0 && changes == 0);
    bitcts_golden_destroy(again);
    bitcts_golden_destroy(g);
    free(f.data);
}

static void fuzz_export(const uint8_t *data, size_t size)
{
    bitcts_export_manifest m;
    char err[512] = "";
    const int st = bitcts_export_manifest_parse(data, size, &m, err, sizeof err);
    if (st != BITCTS_OK) {
        check_error(st, err);
        FUZZ_CHECK(m.ids == NULL && m.root == NULL && m.count == 0);
        return;
    }
    FUZZ_CHECK(m.format_major == 1);
    FUZZ_CHECK(m.tier != NULL && m.filter != NULL && m.feature_level != NULL);
    for (size_t i = 0; i < m.count; ++i) {
        const size_t n = strlen(m.ids[i]);
        FUZZ_CHECK(n >= 1 && n <= BITCTS_RESULTS_MAX_ID && fuzz_no_controls(m.ids[i], n, NULL));
    }
    bitcts_export_manifest_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_golden(data, size);
    fuzz_export(data, size);
    return 0;
}
