/* SPDX-License-Identifier: MIT */
/* The sweep's child: loads the backend, then feeds it every input in chunks of 2^24 elements
 * and checks every element. A backend without memory of its own (no device timing, no
 * device_memory_mib) gets each chunk in calls of 2^16 elements, each filled, run and checked
 * while its buffers are in the cache (a whole chunk's buffers are not); a device backend, one
 * call a chunk, its transfers amortised. NOT and BIT_COUNT over every value of a 32-bit type, every
 * shift of every 16-bit value by every count (2^32 pairs), every pair of 16-bit AND/OR/XOR
 * operands. The expected values come from the reference, composed through bit-disjointness (the
 * result for hi|lo is built from the reference's results for hi and for lo, computed once), and the
 * loops that fill and check a chunk are written so the compiler vectorises them: checking keeps
 * pace with a GPU's transfers. The outputs are also hashed (XXH3-128), chunk after chunk. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memset */
#include <unistd.h> /* _exit */

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bitcts/bitcts_status.h"
#include "clock.h"
#include "guard_set.h"
#include "lent_desc.h"
#include "perf_child.h"
#include "ref_ops.h"
#include "sanitize.h"
#include "supervise.h"
#include "sweep.h"

#define SWEEP_CHUNK (1u << BITCTS_SWEEP_CHUNK_LOG2)
#define SWEEP_HOST_CALL (1u << 16) /* a host backend's call: 256 KiB of UINT32 per buffer */
#define SWEEP_POISON 0xA5
#define SWEEP_SEED 0x7377656570ull /* "sweep": the guards' seed, with the operator and types */

typedef struct sweep {
    const bitcts_sweep_config *cfg;
    bitcts_backend backend;
    void *instance;
    const bitcts_abi_device_timing_ext *timing; /* NULL: executed with operator_execute */
    uint32_t op, width, ob;                     /* width of the input in bits, output bytes */
    int unary, shift;
    uint32_t *table;  /* reference results: see build_tables */
    uint8_t *every_b; /* 16-bit binary sweeps: B's 65536 values in order, the row of each a */
    bitcts_guard_buf
        maps[3]; /* A (or Input), B, Output: guarded mappings (harness/sandbox/guard_mem.h) */
    bitcts_guard_set guards; /* their guards, pattern 0 drawn from the sweep's seed */
    uint8_t *scratch;        /* a pattern's bytes while the guards are checked */
    uint32_t pass;           /* the guards' pattern in the call at hand: 0, or 1 (complement) */
    uint8_t *in[2], *out;    /* the mappings' data */
    bitcts_op_desc desc;     /* a call: packed 1-D tensors */
    uint32_t chunk, call;    /* elements of a chunk, and of a call (the chunk or a part) */
    XXH3_state_t digest;
    bitcts_lent_desc lent; /* the description lent to the backend */
    uint64_t total, checked, chunks, calls, mismatches, first_bad, oob, oob_mask, oob_saturate;
    int filled;             /* the inputs hold the chunk at filled_base */
    uint64_t filled_base;   /* ... */
    uint64_t changed;       /* elements of the inputs the last fill found changed */
    uint64_t changed_base;  /* the call whose elements they are (its first element) */
    uint64_t changed_first; /* the first of them, within that call */
    uint32_t changed_input; /* and its input */
    char violation[600];    /* what a call of the chunk at hand broke, or "" */
    double backend_s, device_s, fill_s, check_s;
} sweep;

static uint64_t ref(const sweep *s, uint64_t a, uint64_t b)
{
    return bitcts_ref_element(s->op, s->width, a, b, BITCTS_SHIFT_POLICY_SATURATE);
}

/* Elements as the reference defines them: little-endian bytes. On a little-endian host these
 * are plain loads and stores, which the compiler vectorises. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline uint32_t load_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint16_t load_u16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline void store_u32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static inline void store_u16(uint8_t *p, uint32_t v)
{
    const uint16_t h = (uint16_t)v;
    memcpy(p, &h, 2);
}
#else
static inline uint32_t load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint16_t load_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline void store_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void store_u16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
#endif

static uint64_t load_out(const sweep *s, uint64_t i)
{
    return bitcts_ref_load(s->out + i * s->ob, s->ob);
}

/* Element e of the sweep: a unary value, or the pair (a, b) = (e >> w, e & mask). */
static void operands(const sweep *s, uint64_t e, uint64_t *a, uint64_t *b)
{
    if (s->unary) {
        *a = e;
        *b = 0;
        return;
    }
    *a = e >> s->width;
    *b = e & ((1ull << s->width) - 1);
}

