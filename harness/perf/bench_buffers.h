/* SPDX-License-Identifier: MIT */
/* The buffers `bitcts bench` hands a backend, and the checks after each of its calls. A, B and
 * the output each live in a guarded mapping (harness/sandbox/guard_mem.h) that holds the bench's
 * data for every row; a row places the guards right after its own tensors (the data they cover is
 * kept aside and put back), the calls alternate the guards' two complementary patterns
 * (harness/sandbox/guard_set.h), the output is poisoned before every call from the expected output
 * (which lives in the harness's own mapping, read-only while the backend runs), and after every
 * call the guards, the inputs (XXH3-128) and, for executions, the output are checked. All of it
 * happens between calls, never inside a timed region. Thread-safety: one thread. */
#ifndef BITCTS_HARNESS_BENCH_BUFFERS_H
#define BITCTS_HARNESS_BENCH_BUFFERS_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t, uint64_t */

#include "guard_mem.h"    /* bitcts_guard_buf */
#include "guard_set.h"    /* bitcts_guard_set */
#include "tensor_model.h" /* bitcts_op_desc */

/* What a check after a call found, as a row's check word. */
#define BITCTS_BENCH_CHECK_GUARD "GUARD" /* a write outside the buffers */
#define BITCTS_BENCH_CHECK_INPUT "INPUT" /* an input changed */
#define BITCTS_BENCH_CHECK_DESC "DESC"   /* the lent operator description changed */
#define BITCTS_BENCH_CHECK_WRONG "WRONG" /* an output differs from the expected one */

/* A sample of a large row's output: byte ranges (bands of whole rows) where the expected output
 * is computed, the output poisoned and compared; the inputs are then checked on a sample of
 * their bytes too (BITCTS_BENCH_INPUT_CHUNKS chunks spread over each). */
#define BITCTS_BENCH_SAMPLE_BANDS 64
#define BITCTS_BENCH_INPUT_CHUNKS 256
#define BITCTS_BENCH_INPUT_CHUNK_BYTES 65536
typedef struct bitcts_bench_sample {
    uint32_t count; /* 0: the whole output (no sample) */
    uint64_t start[BITCTS_BENCH_SAMPLE_BANDS];
    uint64_t len[BITCTS_BENCH_SAMPLE_BANDS];
} bitcts_bench_sample;

typedef struct bitcts_bench_buffers {
    bitcts_guard_buf maps[3]; /* A, B, Output */
    uint64_t caps[3];         /* the data each holds for the whole bench */
    uint8_t *saved[3];        /* the data under each guard after, while placed smaller */
    size_t saved_len[3];
    bitcts_guard_buf expected; /* the harness's expected output */
    bitcts_guard_set guards;
    uint8_t *scratch;
    uint64_t seed;
    uint64_t calls;             /* calls checked: the guards' pattern is calls & 1 */
    bitcts_op_desc full;        /* the placement of fills and the stream extension */
    const bitcts_op_desc *at;   /* the placement now: a row's description, or &full */
    uint64_t in_hash[2][2];     /* the inputs' XXH3-128 as placed */
    bitcts_bench_sample sample; /* the output's checked ranges (count 0: all of it) */
    uint8_t *a, *b, *out, *ref; /* the mappings' data */
} bitcts_bench_buffers;

/** Maps A and B (cap_in bytes each), the output and the expected output (cap_out), placed whole;
 * the guards' pattern comes from `seed`.
 * @return 0, or -1 with err when out of memory or address space. */
int bitcts_bench_buffers_map(bitcts_bench_buffers *b, uint64_t cap_in, uint64_t cap_out,
                             uint64_t seed, char *err, size_t cap);

/** Backs A, B and the output, just mapped, with shared memory files (bitcts_guard_share), for
 * peers timed on the same buffers: all three read-only to them (a peer writes its outputs to a
 * buffer of its own) and of a fixed size; fds gets their descriptors.
 * @return 0, or -1 (none shared) when one cannot be. */
int bitcts_bench_buffers_share(bitcts_bench_buffers *b, int fds[3]);

/** Places the guards right after the tensors of `d` (NULL: after the whole buffers, for the
 * bench's fills and the stream extension), arms them and takes the inputs' digests.
 * @return 0, or -1 when a mapping cannot change. */
int bitcts_bench_buffers_place(bitcts_bench_buffers *b, const bitcts_op_desc *d);

/** Checks only a sample of the output (the bands of `s`) and of the inputs from now on; NULL or
 * a sample of no band: everything again. Takes the inputs' digests anew. */
void bitcts_bench_buffers_sample(bitcts_bench_buffers *b, const bitcts_bench_sample *s);

/** The expected output is written by the harness between rows (1), read-only otherwise (0). */
void bitcts_bench_buffers_expected_writable(bitcts_bench_buffers *b, int writable);

/** Before a call: the guards armed with the next pattern; with `poison`, the output as handed
 * over: every element byte the complement of the expected one, the padding as expected. */
void bitcts_bench_buffers_arm(bitcts_bench_buffers *b, int poison);

/** After a call: the guards, the inputs and, with `output`, the output against the expected.
 * @return NULL when all hold, else a check word (BITCTS_BENCH_CHECK_*) with `why` naming the
 *         buffer and the bytes; the call's name starts it. */
const char *bitcts_bench_buffers_check(bitcts_bench_buffers *b, const char *call, int output,
                                       char *why, size_t cap);

/** Unmaps everything. */
void bitcts_bench_buffers_free(bitcts_bench_buffers *b);

#endif
