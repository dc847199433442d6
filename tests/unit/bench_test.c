/* SPDX-License-Identifier: MIT */
/* The bench's reading of its own figures (harness/perf/bench.c): the spread of the limits next to
 * an instance's rows, and the over-limit check that names why a row ran above 1.05 of its limit
 * (fewer bytes than the limit's kernel, or a limit measured low against its spread), on rows built
 * by hand: a checker shown to catch what it must catch and to pass what it must pass. */
#include <string.h> /* strstr */

#include "bench.h"
#include "check.h"

#define MIB (1ull << 20)

static bitcts_bench_row make_row(const char *limit, double useful, double gbps, double lim)
{
    bitcts_bench_row row;
    memset(&row, 0, sizeof row);
    row.limit = limit;
    row.useful_bytes = useful;
    row.gbps = gbps;
    row.limit_gbps = lim;
    row.threads = 1;
    return row;
}

int main(void)
{
    bitcts_bench_row rows[8];
    bitcts_bench_result r;
    memset(&r, 0, sizeof r);
    r.size_bytes = 64 * MIB;
    r.instances = 2;
    r.rows = rows;
    r.row_count = 8;
    const double copy = 2.0 * 64 * MIB, triad = 3.0 * 64 * MIB;
    rows[0] = make_row("triad", triad, 50, 50.0);      /* instance 0: at its limit */
    rows[1] = make_row("triad", triad, 90, 100.0);     /* instance 1 */
    rows[2] = make_row("triad", triad, 60, 40.0);      /* instance 0: 1.5 x a low limit */
    rows[3] = make_row("triad", triad, 100, 96.0);     /* instance 1: 1.04: not over */
    rows[4] = make_row("copy", copy * 0.56, 70, 45.0); /* 0: u64 -> u8 count, fewer bytes */
    rows[5] = make_row("copy", copy, 80, 80.0);
    rows[6] = make_row("triad", triad, -1, 52.0); /* 0: no speed (a failed row) */
    rows[7] = make_row("copy", copy, 84.1, 80.0); /* 1: 1.05125: over */

    double v[3] = {0, 0, 0};
    CHECK_EQ_U64(bitcts_bench_limit_spread(&r, 0, "triad", v), 3);
    CHECK(v[0] == 40.0 && v[1] == 50.0 && v[2] == 52.0);
    CHECK_EQ_U64(bitcts_bench_limit_spread(&r, 1, "copy", v), 2);
    CHECK(v[0] == 80.0 && v[1] == 80.0 && v[2] == 80.0);
    CHECK_EQ_U64(bitcts_bench_limit_spread(&r, 0, "copy", v), 1);
    CHECK(v[1] == 45.0);

    char why[400];
    CHECK(!bitcts_bench_over_limit(&r, &rows[0], why, sizeof why));
    CHECK(why[0] == '\0');
    CHECK(!bitcts_bench_over_limit(&r, &rows[3], why, sizeof why));
    CHECK(!bitcts_bench_over_limit(&r, &rows[6], why, sizeof why));
    CHECK(bitcts_bench_over_limit(&r, &rows[2], why, sizeof why));
    CHECK(strstr(why, "same bytes as its limit") != NULL);
    CHECK(strstr(why, "median over this instance's rows 50.0 (40.0-52.0)") != NULL);
    CHECK(strstr(why, "at 1.20") != NULL);
    CHECK(bitcts_bench_over_limit(&r, &rows[4], why, sizeof why));
    CHECK(strstr(why, "fewer bytes") != NULL);
    CHECK(bitcts_bench_over_limit(&r, &rows[7], why, sizeof why));
    r.device_timing = 1; /* device rows are read against their copy kernel, not this check */
    CHECK(!bitcts_bench_over_limit(&r, &rows[2], why, sizeof why));
    return check_exit();
}
