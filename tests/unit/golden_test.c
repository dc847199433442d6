/* SPDX-License-Identifier: MIT */
/* The golden manifest module on its own (no files): a built set written and parsed back equals
 * itself; the same set always gives the same bytes; changes are named with their kind; and the
 * parser, which takes any bytes, returns a status for every prefix of a manifest and for
 * thousands of damaged copies (the corpus a fuzz target starts from) without reading past the
 * bytes it is given (each copy sits in a buffer of exactly its size, for the sanitizers). */
#include <stdlib.h>
#include <string.h>

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "golden.h"

typedef struct mem_file {
    char *data;
    size_t size;
} mem_file;

static int mem_write(void *user, const char *rel, const void *data, size_t size, char *err,
                     size_t cap)
{
    (void)rel;
    (void)err;
    (void)cap;
    mem_file *f = user;
    free(f->data);
    f->data = malloc(size);
    memcpy(f->data, data, size);
    f->size = size;
    return BITCTS_OK;
}

static int mem_dir(void *user, const char *rel, char *err, size_t cap)
{
    (void)user;
    (void)rel;
    (void)err;
    (void)cap;
    return BITCTS_OK;
}

static mem_file write_set(const bitcts_golden *g)
{
    mem_file f = {0};
    const bitcts_vec_sink sink = {.user = &f, .make_dir = mem_dir, .write_file = mem_write};
    char err[256];
    CHECK_EQ_U64(bitcts_golden_write(g, &sink, "manifest.json", err, sizeof err), BITCTS_OK);
    return f;
}

/* Parses a copy of exactly `size` bytes; returns the status. */
static int parse_copy(const char *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    bitcts_golden *g = NULL;
    char err[512];
    const int st = bitcts_golden_parse(copy, size, &g, err, sizeof err);
    CHECK((st == BITCTS_OK) == (g != NULL));
    if (st != BITCTS_OK) {
        CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
    }
    bitcts_golden_destroy(g);
    free(copy);
    return st;
}

typedef struct tally {
    size_t by_kind[BITCTS_GOLDEN_DOCUMENTED + 1];
    char first[512];
} tally;

static void count_change(void *user, const bitcts_golden_change *c)
{
    tally *t = user;
    if (t->first[0] == '\0') {
        bitcts_golden_change_line(c, t->first, sizeof t->first);
    }
    ++t->by_kind[c->kind];
}

static void test_round_trip(const bitcts_golden *built, const mem_file *f)
{
    bitcts_golden *parsed = NULL;
    char err[512];
    CHECK_EQ_U64(bitcts_golden_parse(f->data, f->size, &parsed, err, sizeof err), BITCTS_OK);
    if (parsed == NULL) {
        return;
    }
    tally t;
    memset(&t, 0, sizeof t);
    CHECK_EQ_U64(bitcts_golden_compare(parsed, built, count_change, &t), 0);
    mem_file again = write_set(parsed);
    CHECK(again.size == f->size && memcmp(again.data, f->data, f->size) == 0);
    free(again.data);
    bitcts_golden_info info;
    bitcts_golden_get_info(parsed, &info);
    CHECK_EQ_U64(info.format_major, BITCTS_GOLDEN_FORMAT_MAJOR);
    CHECK_EQ_STR(info.tier, "smoke");
    CHECK_EQ_U64(info.seed, BITCTS_DEFAULT_SEED);
    CHECK(info.case_count > 400 && info.literal_count == 4);
    bitcts_golden_destroy(parsed);
}

/* One digest digit changed: one input change, named. */
static void test_one_change(const bitcts_golden *built, const mem_file *f)
{
    char *copy = malloc(f->size + 1); /* NUL-terminated for strstr */
    memcpy(copy, f->data, f->size);
    copy[f->size] = '\0';
    char *digest = strstr(copy, "\"inputs\":{\"A\":\"");
    CHECK(digest != NULL);
    if (digest == NULL) {
        free(copy);
        return;
    }
    char *hex = digest + strlen("\"inputs\":{\"A\":\"");
    hex[0] = hex[0] == '0' ? '1' : '0';
    bitcts_golden *parsed = NULL;
    char err[512];
    CHECK_EQ_U64(bitcts_golden_parse(copy, f->size, &parsed, err, sizeof err), BITCTS_OK);
    tally t;
    memset(&t, 0, sizeof t);
    if (parsed != NULL) {
        CHECK_EQ_U64(bitcts_golden_compare(parsed, built, count_change, &t), 1);
        CHECK_EQ_U64(t.by_kind[BITCTS_GOLDEN_INPUT], 1);
        CHECK(strstr(t.first, ": input A changed: ") != NULL);
    }
    bitcts_golden_destroy(parsed);
    free(copy);
}

/* Where `text` first occurs in the file's bytes (which end with no NUL), or NULL. */
static const char *find(const mem_file *f, const char *from, const char *text)
{
    const size_t n = strlen(text);
    for (const char *p = from; p + n <= f->data + f->size; ++p) {
        if (memcmp(p, text, n) == 0) {
            return p;
        }
    }
    return NULL;
}

