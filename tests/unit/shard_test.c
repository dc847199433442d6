/* SPDX-License-Identifier: MIT */
/* Shards (harness/run/shard.c): each engine's variables give the slice `--shard auto` takes,
 * with its own base and count; none, two, a bad number or an index past the count is refused
 * naming what was found; the balance puts every case on exactly one shard, the same way every
 * time, with loads within one case of each other; timing tables name themselves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "shard.h"

/* A fake environment: "NAME=value" strings, NULL-terminated. */
static const char *fake_get(void *user, const char *name)
{
    const char *const *env = user;
    const size_t len = strlen(name);
    for (; *env != NULL; ++env) {
        if (strncmp(*env, name, len) == 0 && (*env)[len] == '=') {
            return *env + len + 1;
        }
    }
    return NULL;
}

/* The slice of env (count hint 0 unless given), or index 0 with the error in err. */
static bitcts_shard_slice slice(const char *const *env, uint32_t hint, char *err, size_t cap)
{
    bitcts_shard_slice s;
    err[0] = '\0';
    if (bitcts_shard_from_env(fake_get, (void *)env, hint, &s, err, cap) != 0) {
        s.index = 0;
    }
    return s;
}

static void test_engines(void)
{
    char err[1200];
    const char *k8s[] = {"JOB_COMPLETION_INDEX=2", "BITCTS_SHARD_COUNT=5", NULL};
    bitcts_shard_slice s = slice(k8s, 0, err, sizeof err);
    CHECK(s.index == 3 && s.count == 5 && strstr(s.engine, "Kubernetes") != NULL);
    s = slice(k8s, 4, err, sizeof err); /* --shard-count wins over the variable */
    CHECK(s.index == 3 && s.count == 4);
    const char *slurm[] = {"SLURM_ARRAY_TASK_ID=7", "SLURM_ARRAY_TASK_MIN=4",
                           "SLURM_ARRAY_TASK_COUNT=4", NULL};
    s = slice(slurm, 0, err, sizeof err);
    CHECK(s.index == 4 && s.count == 4 && strstr(s.engine, "Slurm") != NULL);
    const char *slurm_step[] = {"SLURM_ARRAY_TASK_ID=6", "SLURM_ARRAY_TASK_MIN=0",
                                "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=4", NULL};
    s = slice(slurm_step, 0, err, sizeof err);
    CHECK(s.index == 4 && s.count == 4);
    const char *gitlab[] = {"CI_NODE_INDEX=1", "CI_NODE_TOTAL=3", NULL};
    s = slice(gitlab, 0, err, sizeof err);
    CHECK(s.index == 1 && s.count == 3 && s.status_file[0] == '\0');
    const char *bazel[] = {"TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=2",
                           "TEST_SHARD_STATUS_FILE=/tmp/x", NULL};
    s = slice(bazel, 0, err, sizeof err);
    CHECK(s.index == 1 && s.count == 2);
    CHECK_EQ_STR(s.status_file, "/tmp/x");
}

static void refused(const char *const *env, uint32_t hint, const char *want)
{
    char err[1200];
    const bitcts_shard_slice s = slice(env, hint, err, sizeof err);
    CHECK(s.index == 0);
    if (strstr(err, want) == NULL) {
        printf("FAIL: '%s' does not say '%s'\n", err, want);
        ++check_failures;
    }
}

