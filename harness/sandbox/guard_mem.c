/* SPDX-License-Identifier: MIT */
/* Guarded mappings with mmap/mprotect, and a small registry a signal handler can read. The
 * registry is a fixed array: no allocation, so describing a fault is async-signal-safe. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, syscall */

#include <fcntl.h>        /* fcntl */
#include <stdio.h>        /* snprintf, fopen */
#include <string.h>       /* memset */
#include <sys/mman.h>     /* mmap, mprotect */
#include <sys/resource.h> /* getrlimit */
#include <sys/syscall.h>  /* SYS_memfd_create */
#include <unistd.h>       /* sysconf, ftruncate, syscall */

#include "guard_mem.h"
#include "sigsafe.h"

#define GUARD_REGISTRY                                                                             \
    1024 /* mappings alive at once: a few per case (64 cases of a batched                          \
          * call), a few retired */

/* Copies of the live mappings, keyed by base (an entry with base NULL is free). Copies, not
 * pointers: the owner's struct may move (a retired buffer changes hands). */
static bitcts_guard_buf registry[GUARD_REGISTRY];

static size_t guard_zone = BITCTS_GUARD_ZONE;

size_t bitcts_guard_zone(void)
{
    return guard_zone;
}

/* The process's virtual size in bytes, from /proc/self/statm (0 when unknown). */
static uint64_t address_space_used(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (f != NULL) {
        if (fscanf(f, "%llu", &pages) != 1) {
            pages = 0;
        }
        fclose(f);
    }
    const long page = sysconf(_SC_PAGESIZE);
    return (uint64_t)pages * (uint64_t)(page > 0 ? page : 4096);
}

int bitcts_guard_choose_zone(uint64_t headroom, char *err, size_t cap)
{
    struct rlimit as;
    guard_zone = BITCTS_GUARD_ZONE;
    if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) {
        return 0;
    }
    const uint64_t used = address_space_used();
    const uint64_t free_bytes = as.rlim_cur > used ? (uint64_t)as.rlim_cur - used : 0;
    const uint64_t room =
        (free_bytes > headroom ? free_bytes - headroom : 0) / 2 / BITCTS_GUARD_ZONES;
    while (guard_zone > BITCTS_GUARD_ZONE_MIN && guard_zone > room) {
        guard_zone /= 2;
    }
    if (guard_zone > room) {
        snprintf(
            err, cap,
            "RLIMIT_AS (%llu MiB) leaves %llu MiB of address space once the backend is "
            "loaded; a worker needs at least %llu MiB (%u no-access guard zones of %llu MiB, "
            "as much again for the case data, and %llu MiB for the harness)",
            (unsigned long long)(as.rlim_cur >> 20), (unsigned long long)(free_bytes >> 20),
            (unsigned long long)((2 * BITCTS_GUARD_ZONES * BITCTS_GUARD_ZONE_MIN + headroom) >> 20),
            BITCTS_GUARD_ZONES, (unsigned long long)(BITCTS_GUARD_ZONE_MIN >> 20),
            (unsigned long long)(headroom >> 20));
        return -1;
    }
    return 0;
}

