/* SPDX-License-Identifier: MIT */
/* Guarded mappings reused from case to case (harness/sandbox/guard_mem.c): after every reuse,
 * the pages of the new size are readable and writable and every other page of the mapping is
 * inaccessible, whatever the buffer was before (live and larger, live and smaller, retired,
 * read-only); a retired buffer is inaccessible as a whole. The protections are read from
 * /proc/self/maps, page by page. */
#define _DEFAULT_SOURCE /* sysconf */

#include <inttypes.h> /* SCNxPTR */
#include <stdio.h>    /* fopen */
#include <string.h>   /* memset */
#include <unistd.h>   /* sysconf */

#include "check.h"
#include "guard_mem.h"

/* The protection of the page at p: 'w' read-write, 'r' read-only, '-' none, '?' not mapped. */
static char page_access(const uint8_t *p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    char got = '?';
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        uintptr_t lo = 0, hi = 0;
        char perms[5] = {0};
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &lo, &hi, perms) == 3 &&
            (uintptr_t)p >= lo && (uintptr_t)p < hi) {
            got = perms[1] == 'w' ? 'w' : perms[0] == 'r' ? 'r' : '-';
            break;
        }
    }
    if (f != NULL) {
        fclose(f);
    }
    return got;
}

/* Pages [0, open) of the capacity read-write, the rest of it and both zones inaccessible. */
static void check_open(const bitcts_guard_buf *g, size_t page, size_t open, const char *when)
{
    int bad = 0;
    for (size_t at = 0; at < g->capacity; at += page) {
        const char want = at < open ? 'w' : '-';
        if (page_access(g->rw + at) != want) {
            fprintf(stderr, "%s: page %zu of %zu is '%c', not '%c'\n", when, at / page,
                    g->capacity / page, page_access(g->rw + at), want);
            bad = 1;
        }
    }
    CHECK(!bad);
    CHECK(page_access(g->base) == '-');
    CHECK(page_access(g->rw + g->capacity) == '-');
    if (open > 0) { /* what is open can be written */
        memset(g->rw, 0x5a, open);
    }
}

int main(void)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t zone = 16 * page;
    const size_t extra = BITCTS_GUARD_BEFORE + BITCTS_GUARD_AFTER_MIN;
    bitcts_guard_buf g;
    CHECK(bitcts_guard_map(8 * page, zone, BITCTS_GUARD_KIND_BACKEND, "A", 1, &g) == 0);
    const size_t full = g.capacity;
    CHECK(g.rw_len == full);
    check_open(&g, page, full, "mapped");
    /* Smaller while live: the pages past the new size close. */
    CHECK(bitcts_guard_reuse(&g, 2 * page, zone, BITCTS_GUARD_KIND_BACKEND, "A", 2) == 0);
    CHECK(g.capacity == full && g.rw_len < full);
    check_open(&g, page, g.rw_len, "smaller, live");
    /* Larger again, within the capacity: the same mapping, open to the new size only. */
    uint8_t *const base = g.base;
    CHECK(bitcts_guard_reuse(&g, 5 * page, zone, BITCTS_GUARD_KIND_BACKEND, "A", 3) == 0);
    CHECK(g.base == base && g.rw_len < full);
    check_open(&g, page, g.rw_len, "larger, live");
    /* Retired: nothing open; reused smaller and larger from there. */
    bitcts_guard_retire(&g);
    check_open(&g, page, 0, "retired");
    CHECK(bitcts_guard_reuse(&g, 1 * page, zone, BITCTS_GUARD_KIND_BACKEND, "A", 4) == 0);
    check_open(&g, page, g.rw_len, "smaller, after retired");
    bitcts_guard_retire(&g);
    CHECK(bitcts_guard_reuse(&g, full - extra, zone, BITCTS_GUARD_KIND_BACKEND, "A", 5) == 0);
    CHECK(g.base == base && g.rw_len == full);
    check_open(&g, page, full, "full, after retired");
    /* Read-only (a harness buffer during a call), then reused smaller: the rest closes. */
    bitcts_guard_protect(&g, 1);
    CHECK(page_access(g.rw) == 'r' && page_access(g.rw + full - page) == 'r');
    CHECK(bitcts_guard_reuse(&g, 3 * page, zone, BITCTS_GUARD_KIND_HARNESS, "copies", 6) == 0);
    check_open(&g, page, g.rw_len, "smaller, after read-only");
    /* Larger than the capacity: a new mapping. */
    CHECK(bitcts_guard_reuse(&g, 20 * page, zone, BITCTS_GUARD_KIND_BACKEND, "A", 7) == 0);
    CHECK(g.capacity > full);
    check_open(&g, page, g.rw_len, "grown");
    bitcts_guard_unmap(&g);
    return check_exit();
}
