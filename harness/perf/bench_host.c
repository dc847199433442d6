/* SPDX-License-Identifier: MIT */
/* The host's last-level cache and cores from sysfs (harness/perf/bench_host.h). The LLC is the
 * highest-level data or unified cache of cpu0; its instances are counted by the online CPUs that
 * are the lowest of their shared_cpu_list. A core is counted once, by the lowest CPU of its
 * thread_siblings_list, so the bench places one thread per physical core. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif

#include <stdio.h>  /* fopen, snprintf */
#include <stdlib.h> /* strtoul */
#include <string.h> /* memset, strcmp */

#include "bench_host.h"

#ifdef __linux__
#include <sched.h> /* sched_setaffinity */
#endif

#define HOST_CPU_DIR "/sys/devices/system/cpu"
#define HOST_MAX_CACHE_INDEX 16
#define HOST_WORDS (BITCTS_BENCH_HOST_MAX_CPUS / 64)

static uint64_t read_mem_available(const char *root);

/* The first line of root + path, without its newline; -1 when it cannot be read. */
static int read_line(const char *root, const char *path, char *out, size_t cap)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", root, path);
    FILE *f = fopen(full, "r");
    if (f == NULL) {
        return -1;
    }
    const char *got = fgets(out, (int)cap, f);
    fclose(f);
    if (got == NULL) {
        return -1;
    }
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

static int has_cpu(const uint64_t *bits, unsigned c)
{
    return c < BITCTS_BENCH_HOST_MAX_CPUS && (bits[c / 64] >> (c % 64) & 1u) != 0;
}

/* The lowest online CPU of the list in root + path, or -1. */
static int lowest_cpu(const char *root, const char *path, const uint64_t *online)
{
    char text[1024];
    uint64_t bits[HOST_WORDS];
    if (read_line(root, path, text, sizeof text) != 0 ||
        bitcts_bench_host_parse_cpus(text, bits) <= 0) {
        return -1;
    }
    for (unsigned c = 0; c < BITCTS_BENCH_HOST_MAX_CPUS; ++c) {
        if (has_cpu(bits, c) && has_cpu(online, c)) {
            return (int)c;
        }
    }
    return -1;
}

int bitcts_bench_host_parse_cpus(const char *text, uint64_t bits[BITCTS_BENCH_HOST_MAX_CPUS / 64])
{
    memset(bits, 0, HOST_WORDS * sizeof *bits);
    const char *p = text;
    int count = 0;
    while (*p != '\0') {
        char *end = NULL;
        if (*p < '0' || *p > '9') {
            return -1;
        }
        const unsigned long lo = strtoul(p, &end, 10);
        unsigned long hi = lo;
        if (*end == '-') {
            p = end + 1;
            if (*p < '0' || *p > '9') {
                return -1;
            }
            hi = strtoul(p, &end, 10);
        }
        if (hi < lo || (*end != ',' && *end != '\0')) {
            return -1;
        }
        for (unsigned long c = lo; c <= hi && c < BITCTS_BENCH_HOST_MAX_CPUS; ++c) {
            count += !has_cpu(bits, (unsigned)c);
            bits[c / 64] |= 1ull << (c % 64);
        }
        p = *end == ',' ? end + 1 : end;
    }
    return count;
}

/* "32768K", "1M", "1G" or bytes; 0 when unreadable. */
static uint64_t parse_size(const char *text)
{
    char *end = NULL;
    if (text[0] < '0' || text[0] > '9') {
        return 0;
    }
    const uint64_t v = strtoull(text, &end, 10);
    switch (*end) {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    case '\0': return v;
    default: return 0;
    }
}

