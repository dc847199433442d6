/* SPDX-License-Identifier: MIT */
/* Fuzz target: baseline files (harness/judge/baseline.c). Any bytes either parse into entries that
 * obey the format (a glob without separators, a verdict the baseline may name, a one-line
 * reason) or fail with one error line naming the file and line and leave nothing allocated.
 * Parsed entries written back as "glob verdict # reason" lines parse to the same entries, and
 * lookups and the verdict mapping agree with the entries. */
#include <fnmatch.h> /* fnmatch */
#include <string.h>  /* strlen, strcmp, memchr */

#include "baseline.h"
#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "fuzz_check.h"

/* Case ids a baseline is matched against (every shape of the plan's ids). */
static const char *const fuzz_ids[] = {
    "bit_xor.uint16.r3.packed.0",
    "bit_count.int64.uint8.r3.padded_inner.1",
    "bit_shift_left.uint64.r8.broadcast.12",
    "invalid.bit_not.size_zero.0",
};

static int verdict_allowed(int v)
{
    return v == BITCTS_VERDICT_FAIL || v == BITCTS_VERDICT_TIMEOUT || v == BITCTS_VERDICT_CRASH ||
           v == BITCTS_VERDICT_FLAKE;
}

static void check_entry(const bitcts_baseline_entry *e)
{
    const size_t glob_len = strlen(e->glob);
    FUZZ_CHECK(glob_len > 0 && glob_len < sizeof e->glob);
    FUZZ_CHECK(strpbrk(e->glob, " \t\r\n#") == NULL);
    FUZZ_CHECK(verdict_allowed(e->verdict));
    FUZZ_CHECK(bitcts_glob_is_valid(e->glob));
    FUZZ_CHECK(e->line >= 1);
    FUZZ_CHECK(strlen(e->reason) < sizeof e->reason);
    FUZZ_CHECK(strchr(e->reason, '\n') == NULL);
    FUZZ_CHECK(e->reason[0] != ' ' && e->reason[0] != '\t' && e->reason[0] != '\r');
}

/* Writes the entries back as a baseline file: "glob verdict # reason\n" each. */
static char *write_back(const bitcts_baseline *b, size_t *size)
{
    size_t cap = 1;
    for (size_t i = 0; i < b->count; ++i) {
        cap += strlen(b->entries[i].glob) + strlen(b->entries[i].reason) + 32;
    }
    char *text = malloc(cap);
    FUZZ_CHECK(text != NULL);
    size_t n = 0;
    for (size_t i = 0; i < b->count; ++i) {
        const bitcts_baseline_entry *e = &b->entries[i];
        n += (size_t)snprintf(text + n, cap - n, "%s %s # %s\n", e->glob,
                              bitcts_verdict_name(e->verdict), e->reason);
    }
    *size = n;
    return text;
}

static void check_lookups(const bitcts_baseline *b)
{
    for (size_t k = 0; k < sizeof fuzz_ids / sizeof fuzz_ids[0]; ++k) {
        const bitcts_baseline_entry *found = bitcts_baseline_find(b, fuzz_ids[k]);
        size_t first = b->count;
        for (size_t i = 0; i < b->count && first == b->count; ++i) {
            first = fnmatch(b->entries[i].glob, fuzz_ids[k], 0) == 0 ? i : first;
        }
        FUZZ_CHECK(found == (first < b->count ? &b->entries[first] : NULL));
    }
    for (size_t i = 0; i < b->count && i < 4; ++i) {
        for (int v = 0; v < BITCTS_VERDICT_COUNT; ++v) {
            /* docs/harness.md: the entry's failure is expected, a pass is unexpected, any other
             * verdict stays. */
            const int healthy = v == BITCTS_VERDICT_PASS || v == BITCTS_VERDICT_WARN ||
                                v == BITCTS_VERDICT_RECORDED;
            const int want = v == b->entries[i].verdict ? BITCTS_VERDICT_EXPECTED_FAIL
                             : healthy                  ? BITCTS_VERDICT_UNEXPECTED_PASS
                                                        : v;
            FUZZ_CHECK(bitcts_baseline_apply(&b->entries[i], v) == want);
            FUZZ_CHECK(bitcts_baseline_apply(NULL, v) == v);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bitcts_baseline b;
    char err[512];
    err[0] = '\0';
    const int st =
        bitcts_baseline_parse("fuzz.baseline", (const char *)data, size, &b, err, sizeof err);
    if (st != BITCTS_OK) {
        FUZZ_CHECK(st == BITCTS_E_PARSE);
        FUZZ_CHECK(b.entries == NULL && b.count == 0);
        FUZZ_CHECK(strncmp(err, "fuzz.baseline:", 14) == 0);
        FUZZ_CHECK(strchr(err, '\n') == NULL);
        return 0;
    }
    size_t lines = size > 0 && data[size - 1] != '\n' ? 1 : 0;
    for (size_t i = 0; i < size; ++i) {
        lines += data[i] == '\n';
    }
    FUZZ_CHECK(b.count <= lines);
    for (size_t i = 0; i < b.count; ++i) {
        check_entry(&b.entries[i]);
    }
    check_lookups(&b);

    size_t text_size = 0;
    char *text = write_back(&b, &text_size);
    bitcts_baseline again;
    FUZZ_CHECK(bitcts_baseline_parse("again", text, text_size, &again, err, sizeof err) ==
               BITCTS_OK);
    FUZZ_CHECK(again.count == b.count);
    for (size_t i = 0; i < b.count; ++i) {
        FUZZ_CHECK(strcmp(again.entries[i].glob, b.entries[i].glob) == 0);
        FUZZ_CHECK(again.entries[i].verdict == b.entries[i].verdict);
        FUZZ_CHECK(strcmp(again.entries[i].reason, b.entries[i].reason) == 0);
    }
    bitcts_baseline_free(&again);
    free(text);
    bitcts_baseline_free(&b);
    FUZZ_CHECK(b.entries == NULL && b.count == 0);
    return 0;
}
