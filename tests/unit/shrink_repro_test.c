/* SPDX-License-Identifier: MIT */
/* A shrunk case's repro line (harness/explore/shrink.c, docs/explore.md): a small case's values
 * inline; a large case's values in vectors/<role>.bin (exactly the bytes eval reads) named by a
 * line of at most BITCTS_SHRINK_REPRO_MAX characters; a folder whose path would make the line
 * longer refused, never a longer line. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free, mkdtemp */
#include <string.h> /* strstr, strlen, memcmp */
#include <unistd.h> /* getcwd */

#include "bitcts/bitcts_status.h"
#include "case_plan.h"
#include "check.h"
#include "fs_util.h"
#include "shrink.h"

/* The plan case `id` built under the default seed; 0, or -1 when the plan lacks it. */
static int build(const bitcts_plan *plan, const char *id, bitcts_case_data *out)
{
    for (size_t i = 0; i < plan->count; ++i) {
        if (strcmp(plan->cases[i].id, id) == 0) {
            return bitcts_case_build(BITCTS_DEFAULT_SEED, &plan->cases[i], out) == BITCTS_OK ? 0
                                                                                             : -1;
        }
    }
    return -1;
}

/* The large case: the values go to files holding the buffers' first bytes. */
static void large_case(const bitcts_case_data *d, const char *dir)
{
    char *inline_line = NULL;
    CHECK(bitcts_shrink_eval_command(d, &inline_line) == BITCTS_OK);
    CHECK(inline_line != NULL && strlen(inline_line) > 100000); /* the premise: 8,192 x 2 */
    free(inline_line);
    char vectors[512], err[1024], path[600];
    snprintf(vectors, sizeof vectors, "%s/vectors", dir);
    char *line = NULL;
    CHECK(bitcts_shrink_repro_command(d, vectors, &line, err, sizeof err) == BITCTS_OK);
    CHECK(line != NULL && strlen(line) <= BITCTS_SHRINK_REPRO_MAX);
    CHECK(line != NULL && strstr(line, "/vectors/a.bin") != NULL);
    CHECK(line != NULL && strstr(line, "/vectors/b.bin") != NULL);
    CHECK(line != NULL && strstr(line, "--a-strides ") != NULL); /* padded_outer: strided */
    free(line);
    for (uint32_t i = 0; i < 2; ++i) {
        snprintf(path, sizeof path, "%s/%s.bin", vectors, i == 0 ? "a" : "b");
        char *bytes = NULL;
        size_t size = 0;
        CHECK(bitcts_fs_read(path, 1u << 20, &bytes, &size, err, sizeof err) == BITCTS_OK);
        const bitcts_tensor_desc *t = &d->desc.inputs[i];
        uint64_t reached = 1; /* the elements eval reads: the first to the last one reached */
        for (uint32_t k = 0; k < t->dimension_count; ++k) {
            reached += (uint64_t)(t->sizes[k] - 1) * bitcts_tensor_stride(t, k);
        }
        CHECK_EQ_U64(size, reached * bitcts_dtype_size(t->data_type));
        CHECK(bytes != NULL && memcmp(bytes, d->inputs[i], size) == 0);
        free(bytes);
    }
}

/* A folder whose absolute path nearly fills PATH_MAX: its two files' paths put the line past the
 * cap, which is refused before any file is written. */
static void long_path(const bitcts_case_data *d, const char *dir)
{
    char cwd[1024] = "";
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    const int target = 4060 - (int)strlen(cwd); /* with "/a.bin": 4066 of PATH_MAX's 4096 */
    char deep[4200];
    int n = snprintf(deep, sizeof deep, "%s", dir);
    while (target - n > 1) {
        const int part = target - n - 1 > 200 ? 200 : target - n - 1;
        n += snprintf(deep + n, sizeof deep - (size_t)n, "/%0*d", part, 0);
    }
    char err[1024] = "";
    char *line = NULL;
    CHECK(bitcts_shrink_repro_command(d, deep, &line, err, sizeof err) ==
          BITCTS_E_INVALID_ARGUMENT);
    CHECK(line == NULL);
    CHECK(strstr(err, "at most 8192") != NULL);
    char file[4400];
    snprintf(file, sizeof file, "%s/a.bin", deep);
    CHECK(bitcts_fs_read(file, 1u << 20, &line, &(size_t){0}, err, sizeof err) != BITCTS_OK);
    free(line); /* no file written */
}

int main(void)
{
    bitcts_plan *plan = NULL;
    if (bitcts_plan_create(&plan) != BITCTS_OK) {
        return 1;
    }
    char dir[] = "shrink_repro_test.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    bitcts_case_data small, large;
    CHECK(build(plan, "bit_xor.uint16.r2.packed.0", &small) == 0); /* 17 elements */
    CHECK(build(plan, "bit_and.float32.r5.padded_outer.0", &large) == 0);
    char *line = NULL, *inline_line = NULL;
    char err[1024], vectors[512];
    snprintf(vectors, sizeof vectors, "%s/small", dir);
    CHECK(bitcts_shrink_repro_command(&small, vectors, &line, err, sizeof err) == BITCTS_OK);
    CHECK(bitcts_shrink_eval_command(&small, &inline_line) == BITCTS_OK);
    CHECK_EQ_STR(line, inline_line);                  /* inline, as before */
    CHECK(bitcts_fs_dir_state(vectors) == 0);         /* and no folder written */
    CHECK(line != NULL && strstr(line, "@") == NULL); /* no file named */
    free(line);
    free(inline_line);
    large_case(&large, dir);
    long_path(&large, dir);
    bitcts_case_free(&small);
    bitcts_case_free(&large);
    bitcts_plan_destroy(plan);
    bitcts_fs_remove_tree(dir);
    return check_exit();
}