/* ---- tables ---- */

/* Unary 32-bit: table[i] = f(i) for the low 16 bits (NOT: only those bits kept). Binary 16-bit
 * AND/OR/XOR: table[x * 256 + y] = f(x, y) & 0xFF (low bytes) and table[65536 + x * 256 + y] =
 * f(x << 8, y << 8) & 0xFF00 (high bytes). Other sweeps have at most 2^16 elements and ask the
 * reference element by element. */
static int build_tables(sweep *s)
{
    const int fast_unary = s->unary && s->width == 32;
    const int fast_binary = !s->unary && !s->shift && s->width == 16;
    if (!s->unary && s->width == 16) {
        s->every_b = malloc(2 * 65536);
        for (uint32_t b = 0; s->every_b != NULL && b < 65536; ++b) {
            store_u16(s->every_b + 2 * (size_t)b, b);
        }
        if (s->every_b == NULL) {
            return -1;
        }
    }
    if (!fast_unary && !fast_binary) {
        return 0;
    }
    s->table = malloc((size_t)(fast_unary ? 65536 : 2 * 65536) * sizeof *s->table);
    if (s->table == NULL) {
        return -1;
    }
    for (uint32_t i = 0; fast_unary && i < 65536; ++i) {
        const uint64_t v = ref(s, i, 0);
        s->table[i] = (uint32_t)(s->op == BITCTS_OP_BIT_COUNT ? v : v & 0xFFFFu);
    }
    for (uint32_t x = 0; fast_binary && x < 256; ++x) {
        for (uint32_t y = 0; y < 256; ++y) {
            s->table[x * 256 + y] = (uint32_t)(ref(s, x, y) & 0xFF);
            s->table[65536 + x * 256 + y] = (uint32_t)(ref(s, x << 8, y << 8) & 0xFF00);
        }
    }
    return 0;
}

/* ---- filling a chunk ---- */

/* Every fill checks, before it writes, that the inputs still hold what the previous fill wrote
 * (the backend must not write them): a block is read, then written while it is in the cache,
 * so the check costs no more memory traffic than the stores alone. A difference is kept for
 * the chunk that was handed those inputs. */
static void note_changed(sweep *s, uint32_t input, uint64_t count, uint64_t first)
{
    if (count > 0 && s->changed == 0) {
        s->changed_input = input;
        s->changed_first = first;
    }
    s->changed += count;
}

/* The element index (within the chunk) of the first element of a 65536-element block of a
 * 32-bit input that differs from what was written, or 65536. */
static uint32_t first_unlike32(const uint8_t *p, uint32_t was)
{
    uint32_t l = 0;
    while (l < 65536 && load_u32(p + 4 * (size_t)l) == was + l) {
        ++l;
    }
    return l;
}

static void fill_unary32(sweep *s, uint64_t base, uint32_t n)
{
    const uint32_t was = (uint32_t)s->filled_base;
    for (uint32_t k = 0; k < n; k += 65536) {
        uint8_t *p = s->in[0] + 4 * (size_t)k;
        uint64_t bad = 0;
        if (s->filled) {
            for (uint32_t l = 0; l < 65536; ++l) {
                bad += load_u32(p + 4 * (size_t)l) != was + k + l;
            }
        }
        if (bad > 0) {
            note_changed(s, 0, bad, k + first_unlike32(p, was + k));
        }
        const uint32_t now = (uint32_t)base + k;
        for (uint32_t l = 0; l < 65536; ++l) {
            store_u32(p + 4 * (size_t)l, now + l);
        }
    }
}

/* A 65536-element row of a 16-bit binary sweep: every b for one a. The poison is a value no
 * element of the row may hold: the complement of a op b; for a shift, the complement of the
 * mask policy's result (the result for count & 15), or 1 where that is 0 (saturation). */
