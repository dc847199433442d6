/* SPDX-License-Identifier: MIT */
/* The bench's guarded buffers (harness/perf/bench_buffers.h). Placing a buffer smaller than its
 * mapping moves the guard after it over bench data: that data is kept aside (at most a page)
 * and put back before the next placement, so the data never changes and no copy of it is made.
 * The inputs are checked by their XXH3-128 (one read of each, no copy kept). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc */
#include <string.h> /* memcmp, memcpy */
#include <unistd.h> /* close */

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

/* The XXH3-128 of n bytes, or with a sample of the output, of BITCTS_BENCH_INPUT_CHUNKS chunks
 * spread evenly over them (a large input read whole after every call would cost more than the
 * calls). */
static XXH128_hash_t hash_bytes(const bitcts_bench_buffers *b, const uint8_t *p, size_t n)
{
    const size_t chunks = BITCTS_BENCH_INPUT_CHUNKS;
    const size_t len = BITCTS_BENCH_INPUT_CHUNK_BYTES;
    if (b->sample.count == 0 || n <= chunks * len) {
        return XXH3_128bits(p, n);
    }
    XXH3_state_t state;
    (void)XXH3_128bits_reset(&state);
    for (size_t k = 0; k < chunks; ++k) {
        const size_t at = (n - len) / (chunks - 1) * k;
        (void)XXH3_128bits_update(&state, p + at, len);
    }
    return XXH3_128bits_digest(&state);
}

/* The inputs' digests as placed for a call (none for the whole buffers: the stream extension's
 * calls are checked for their guards only). */
static void hash_inputs(bitcts_bench_buffers *b)
{
    for (uint32_t t = 0; t < 2; ++t) {
        const XXH128_hash_t h =
            t < b->at->input_count && b->at != &b->full
                ? hash_bytes(b, b->maps[t].data,
                             (size_t)b->at->inputs[t].total_tensor_size_in_bytes)
                : (XXH128_hash_t){0, 0};
        b->in_hash[t][0] = h.low64;
        b->in_hash[t][1] = h.high64;
    }
}

void bitcts_bench_buffers_sample(bitcts_bench_buffers *b, const bitcts_bench_sample *s)
{
    if (s != NULL) {
        b->sample = *s;
    } else {
        b->sample.count = 0;
    }
    hash_inputs(b);
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

/* The output's element bytes complemented in [start, end) (which starts on a row), row by row
 * (a 2-D output may pad its rows), the padding as the expected output has it. */
static void poison_range(bitcts_bench_buffers *b, size_t start, size_t end)
{
    const bitcts_tensor_desc *o = &b->at->output;
    const size_t w = bitcts_dtype_size(o->data_type);
    const int rows = o->has_strides && o->dimension_count == 2 && o->strides[1] == 1;
    const size_t pitch = rows ? (size_t)o->strides[0] * w : end - start;
    const size_t used = rows ? (size_t)o->sizes[1] * w : end - start;
    for (size_t r = start; r < end && pitch > 0; r += pitch) {
        const size_t n = end - r < used ? end - r : used;
        bitcts_guard_complement(b->out + r, b->ref + r, n);
        const size_t pad = end - r - n < pitch - n ? end - r - n : pitch - n;
        memcpy(b->out + r + n, b->ref + r + n, pad);
    }
}

/* The whole output poisoned, or the bands of the sample. */
static void poison_output(bitcts_bench_buffers *b)
{
    const size_t bytes = (size_t)b->at->output.total_tensor_size_in_bytes;
    if (b->sample.count == 0) {
        poison_range(b, 0, bytes);
    }
    for (uint32_t k = 0; k < b->sample.count; ++k) {
        const size_t start = (size_t)b->sample.start[k];
        const size_t end = start + (size_t)b->sample.len[k];
        poison_range(b, start, end < bytes ? end : bytes);
    }
}

void bitcts_bench_buffers_arm(bitcts_bench_buffers *b, int poison)
{
    if (poison) {
        poison_output(b);
    }
    bitcts_guard_set_arm(&b->guards, (uint32_t)(b->calls & 1));
}

/* Counts the bytes of [start, end) that differ from the expected output; the first in *first. */
static size_t count_differences(const bitcts_bench_buffers *b, size_t start, size_t end,
                                size_t *first)
{
    if (memcmp(b->out + start, b->ref + start, end - start) == 0) {
        return 0;
    }
    size_t count = 0;
    for (size_t i = start; i < end; ++i) {
        if (b->out[i] != b->ref[i]) {
            *first = count == 0 && *first == (size_t)-1 ? i : *first;
            ++count;
        }
    }
    return count;
}

/* The output against the expected (the whole of it, or the sample's bands): 1 with why when a
 * byte differs. */
static int output_differs(const bitcts_bench_buffers *b, const char *call, char *why, size_t cap)
{
    const size_t bytes = (size_t)b->at->output.total_tensor_size_in_bytes;
    size_t first = (size_t)-1, count = 0, checked = 0;
    if (b->sample.count == 0) {
        count = count_differences(b, 0, bytes, &first);
        checked = bytes;
    }
    for (uint32_t k = 0; k < b->sample.count; ++k) {
        const size_t start = (size_t)b->sample.start[k];
        const size_t len = (size_t)b->sample.len[k];
        const size_t end = start + len < bytes ? start + len : bytes;
        count += count_differences(b, start, end, &first);
        checked += end - start;
    }
    if (count == 0) {
        return 0;
    }
    char of[96] = "";
    if (b->sample.count > 0) {
        snprintf(of, sizeof of, " (%zu bytes checked in %u bands of rows)", checked,
                 b->sample.count);
    }
    snprintf(why, cap,
             "%s: %zu of %zu output bytes%s differ from the expected output, the first at byte "
             "%zu (expected 0x%02x, got 0x%02x; the output was poisoned: every element byte the "
             "complement of the expected one)",
             call, count, bytes, of, first, b->ref[first], b->out[first]);
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

int bitcts_bench_buffers_share(bitcts_bench_buffers *b, int fds[3])
{
    int t = 0;
    for (; t < 3; ++t) {
        fds[t] = bitcts_guard_share(&b->maps[t]);
        if (fds[t] < 0) {
            break;
        }
    }
    if (t == 3) {
        return 0;
    }
    while (t-- > 0) {
        close(fds[t]); /* the pages stay shared, with no one to share them */
    }
    return -1;
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
