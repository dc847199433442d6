/* SPDX-License-Identifier: MIT */
/* Memory a backend is handed, and memory it must not touch. A buffer given to a backend lives
 * in its own mapping: a wide zone of PROT_NONE pages on both sides (a write anywhere near it but
 * outside it faults), and between the zones the data with guard bytes before and after it,
 * which the caller fills from the case's seed. The harness's own buffers (expected output, the
 * inputs as generated) live in mappings it makes read-only while the backend runs. Every
 * mapping is registered, so a fault handler can say which buffer an address belongs to.
 * Thread-safety: one worker process, one thread. */
#ifndef BITCTS_HARNESS_GUARD_MEM_H
#define BITCTS_HARNESS_GUARD_MEM_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t, uint64_t */

#define BITCTS_GUARD_BEFORE 64u    /* guard bytes before the data (keeps 64-byte alignment) */
#define BITCTS_GUARD_AFTER_MIN 64u /* at least this many guard bytes after it */
#define BITCTS_GUARD_ZONE ((size_t)1 << 30)     /* PROT_NONE bytes on each side, at most */
#define BITCTS_GUARD_ZONE_MIN ((size_t)1 << 20) /* and at least, under an address-space limit */
#define BITCTS_GUARD_ZONES 12u /* zones of a worker: 2 generations x 3 buffers x 2 sides */

/* What a mapping holds, for fault reports. */
#define BITCTS_GUARD_KIND_BACKEND 0 /* a buffer handed to the backend (A, B, Output) */
#define BITCTS_GUARD_KIND_HARNESS 1 /* the harness's own: read-only during backend calls */
#define BITCTS_GUARD_KIND_RETIRED 2 /* a buffer of an earlier case, now inaccessible */

/** One mapping. */
typedef struct bitcts_guard_buf {
    uint8_t *data; /* size bytes, 64-byte aligned */
    uint64_t size;
    uint8_t *rw; /* the accessible pages: guard, data, guard */
    size_t rw_len;
    uint8_t *base; /* the whole mapping, zones included */
    size_t base_len;
    size_t capacity;     /* bytes between the zones: rw_len may grow up to it without a remap */
    int kind;            /* BITCTS_GUARD_KIND_* */
    char name[24];       /* "A", "B", "Output", "expected output", ... */
    uint64_t case_index; /* the plan index of the case it belongs to */
} bitcts_guard_buf;

/** Chooses the zone size of this process's backend buffers (bitcts_guard_zone) from the
 * address space that RLIMIT_AS leaves: BITCTS_GUARD_ZONE without a limit, else the largest power
 * of two, at most BITCTS_GUARD_ZONE, such that the BITCTS_GUARD_ZONES zones take at most half
 * of what is free beyond `headroom` bytes (the other half is for the case data and what the
 * backend maps later). A probe asks for headroom, so that the workers forked after it (from a
 * parent that has grown since) find at least the minimum.
 * @return 0, or -1 with err naming the limit, the free address space and the need when even
 *         BITCTS_GUARD_ZONE_MIN does not fit. */
int bitcts_guard_choose_zone(uint64_t headroom, char *err, size_t cap);

/** The zone size chosen for this process (BITCTS_GUARD_ZONE until chosen). */
size_t bitcts_guard_zone(void);

/** Maps a buffer of `size` bytes (0 allowed) with zones of `zone` bytes on each side (0: no
 * zones, for harness buffers) and registers it. The data and guards read as zero.
 * @return 0, or -1 when the mapping fails (out of address space or memory). */
int bitcts_guard_map(uint64_t size, size_t zone, int kind, const char *name, uint64_t case_index,
                     bitcts_guard_buf *out);

/** Makes `g` a buffer of `size` bytes again, for the next case: the same mapping when its
 * capacity allows (the pages stay populated: no faults, no zeroing; what lies beyond the new
 * accessible part is made inaccessible), else a fresh one. The content is unspecified.
 * @return 0, or -1 when a new mapping fails. */
int bitcts_guard_reuse(bitcts_guard_buf *g, uint64_t size, size_t zone, int kind, const char *name,
                       uint64_t case_index);

/* The seals of a shared buffer's file (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE): no one
 * can take its pages from under this process, and no other process can write it. */
#define BITCTS_GUARD_SHARE_SEALS (0x0002 | 0x0004 | 0x0010)

/** Backs a buffer just mapped (its data as mapped: zero) with a shared memory file, so that
 * another process (the bench's peers) can map the same pages, read-only: the whole capacity
 * between the zones, the data BITCTS_GUARD_BEFORE bytes in. The file carries
 * BITCTS_GUARD_SHARE_SEALS (this process's mapping stays writable). The caller owns the
 * descriptor (close-on-exec).
 * @return the file's descriptor, or -1 (no memfd or seals here, out of memory). */
int bitcts_guard_share(bitcts_guard_buf *g);

/** Unmaps and unregisters. Accepts a buffer that was never mapped (data NULL). */
void bitcts_guard_unmap(bitcts_guard_buf *g);

/** Makes the buffer inaccessible (PROT_NONE) and marks it retired, keeping its addresses
 * reserved: a stale pointer into it faults instead of hitting a later case's memory. */
void bitcts_guard_retire(bitcts_guard_buf *g);

/** Read-only (1) or read-write (0) for the accessible pages: harness buffers are read-only
 * while the backend runs. */
void bitcts_guard_protect(bitcts_guard_buf *g, int read_only);

/** The guard bytes: `before` is BITCTS_GUARD_BEFORE bytes ending at data, `after` the
 * rest of the accessible pages after data + size. */
uint8_t *bitcts_guard_before(const bitcts_guard_buf *g);
uint8_t *bitcts_guard_after(const bitcts_guard_buf *g, size_t *len);

/** Which registered mapping holds `addr`: its kind (BITCTS_GUARD_KIND_*) with its case index
 * in *case_index, or -1 when none does. Async-signal-safe. */
int bitcts_guard_owner(const void *addr, uint64_t *case_index);

/** Describes an address for a fault report, async-signal-safe: which registered mapping holds
 * it and where ("12 bytes past the end of Output", "the PROT_NONE zone 4096 bytes before A",
 * "the harness's expected output (read-only while the backend runs)", "a retired buffer of
 * case 17"); or "an address outside every buffer". Writes a NUL-terminated line into out. */
void bitcts_guard_describe(const void *addr, char *out, size_t cap);

#endif