static void poison_row16(const sweep *s, uint32_t a, uint8_t *o)
{
    if (s->shift) {
        uint8_t period[32];
        for (uint32_t c = 0; c < 16; ++c) {
            const uint16_t p = (uint16_t)~ref(s, a, c);
            store_u16(period + 2 * c, p != 0 ? p : 1);
        }
        for (uint32_t b = 0; b < 65536; b += 16) {
            memcpy(o + 2 * (size_t)b, period, sizeof period);
        }
    } else if (s->op == BITCTS_OP_BIT_AND) {
        for (uint32_t b = 0; b < 65536; ++b) {
            store_u16(o + 2 * (size_t)b, ~(a & b));
        }
    } else if (s->op == BITCTS_OP_BIT_OR) {
        for (uint32_t b = 0; b < 65536; ++b) {
            store_u16(o + 2 * (size_t)b, ~(a | b));
        }
    } else {
        for (uint32_t b = 0; b < 65536; ++b) {
            store_u16(o + 2 * (size_t)b, ~(a ^ b));
        }
    }
}

/* n = 2^24: 256 values of a, each with every b. B's rows are the same in every chunk, so a row
 * that is intact is not written again. */
static void fill_binary16(sweep *s, uint64_t base, uint32_t n)
{
    for (uint32_t k = 0; k < n / 65536; ++k) {
        const uint32_t a = (uint32_t)((base >> 16) + k);
        const uint32_t was = (uint32_t)((s->filled_base >> 16) + k);
        uint8_t *pa = s->in[0] + 2 * (size_t)k * 65536;
        uint8_t *pb = s->in[1] + 2 * (size_t)k * 65536;
        uint64_t bad = 0;
        if (s->filled) {
            for (uint32_t b = 0; b < 65536; ++b) {
                bad += load_u16(pa + 2 * (size_t)b) != (uint16_t)was;
            }
        }
        for (uint32_t b = 0; bad > 0 && b < 65536; ++b) {
            if (load_u16(pa + 2 * (size_t)b) != (uint16_t)was) {
                note_changed(s, 0, bad, (uint64_t)k * 65536 + b);
                break;
            }
        }
        for (uint32_t b = 0; b < 65536; ++b) {
            store_u16(pa + 2 * (size_t)b, a);
        }
        if (!s->filled || memcmp(pb, s->every_b, 2 * 65536) != 0) {
            for (uint32_t b = 0; s->filled && b < 65536; ++b) {
                const int differs = load_u16(pb + 2 * (size_t)b) != b;
                note_changed(s, 1, (uint64_t)differs, (uint64_t)k * 65536 + b);
            }
            memcpy(pb, s->every_b, 2 * 65536);
        }
        poison_row16(s, a, s->out + 2 * (size_t)k * 65536);
    }
}

/* Small sweeps (at most 2^16 elements), element by element; the poison as for poison_row16. */
static void fill_small(sweep *s, uint64_t base, uint32_t n)
{
    const uint32_t bytes = s->width / 8;
    const uint64_t out_mask = s->ob == 8 ? ~0ull : (1ull << (8 * s->ob)) - 1;
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t a, b;
        operands(s, s->filled_base + i, &a, &b);
        for (uint32_t t = 0; s->filled && t < (s->unary ? 1u : 2u); ++t) {
            const int differs = bitcts_ref_load(s->in[t] + (size_t)i * bytes, bytes) != (t ? b : a);
            note_changed(s, t, (uint64_t)differs, i);
        }
        operands(s, base + i, &a, &b);
        bitcts_ref_store(s->in[0] + (size_t)i * bytes, bytes, a);
        if (!s->unary) {
            bitcts_ref_store(s->in[1] + (size_t)i * bytes, bytes, b);
        }
        const uint64_t p = ~ref(s, a, s->shift ? b & (s->width - 1) : b) & out_mask;
        bitcts_ref_store(s->out + (size_t)i * s->ob, s->ob, p != 0 ? p : 1);
    }
}

/* Writes the chunk's inputs and its poisoned output: every element holds a value its result
 * cannot have, so an element the backend leaves unwritten cannot pass. For the 32-bit unary
 * sweeps that is 0xA5 in every byte (no count is that large), except for NOT at the one input
 * whose complement that is (0x5A5A5A5A), which holds itself. Counts in s->changed what of the
 * previous fill's inputs differs (0 on the first fill). */
