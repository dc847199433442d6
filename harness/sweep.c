/* SPDX-License-Identifier: MIT */
/* The sweep's child: loads the backend, then feeds it every input in chunks of 2^24 elements
 * and checks every element. NOT and BIT_COUNT over every value of a 32-bit type, every shift
 * of every 16-bit value by every count (2^32 pairs), every pair of 16-bit AND/OR/XOR operands.
 * The expected values come from the reference, composed through bit-disjointness (the result
 * for hi|lo is built from the reference's results for hi and for lo, computed once), and the
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
#include "lent_desc.h"
#include "ref_ops.h"
#include "sanitize.h"
#include "supervise.h"
#include "sweep.h"

#define SWEEP_CHUNK (1u << BITCTS_SWEEP_CHUNK_LOG2)
#define SWEEP_POISON 0xA5

typedef struct sweep {
    const bitcts_sweep_config *cfg;
    bitcts_backend backend;
    void *instance;
    const bitcts_abi_device_timing_ext *timing; /* NULL: executed with operator_execute */
    uint32_t op, width, ob;                     /* width of the input in bits, output bytes */
    int unary, shift;
    uint32_t *table;  /* reference results: see build_tables */
    uint8_t *every_b; /* 16-bit binary sweeps: B's 65536 values in order, the row of each a */
    uint8_t *in[2], *out;
    XXH3_state_t digest;
    bitcts_lent_desc lent; /* the description lent to the backend */
    uint64_t total, checked, chunks, mismatches, first_bad, oob, oob_mask, oob_saturate;
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

static void fill_chunk(sweep *s, uint64_t base, uint32_t n)
{
    const uint32_t bytes = s->width / 8;
    if (s->unary && s->width == 32) {
        for (uint32_t i = 0; i < n; ++i) {
            store_u32(s->in[0] + 4 * (size_t)i, (uint32_t)(base + i));
        }
    } else if (!s->unary && s->width == 16) { /* n = 2^24: 256 values of a, each with every b */
        for (uint32_t k = 0; k < n / 65536; ++k) {
            const uint32_t a = (uint32_t)((base >> 16) + k);
            uint8_t *pa = s->in[0] + 2 * (size_t)k * 65536;
            for (uint32_t b = 0; b < 65536; ++b) {
                store_u16(pa + 2 * (size_t)b, a);
            }
            memcpy(s->in[1] + 2 * (size_t)k * 65536, s->every_b, 2 * 65536);
        }
    } else {
        for (uint32_t i = 0; i < n; ++i) {
            uint64_t a, b;
            operands(s, base + i, &a, &b);
            bitcts_ref_store(s->in[0] + (size_t)i * bytes, bytes, a);
            if (!s->unary) {
                bitcts_ref_store(s->in[1] + (size_t)i * bytes, bytes, b);
            }
        }
    }
    memset(s->out, SWEEP_POISON, (size_t)n * s->ob);
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

/* Runs one chunk: packed 1-D tensors of n elements. Returns the backend's status. */
static int32_t run_chunk(sweep *s, uint32_t n)
{
    const bitcts_plugin_table *t = s->backend.table;
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = s->op;
    d.input_count = s->unary ? 1 : 2;
    for (uint32_t k = 0; k < d.input_count; ++k) {
        bitcts_tensor_make_packed(s->cfg->type, 1, &n, &d.inputs[k]);
    }
    bitcts_tensor_make_packed(s->cfg->out_type, 1, &n, &d.output);
    const bitcts_abi_operator_desc *desc = bitcts_lent_desc_lend(&s->lent, &d, s->chunks);
    const void *inputs[2] = {s->in[0], s->in[1]};
    void *op = NULL;
    const double t0 = bitcts_clock_now();
    bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_CREATE);
    int32_t st =
        desc != NULL ? t->operator_create(s->instance, desc, &op) : BITCTS_ABI_E_OUT_OF_MEMORY;
    if (st == BITCTS_ABI_OK && s->timing != NULL) {
        uint64_t ns = 0;
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_TIME_EXECUTE);
        st = s->timing->time_execute(s->instance, op, inputs, s->out, 1, &ns);
        s->device_s += 1e-9 * (double)ns;
    } else if (st == BITCTS_ABI_OK) {
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_EXECUTE);
        st = t->operator_execute(s->instance, op, inputs, s->out);
    }
    if (op != NULL) {
        bitcts_supervise_mark('P', BITCTS_SUPERVISE_CALL_OPERATOR_DESTROY);
        t->operator_destroy(s->instance, op);
    }
    s->backend_s += bitcts_clock_now() - t0;
    bitcts_supervise_mark('C', -1);
    return st;
}

static void sweep_chunks(sweep *s)
{
    const uint32_t chunk = s->total < SWEEP_CHUNK ? (uint32_t)s->total : SWEEP_CHUNK;
    const uint64_t step = (uint64_t)chunk * (s->cfg->every > 1 ? s->cfg->every : 1);
    XXH3_128bits_reset(&s->digest);
    for (uint64_t base = 0; base < s->total; base += step) {
        bitcts_supervise_sendf("N %llu", (unsigned long long)base);
        double t0 = bitcts_clock_now();
        fill_chunk(s, base, chunk);
        s->fill_s += bitcts_clock_now() - t0;
        const int32_t st = run_chunk(s, chunk);
        if (st != BITCTS_ABI_OK) {
            char why[BITCTS_BACKEND_TEXT];
            bitcts_backend_last_error(&s->backend, s->instance, why, sizeof why);
            bitcts_supervise_sendf("B %llu %d %s (%s)", (unsigned long long)base, st, why,
                                   bitcts_status_name(st));
            return;
        }
        t0 = bitcts_clock_now();
        check_chunk(s, base, chunk);
        s->check_s += bitcts_clock_now() - t0;
        ++s->chunks;
    }
}

/* ---- the child ---- */

static void send_identity(sweep *s)
{
    json_t *id = bitcts_backend_identity_json(&s->backend);
    json_object_set_new(id, "device", bitcts_backend_device_json(&s->backend, s->instance));
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
    send_identity(s);
    bitcts_supervise_sendf("T %d", s->timing != NULL);
    return 0;
}

static int sweep_alloc(sweep *s)
{
    const size_t bytes = (size_t)SWEEP_CHUNK * 4 + 64;
    s->in[0] = malloc(bytes);
    s->in[1] = s->unary ? NULL : malloc(bytes);
    s->out = malloc(bytes);
    if (s->in[0] == NULL || s->out == NULL || (!s->unary && s->in[1] == NULL) ||
        build_tables(s) != 0) {
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
    const bitcts__sweep_job *job = arg;
    bitcts_supervise_child_start(chan, nonce, status);
    sweep s;
    memset(&s, 0, sizeof s);
    s.cfg = job->cfg;
    s.op = job->cfg->op;
    s.width = bitcts_dtype_size(job->cfg->type) * 8;
    s.ob = bitcts_dtype_size(job->cfg->out_type);
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
        bitcts_backend_close(&s.backend);
    }
    free(s.in[0]);
    free(s.in[1]);
    free(s.out);
    free(s.table);
    free(s.every_b);
    bitcts_supervise_mark('X', -1);
    _exit(0);
}
