/* SPDX-License-Identifier: MIT */
/* The bench's guarded buffers (harness/perf/bench_buffers.h). Placing a buffer smaller than its
 * mapping moves the guard after it over bench data: that data is kept aside (at most a page)
 * and put back before the next placement, so the data never changes and no copy of it is made.
 * The inputs are checked by their XXH3-128 (one read of each, no copy kept). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memcmp, memcpy */

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_buffers.h"

static const char *const buffer_names[3] = {"A", "B", "Output"};

int bitcts_bench_buffers_map(bitcts_bench_buffers *b, uint64_t cap_in, uint64_t cap_out,
                             uint64_t seed, char *err, size_t cap)
{
    memset(b, 0, sizeof *b);
    if (bitcts_guard_choose_zone(0, err, cap) != 0) {
        return -1;
    }
    const uint64_t max_guard = bitcts_guard_set_max_bytes();
    b->caps[0] = b->caps[1] = cap_in;
    b->caps[2] = cap_out;
    int bad = 0;
    for (int t = 0; t < 3; ++t) {
        bad |= bitcts_guard_map(b->caps[t], bitcts_guard_zone(), BITCTS_GUARD_KIND_BACKEND,
                                buffer_names[t], 0, &b->maps[t]);
        b->saved[t] = malloc((size_t)max_guard);
        bad |= b->saved[t] == NULL;
    }
    bad |=
        bitcts_guard_map(cap_out, 0, BITCTS_GUARD_KIND_HARNESS, "expected output", 0, &b->expected);
    b->guards.expect = malloc((size_t)max_guard);
    b->scratch = malloc((size_t)max_guard);
    if (bad || b->guards.expect == NULL || b->scratch == NULL) {
        snprintf(err, cap, "cannot map %llu MiB of buffers",
                 (unsigned long long)((2 * cap_in + 2 * cap_out) >> 20));
        return -1;
    }
    b->seed = seed;
    b->a = b->maps[0].data;
    b->b = b->maps[1].data;
    b->out = b->maps[2].data;
    b->ref = b->expected.data;
    b->full.input_count = 2;
    b->full.inputs[0].total_tensor_size_in_bytes = cap_in;
    b->full.inputs[1].total_tensor_size_in_bytes = cap_in;
    b->full.output.total_tensor_size_in_bytes = cap_out;
    b->at = &b->full;
    return bitcts_bench_buffers_place(b, NULL);
}

/* Moves the guard after buffer t to `size`: the data under the old guard back, the data under
 * the new one aside. */
static int place_one(bitcts_bench_buffers *b, int t, uint64_t size)
{
    size_t after = 0;
    uint8_t *g = bitcts_guard_after(&b->maps[t], &after);
    memcpy(g, b->saved[t], b->saved_len[t]);
    if (bitcts_guard_reuse(&b->maps[t], size, bitcts_guard_zone(), BITCTS_GUARD_KIND_BACKEND,
                           buffer_names[t], 0) != 0) {
        b->saved_len[t] = 0;
        return -1;
    }
    g = bitcts_guard_after(&b->maps[t], &after);
    const uint64_t data_after = b->caps[t] - size;
    b->saved_len[t] = data_after < after ? (size_t)data_after : after;
    memcpy(b->saved[t], g, b->saved_len[t]);
    return 0;
}

/* The inputs' digests as placed for a call (none for the whole buffers: the stream extension's
 * calls are checked for their guards only). */
static void hash_inputs(bitcts_bench_buffers *b)
{
    for (uint32_t t = 0; t < 2; ++t) {
        const XXH128_hash_t h =
            t < b->at->input_count && b->at != &b->full
                ? XXH3_128bits(b->maps[t].data, (size_t)b->at->inputs[t].total_tensor_size_in_bytes)
                : (XXH128_hash_t){0, 0};
        b->in_hash[t][0] = h.low64;
        b->in_hash[t][1] = h.high64;
    }
}

int bitcts_bench_buffers_place(bitcts_bench_buffers *b, const bitcts_op_desc *d)
{
    b->at = d != NULL ? d : &b->full;
    const uint64_t sizes[3] = {b->at->inputs[0].total_tensor_size_in_bytes,
                               b->at->inputs[1].total_tensor_size_in_bytes,
                               b->at->output.total_tensor_size_in_bytes};
    for (int t = 0; t < 3; ++t) {
        const int used = t != 1 || b->at->input_count == 2;
        if (used && place_one(b, t, sizes[t]) != 0) {
            return -1;
        }
        b->guards.bufs[t] = used ? &b->maps[t] : NULL;
    }
    bitcts_guard_set_draw(&b->guards, b->seed);
    hash_inputs(b);
    return 0;
}