static void fill_chunk(sweep *s, uint64_t base, uint32_t n)
{
    s->changed = 0;
    s->changed_base = s->filled_base;
    if (s->unary && s->width == 32) {
        fill_unary32(s, base, n);
        memset(s->out, SWEEP_POISON, (size_t)n * s->ob);
        const uint32_t own = 0x5A5A5A5Au;
        if (s->op == BITCTS_OP_BIT_NOT && own >= base && own - base < n) {
            store_u32(s->out + 4 * (size_t)(own - base), own);
        }
    } else if (!s->unary && s->width == 16) {
        fill_binary16(s, base, n);
    } else {
        fill_small(s, base, n);
    }
    s->filled = 1;
    s->filled_base = base;
}

/* ---- checking a chunk ---- */

static void note_first_bad(sweep *s, uint64_t e)
{
    if (s->mismatches == 0) {
        s->first_bad = e;
    }
}

/* Unary 32-bit: element base + k * 65536 + l is composed of the reference's result for its top
 * 16 bits (computed once per k) and the table's for its low 16 bits: the table stays in cache
 * and each inner loop is one vectorised compare per element. The first mismatch is looked for
 * on a second pass only when there is one. */
static uint32_t unary32_part(const sweep *s, uint32_t high16)
{
    const uint32_t v = (uint32_t)ref(s, (uint64_t)high16 << 16, 0);
    return s->op == BITCTS_OP_BIT_COUNT ? v : v & 0xFFFF0000u;
}

static uint64_t count_unary32(const sweep *s, const uint8_t *o, uint32_t part)
{
    const uint32_t *t = s->table;
    uint64_t bad = 0;
    if (s->op != BITCTS_OP_BIT_COUNT) {
        for (uint32_t l = 0; l < 65536; ++l) {
            bad += load_u32(o + 4 * (size_t)l) != (part | t[l]);
        }
    } else if (s->ob == 1) {
        for (uint32_t l = 0; l < 65536; ++l) {
            bad += o[l] != (uint8_t)(part + t[l]);
        }
    } else {
        for (uint32_t l = 0; l < 65536; ++l) {
            bad += load_u32(o + 4 * (size_t)l) != part + t[l];
        }
    }
    return bad;
}

static void check_unary32(sweep *s, uint64_t base, uint32_t n)
{
    for (uint32_t k = 0; k < n / 65536; ++k) {
        const uint32_t high16 = (uint32_t)(base >> 16) + k;
        const uint32_t part = unary32_part(s, high16);
        const uint8_t *o = s->out + (size_t)k * 65536 * s->ob;
        const uint64_t bad = count_unary32(s, o, part);
        for (uint32_t l = 0; bad > 0 && s->mismatches == 0 && l < 65536; ++l) {
            const uint32_t want =
                s->op == BITCTS_OP_BIT_COUNT ? part + s->table[l] : part | s->table[l];
            if (bitcts_ref_load(o + (size_t)l * s->ob, s->ob) !=
                (s->ob == 1 ? (uint8_t)want : want)) {
                s->first_bad = ((uint64_t)high16 << 16) | l;
                break;
            }
        }
        s->mismatches += bad;
    }
}

/* 16-bit AND/OR/XOR: for each a of the chunk, the expected row over every b is the high-byte
 * result of (a >> 8, b >> 8) or'ed with the low-byte result of (a & 255, b & 255). */
static void check_binary16(sweep *s, uint64_t base, uint32_t n)
{
    uint16_t high[256], low[256];
    for (uint32_t k = 0; k < n / 65536; ++k) {
        const uint32_t a = (uint32_t)((base >> 16) + k);
        for (uint32_t y = 0; y < 256; ++y) {
            high[y] = (uint16_t)s->table[65536 + (a >> 8) * 256 + y];
            low[y] = (uint16_t)s->table[(a & 255) * 256 + y];
        }
        const uint8_t *row = s->out + 2 * (size_t)k * 65536;
        uint64_t bad = 0;
        for (uint32_t bh = 0; bh < 256; ++bh) {
            const uint8_t *o = row + 2 * (size_t)bh * 256;
            for (uint32_t bl = 0; bl < 256; ++bl) {
                bad += load_u16(o + 2 * (size_t)bl) != (uint16_t)(high[bh] | low[bl]);
            }
        }
        for (uint32_t b = 0; bad > 0 && s->mismatches == 0 && b < 65536; ++b) {
            if (load_u16(row + 2 * (size_t)b) != (uint16_t)(high[b >> 8] | low[b & 255])) {
                s->first_bad = ((uint64_t)a << 16) | b;
                break;
            }
        }
        s->mismatches += bad;
    }
}

