/* SPDX-License-Identifier: MIT */
/* The skips file parser (harness/judge/skips.h): entries with their reasons and lines, comments
 * and blank lines, the first matching line, the skipped result; and every bad line refused with
 * NAME:LINE. */
#include <stdio.h>
#include <string.h>

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "check.h"
#include "skips.h"

static int parse(const char *text, size_t size, bitcts_skips *s, char *err, size_t cap)
{
    return bitcts_skips_parse("skips.txt", text, size, s, err, cap);
}

static void test_good_file(void)
{
    static const char text[] = "# known problems\n"
                               "\n"
                               "bit_xor.uint8.* driver bug 12 (tracked)\r\n"
                               "   *.permuted.*\t  too slow here  \n"
                               "bit_xor.* never reached";
    bitcts_skips s;
    char err[256] = "";
    CHECK(parse(text, sizeof text - 1, &s, err, sizeof err) == BITCTS_OK);
    CHECK_EQ_U64(s.count, 3);
    CHECK_EQ_STR(s.entries[0].glob, "bit_xor.uint8.*");
    CHECK_EQ_STR(s.entries[0].reason, "driver bug 12 (tracked)");
    CHECK_EQ_U64(s.entries[0].line, 3);
    CHECK_EQ_STR(s.entries[1].reason, "too slow here");
    CHECK_EQ_U64(s.entries[2].line, 5);
    const bitcts_skip_entry *e = bitcts_skips_find(&s, "bit_xor.uint8.r2.permuted.0");
    CHECK(e != NULL && e->line == 3); /* the first line that matches */
    e = bitcts_skips_find(&s, "bit_and.int8.r2.permuted.0");
    CHECK(e != NULL && e->line == 4);
    CHECK(bitcts_skips_find(&s, "bit_and.int8.r2.packed.0") == NULL);
    CHECK(bitcts_skips_find(NULL, "bit_and.int8.r2.packed.0") == NULL);
    bitcts_case_result r;
    bitcts_skips_result(&s, bitcts_skips_find(&s, "bit_xor.uint8.r1.packed.0"), &r);
    CHECK_EQ_STR(bitcts_verdict_name(r.verdict), "skipped");
    CHECK_EQ_STR(r.detail, "skipped by skips.txt:3: driver bug 12 (tracked)");
    bitcts_skips_free(&s);
    CHECK(parse("", 0, &s, err, sizeof err) == BITCTS_OK && s.count == 0);
    bitcts_skips_free(&s);
}

/* Each bad text is refused naming its line and the problem. */
static void test_bad_lines(void)
{
    static const struct {
        const char *text;
        const char *error;
    } bad[] = {
        {"# ok\nbit_xor.*\n", "skips.txt:2: 'bit_xor.*' has no reason"},
        {"bit_xor.* \t \n", "skips.txt:1: 'bit_xor.*' has no reason"},
        {"a ok\nbit_[xor.* reason\n", "skips.txt:2: 'bit_[xor.*' is a malformed glob"},
        {"bit_\\*xor reason\nx\\", "skips.txt:2: 'x\\' is a malformed glob"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        bitcts_skips s;
        char err[256] = "";
        CHECK(parse(bad[i].text, strlen(bad[i].text), &s, err, sizeof err) == BITCTS_E_PARSE);
        CHECK(strncmp(err, bad[i].error, strlen(bad[i].error)) == 0);
        if (strncmp(err, bad[i].error, strlen(bad[i].error)) != 0) {
            fprintf(stderr, "got '%s', want '%s...'\n", err, bad[i].error);
        }
        CHECK(s.entries == NULL && s.count == 0);
    }
    static const char nul[] = "a reason\nb re\0son\n";
    bitcts_skips s;
    char err[256] = "";
    CHECK(parse(nul, sizeof nul - 1, &s, err, sizeof err) == BITCTS_E_PARSE);
    CHECK_EQ_STR(err, "skips.txt:2: NUL byte in line");
    char long_glob[300];
    memset(long_glob, 'a', 200);
    snprintf(long_glob + 200, sizeof long_glob - 200, " reason\n");
    CHECK(parse(long_glob, strlen(long_glob), &s, err, sizeof err) == BITCTS_E_PARSE);
    CHECK_EQ_STR(err, "skips.txt:1: glob longer than 127 characters");
    CHECK(bitcts_skips_load("/nonexistent/skips.txt", &s, err, sizeof err) != BITCTS_OK);
    CHECK(strstr(err, "/nonexistent/skips.txt") != NULL);
}

int main(void)
{
    test_good_file();
    test_bad_lines();
    return check_exit();
}