/* The manifest cut to its first `keep` cases (a case a line; case_count set to match): every
 * field the parser reads, in a file small enough for thousands of damaged copies. */
static mem_file first_cases(const mem_file *f, size_t keep)
{
    static const char head_of_cases[] = "\n\"cases\": [\n";
    mem_file out = {malloc(f->size + 32), 0};
    const char *cases = find(f, f->data, head_of_cases);
    const char *count = find(f, f->data, "\"case_count\": ");
    const char *after_count = count != NULL ? find(f, count, ",") : NULL;
    CHECK(cases != NULL && after_count != NULL && after_count < cases && out.data != NULL);
    if (cases == NULL || after_count == NULL || after_count > cases || out.data == NULL) {
        return out;
    }
    const char *end = cases + strlen(head_of_cases);
    size_t kept = 0;
    const char *line_end;
    while (kept < keep && *end == '{' && (line_end = find(f, end, "\n")) != NULL) {
        end = line_end + 1;
        ++kept;
    }
    const size_t head = (size_t)(count - f->data);
    memcpy(out.data, f->data, head);
    out.size = head + (size_t)sprintf(out.data + head, "\"case_count\": %zu", kept);
    memcpy(out.data + out.size, after_count, (size_t)(end - after_count));
    out.size += (size_t)(end - after_count);
    if (out.data[out.size - 2] == ',') { /* the last case kept ends the array */
        out.data[out.size - 2] = '\n';
        --out.size;
    }
    memcpy(out.data + out.size, "]\n}\n", 4);
    out.size += 4;
    return out;
}

static void test_damaged(const mem_file *whole)
{
    /* Every prefix (in steps) fails as malformed; the whole parses. */
    size_t ok = 0;
    for (size_t n = 0; n < whole->size; n += 1 + n / 64) {
        ok += parse_copy(whole->data, n) == BITCTS_OK;
    }
    CHECK_EQ_U64(ok, 0);
    CHECK_EQ_U64(parse_copy(whole->data, whole->size), BITCTS_OK);
    /* The damage goes into the manifest cut to its first 24 cases (its header and literals
     * whole): the parser reads every case line alike, and a copy parses in a 19th of the time. */
    mem_file small = first_cases(whole, 24);
    CHECK_EQ_U64(parse_copy(small.data, small.size), BITCTS_OK);
    const mem_file *f = &small;
    /* Deterministic damage: bytes replaced by bytes JSON cares about. */
    static const char damage[] = "{}[]\",:0-9ex \\\x01\xff";
    uint64_t s = 0x9E3779B97F4A7C15ull;
    char *copy = malloc(f->size);
    for (int round = 0; round < 3000; ++round) {
        memcpy(copy, f->data, f->size);
        for (int k = 0; k < 1 + round % 4; ++k) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            copy[(s >> 20) % f->size] = damage[(s >> 8) % (sizeof damage - 1)];
        }
        const int st = parse_copy(copy, f->size);
        CHECK(st == BITCTS_OK || st == BITCTS_E_PARSE || st == BITCTS_E_FORMAT_VERSION);
    }
    free(copy);
    free(small.data);
    /* Versions: another major is refused as such; a higher minor is read. */
    const char *major = "{\"format\":\"bitcts-golden\",\"format_version\":\"2.0\"}";
    CHECK_EQ_U64(parse_copy(major, strlen(major)), BITCTS_E_FORMAT_VERSION);
    const char *other = "{\"format\":\"bitcts-vectors\",\"format_version\":\"1.0\"}";
    CHECK_EQ_U64(parse_copy(other, strlen(other)), BITCTS_E_FORMAT_VERSION);
    const char *minor = "{\"format\":\"bitcts-golden\",\"format_version\":\"1.7\","
                        "\"generator_version\":2,\"seed\":\"0x0062697463747331\",\"tier\":"
                        "\"default\",\"digest_algorithm\":\"XXH3-128\",\"literal_count\":0,"
                        "\"case_count\":0,\"literals\":[],\"cases\":[],\"new\":1}";
    CHECK_EQ_U64(parse_copy(minor, strlen(minor)), BITCTS_OK);
}

int main(void)
{
    bitcts_plan *plan = NULL;
    CHECK_EQ_U64(bitcts_plan_create(&plan), BITCTS_OK);
    bitcts_golden *built = NULL;
    char err[512];
    CHECK_EQ_U64(bitcts_golden_build(plan, BITCTS_DEFAULT_SEED, "nightly", &built, err, sizeof err),
                 BITCTS_E_INVALID_ARGUMENT);
    CHECK(built == NULL);
    CHECK_EQ_U64(bitcts_golden_build(plan, BITCTS_DEFAULT_SEED, "smoke", &built, err, sizeof err),
                 BITCTS_OK);
    if (built != NULL) {
        mem_file f = write_set(built);
        mem_file twice = write_set(built);
        CHECK(f.size == twice.size && memcmp(f.data, twice.data, f.size) == 0);
        test_round_trip(built, &f);
        test_one_change(built, &f);
        test_damaged(&f);
        free(f.data);
        free(twice.data);
    }
    bitcts_golden_destroy(built);
    bitcts_plan_destroy(plan);
    return check_exit();
}