/* 16-bit shifts: for each a, counts below 16 are asserted; the other 65520 counts are recorded
 * and classified against the mask policy (the result for count & 15) and saturation (0). */
static void check_shift16(sweep *s, uint64_t base, uint32_t n)
{
    for (uint32_t k = 0; k < n / 65536; ++k) {
        const uint32_t a = (uint32_t)((base >> 16) + k);
        uint16_t by_count[16];
        for (uint32_t c = 0; c < 16; ++c) {
            by_count[c] = (uint16_t)ref(s, a, c);
        }
        const uint8_t *row = s->out + 2 * (size_t)k * 65536;
        for (uint32_t c = 0; c < 16; ++c) {
            if (load_u16(row + 2 * (size_t)c) != by_count[c]) {
                note_first_bad(s, ((uint64_t)a << 16) | c);
                ++s->mismatches;
            }
        }
        uint64_t mask = 0, saturate = 0;
        for (uint32_t block = 1; block < 4096; ++block) {
            const uint8_t *o = row + 2 * (size_t)block * 16;
            for (uint32_t c = 0; c < 16; ++c) {
                const uint16_t v = load_u16(o + 2 * (size_t)c);
                mask += v == by_count[c];
                saturate += v == 0;
            }
        }
        s->oob += 65536 - 16;
        s->oob_mask += mask;
        s->oob_saturate += saturate;
    }
}

/* Small sweeps (at most 2^16 elements): element by element through the reference. */
static void check_small(sweep *s, uint64_t base, uint32_t n)
{
    for (uint32_t i = 0; i < n; ++i) {
        uint64_t a, b;
        operands(s, base + i, &a, &b);
        const uint64_t actual = load_out(s, i);
        if (s->shift && b >= s->width) {
            ++s->oob;
            s->oob_mask += actual == ref(s, a, b & (s->width - 1));
            s->oob_saturate += actual == 0;
        } else if (actual != ref(s, a, b)) {
            note_first_bad(s, base + i);
            ++s->mismatches;
        }
    }
}

static void check_chunk(sweep *s, uint64_t base, uint32_t n)
{
    if (s->unary && s->width == 32) {
        check_unary32(s, base, n);
    } else if (!s->unary && s->width == 16 && s->shift) {
        check_shift16(s, base, n);
    } else if (!s->unary && s->width == 16) {
        check_binary16(s, base, n);
    } else {
        check_small(s, base, n);
    }
    XXH3_128bits_update(&s->digest, s->out, (size_t)n * s->ob);
    s->checked += n;
}

/* ---- the backend ---- */

/* After each backend call: its guards and the description it was lent. 1 (with s->violation
 * naming the call, the buffer and the bytes or the field) when the call broke either. */
static int call_broke(sweep *s, const char *call)
{
    char why[400];
    if (s->violation[0] != '\0') {
        return 1;
    }
    if (bitcts_guard_set_check(&s->guards, s->pass, &s->desc, s->scratch, why, sizeof why)) {
        snprintf(s->violation, sizeof s->violation, "%s %s%s", call, why,
                 s->pass != 0 ? " (seen with the complementary guard bytes)" : "");
        return 1;
    }
    return bitcts_lent_desc_changed(&s->lent, call, s->violation, sizeof s->violation);
}

/* One call, timed with the host's clock, its phase marked. */
static void call_begins(int64_t call, double *t0)
{
    bitcts_supervise_mark('P', call);
    *t0 = bitcts_clock_now();
}

static void call_ends(sweep *s, double t0)
{
    s->backend_s += bitcts_clock_now() - t0;
    bitcts_supervise_mark('C', -1);
}

/* Runs one call (s->desc, guards armed with s->pass); each backend call is checked when it returns.
 * Returns the backend's status; a broken call leaves s->violation. */
