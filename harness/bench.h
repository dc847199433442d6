/* SPDX-License-Identifier: MIT */
/* The benchmark engine of `bitcts bench`: GB/s of a backend's operators (useful bytes: inputs
 * read once, a broadcast operand once, the output written once), median of N repetitions, for
 * each operator x element width x layout x instance, beside the memory limit measured in the
 * same run on the same buffers (the backend's bitcts_stream_v1 extension: copy and triad) and
 * beside NumPy on the same shapes. Every timed output is checked against the reference: a wrong
 * result is WRONG, never a speed. The backend is opened through the plugin host, as a run does.
 * Thread-safety: one bench per process; the backend may use threads of its own. */
#ifndef BITCTS_HARNESS_BENCH_H
#define BITCTS_HARNESS_BENCH_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint32_t, uint64_t */

#include "backend.h" /* bitcts_backend_options */

#define BITCTS_BENCH_MAX_INSTANCES 16
#define BITCTS_BENCH_MAX_REPS 1000
#define BITCTS_BENCH_SMALL 6

/* The layouts, as a list: 2-D tensors of rows x cols. */
#define BITCTS_BENCH_LAYOUT_LIST(X)                                                                \
    X(PACKED, "packed")         /* all tensors packed */                                           \
    X(PADDED, "padded")         /* rows padded by 64 bytes */                                      \
    X(TRANSPOSED, "transposed") /* A stored column-major */                                        \
    X(BCAST, "bcast")           /* B one element, broadcast */

#define BITCTS_BENCH_LAYOUT_ENUM(name, text) BITCTS_BENCH_##name,
enum { BITCTS_BENCH_LAYOUT_LIST(BITCTS_BENCH_LAYOUT_ENUM) BITCTS_BENCH_LAYOUTS };
#undef BITCTS_BENCH_LAYOUT_ENUM

/** The name of a layout ("packed"), or "?". */
const char *bitcts_bench_layout_name(int layout);

typedef struct bitcts_bench_config {
    const char *backend_spec;       /* as for bitcts run --backend */
    bitcts_backend_options options; /* given to every instance */
    uint64_t size_bytes;            /* per input */
    uint32_t reps;
    /* One instance per entry, created with threads=N; no entry: one instance as configured. */
    uint32_t threads[BITCTS_BENCH_MAX_INSTANCES];
    int thread_count;
    unsigned ops_mask;     /* bit i: bitcts_op_all[i] */
    unsigned layouts_mask; /* bit i: layout i */
    int numpy;             /* run NumPy on the same shapes */
    const char *python;    /* the interpreter for NumPy */
} bitcts_bench_config;

/** One measured row: an operator, widths and layout on one instance. */
typedef struct bitcts_bench_row {
    uint32_t op, in_type, out_type;
    int layout;
    uint32_t rows, cols;
    uint32_t threads;    /* 0: the backend's default */
    double useful_bytes; /* per execution */
    double gbps;         /* < 0: no speed (check says why) */
    double limit_gbps;   /* the limit kernel next to the row; < 0: the backend has none */
    const char *limit;   /* "triad" (two array inputs) or "copy" */
    double numpy_gbps;   /* < 0: n/a */
    const char *check;   /* "ok", "WRONG", "ERROR" or "REF-ERROR" */
} bitcts_bench_row;

/** The per-call cost of a small in-cache tensor: the default instance, and where the backend
 * lists a "scalar" variant (instance_info "variants"), that variant on one thread. */
typedef struct bitcts_bench_small {
    uint32_t op, in_type, out_type, bytes;
    double default_ns, scalar_ns; /* scalar_ns < 0: no scalar variant */
    const char *check;
} bitcts_bench_small;

typedef struct bitcts_bench_result {
    bitcts_bench_row *rows;
    size_t row_count;
    bitcts_bench_small small[BITCTS_BENCH_SMALL];
    size_t small_count;
    double copy_gbps[BITCTS_BENCH_MAX_INSTANCES];  /* limits at the start, per instance */
    double triad_gbps[BITCTS_BENCH_MAX_INSTANCES]; /* < 0: no stream extension */
    double memcpy_gbps;                            /* libc memcpy, one thread */
    char backend[256];                             /* name, vendor, version */
    char variant[64], variants[256], features[256];
    char numpy_version[32];
    char numpy_note[200];
    size_t failures; /* rows and small cases that are not "ok" */
} bitcts_bench_result;

/** Runs the benchmark. @return BITCTS_OK (whatever the checks say: see failures) or the status
 * of what stopped it (a backend that does not open, refused options, no memory), with err. */
int bitcts_bench_run(const bitcts_bench_config *cfg, bitcts_bench_result *out, char *err,
                     size_t cap);
/** The result as JSON (machine, limits, rows, small). New reference, NULL when out of memory. */
json_t *bitcts_bench_json(const bitcts_bench_config *cfg, const bitcts_bench_result *r);
void bitcts_bench_result_free(bitcts_bench_result *r);

/** Runs NumPy on the rows' shapes (one process, single-threaded) and fills numpy_gbps,
 * numpy_version and numpy_note. Internal to the bench. */
void bitcts__bench_numpy(const bitcts_bench_config *cfg, bitcts_bench_result *r);

#endif
