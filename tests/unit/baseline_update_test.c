/* SPDX-License-Identifier: MIT */
/* The baseline update on hand-made reports: new failures, passes removed, kinds that changed,
 * globs split, lines that govern nothing kept, comments and order kept, the fixed point
 * (a second update changes nothing), and a file that does not parse left alone. */
#include <stdlib.h> /* free */
#include <string.h> /* strlen */

#include "../support/check.h"
#include "baseline_update.h"
#include "bitcts/bitcts_status.h"

/* A report whose cases are "id verdict detail" triples. */
static json_t *report_of(const char *const *cases, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; i < n; i += 3) {
        json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "id", cases[i], "verdict",
                                              cases[i + 1], "detail", cases[i + 2]));
    }
    return json_pack("{s:o}", "cases", list);
}

/* Updates `before` with the report; checks the result and that updating it again is a no-op. */
static void expect_update(const json_t *report, const char *before, const char *after, size_t added,
                          size_t removed)
{
    bitcts_baseline_update u;
    char err[512] = "";
    CHECK_EQ_U64(
        bitcts_baseline_update_run("b.txt", before, strlen(before), report, &u, err, sizeof err),
        BITCTS_OK);
    CHECK_EQ_STR(u.text, after);
    CHECK_EQ_U64(u.added, added);
    CHECK_EQ_U64(u.removed, removed);
    bitcts_baseline_update again;
    CHECK_EQ_U64(
        bitcts_baseline_update_run("b.txt", u.text, u.size, report, &again, err, sizeof err),
        BITCTS_OK);
    CHECK_EQ_STR(again.text, after);
    CHECK_EQ_U64(again.added + again.removed, 0);
    bitcts_baseline_update_free(&again);
    bitcts_baseline_update_free(&u);
}

static const char *const cases[] = {
    "b.x.1", "pass",           "",                                    /* */
    "a.x.2", "fail",           "3 of 8 elements differ\nsecond line", /* */
    "a.x.1", "crash",          "SIGSEGV",                             /* */
    "c.x.1", "fail",           "1 of 8 elements differ",              /* */
    "c.x.2", "pass",           "",                                    /* */
    "c.x.3", "expected_fail",  "2 of 8 elements differ",              /* */
    "d.x.1", "internal_error", "harness bug",                         /* */
    "e.x.1", "timeout",        "no answer in 30 s",                   /* */
    "f.x.1", "skipped",        "skips file",                          /* */
};

int main(void)
{
    json_t *report = report_of(cases, sizeof cases / sizeof cases[0]);
    /* From nothing: the failures a baseline can hold, in id order, first line of the detail. */
    expect_update(report, "",
                  "a.x.1 crash # SIGSEGV\n"
                  "a.x.2 fail # 3 of 8 elements differ\n"
                  "c.x.1 fail # 1 of 8 elements differ\n"
                  "e.x.1 timeout # no answer in 30 s\n",
                  4, 0);
    /* Kept byte for byte: comments, blank lines, a line without reason, an exact line that still
     * earns its kind, a glob that governs nothing. Removed: a line whose case passes. Split: a
     * glob whose cases partly pass. Before a glob of another kind: the case's own line. The
     * last line has no newline: the appended lines start on a line of their own. */
    expect_update(report,
                  "# header comment\n"
                  "\n"
                  "b.x.1 fail # fixed since\n"
                  "a.x.2   fail\n"
                  "c.* fail # tracked in #12\n"
                  "zz.* crash # no such case\n"
                  "e.* crash # was crashing",
                  "# header comment\n"
                  "\n"
                  "a.x.2   fail\n"
                  "c.x.1 fail # tracked in #12\n"
                  "c.x.3 fail # tracked in #12\n"
                  "zz.* crash # no such case\n"
                  "e.x.1 timeout # no answer in 30 s\n"
                  "a.x.1 crash # SIGSEGV\n",
                  4, 3);
    /* A glob that loses its passing cases hands them to a later glob, which is split in turn
     * (the update repeats to a fixed point). */
    expect_update(report, "c.x.[12] fail\nc.* fail\n",
                  "c.x.1 fail\n"
                  "c.x.3 fail\n"
                  "a.x.1 crash # SIGSEGV\n"
                  "a.x.2 fail # 3 of 8 elements differ\n"
                  "e.x.1 timeout # no answer in 30 s\n",
                  5, 2);
    /* A file that does not parse: refused with FILE:LINE, nothing produced. */
    bitcts_baseline_update u;
    char err[512] = "";
    CHECK_EQ_U64(bitcts_baseline_update_run("b.txt", "a.* fail\nc.* flaky\n", 19, report, &u, err,
                                            sizeof err),
                 BITCTS_E_PARSE);
    CHECK(strncmp(err, "b.txt:2: unknown verdict 'flaky'", 32) == 0);
    CHECK(u.text == NULL);
    bitcts_baseline_update_free(&u);
    json_decref(report);
    return check_exit();
}