static int32_t run_call(sweep *s)
{
    const bitcts_plugin_table *t = s->backend.table;
    const bitcts_abi_operator_desc *desc = bitcts_lent_desc_lend(&s->lent, &s->desc, s->calls);
    const void *inputs[2] = {s->in[0], s->in[1]};
    void *op = NULL;
    double t0 = 0;
    bitcts_guard_set_arm(&s->guards, s->pass);
    call_begins(BITCTS_SUPERVISE_CALL_OPERATOR_CREATE, &t0);
    int32_t st =
        desc != NULL ? t->operator_create(s->instance, desc, &op) : BITCTS_ABI_E_OUT_OF_MEMORY;
    call_ends(s, t0);
    if (!call_broke(s, "operator_create") && st == BITCTS_ABI_OK && s->timing != NULL) {
        uint64_t ns = 0;
        call_begins(BITCTS_SUPERVISE_CALL_TIME_EXECUTE, &t0);
        st = s->timing->time_execute(s->instance, op, inputs, s->out, 1, &ns);
        call_ends(s, t0);
        s->device_s += 1e-9 * (double)ns;
        (void)call_broke(s, "time_execute");
    } else if (s->violation[0] == '\0' && st == BITCTS_ABI_OK) {
        call_begins(BITCTS_SUPERVISE_CALL_OPERATOR_EXECUTE, &t0);
        st = t->operator_execute(s->instance, op, inputs, s->out);
        call_ends(s, t0);
        (void)call_broke(s, "operator_execute");
    }
    if (op != NULL) {
        call_begins(BITCTS_SUPERVISE_CALL_OPERATOR_DESTROY, &t0);
        t->operator_destroy(s->instance, op);
        call_ends(s, t0);
        (void)call_broke(s, "operator_destroy");
    }
    return st;
}

/* The chunk that element `at` belongs to (its first element). */
static uint64_t chunk_of(const sweep *s, uint64_t at)
{
    return at - at % s->chunk;
}

/* What a line says of the call at `at`: nothing when a call is the whole chunk, else "the part
 * over elements A to B: ". */
static void part_words(const sweep *s, uint64_t at, char *out, size_t cap)
{
    out[0] = '\0';
    if (s->call < s->chunk) {
        snprintf(out, cap, "the part over elements %llu to %llu: ", (unsigned long long)at,
                 (unsigned long long)(at + s->call - 1));
    }
}

/* Sends what went wrong in the call at `at`, if anything: V <chunk> <text> when the backend
 * broke what it was lent, B <chunk> <status> <text> when it refused. Returns 1 when it sent. */
static int call_failed(sweep *s, uint64_t at, int32_t st)
{
    char part[96];
    part_words(s, at, part, sizeof part);
    if (s->violation[0] != '\0') {
        bitcts_supervise_sendf("V %llu %s%s", (unsigned long long)chunk_of(s, at), part,
                               s->violation);
        return 1;
    }
    if (st != BITCTS_ABI_OK) {
        char why[BITCTS_BACKEND_TEXT];
        bitcts_backend_last_error(&s->backend, s->instance, why, sizeof why);
        bitcts_supervise_sendf("B %llu %d %s%s (%s)", (unsigned long long)chunk_of(s, at), st, part,
                               why, bitcts_status_name(st));
        return 1;
    }
    return 0;
}

/* Fills the call at `at`; 1 (a V line sent for the call before) when that call's inputs were
 * changed by its calls. */
static int fill_checked(sweep *s, uint64_t at)
{
    const double t0 = bitcts_clock_now();
    fill_chunk(s, at, s->call);
    s->fill_s += bitcts_clock_now() - t0;
    if (s->changed == 0) {
        return 0;
    }
    char part[96];
    part_words(s, s->changed_base, part, sizeof part);
    bitcts_supervise_sendf(
        "V %llu %sthe backend changed the %s buffer, an input, during the %s calls "
        "(operator_create, %s, operator_destroy): %llu element%s differ%s, the first at element "
        "%llu",
        (unsigned long long)chunk_of(s, s->changed_base), part,
        bitcts_role_name(s->unary ? 1 : 2, s->changed_input),
        s->call < s->chunk ? "part's" : "chunk's",
        s->timing != NULL ? "time_execute" : "operator_execute", (unsigned long long)s->changed,
        s->changed > 1 ? "s" : "", s->changed > 1 ? "" : "s",
        (unsigned long long)(s->changed_base + s->changed_first));
    return 1;
}

/* Fills, runs and checks the call at `at`; 1 when it failed (a line sent). */
static int sweep_call(sweep *s, uint64_t at)
{
    if (fill_checked(s, at) != 0) {
        return 1;
    }
    s->pass = (uint32_t)(s->calls & 1);
    if (call_failed(s, at, run_call(s)) != 0) {
        return 1;
    }
    const double t0 = bitcts_clock_now();
    check_chunk(s, at, s->call);
    s->check_s += bitcts_clock_now() - t0;
    ++s->calls;
    return 0;
}

