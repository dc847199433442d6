/* SPDX-License-Identifier: MIT */
/* The readers of an export's manifest and of results.json (vectors/vec_results.c): a good file
 * gives every field, a bad header refuses the file with a one-line error, a bad entry is kept
 * as BAD with its problem while the others are read, paths cannot leave the result folder,
 * duplicates are both bad, and CRC-32 gives the published check value. */
#include <string.h> /* strstr */

#include "bitcts/bitcts_status.h"
#include "check.h"
#include "vec_results.h"

#define HEAD                                                                                       \
    "{\"format\": \"bitcts-results\", \"format_version\": \"1.3\", \"producer\": {\"name\": "      \
    "\"p\", \"version\": \"9\", \"info\": {\"device\": \"cpu\"}}, \"vectors\": {\"seed\": "        \
    "\"0x0062697463747331\", \"generator_version\": 2}, \"cases\": ["

static int parse(const char *text, bitcts_result_set *set, char *err, size_t cap)
{
    return bitcts_results_parse(text, strlen(text), set, err, cap);
}

static void test_good(void)
{
    static const char text[] =
        HEAD "{\"id\": \"b.x\", \"status\": \"done\", \"layout\": \"elements\", \"path\": "
             "\"d/data.bin\", \"offset\": 8, \"bytes\": 16, \"crc32\": \"cbf43926\", "
             "\"duration_ms\": 1.5},"
             "{\"id\": \"a.x\", \"status\": \"not_supported\", \"reason\": \"no kernel\"},"
             "{\"id\": \"c.x\", \"status\": \"rejected\", \"extra\": [1]}]}";
    bitcts_result_set set;
    char err[256] = "";
    CHECK_EQ_U64(parse(text, &set, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(set.format_minor, 3);
    CHECK_EQ_U64(set.seed, 0x0062697463747331ull);
    CHECK_EQ_U64(set.generator_version, 2);
    CHECK_EQ_STR(set.producer_name, "p");
    CHECK_EQ_U64(set.count, 3);
    const bitcts_result_entry *b = bitcts_results_find(&set, "b.x");
    CHECK(b != NULL && b->status == BITCTS_RESULT_DONE && b->layout == BITCTS_RESULT_ELEMENTS);
    CHECK(b != NULL && b->offset == 8 && b->bytes == 16 && b->crc32 == 0xcbf43926u);
    CHECK(b != NULL && b->duration_ms == 1.5);
    CHECK_EQ_STR(b != NULL ? b->path : NULL, "d/data.bin");
    const bitcts_result_entry *a = bitcts_results_find(&set, "a.x");
    CHECK(a != NULL && a->status == BITCTS_RESULT_NOT_SUPPORTED);
    CHECK_EQ_STR(a != NULL ? a->reason : NULL, "no kernel");
    CHECK(bitcts_results_find(&set, "c.x") != NULL);
    CHECK(bitcts_results_find(&set, "d.x") == NULL);
    bitcts_result_set_free(&set);
}

static void test_bad_files(void)
{
    static const char *const bad[][2] = {
        {"{\"format\": \"bitcts-results\", \"format_version\": \"2.0\"}", "2.0 is not supported"},
        {"{\"format\": \"other\"}", "\"format\""},
        {"[1, 2]", "not a JSON object"},
        {"{\"format\": ", "not JSON"},
        {HEAD "]", "x"}, /* no closing brace */
        {"{\"format\": \"bitcts-results\", \"format_version\": \"1.0\", \"producer\": {\"name\": "
         "\"p\", \"version\": \"1\"}, \"vectors\": {\"seed\": \"0x12\", \"generator_version\": "
         "2}, \"cases\": []}",
         "\"seed\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        bitcts_result_set set;
        char err[256] = "";
        CHECK(parse(bad[i][0], &set, err, sizeof err) != BITCTS_OK);
        CHECK(strchr(err, '\n') == NULL && strncmp(err, "results.json: ", 14) == 0);
        CHECK(i == 4 || strstr(err, bad[i][1]) != NULL);
        CHECK(set.entries == NULL && set.root == NULL);
    }
}

static void test_bad_entries(void)
{
    static const char *const paths[] = {"../x", "a/../b", "/etc/passwd", "a//b",
                                        "./a",  "a/..",   "a\\\\b",      ""};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; ++i) {
        char text[600];
        snprintf(text, sizeof text,
                 HEAD "{\"id\": \"a\", \"status\": \"done\", \"layout\": \"buffer\", \"path\": "
                      "\"%s\", \"bytes\": 1, \"crc32\": \"00000000\"},"
                      "{\"id\": \"b\", \"status\": \"accepted\"}]}",
                 paths[i]);
        bitcts_result_set set;
        char err[256] = "";
        CHECK_EQ_U64(parse(text, &set, err, sizeof err), BITCTS_OK);
        const bitcts_result_entry *a = bitcts_results_find(&set, "a");
        CHECK(a != NULL && a->status == BITCTS_RESULT_BAD && strstr(a->problem, "path") != NULL);
        const bitcts_result_entry *b = bitcts_results_find(&set, "b");
        CHECK(b != NULL && b->status == BITCTS_RESULT_ACCEPTED);
        bitcts_result_set_free(&set);
    }
    static const char dup[] =
        HEAD "{\"id\": \"a\", \"status\": \"rejected\"},"
             "{\"id\": \"a\", \"status\": \"rejected\"},"
             "{\"status\": \"rejected\"}, 7,"
             "{\"id\": \"c\", \"status\": \"done\", \"layout\": \"buffer\","
             " \"path\": \"p\", \"bytes\": 1, \"crc32\": \"ABCDEF01\"},"
             "{\"id\": \"e\", \"status\": \"error\", \"reason\": \"\\u0007\"}]}";
    bitcts_result_set set;
    char err[256] = "";
    CHECK_EQ_U64(parse(dup, &set, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(set.unattributed, 2);
    CHECK_EQ_U64(set.count, 4);
    for (size_t i = 0; i < set.count; ++i) {
        CHECK(set.entries[i].status == BITCTS_RESULT_BAD && set.entries[i].problem[0] != '\0');
    }
    bitcts_result_set_free(&set);
}

static void test_manifest(void)
{
    static const char good[] =
        "{\"format\": \"bitcts-vectors\", \"format_version\": \"1.0\", \"generator_version\": 2,"
        " \"seed\": \"0x0062697463747331\", \"tier\": \"default\", \"filter\": \"*\","
        " \"max_feature_level\": \"\", \"case_count\": 2,"
        " \"cases\": [{\"id\": \"a.b\"}, {\"id\": \"c.d\"}]}";
    bitcts_export_manifest m;
    char err[256] = "";
    CHECK_EQ_U64(bitcts_export_manifest_parse(good, strlen(good), &m, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(m.count, 2);
    CHECK_EQ_STR(m.ids[1], "c.d");
    CHECK_EQ_STR(m.tier, "default");
    bitcts_export_manifest_free(&m);
    /* Format 2.0 is read as 1.x is; an unknown major (3.0, 0.9) is refused. */
    char v2[sizeof good];
    memcpy(v2, good, sizeof good);
    memcpy(strstr(v2, "\"1.0\""), "\"2.0\"", 5);
    CHECK_EQ_U64(bitcts_export_manifest_parse(v2, strlen(v2), &m, err, sizeof err), BITCTS_OK);
    CHECK_EQ_U64(m.format_major, 2);
    bitcts_export_manifest_free(&m);
    static const char *const unknown[] = {
        "{\"format\": \"bitcts-vectors\", \"format_version\": \"3.0\"}",
        "{\"format\": \"bitcts-vectors\", \"format_version\": \"0.9\"}"};
    for (size_t k = 0; k < 2; ++k) {
        CHECK_EQ_U64(
            bitcts_export_manifest_parse(unknown[k], strlen(unknown[k]), &m, err, sizeof err),
            BITCTS_E_FORMAT_VERSION);
        CHECK(strstr(err, "this bitcts reads 1.x to 2.x") != NULL);
        CHECK(m.ids == NULL && m.root == NULL);
    }
    /* A manifest that does not add up: case_count wrong or missing, an id twice. */
    static const char *const bad[][2] = {
        {"\"case_count\": 2", "\"case_count\": 3"},
        {"\"case_count\": 2,", ""},
        {"\"c.d\"", "\"a.b\""},
    };
    static const char *const why[] = {"\"case_count\" is 3, but \"cases\" holds 2 cases",
                                      "\"case_count\" is not a count", "case a.b is listed twice"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char text[sizeof good + 16];
        const char *at = strstr(good, bad[i][0]);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, bad[i][1],
                 at + strlen(bad[i][0]));
        CHECK_EQ_U64(bitcts_export_manifest_parse(text, strlen(text), &m, err, sizeof err),
                     BITCTS_E_PARSE);
        CHECK(strstr(err, why[i]) != NULL);
        CHECK(m.ids == NULL && m.root == NULL);
    }
}

int main(void)
{
    CHECK_EQ_U64(bitcts_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_EQ_U64(bitcts_crc32(bitcts_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    CHECK_EQ_U64(bitcts_crc32(0, "", 0), 0);
    test_good();
    test_bad_files();
    test_bad_entries();
    test_manifest();
    return check_exit();
}