static size_t page_size(void)
{
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static bitcts_guard_buf *registry_find(const uint8_t *base)
{
    for (size_t i = 0; i < GUARD_REGISTRY; ++i) {
        if (registry[i].base == base) {
            return &registry[i];
        }
    }
    return NULL;
}

static void registry_add(const bitcts_guard_buf *g)
{
    bitcts_guard_buf *slot = registry_find(NULL);
    if (slot != NULL) {
        *slot = *g;
    }
}

static void registry_remove(const bitcts_guard_buf *g)
{
    bitcts_guard_buf *slot = registry_find(g->base);
    if (slot != NULL) {
        memset(slot, 0, sizeof *slot);
    }
}

static void set_name(bitcts_guard_buf *g, const char *name)
{
    size_t i = 0;
    for (; name != NULL && name[i] != '\0' && i + 1 < sizeof g->name; ++i) {
        g->name[i] = name[i];
    }
    g->name[i] = '\0';
}

int bitcts_guard_map(uint64_t size, size_t zone, int kind, const char *name, uint64_t case_index,
                     bitcts_guard_buf *out)
{
    memset(out, 0, sizeof *out);
    const size_t page = page_size();
    const uint64_t need = BITCTS_GUARD_BEFORE + size + BITCTS_GUARD_AFTER_MIN;
    if (need > (uint64_t)SIZE_MAX - 2 * zone - page) {
        return -1;
    }
    const size_t rw_len = (size_t)((need + page - 1) / page * page);
    const size_t base_len = rw_len + 2 * zone;
    void *base =
        mmap(NULL, base_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        return -1;
    }
    uint8_t *rw = (uint8_t *)base + zone;
    if (mprotect(rw, rw_len, PROT_READ | PROT_WRITE) != 0) {
        munmap(base, base_len);
        return -1;
    }
    out->base = base;
    out->base_len = base_len;
    out->capacity = rw_len;
    out->rw = rw;
    out->rw_len = rw_len;
    out->data = rw + BITCTS_GUARD_BEFORE;
    out->size = size;
    out->kind = kind;
    out->case_index = case_index;
    set_name(out, name);
    registry_add(out);
    return 0;
}

int bitcts_guard_reuse(bitcts_guard_buf *g, uint64_t size, size_t zone, int kind, const char *name,
                       uint64_t case_index)
{
    const size_t page = page_size();
    const uint64_t need = BITCTS_GUARD_BEFORE + size + BITCTS_GUARD_AFTER_MIN;
    const size_t zone_now = g->base != NULL ? (size_t)(g->rw - g->base) : 0;
    if (g->base == NULL || need > g->capacity || zone_now != zone) {
        bitcts_guard_unmap(g);
        return bitcts_guard_map(size, zone, kind, name, case_index, g);
    }
    const size_t rw_len = (size_t)((need + page - 1) / page * page);
    /* Beyond rw_len the capacity is always inaccessible, and a retired buffer is inaccessible
     * as a whole: only the pages that were accessible and are no longer need closing. */
    const size_t open_before = g->kind == BITCTS_GUARD_KIND_RETIRED ? 0 : g->rw_len;
    if (mprotect(g->rw, rw_len, PROT_READ | PROT_WRITE) != 0) {
        return -1;
    }
    if (rw_len < open_before) {
        mprotect(g->rw + rw_len, open_before - rw_len, PROT_NONE);
    }
    g->rw_len = rw_len;
    g->data = g->rw + BITCTS_GUARD_BEFORE;
    g->size = size;
    g->kind = kind;
    g->case_index = case_index;
    set_name(g, name);
    bitcts_guard_buf *slot = registry_find(g->base);
    if (slot != NULL) {
        *slot = *g;
    }
    return 0;
}

int bitcts_guard_share(bitcts_guard_buf *g)
{
#if defined(__linux__) && defined(SYS_memfd_create)
    if (g->base == NULL || g->rw_len != g->capacity) {
        return -1;
    }
    const int fd =
        (int)syscall(SYS_memfd_create, g->name, 3u /* MFD_CLOEXEC | MFD_ALLOW_SEALING */);
    if (fd < 0) {
        return -1;
    }
    if (ftruncate(fd, (off_t)g->capacity) != 0) {
        close(fd);
        return -1;
    }
    if (mmap(g->rw, g->capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        /* A failed fixed mapping may have taken the old pages away: private ones again. */
        (void)mmap(g->rw, g->capacity, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        close(fd);
        return -1;
    }
    /* Then F_SEAL_SEAL: the mapping above stays writable, later ones cannot be. */
    if (fcntl(fd, 1033 /* F_ADD_SEALS */, BITCTS_GUARD_SHARE_SEALS | 0x0001) != 0) {
        close(fd);
        return -1; /* the pages stay shared, with no one to share them */
    }
    return fd;
#else
    (void)g;
    return -1;
#endif
}

void bitcts_guard_unmap(bitcts_guard_buf *g)
{
    if (g->base != NULL) {
        registry_remove(g);
        munmap(g->base, g->base_len);
    }
    memset(g, 0, sizeof *g);
}

void bitcts_guard_retire(bitcts_guard_buf *g)
{
    if (g->base != NULL) {
        mprotect(g->rw, g->capacity, PROT_NONE);
        g->kind = BITCTS_GUARD_KIND_RETIRED;
        bitcts_guard_buf *slot = registry_find(g->base);
        if (slot != NULL) {
            slot->kind = BITCTS_GUARD_KIND_RETIRED;
        }
    }
}

void bitcts_guard_protect(bitcts_guard_buf *g, int read_only)
{
    if (g->base != NULL) {
        mprotect(g->rw, g->rw_len, read_only ? PROT_READ : PROT_READ | PROT_WRITE);
    }
}

uint8_t *bitcts_guard_before(const bitcts_guard_buf *g)
{
    return g->rw;
}

uint8_t *bitcts_guard_after(const bitcts_guard_buf *g, size_t *len)
{
    *len = g->rw_len - BITCTS_GUARD_BEFORE - (size_t)g->size;
    return g->data + g->size;
}

/* ---- describing an address, async-signal-safe ---- */

static void describe_in(const bitcts_guard_buf *g, uintptr_t a, bitcts_sigsafe_line *b)
{
    const uintptr_t data = (uintptr_t)g->data;
    const uintptr_t end = data + (uintptr_t)g->size;
    if (g->kind == BITCTS_GUARD_KIND_RETIRED) {
        bitcts_sigsafe_text(b, "a retired buffer (");
        bitcts_sigsafe_text(b, g->name);
        bitcts_sigsafe_text(b, ") of case ");
        bitcts_sigsafe_number(b, g->case_index);
        bitcts_sigsafe_text(b, ": a stale pointer from an earlier call");
        return;
    }
    if (g->kind == BITCTS_GUARD_KIND_HARNESS) {
        bitcts_sigsafe_text(b, "the harness's ");
        bitcts_sigsafe_text(b, g->name);
        bitcts_sigsafe_text(b, " (read-only while the backend runs)");
        return;
    }
    if (a < data) {
        bitcts_sigsafe_number(b, (uint64_t)(data - a));
        bitcts_sigsafe_text(b, a < (uintptr_t)g->rw ? " bytes before "
                                                    : " bytes before the start of ");
    } else if (a >= end) {
        bitcts_sigsafe_number(b, (uint64_t)(a - end));
        bitcts_sigsafe_text(b, " bytes past the end of ");
    } else {
        bitcts_sigsafe_text(b, "inside ");
    }
    bitcts_sigsafe_text(b, g->name);
    if (a < (uintptr_t)g->rw || a >= (uintptr_t)g->rw + g->rw_len) {
        bitcts_sigsafe_text(b, " (in its PROT_NONE zone)");
    }
}

int bitcts_guard_owner(const void *addr, uint64_t *case_index)
{
    const uintptr_t a = (uintptr_t)addr;
    for (size_t i = 0; i < GUARD_REGISTRY; ++i) {
        const bitcts_guard_buf *g = &registry[i];
        if (g->base != NULL && a >= (uintptr_t)g->base && a < (uintptr_t)g->base + g->base_len) {
            *case_index = g->case_index;
            return g->kind;
        }
    }
    return -1;
}

void bitcts_guard_describe(const void *addr, char *out, size_t cap)
{
    bitcts_sigsafe_line b = {out, cap, 0};
    const uintptr_t a = (uintptr_t)addr;
    out[0] = '\0';
    for (size_t i = 0; i < GUARD_REGISTRY; ++i) {
        const bitcts_guard_buf *g = &registry[i];
        if (g->base != NULL && a >= (uintptr_t)g->base && a < (uintptr_t)g->base + g->base_len) {
            describe_in(g, a, &b);
            return;
        }
    }
    bitcts_sigsafe_text(&b, "an address outside every buffer");
}