/* A sweep of one call runs it a second time with the complementary guard bytes (every byte a
 * stray write may store differs from one of the two patterns) and must get the same output. */
static int run_again(sweep *s, uint64_t at)
{
    const size_t bytes = (size_t)s->call * s->ob;
    const XXH128_hash_t first = XXH3_128bits(s->out, bytes);
    if (fill_checked(s, at) != 0) {
        return 1;
    }
    s->pass = 1;
    if (call_failed(s, at, run_call(s)) != 0) {
        return 1;
    }
    if (!XXH128_isEqual(first, XXH3_128bits(s->out, bytes))) {
        bitcts_supervise_sendf("V %llu a second execution of the chunk on the same inputs wrote "
                               "other output bytes than the first (the backend is "
                               "nondeterministic or wrong in some calls only)",
                               (unsigned long long)chunk_of(s, at));
        return 1;
    }
    return 0;
}

/* Every chunk, call by call: fill (checking the previous call's inputs), run, check; the
 * guards' pattern alternates from call to call. After the last, its inputs are checked by one
 * more fill. */
static void sweep_chunks(sweep *s)
{
    const uint64_t step = (uint64_t)s->chunk * (s->cfg->every > 1 ? s->cfg->every : 1);
    uint64_t last = 0;
    XXH3_128bits_reset(&s->digest);
    for (uint64_t base = 0; base < s->total; base += step) {
        bitcts_supervise_sendf("N %llu", (unsigned long long)base);
        for (uint64_t at = base; at < base + s->chunk; at += s->call) {
            if (sweep_call(s, at) != 0) {
                return;
            }
            last = at;
        }
        ++s->chunks;
    }
    if (s->calls == 1 && run_again(s, last) != 0) {
        return;
    }
    (void)fill_checked(s, last);
}

/* ---- the child ---- */