/* cpu0's highest-level data or unified cache: its index, level and size; -1 when none. */
static int find_llc(const char *root, bitcts_bench_host *h)
{
    int best = -1;
    for (int i = 0; i < HOST_MAX_CACHE_INDEX; ++i) {
        char path[128], type[64], level[16], size[64];
        snprintf(path, sizeof path, HOST_CPU_DIR "/cpu0/cache/index%d/", i);
        const size_t len = strlen(path);
        snprintf(path + len, sizeof path - len, "type");
        const int typed = read_line(root, path, type, sizeof type) == 0;
        snprintf(path + len, sizeof path - len, "level");
        const int leveled = read_line(root, path, level, sizeof level) == 0;
        snprintf(path + len, sizeof path - len, "size");
        const int sized = read_line(root, path, size, sizeof size) == 0;
        const uint32_t lv = leveled ? (uint32_t)strtoul(level, NULL, 10) : 0;
        const uint64_t bytes = sized ? parse_size(size) : 0;
        if ((typed && strcmp(type, "Instruction") == 0) || lv == 0 || bytes == 0) {
            continue;
        }
        if (lv > h->llc_level || (lv == h->llc_level && bytes > h->llc_bytes)) {
            h->llc_level = lv;
            h->llc_bytes = bytes;
            best = i;
        }
    }
    return best;
}

/* The online CPUs: sysfs's list, else 0..fallback-1. */
static void read_online(const char *root, uint32_t fallback, uint64_t *bits, bitcts_bench_host *h)
{
    char text[1024];
    int n = -1;
    if (read_line(root, HOST_CPU_DIR "/online", text, sizeof text) == 0) {
        n = bitcts_bench_host_parse_cpus(text, bits);
    }
    if (n <= 0) {
        memset(bits, 0, HOST_WORDS * sizeof *bits);
        fallback = fallback < 1 ? 1 : fallback;
        for (uint32_t c = 0; c < fallback && c < BITCTS_BENCH_HOST_MAX_CPUS; ++c) {
            bits[c / 64] |= 1ull << (c % 64);
        }
        n = (int)(fallback < BITCTS_BENCH_HOST_MAX_CPUS ? fallback : BITCTS_BENCH_HOST_MAX_CPUS);
    }
    h->online = (uint32_t)n;
}

void bitcts_bench_host_read(const char *root, uint32_t online_fallback, bitcts_bench_host *h)
{
    memset(h, 0, sizeof *h);
    uint64_t online[HOST_WORDS];
    read_online(root, online_fallback, online, h);
    const int llc = find_llc(root, h);
    h->llc_from_sysfs = llc >= 0;
    for (unsigned c = 0; c < BITCTS_BENCH_HOST_MAX_CPUS; ++c) {
        if (!has_cpu(online, c)) {
            continue;
        }
        char path[160];
        snprintf(path, sizeof path, HOST_CPU_DIR "/cpu%u/cache/index%d/shared_cpu_list", c, llc);
        h->llc_count += llc >= 0 && lowest_cpu(root, path, online) == (int)c;
        snprintf(path, sizeof path, HOST_CPU_DIR "/cpu%u/topology/thread_siblings_list", c);
        const int first = lowest_cpu(root, path, online);
        h->topology_from_sysfs |= first >= 0;
        if (first == (int)c) {
            h->cpus[h->cores++] = c;
        }
    }
    h->llc_count = h->llc_count > 0 ? h->llc_count : 1;
    h->mem_available = read_mem_available(root);
    if (!h->topology_from_sysfs || h->cores == 0) { /* one core per online CPU */
        h->topology_from_sysfs = 0;
        h->cores = 0;
        for (unsigned c = 0; c < BITCTS_BENCH_HOST_MAX_CPUS; ++c) {
            if (has_cpu(online, c)) {
                h->cpus[h->cores++] = c;
            }
        }
    }
}

/* The size the cache asks for, before the memory's cap. */
static uint64_t cache_size(const bitcts_bench_host *h)
{
    if (!h->llc_from_sysfs || h->llc_bytes == 0) {
        return BITCTS_BENCH_FALLBACK_BYTES;
    }
    const uint64_t mib = 1ull << 20;
    uint64_t size = BITCTS_BENCH_LLC_FACTOR * h->llc_bytes * h->llc_count;
    size = (size + mib - 1) / mib * mib;
    return size > BITCTS_BENCH_MIN_BYTES ? size : BITCTS_BENCH_MIN_BYTES;
}

