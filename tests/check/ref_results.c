/* SPDX-License-Identifier: MIT */
/* A result writer in C for `bitcts check` tests: reads an export's manifest, rebuilds every case
 * and writes the reference's own output as the producer's result (docs/vector-format.md,
 * "Results"), so that a check of it must pass everything. `--elements` writes the logical
 * elements instead of whole buffers. Negative cases are "rejected".
 * usage: ref_results EXPORT_DIR RESULTS_DIR [--elements] */
#include <stdio.h>    /* fopen */
#include <stdlib.h>   /* malloc */
#include <string.h>   /* strcmp */
#include <sys/stat.h> /* mkdir */

#include "bitcts/bitcts_status.h"
#include "case_plan.h"
#include "ref_ops.h"
#include "tensor_iter.h"
#include "vec_results.h"

static int fail(const char *what)
{
    fprintf(stderr, "ref_results: %s\n", what);
    return 1;
}

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    if (text != NULL && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return text;
}

/* The case's output as the chosen layout, into a malloc'd buffer. */
static uint8_t *output_bytes(const bitcts_case_data *d, int elements, size_t *size)
{
    uint8_t *expected = NULL;
    if (bitcts_case_expected(d, BITCTS_SHIFT_POLICY_SATURATE, &expected) != BITCTS_OK) {
        return NULL;
    }
    if (!elements) {
        *size = (size_t)d->desc.output.total_tensor_size_in_bytes;
        return expected;
    }
    const uint32_t w = bitcts_dtype_size(d->desc.output.data_type);
    *size = (size_t)(bitcts_tensor_element_count(&d->desc.output) * w);
    uint8_t *packed = malloc(*size + 1);
    bitcts_tensor_iter it;
    size_t k = 0;
    for (bitcts_tensor_iter_init_op(&it, &d->desc); packed != NULL && bitcts_tensor_iter_more(&it);
         bitcts_tensor_iter_next(&it), ++k) {
        memcpy(packed + k * w, expected + it.offset[d->desc.input_count] * w, w);
    }
    free(expected);
    return packed;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        return fail("usage: ref_results EXPORT_DIR RESULTS_DIR [--elements]");
    }
    const int elements = argc > 3 && strcmp(argv[3], "--elements") == 0;
    char path[4200];
    size_t size = 0;
    snprintf(path, sizeof path, "%s/manifest.json", argv[1]);
    char *text = slurp(path, &size);
    bitcts_export_manifest m;
    char err[512];
    if (text == NULL || bitcts_export_manifest_parse(text, size, &m, err, sizeof err) != 0) {
        return fail("cannot read the manifest");
    }
    free(text);
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return fail("out of memory");
    }
    mkdir(argv[2], 0777);
    snprintf(path, sizeof path, "%s/data.bin", argv[2]);
    FILE *data = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/results.json", argv[2]);
    FILE *json = fopen(path, "wb");
    if (data == NULL || json == NULL) {
        return fail("cannot write the results");
    }
    fprintf(json,
            "{\"format\": \"bitcts-results\", \"format_version\": \"1.0\",\n"
            " \"producer\": {\"name\": \"reference\", \"version\": \"1\", \"info\": {}},\n"
            " \"vectors\": {\"seed\": \"0x%016llx\", \"generator_version\": %u},\n"
            " \"cases\": [\n",
            (unsigned long long)m.seed, m.generator_version);
    uint64_t offset = 0;
    for (size_t i = 0; i < m.count; ++i) {
        const bitcts_case_key *key = bitcts_plan_find(plan, m.ids[i]);
        bitcts_case_data d;
        if (key == NULL || bitcts_case_build(m.seed, key, &d) != BITCTS_OK) {
            return fail("a case of the manifest cannot be built");
        }
        const char *sep = i + 1 < m.count ? "," : "";
        if (key->pattern == BITCTS_PAT_INVALID) {
            fprintf(json, "  {\"id\": \"%s\", \"status\": \"rejected\"}%s\n", key->id, sep);
            bitcts_case_free(&d);
            continue;
        }
        size_t n = 0;
        uint8_t *out = output_bytes(&d, elements, &n);
        if (out == NULL || fwrite(out, 1, n, data) != n) {
            return fail("the reference refused a case, or a write failed");
        }
        fprintf(json,
                "  {\"id\": \"%s\", \"status\": \"done\", \"layout\": \"%s\", \"path\": "
                "\"data.bin\", \"offset\": %llu, \"bytes\": %zu, \"crc32\": \"%08x\"}%s\n",
                key->id, elements ? "elements" : "buffer", (unsigned long long)offset, n,
                bitcts_crc32(0, out, n), sep);
        offset += n;
        free(out);
        bitcts_case_free(&d);
    }
    fprintf(json, "]}\n");
    const int bad = fclose(data) != 0 || fclose(json) != 0;
    bitcts_plan_destroy(plan);
    bitcts_export_manifest_free(&m);
    return bad ? fail("a write failed") : 0;
}
