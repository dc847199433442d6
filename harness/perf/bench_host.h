/* SPDX-License-Identifier: MIT */
/* What `bitcts bench` reads of the host before it sizes and places a CPU backend's run: the
 * last-level cache (its level, one instance's size and how many instances the online CPUs share)
 * and the topology (one hardware thread per physical core), from Linux's sysfs under a root the
 * caller names (tests give a fake tree). Where sysfs says nothing, a documented fallback.
 * Thread-safety: pure functions of the files they read; no state. */
#ifndef BITCTS_HARNESS_BENCH_HOST_H
#define BITCTS_HARNESS_BENCH_HOST_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t, uint64_t */

#define BITCTS_BENCH_HOST_MAX_CPUS 256u
#define BITCTS_BENCH_LLC_FACTOR 4u                 /* each input at least 4 x the LLC */
#define BITCTS_BENCH_MIN_BYTES (64ull << 20)       /* and at least 64 MiB */
#define BITCTS_BENCH_FALLBACK_BYTES (256ull << 20) /* LLC unknown: 4 x a 64 MiB LLC */
/* ... but at most the available memory over this: the child's A, B, output and expected output,
 * and each CPU peer's own output and temporaries (NumPy held four inputs' worth), with room. */
#define BITCTS_BENCH_MEM_SHARE 16u

typedef struct bitcts_bench_host {
    uint64_t llc_bytes; /* one instance of the last-level cache; 0: unknown */
    uint32_t llc_level; /* its level (3 for an L3); 0: unknown */
    uint32_t llc_count; /* distinct instances over the online CPUs (AMD: one per CCD) */
    int llc_from_sysfs; /* 1: read from sysfs; 0: unknown, the fallback size applies */
    uint32_t online;    /* online hardware threads */
    uint32_t cores;     /* physical cores among them: the entries of cpus */
    uint32_t cpus[BITCTS_BENCH_HOST_MAX_CPUS]; /* the lowest hardware thread of each core */
    int topology_from_sysfs;                   /* 0: sysfs had no topology; cpus are 0..online-1 */
    uint64_t mem_available; /* MemAvailable of /proc/meminfo, or less where the process's memory
                             * cgroup (v2, or v1's memory controller) leaves less: the least,
                             * over it and its ancestors, of limit - usage; bytes; 0: unknown */
} bitcts_bench_host;

/** Reads the cache and the topology of the CPUs under root ("" for the real /sys: root is
 * prefixed to "/sys/devices/system/cpu/..."), and the memory available (root + "/proc/meminfo",
 * "/proc/self/cgroup" and the cgroup's files under "/sys/fs/cgroup").
 * online_fallback is used when sysfs has no list of
 * online CPUs (the caller's sysconf). Never fails: what is missing gets the fallback. */
void bitcts_bench_host_read(const char *root, uint32_t online_fallback, bitcts_bench_host *h);

/** The bytes per input for a host-timed bench: BITCTS_BENCH_LLC_FACTOR x the whole last-level
 * cache (one instance x instances), rounded up to a MiB, at least BITCTS_BENCH_MIN_BYTES;
 * BITCTS_BENCH_FALLBACK_BYTES when the cache is unknown. Capped (bitcts_bench_host_capped) at
 * the memory available over BITCTS_BENCH_MEM_SHARE, rounded down to a MiB, where that is smaller,
 * but never below BITCTS_BENCH_MIN_BYTES: a machine whose memory is small beside its cache gets
 * tensors that fit rather than peers the kernel kills for memory. */
uint64_t bitcts_bench_host_size(const bitcts_bench_host *h);

/** 1 when bitcts_bench_host_size is less than the cache asks for, for want of memory. */
int bitcts_bench_host_capped(const bitcts_bench_host *h);

/** Parses a Linux CPU list ("0-3,8,10-11") into a bitmap of BITCTS_BENCH_HOST_MAX_CPUS bits.
 * @return the number of CPUs set, or -1 when the text is not a list. */
int bitcts_bench_host_parse_cpus(const char *text, uint64_t bits[BITCTS_BENCH_HOST_MAX_CPUS / 64]);

/** Runs the calling thread on `cpu` only (Linux). @return 0, or -1 when it cannot. */
int bitcts_bench_host_pin(uint32_t cpu);

/** The first `count` cores' CPUs as "0,1,2" (the cpu backend's cpus option).
 * @return 0, or -1 when count is 0 or over the cores, or the text does not fit. */
int bitcts_bench_host_format_cpus(const bitcts_bench_host *h, uint32_t count, char *out,
                                  size_t cap);

#endif
