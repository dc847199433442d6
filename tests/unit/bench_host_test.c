/* SPDX-License-Identifier: MIT */
/* The bench's reading of the host (harness/perf/bench_host.c) on fake sysfs trees: the last-level
 * cache and its instances (an L3 shared by all, an L3 per group of cores as on AMD, no cache
 * information at all), the size per input that follows, and one hardware thread per physical
 * core (SMT siblings, an offline sibling, no topology); the size capped by the memory available
 * (a fake /proc/meminfo) where a sixteenth of it is less than the cache asks for. */
#include <stdio.h>    /* fopen, snprintf */
#include <stdlib.h>   /* mkdtemp, system */
#include <string.h>   /* strrchr */
#include <sys/stat.h> /* mkdir */

#include "bench_host.h"
#include "check.h"

#define MIB (1ull << 20)
#define CPU "/sys/devices/system/cpu"

/* Writes text to root + path, making its directories. */
static void put(const char *root, const char *path, const char *text)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')) != NULL; ++p) {
        *p = '\0';
        (void)mkdir(full, 0700);
        *p = '/';
    }
    FILE *f = fopen(full, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void put_cache(const char *root, unsigned cpu, int index, const char *type, int level,
                      const char *size, const char *shared)
{
    char path[256];
    const char *const names[] = {"type", "level", "size", "shared_cpu_list"};
    char lv[8];
    snprintf(lv, sizeof lv, "%d", level);
    const char *const values[] = {type, lv, size, shared};
    for (int k = 0; k < 4; ++k) {
        snprintf(path, sizeof path, CPU "/cpu%u/cache/index%d/%s", cpu, index, names[k]);
        put(root, path, values[k]);
    }
}

static void put_siblings(const char *root, unsigned cpu, const char *siblings)
{
    char path[256];
    snprintf(path, sizeof path, CPU "/cpu%u/topology/thread_siblings_list", cpu);
    put(root, path, siblings);
}

static void fresh(char *root, size_t cap)
{
    snprintf(root, cap, "/tmp/bitcts_bench_host_XXXXXX");
    CHECK(mkdtemp(root) != NULL);
}

static void cleanup(const char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

/* 4 CPUs, 2 cores with 2 threads each (siblings 0,2 and 1,3), one 32 MiB L3. */
static void test_smt_one_l3(void)
{
    char root[64];
    fresh(root, sizeof root);
    put(root, CPU "/online", "0-3");
    for (unsigned c = 0; c < 4; ++c) {
        put_cache(root, c, 0, "Data", 1, "32K", c % 2 ? "1,3" : "0,2");
        put_cache(root, c, 1, "Instruction", 1, "32K", c % 2 ? "1,3" : "0,2");
        put_cache(root, c, 2, "Unified", 2, "1024K", c % 2 ? "1,3" : "0,2");
        put_cache(root, c, 3, "Unified", 3, "32768K", "0-3");
        put_siblings(root, c, c % 2 ? "1,3" : "0,2");
    }
    put_cache(root, 0, 4, "Instruction", 4, "1G", "0-3"); /* never the LLC: not data */
    bitcts_bench_host h;
    bitcts_bench_host_read(root, 99, &h);
    CHECK(h.llc_from_sysfs);
    CHECK_EQ_U64(h.llc_level, 3);
    CHECK_EQ_U64(h.llc_bytes, 32 * MIB);
    CHECK_EQ_U64(h.llc_count, 1);
    CHECK_EQ_U64(h.online, 4);
    CHECK(h.topology_from_sysfs);
    CHECK_EQ_U64(h.cores, 2);
    CHECK_EQ_U64(h.cpus[0], 0);
    CHECK_EQ_U64(h.cpus[1], 1);
    CHECK_EQ_U64(bitcts_bench_host_size(&h), 128 * MIB);
    /* cpu0 offline: its sibling 2 is the core's thread */
    put(root, CPU "/online", "1-3");
    bitcts_bench_host_read(root, 99, &h);
    CHECK_EQ_U64(h.cores, 2);
    CHECK_EQ_U64(h.cpus[0], 1);
    CHECK_EQ_U64(h.cpus[1], 2);
    CHECK_EQ_U64(h.llc_count, 1);
    cleanup(root);
}

/* 16 CPUs, 8 cores (siblings c and c+8), an L3 of 32 MiB per 4 cores: two instances. */
static void test_l3_per_group(void)
{
    char root[64];
    fresh(root, sizeof root);
    put(root, CPU "/online", "0-15");
    for (unsigned c = 0; c < 16; ++c) {
        char siblings[16];
        snprintf(siblings, sizeof siblings, "%u,%u", c % 8, c % 8 + 8);
        put_cache(root, c, 0, "Data", 1, "48K", siblings);
        put_cache(root, c, 3, "Unified", 3, "32M", c % 8 < 4 ? "0-3,8-11" : "4-7,12-15");
        put_siblings(root, c, siblings);
    }
    bitcts_bench_host h;
    bitcts_bench_host_read(root, 1, &h);
    CHECK_EQ_U64(h.llc_bytes, 32 * MIB);
    CHECK_EQ_U64(h.llc_count, 2);
    CHECK_EQ_U64(h.cores, 8);
    for (unsigned k = 0; k < 8; ++k) {
        CHECK_EQ_U64(h.cpus[k], k);
    }
    CHECK_EQ_U64(bitcts_bench_host_size(&h), 256 * MIB);
    cleanup(root);
}

/* A small LLC gives the 64 MiB floor; nothing in sysfs gives the fallbacks. */
static void test_small_and_missing(void)
{
    char root[64];
    fresh(root, sizeof root);
    put_cache(root, 0, 0, "Unified", 2, "2048K", "0");
    bitcts_bench_host h;
    bitcts_bench_host_read(root, 3, &h);
    CHECK(h.llc_from_sysfs);
    CHECK_EQ_U64(h.llc_bytes, 2 * MIB);
    CHECK_EQ_U64(h.llc_count, 1);
    CHECK_EQ_U64(bitcts_bench_host_size(&h), BITCTS_BENCH_MIN_BYTES);
    CHECK(!h.topology_from_sysfs); /* no siblings lists: one core per online CPU */
    CHECK_EQ_U64(h.online, 3);
    CHECK_EQ_U64(h.cores, 3);
    CHECK_EQ_U64(h.cpus[2], 2);
    cleanup(root);
    bitcts_bench_host_read("/nonexistent/bitcts", 2, &h);
    CHECK(!h.llc_from_sysfs);
    CHECK_EQ_U64(h.cores, 2);
    CHECK_EQ_U64(bitcts_bench_host_size(&h), BITCTS_BENCH_FALLBACK_BYTES);
}

static void test_parse_cpus(void)
{
    uint64_t bits[BITCTS_BENCH_HOST_MAX_CPUS / 64];
    CHECK_EQ_U64(bitcts_bench_host_parse_cpus("0-3,8,10-11", bits), 7);
    CHECK_EQ_U64(bits[0], 0xD0Full);
    CHECK_EQ_U64(bitcts_bench_host_parse_cpus("64", bits), 1);
    CHECK_EQ_U64(bits[1], 1);
    CHECK(bitcts_bench_host_parse_cpus("x", bits) < 0);
    CHECK(bitcts_bench_host_parse_cpus("3-1", bits) < 0);
    CHECK(bitcts_bench_host_parse_cpus("1-", bits) < 0);
    CHECK(bitcts_bench_host_parse_cpus("1;2", bits) < 0);
}

/* One 32 MiB L3 (128 MiB per input), under memories of 8 GiB, 1 GiB and 256 MiB. */
static void test_memory_cap(void)
{
    char root[64];
    fresh(root, sizeof root);
    put(root, CPU "/online", "0");
    put_cache(root, 0, 0, "Unified", 3, "32768K", "0");
    const struct {
        const char *meminfo;
        uint64_t size;
        int capped;
    } cases[] = {
        {"MemTotal:       9000000 kB\nMemFree:  100 kB\nMemAvailable:    8388608 kB", 128 * MIB, 0},
        {"MemTotal:       2000000 kB\nMemAvailable:    1048576 kB", 64 * MIB, 1},
        {"MemAvailable:     262144 kB", BITCTS_BENCH_MIN_BYTES, 1}, /* never below 64 MiB */
        {"MemTotal:        262144 kB", 128 * MIB, 0},               /* no MemAvailable: no cap */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        put(root, "/proc/meminfo", cases[i].meminfo);
        bitcts_bench_host h;
        bitcts_bench_host_read(root, 1, &h);
        CHECK_EQ_U64(h.llc_bytes, 32 * MIB);
        CHECK_EQ_U64(bitcts_bench_host_size(&h), cases[i].size);
        CHECK_EQ_U64(bitcts_bench_host_capped(&h), cases[i].capped);
    }
    cleanup(root);
}

/* The memory a cgroup leaves, under 8 GiB of MemAvailable: v2 (memory.max and memory.current,
 * the least over the cgroup and its ancestors), v1's memory controller, and no limit. */
static void test_cgroup_cap(void)
{
    char root[64];
    fresh(root, sizeof root);
    put(root, CPU "/online", "0");
    put_cache(root, 0, 0, "Unified", 3, "32768K", "0");
    put(root, "/proc/meminfo", "MemAvailable:    8388608 kB");
    /* v2: the job's cgroup has no limit, its parent 2 GiB with 1 GiB used: 1 GiB left */
    put(root, "/proc/self/cgroup", "0::/batch/job7");
    put(root, "/sys/fs/cgroup/batch/job7/memory.max", "max");
    put(root, "/sys/fs/cgroup/batch/job7/memory.current", "104857600");
    put(root, "/sys/fs/cgroup/batch/memory.max", "2147483648");
    put(root, "/sys/fs/cgroup/batch/memory.current", "1073741824");
    bitcts_bench_host h;
    bitcts_bench_host_read(root, 1, &h);
    CHECK_EQ_U64(h.mem_available, 1024 * MIB);
    CHECK_EQ_U64(bitcts_bench_host_size(&h), 64 * MIB);
    CHECK(bitcts_bench_host_capped(&h));
    /* v1 beside a v2 root ("0::/"): the memory controller's 512 MiB limit, 0 used */
    put(root, "/proc/self/cgroup", "4:memory:/ci/runner\n1:cpu:/\n0::/");
    put(root, "/sys/fs/cgroup/memory/ci/runner/memory.limit_in_bytes", "536870912");
    put(root, "/sys/fs/cgroup/memory/ci/runner/memory.usage_in_bytes", "0");
    put(root, "/sys/fs/cgroup/memory/ci/memory.limit_in_bytes", "9223372036854771712");
    put(root, "/sys/fs/cgroup/memory/ci/memory.usage_in_bytes", "0");
    bitcts_bench_host_read(root, 1, &h);
    CHECK_EQ_U64(h.mem_available, 512 * MIB);
    /* v1 without a limit anywhere: MemAvailable */
    put(root, "/sys/fs/cgroup/memory/ci/runner/memory.limit_in_bytes", "9223372036854771712");
    bitcts_bench_host_read(root, 1, &h);
    CHECK_EQ_U64(h.mem_available, 8192 * MIB);
    CHECK_EQ_U64(bitcts_bench_host_size(&h), 128 * MIB);
    cleanup(root);
}

int main(void)
{
    test_cgroup_cap();
    test_memory_cap();
    test_smt_one_l3();
    test_l3_per_group();
    test_small_and_missing();
    test_parse_cpus();
    return check_exit();
}