void bitcts_bench_buffers_expected_writable(bitcts_bench_buffers *b, int writable)
{
    bitcts_guard_protect(&b->expected, !writable);
}

/* The complement of n bytes, a word at a time. */
static void complement(uint8_t *out, const uint8_t *in, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, in + i, 8);
        v = ~v;
        memcpy(out + i, &v, 8);
    }
    for (; i < n; ++i) {
        out[i] = (uint8_t)~in[i];
    }
}

/* The output's element bytes complemented, row by row (a 2-D output may pad its rows), the
 * padding as the expected output has it. */
static void poison_output(bitcts_bench_buffers *b)
{
    const bitcts_tensor_desc *o = &b->at->output;
    const size_t bytes = (size_t)o->total_tensor_size_in_bytes;
    const size_t w = bitcts_dtype_size(o->data_type);
    const int rows = o->has_strides && o->dimension_count == 2 && o->strides[1] == 1;
    const size_t pitch = rows ? (size_t)o->strides[0] * w : bytes;
    const size_t used = rows ? (size_t)o->sizes[1] * w : bytes;
    for (size_t r = 0; r < bytes && pitch > 0; r += pitch) {
        const size_t n = bytes - r < used ? bytes - r : used;
        complement(b->out + r, b->ref + r, n);
        const size_t pad = bytes - r - n < pitch - n ? bytes - r - n : pitch - n;
        memcpy(b->out + r + n, b->ref + r + n, pad);
    }
}

void bitcts_bench_buffers_arm(bitcts_bench_buffers *b, int poison)
{
    if (poison) {
        poison_output(b);
    }
    bitcts_guard_set_arm(&b->guards, (uint32_t)(b->calls & 1));
}

/* The output against the expected: 1 with why when a byte differs. */
static int output_differs(const bitcts_bench_buffers *b, const char *call, char *why, size_t cap)
{
    const size_t bytes = (size_t)b->at->output.total_tensor_size_in_bytes;
    if (memcmp(b->out, b->ref, bytes) == 0) {
        return 0;
    }
    size_t first = bytes, count = 0;
    for (size_t i = 0; i < bytes; ++i) {
        if (b->out[i] != b->ref[i]) {
            first = count == 0 ? i : first;
            ++count;
        }
    }
    snprintf(why, cap,
             "%s: %zu of %zu output bytes differ from the expected output, the first at byte %zu "
             "(expected 0x%02x, got 0x%02x; the output was poisoned: every element byte the "
             "complement of the expected one)",
             call, count, bytes, first, b->ref[first], b->out[first]);
    return 1;
}

const char *bitcts_bench_buffers_check(bitcts_bench_buffers *b, const char *call, int output,
                                       char *why, size_t cap)
{
    const uint32_t pass = (uint32_t)(b->calls++ & 1);
    char text[400];
    if (bitcts_guard_set_check(&b->guards, pass, b->at, b->scratch, text, sizeof text)) {
        snprintf(why, cap, "%s %s%s", call, text,
                 pass != 0 ? " (seen with the complementary guard bytes)" : "");
        return BITCTS_BENCH_CHECK_GUARD;
    }
    const uint64_t was[2][2] = {{b->in_hash[0][0], b->in_hash[0][1]},
                                {b->in_hash[1][0], b->in_hash[1][1]}};
    hash_inputs(b);
    for (uint32_t t = 0; t < b->at->input_count; ++t) {
        if (was[t][0] != b->in_hash[t][0] || was[t][1] != b->in_hash[t][1]) {
            snprintf(why, cap,
                     "%s changed the %s buffer, an input (of %llu bytes: their XXH3-128 differs "
                     "from the one taken before the call)",
                     call, buffer_names[t],
                     (unsigned long long)b->at->inputs[t].total_tensor_size_in_bytes);
            return BITCTS_BENCH_CHECK_INPUT;
        }
    }
    return output && output_differs(b, call, why, cap) ? BITCTS_BENCH_CHECK_WRONG : NULL;
}

void bitcts_bench_buffers_free(bitcts_bench_buffers *b)
{
    for (int t = 0; t < 3; ++t) {
        bitcts_guard_unmap(&b->maps[t]);
        free(b->saved[t]);
        b->saved[t] = NULL;
    }
    bitcts_guard_unmap(&b->expected);
    free(b->guards.expect);
    free(b->scratch);
    b->guards.expect = b->scratch = NULL;
}