static void test_refusals(void)
{
    const char *none[] = {"PATH=/bin", NULL};
    refused(none, 0, "no engine set a shard");
    const char *two[] = {"CI_NODE_INDEX=1", "CI_NODE_TOTAL=2", "TEST_SHARD_INDEX=0",
                         "TEST_TOTAL_SHARDS=2", NULL};
    refused(two, 0,
            "two engines set a shard: GitLab parallel job (CI_NODE_INDEX=1) and "
            "Bazel/GoogleTest sharding (TEST_SHARD_INDEX=0)");
    const char *k8s_no_count[] = {"JOB_COMPLETION_INDEX=0", NULL};
    refused(k8s_no_count, 0, "nothing gives the count");
    const char *not_number[] = {"CI_NODE_INDEX=1x", "CI_NODE_TOTAL=2", NULL};
    refused(not_number, 0, "CI_NODE_INDEX is '1x', not a number");
    const char *negative[] = {"CI_NODE_INDEX=-1", "CI_NODE_TOTAL=2", NULL};
    refused(negative, 0, "not a number");
    const char *gitlab_zero[] = {"CI_NODE_INDEX=0", "CI_NODE_TOTAL=2", NULL};
    refused(gitlab_zero, 0, "it counts from 1");
    const char *past[] = {"TEST_SHARD_INDEX=2", "TEST_TOTAL_SHARDS=2", NULL};
    refused(past, 0, "TEST_SHARD_INDEX=2 is shard 3 of 2");
    const char *no_total[] = {"TEST_SHARD_INDEX=0", NULL};
    refused(no_total, 0, "TEST_TOTAL_SHARDS is not set");
    const char *zero[] = {"TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=0", NULL};
    refused(zero, 0, "of 0");
    const char *huge[] = {"TEST_SHARD_INDEX=0", "TEST_TOTAL_SHARDS=999999999", NULL};
    refused(huge, 0, "at most 100000 shards");
    const char *slurm_gap[] = {"SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=0",
                               "SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_COUNT=4", NULL};
    refused(slurm_gap, 0, "not MIN 0 plus a multiple of STEP 2");
    const char *slurm_hint[] = {"SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_MIN=0",
                                "SLURM_ARRAY_TASK_COUNT=4", NULL};
    refused(slurm_hint, 3, "SLURM_ARRAY_TASK_COUNT is 4 but --shard-count is 3");
}

static void test_balance(void)
{
    enum { N = 1000, SHARDS = 7 };
    static double cost[N];
    static uint32_t a[N], b[N];
    double biggest = 0;
    for (size_t i = 0; i < N; ++i) {
        cost[i] = (double)((i * 2654435761u) % 997) / 10.0 + (i % 50 == 0 ? 300 : 0);
        biggest = cost[i] > biggest ? cost[i] : biggest;
    }
    CHECK(bitcts_shard_balance(cost, N, SHARDS, a) == 0);
    CHECK(bitcts_shard_balance(cost, N, SHARDS, b) == 0);
    CHECK(memcmp(a, b, sizeof a) == 0);
    double load[SHARDS] = {0};
    for (size_t i = 0; i < N; ++i) {
        CHECK(a[i] < SHARDS);
        load[a[i] % SHARDS] += cost[i];
    }
    double lo = load[0], hi = load[0];
    for (int s = 1; s < SHARDS; ++s) {
        lo = load[s] < lo ? load[s] : lo;
        hi = load[s] > hi ? load[s] : hi;
    }
    CHECK(hi - lo <= biggest); /* longest first onto the least loaded: within one case */
    printf("balance: %d cases on %d shards, loads %.1f to %.1f\n", N, SHARDS, lo, hi);
    /* More shards than cases: each case alone, the rest empty. */
    const double three[3] = {1, 1, 1};
    uint32_t three_of[3];
    CHECK(bitcts_shard_balance(three, 3, 5, three_of) == 0);
    CHECK(three_of[0] != three_of[1] && three_of[1] != three_of[2] && three_of[0] != three_of[2]);
}

static void test_costs(void)
{
    const bitcts_shard_timing table[] = {{"a", 10}, {"b", 2}, {"c", 4}};
    const char *ids[] = {"c", "zz", "a"};
    double cost[3];
    bitcts_shard_costs(table, 3, ids, 3, cost);
    CHECK(cost[0] == 5 && cost[1] == 5 && cost[2] == 11); /* "zz": the median, 4, plus 1 */
    char x[32], y[32], z[32];
    bitcts_shard_timings_name(table, 3, x);
    bitcts_shard_timings_name(table, 3, y);
    const bitcts_shard_timing other[] = {{"a", 10}, {"b", 2}, {"c", 5}};
    bitcts_shard_timings_name(other, 3, z);
    CHECK(strncmp(x, "timings:", 8) == 0 && strlen(x) == 24);
    CHECK(strcmp(x, y) == 0 && strcmp(x, z) != 0);
}

int main(void)
{
    test_engines();
    test_refusals();
    test_balance();
    test_costs();
    return check_exit();
}