/* Sends the backend's identity; 1 when it has device memory of its own (device_memory_mib). */
static int send_identity(sweep *s)
{
    json_t *id = bitcts_backend_identity_json(&s->backend);
    json_t *device = bitcts_backend_device_json(&s->backend, s->instance);
    const int memory = json_object_get(device, "device_memory_mib") != NULL;
    json_object_set_new(id, "device", device);
    char *text = id != NULL ? json_dumps(id, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
    json_decref(id);
    if (text != NULL) {
        char *line = malloc(strlen(text) + 3);
        if (line != NULL) {
            snprintf(line, strlen(text) + 3, "I %s", text);
            bitcts_supervise_send(line);
            free(line);
        }
        free(text);
    }
    return memory;
}

/* Loads the backend, creates the instance, reads what it is; a refusal is an S line. */
static int sweep_open(sweep *s, const bitcts_backend_spec *spec)
{
    char err[1024];
    bitcts_supervise_mark('L', -1);
    int st = bitcts_backend_load(spec, &s->backend, err, sizeof err);
    if (st == BITCTS_OK) {
        bitcts_supervise_mark('I', -1);
        st = bitcts_backend_instance(&s->backend, &s->instance, err, sizeof err);
    }
    if (st == BITCTS_OK) {
        bitcts_supervise_mark('Q', -1);
        st = bitcts_backend_query(&s->backend, s->instance, err, sizeof err);
    }
    if (st != BITCTS_OK) {
        bitcts_supervise_sendf("S %d %s", st, err);
        return -1;
    }
    const bitcts_plugin_table *t = s->backend.table;
    s->timing = t->get_extension != NULL ? t->get_extension(BITCTS_ABI_EXT_DEVICE_TIMING) : NULL;
    if (s->timing != NULL &&
        (s->timing->struct_size < sizeof *s->timing || s->timing->time_execute == NULL)) {
        s->timing = NULL; /* malformed: executed the ordinary way rather than trusted */
    }
    bitcts_supervise_mark('C', -1);
    const int memory = send_identity(s);
    bitcts_supervise_sendf("T %d", s->timing != NULL);
    s->chunk = s->total < SWEEP_CHUNK ? (uint32_t)s->total : SWEEP_CHUNK;
    s->call =
        s->timing != NULL || memory || s->chunk <= SWEEP_HOST_CALL ? s->chunk : SWEEP_HOST_CALL;
    return 0;
}

/* A call's description and its buffers, each in a guarded mapping of its own. */
static int map_buffers(sweep *s, uint32_t n, char *err, size_t cap)
{
    memset(&s->desc, 0, sizeof s->desc);
    s->desc.op = s->op;
    s->desc.input_count = s->unary ? 1 : 2;
    for (uint32_t k = 0; k < s->desc.input_count; ++k) {
        bitcts_tensor_make_packed(s->cfg->type, 1, &n, &s->desc.inputs[k]);
    }
    bitcts_tensor_make_packed(s->cfg->out_type, 1, &n, &s->desc.output);
    if (bitcts_guard_choose_zone(0, err, cap) != 0) {
        return -1;
    }
    for (uint32_t t = 0; t < 3; ++t) {
        if (t == 1 && s->unary) {
            continue;
        }
        const bitcts_tensor_desc *d = t < 2 ? &s->desc.inputs[t] : &s->desc.output;
        const char *name = bitcts_role_name(s->desc.input_count, t < 2 ? t : s->desc.input_count);
        if (bitcts_guard_map(d->total_tensor_size_in_bytes, bitcts_guard_zone(),
                             BITCTS_GUARD_KIND_BACKEND, name, 0, &s->maps[t]) != 0) {
            snprintf(err, cap, "out of memory for the sweep's buffers");
            return -1;
        }
        s->guards.bufs[t] = &s->maps[t];
    }
    s->in[0] = s->maps[0].data;
    s->in[1] = s->maps[1].data;
    s->out = s->maps[2].data;
    const size_t guard_bytes = (size_t)bitcts_guard_set_bytes(&s->guards);
    s->guards.expect = malloc(guard_bytes);
    s->scratch = malloc(guard_bytes);
    if (s->guards.expect == NULL || s->scratch == NULL) {
        snprintf(err, cap, "out of memory for the sweep's buffers");
        return -1;
    }
    bitcts_guard_set_draw(&s->guards, SWEEP_SEED + ((uint64_t)s->op << 16) +
                                          ((uint64_t)s->cfg->type << 8) + s->cfg->out_type);
    return 0;
}

static int sweep_alloc(sweep *s)
{
    char err[512];
    if (map_buffers(s, s->call, err, sizeof err) != 0) {
        bitcts_supervise_sendf("E %s", err);
        return -1;
    }
    if (build_tables(s) != 0) {
        bitcts_supervise_send("E out of memory for the sweep's buffers");
        return -1;
    }
    return 0;
}

static void send_result(sweep *s)
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(&s->digest));
    char digest[33];
    for (int i = 0; i < 16; ++i) {
        snprintf(digest + 2 * i, 3, "%02x", c.digest[i]);
    }
    bitcts_supervise_sendf("R %llu %llu %llu %llu %llu %llu %llu %.9g %.9g %.9g %.9g %s",
                           (unsigned long long)s->checked, (unsigned long long)s->chunks,
                           (unsigned long long)s->mismatches, (unsigned long long)s->first_bad,
                           (unsigned long long)s->oob, (unsigned long long)s->oob_mask,
                           (unsigned long long)s->oob_saturate, s->backend_s,
                           s->timing != NULL ? s->device_s : -1.0, s->fill_s, s->check_s, digest);
}

void bitcts__sweep_child_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    const bitcts__perf_job *job = arg;
    const bitcts_sweep_config *cfg = job->cfg;
    bitcts_supervise_child_start(chan, nonce, status);
    sweep s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.op = cfg->op;
    s.width = bitcts_dtype_size(cfg->type) * 8;
    s.ob = bitcts_dtype_size(cfg->out_type);
    s.unary = bitcts_op_input_count(s.op) == 1;
    s.shift = bitcts_op_is_shift(s.op);
    s.total = 1ull << (s.unary ? s.width : 2 * s.width);
    if (sweep_open(&s, job->spec) == 0) {
        if (sweep_alloc(&s) == 0) {
            sweep_chunks(&s);
            send_result(&s);
        }
        bitcts_supervise_mark('D', -1);
        s.backend.table->instance_destroy(s.instance);
        bitcts_backend_shutdown(&s.backend);
    }
    for (int t = 0; t < 3; ++t) {
        bitcts_guard_unmap(&s.maps[t]);
    }
    bitcts_lent_desc_free(&s.lent);
    free(s.guards.expect);
    free(s.scratch);
    free(s.table);
    free(s.every_b);
    bitcts_supervise_mark('X', -1);
    _exit(0);
}
