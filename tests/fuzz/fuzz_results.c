/* SPDX-License-Identifier: MIT */
/* Fuzz target: results.json (vectors/vec_results.c), what `bitcts check` reads from a producer
 * it does not trust. Any bytes either fail with a known status, one error line and nothing
 * allocated, or give a set whose every entry is believable: a known status; a DONE entry with a
 * relative path that cannot leave the results folder, a layout, and offset + bytes without
 * overflow; a BAD entry with a one-line problem; every id findable; reasons without control
 * characters. The CRC-32 matches its published check value. */
#include <string.h> /* strlen, strstr */

#include "bitcts/bitcts_status.h"
#include "fuzz_check.h"
#include "vec_results.h"

static void check_entry(const bitcts_result_set *set, const bitcts_result_entry *e)
{
    const size_t n = strlen(e->id);
    FUZZ_CHECK(n >= 1 && n <= BITCTS_RESULTS_MAX_ID && fuzz_no_controls(e->id, n, NULL));
    FUZZ_CHECK(bitcts_results_find(set, e->id) != NULL);
    FUZZ_CHECK(e->status >= BITCTS_RESULT_DONE && e->status <= BITCTS_RESULT_BAD);
    FUZZ_CHECK(e->reason != NULL && fuzz_no_controls(e->reason, strlen(e->reason), NULL));
    if (e->status == BITCTS_RESULT_BAD) {
        FUZZ_CHECK(e->problem[0] != '\0' && strchr(e->problem, '\n') == NULL);
        return;
    }
    if (e->status != BITCTS_RESULT_DONE) {
        return;
    }
    FUZZ_CHECK(e->layout == BITCTS_RESULT_BUFFER || e->layout == BITCTS_RESULT_ELEMENTS);
    FUZZ_CHECK(e->path != NULL && e->path[0] != '\0' && e->path[0] != '/');
    FUZZ_CHECK(strcmp(e->path, "..") != 0 && strncmp(e->path, "../", 3) != 0);
    const size_t len = strlen(e->path);
    FUZZ_CHECK(!(len >= 3 && strcmp(e->path + len - 3, "/..") == 0));
    FUZZ_CHECK(strstr(e->path, "/../") == NULL && strchr(e->path, '\\') == NULL);
    FUZZ_CHECK(e->offset <= (uint64_t)INT64_MAX && e->bytes <= (uint64_t)INT64_MAX - e->offset);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FUZZ_CHECK(bitcts_crc32(0, "123456789", 9) == 0xCBF43926u);
    bitcts_result_set set;
    char err[512] = "";
    const int st = bitcts_results_parse(data, size, &set, err, sizeof err);
    if (st != BITCTS_OK) {
        FUZZ_CHECK(st == BITCTS_E_PARSE || st == BITCTS_E_FORMAT_VERSION ||
                   st == BITCTS_E_OUT_OF_MEMORY);
        FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
        FUZZ_CHECK(set.entries == NULL && set.root == NULL && set.count == 0);
        return 0;
    }
    FUZZ_CHECK(set.format_major == BITCTS_RESULTS_FORMAT_MAJOR);
    FUZZ_CHECK(set.producer_name != NULL && set.producer_name[0] != '\0');
    FUZZ_CHECK(set.unattributed == 0 || set.first_unattributed[0] != '\0');
    for (size_t i = 0; i < set.count; ++i) {
        check_entry(&set, &set.entries[i]);
    }
    FUZZ_CHECK(bitcts_results_find(&set, "no.such.case") == NULL ||
               strcmp(bitcts_results_find(&set, "no.such.case")->id, "no.such.case") == 0);
    bitcts_result_set_free(&set);
    return 0;
}