uint64_t bitcts_bench_host_size(const bitcts_bench_host *h)
{
    const uint64_t size = cache_size(h);
    const uint64_t mib = 1ull << 20;
    const uint64_t cap = h->mem_available / BITCTS_BENCH_MEM_SHARE / mib * mib;
    if (h->mem_available == 0 || cap >= size) {
        return size;
    }
    return cap > BITCTS_BENCH_MIN_BYTES ? cap : BITCTS_BENCH_MIN_BYTES;
}

int bitcts_bench_host_capped(const bitcts_bench_host *h)
{
    return bitcts_bench_host_size(h) < cache_size(h);
}

/* A number of bytes from the first line of root + path; 0 when unreadable or not a number
 * ("max": no limit). */
static uint64_t read_bytes(const char *root, const char *path)
{
    char line[64];
    char *end = NULL;
    if (read_line(root, path, line, sizeof line) != 0 || line[0] < '0' || line[0] > '9') {
        return 0;
    }
    const unsigned long long v = strtoull(line, &end, 10);
    return *end == '\0' ? (uint64_t)v : 0;
}

/* What the memory cgroups of this process (v2, or v1's memory controller) leave: the least, over
 * its cgroup and every ancestor with a limit, of the limit less the usage; UINT64_MAX when none
 * has a limit (or none is known). */
static uint64_t read_cgroup_room(const char *root)
{
    char full[512];
    snprintf(full, sizeof full, "%s/proc/self/cgroup", root);
    FILE *f = fopen(full, "r");
    char line[512];
    char dir[512] = "";
    const char *limit_file = NULL, *usage_file = NULL;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        const char *path = strchr(line, ':') != NULL ? strchr(strchr(line, ':') + 1, ':') : NULL;
        if (path == NULL || path[1] != '/') {
            continue;
        }
        if (strncmp(line, "0::", 3) == 0 && limit_file == NULL) { /* v2, unless v1 says */
            snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", path + 1);
            limit_file = "memory.max";
            usage_file = "memory.current";
        } else if (strstr(line, ":memory:") != NULL) {
            snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", path + 1);
            limit_file = "memory.limit_in_bytes";
            usage_file = "memory.usage_in_bytes";
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    uint64_t room = UINT64_MAX;
    for (int depth = 0; limit_file != NULL && depth < 64; ++depth) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, limit_file);
        const uint64_t limit = read_bytes(root, path);
        snprintf(path, sizeof path, "%s/%s", dir, usage_file);
        const uint64_t used = read_bytes(root, path);
        if (limit > 0 && limit < (1ull << 62)) { /* v1 writes "no limit" as about 2^63 */
            const uint64_t left = limit > used ? limit - used : 0;
            room = left < room ? left : room;
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || strcmp(dir, "/sys/fs/cgroup") == 0 ||
            strcmp(dir, "/sys/fs/cgroup/memory") == 0) {
            break;
        }
        *slash = '\0';
    }
    return room;
}

/* MemAvailable from root + /proc/meminfo, in bytes, or less where a memory cgroup leaves less;
 * 0 when unknown. */
static uint64_t read_mem_available(const char *root)
{
    char full[512];
    snprintf(full, sizeof full, "%s/proc/meminfo", root);
    FILE *f = fopen(full, "r");
    char line[256];
    unsigned long long kib = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            break;
        }
        kib = 0;
    }
    if (f != NULL) {
        fclose(f);
    }
    const uint64_t avail = kib <= UINT64_MAX / 1024 ? (uint64_t)kib * 1024 : 0;
    const uint64_t room = read_cgroup_room(root);
    return avail > 0 && room < avail ? room : avail;
}

int bitcts_bench_host_pin(uint32_t cpu)
{
#ifdef __linux__
    if (cpu >= CPU_SETSIZE) {
        return -1;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
#else
    (void)cpu;
    return -1;
#endif
}

int bitcts_bench_host_format_cpus(const bitcts_bench_host *h, uint32_t count, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (uint32_t k = 0; k < count && k < h->cores; ++k) {
        const int n = snprintf(out + used, cap - used, "%s%u", k > 0 ? "," : "", h->cpus[k]);
        if (n < 0 || (size_t)n >= cap - used) {
            return -1;
        }
        used += (size_t)n;
    }
    return count >= 1 && count <= h->cores ? 0 : -1;
}
