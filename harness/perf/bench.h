/* SPDX-License-Identifier: MIT */
/* The benchmark engine of `bitcts bench`: GB/s of a backend's operators (useful bytes: inputs
 * read once, a broadcast operand once, the output written once), median of N repetitions, for
 * each operator x element width x layout x instance, beside the limit measured in the same run
 * on the same device, and beside other libraries (peers) timed on the same shapes.
 *   * A backend with the stream extension (the cpu backend) is timed with the host's clock on
 *     host memory, next to its own copy and triad kernels (re-measured next to every row) and
 *     libc's memcpy; its peers are NumPy and PyTorch on the CPU.
 *   * A backend with the device-timing extension (vulkan) keeps the buffers on its device and
 *     times itself (timestamps), next to the device's API copy and a copy kernel measured at
 *     the start and the end; working sets of 1 GiB or more on a GPU (sized from its memory);
 *     its peers are PyTorch (CUDA), CuPy and JAX, timed with device events.
 *   * Any other backend is timed with the host's clock and has no limit.
 * Every timed output is checked (the reference, or for large device runs the cpu backend): a
 * wrong result is WRONG, never a speed. Every call gets guarded buffers, a poisoned output and a
 * lent description, and is checked after it returns (harness/perf/bench_buffers.h): a write outside
 * the buffers is GUARD, a changed input INPUT, a changed description DESC. The backend runs in
 * a sandboxed child under a watchdog (harness/sandbox/supervise.h); the peers run in Python child
 * processes (harness/perf/bench_peers.py): the CPU peers between the backend's timed calls, on its
 * own buffers (harness/perf/bench_serve.c), the GPU peers after it.
 * Thread-safety: one bench per process; the backend may use threads of its own. */
#ifndef BITCTS_HARNESS_BENCH_H
#define BITCTS_HARNESS_BENCH_H

#include <jansson.h> /* json_t */
#include <signal.h>  /* sig_atomic_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint32_t, uint64_t */

#include "backend.h"      /* bitcts_backend_options, bitcts_backend_spec */
#include "bench_host.h"   /* bitcts_bench_host */
#include "sandbox.h"      /* bitcts_sandbox_status */
#include "tensor_model.h" /* bitcts_op_desc */

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

/* What checks the timed outputs. */
#define BITCTS_BENCH_CHECK_LIST(X)                                                                 \
    X(AUTO, "auto")           /* the reference up to 64 MiB, or for the cpu backend; else cpu */   \
    X(REFERENCE, "reference") /* the scalar reference */                                           \
    X(CPU, "cpu")             /* the built-in cpu backend (conformance-tested), for large runs */

#define BITCTS_BENCH_CHECK_ENUM(name, text) BITCTS_BENCH_CHECK_##name,
enum { BITCTS_BENCH_CHECK_LIST(BITCTS_BENCH_CHECK_ENUM) BITCTS_BENCH_CHECKS };
#undef BITCTS_BENCH_CHECK_ENUM

/* The peers: (name, short column title, 1 for a device peer). */
#define BITCTS_BENCH_PEER_LIST(X)                                                                  \
    X(NUMPY, "numpy", "numpy", 0)                                                                  \
    X(TORCH_CPU, "torch-cpu", "torch", 0)                                                          \
    X(TORCH_CUDA, "torch-cuda", "torch", 1)                                                        \
    X(CUPY, "cupy", "cupy", 1)                                                                     \
    X(JAX, "jax", "jax", 1)

#define BITCTS_BENCH_PEER_ENUM(name, text, title, device) BITCTS_BENCH_PEER_##name,
enum { BITCTS_BENCH_PEER_LIST(BITCTS_BENCH_PEER_ENUM) BITCTS_BENCH_PEERS };
#undef BITCTS_BENCH_PEER_ENUM

#define BITCTS_BENCH_PEERS_AUTO (~0u) /* peers_mask: the host's or the device's peers */

/** The name of a layout ("packed"), a check ("reference"), a peer ("torch-cuda"); "?". */
const char *bitcts_bench_layout_name(int layout);
const char *bitcts_bench_check_name(int check);
const char *bitcts_bench_peer_name(int peer);
/** A peer's column title ("torch"), and whether it runs on a device (1) or the host (0). */
const char *bitcts_bench_peer_title(int peer);
int bitcts_bench_peer_is_device(int peer);

struct bitcts_bench_result;

typedef struct bitcts_bench_config {
    const char *backend_spec;       /* as for bitcts run --backend */
    bitcts_backend_options options; /* given to every instance */
    uint64_t size_bytes;            /* per input; 0: automatic */
    int quick; /* automatic sizes for a smoke test (1 MiB; 256 KiB on a device) */
    uint32_t reps;
    /* One instance per entry, created with threads=N; none: 1 and the online processors for a
     * backend with the stream extension, one instance as configured for any other. */
    uint32_t threads[BITCTS_BENCH_MAX_INSTANCES];
    int thread_count;
    unsigned ops_mask;        /* bit i: bitcts_op_all[i] */
    unsigned layouts_mask;    /* bit i: layout i */
    unsigned peers_mask;      /* bit i: peer i, or BITCTS_BENCH_PEERS_AUTO; 0: none */
    const char *python;       /* the interpreter of the peers */
    const char *peers_script; /* a script file to run instead of the embedded bench_peers.py */
    int check;                /* BITCTS_BENCH_CHECK_* */
    double timeout_s;         /* deadline of one backend call (the harness's work: 10 times) */
    double peer_timeout_s;    /* a peer that sends nothing for this long is killed */
    volatile sig_atomic_t *interrupted; /* set by a signal handler to stop; or NULL */
    const bitcts_bench_host *host;      /* set by bitcts_bench_run: the host's cache and cores */
    /* Seconds for the whole bench, 0: none. A row starts only before the backend's share of it
     * has passed (all of it without peers, else BITCTS_BENCH_BACKEND_SHARE), and repeats (at
     * least 3 times, at most reps) within its even share of what is left; the peers share the
     * rest alike. Rows and peer jobs not reached are not measured, and named. */
    double budget_s;
    double deadline; /* set by bitcts_bench_run: the backend's end on bitcts_clock_now's scale */
    /* Called in the parent as soon as a row's figures arrive (row: its index), or NULL. */
    void (*on_row)(void *user, const struct bitcts_bench_result *r, size_t row);
    void *on_row_user;
} bitcts_bench_config;

/** The backend's share of a time budget when peers run after it. */
#define BITCTS_BENCH_BACKEND_SHARE 0.5

/** One measured row: an operator, widths and layout on one instance. */
typedef struct bitcts_bench_row {
    uint32_t op, in_type, out_type;
    int layout;
    uint32_t rows, cols;
    uint32_t threads;    /* 0: the backend's default */
    double useful_bytes; /* per execution */
    uint32_t reps;       /* timed calls of the row (fewer than asked within a budget); 0: none */
    int out_of_time;     /* not measured: the time budget ran out before it */
    double gbps;         /* < 0: no speed (check says why) */
    double limit_gbps;   /* host: the stream kernel next to the row; device: the API copy */
    double limit2_gbps;  /* device: the copy kernel; < 0 otherwise */
    const char *limit;   /* host: "triad" (two array inputs), "shaped" (a count to another
                          * width, where the backend streams so), else "copy"; device: "copy" */
    double peer_gbps[BITCTS_BENCH_PEERS]; /* < 0: n/a */
    const char *check; /* "ok", "WRONG" (an output differs), "GUARD" (a write outside the
                        * buffers), "INPUT" (an input changed), "DESC" (the lent description
                        * changed), "ERROR", "REF-ERROR", "n/a" (not supported), "-" (not
                        * measured: the backend failed first) */
    char note[400];    /* what the failing call did (its name first), or the backend's error
                        * text for ERROR and n/a */
} bitcts_bench_row;

/** The per-call cost of a small tensor (host clock, transfers included): the default instance,
 * and where the backend lists a "scalar" variant, that variant on one thread. */
typedef struct bitcts_bench_small {
    uint32_t op, in_type, out_type, bytes;
    double default_ns, scalar_ns; /* scalar_ns < 0: no scalar variant */
    const char *check;            /* as a row's */
    char note[400];               /* as a row's */
} bitcts_bench_small;

/** A peer as it ran. */
typedef struct bitcts_bench_peer {
    int asked;   /* it was run */
    int present; /* it imported and timed (some) shapes */
    char version[96];
    char device[160];
    char note[600];   /* why it is absent, or what it substituted (types) */
    double copy_gbps; /* its own copy of the same bytes; < 0: n/a */
    int interleaved;  /* a host peer timed between the backend's calls, on its buffers (else
                       * after the backend, on arrays of its own) */
} bitcts_bench_peer;

typedef struct bitcts_bench_result {
    bitcts_bench_row *rows;
    bitcts_op_desc *descs; /* one per row */
    size_t row_count;
    bitcts_bench_small small[BITCTS_BENCH_SMALL];
    size_t small_count;
    int device_timing;   /* 1: the device-timing extension timed the rows */
    uint64_t size_bytes; /* per input, as chosen */
    int check;           /* BITCTS_BENCH_CHECK_REFERENCE or _CPU, as chosen */
    int instances;
    uint32_t threads[BITCTS_BENCH_MAX_INSTANCES];
    double copy_gbps[BITCTS_BENCH_MAX_INSTANCES];  /* host limits at the start, per instance */
    double triad_gbps[BITCTS_BENCH_MAX_INSTANCES]; /* < 0: no stream extension */
    double memcpy_gbps;                            /* libc memcpy, one thread; < 0: not run */
    bitcts_bench_host host;  /* the host's LLC and cores as read before the run */
    int placed;              /* 1: the cpu backend's threads were placed one per core */
    int size_capped;         /* 1: the automatic size was capped by the memory available
                              * (bitcts_bench_host_capped) */
    double copy_api_gbps[2]; /* device limits at the start and the end; < 0: none */
    double copy_kernel_gbps[2];
    double kcopy_min_gbps; /* the copy kernel's lowest and highest over the run (the start, */
    double kcopy_max_gbps; /* the end and next to every row); < 0: none */
    json_t *backend;       /* identity (report.json's "backend" and "device"); owned, or NULL */
    bitcts_bench_peer peers[BITCTS_BENCH_PEERS];
    size_t failures;      /* rows and small cases that are not "ok" or "n/a" */
    size_t not_measured;  /* rows the time budget did not reach (check "-", a note says so) */
    int in_progress;      /* 1 while bitcts_bench_run runs (the rows so far, seen by on_row) */
    int refused;          /* the plugin host or instance_create refused the backend: bad input */
    char error[1600];     /* what the backend's process did when it failed, or "" */
    double seconds;       /* the backend's process */
    double total_seconds; /* the whole bench, the peers included */
} bitcts_bench_result;

/** Whether the device's copy kernel varied by more than 10% over the run (kcopy_min/max): rows
 * are then read against the copy kernel timed next to each (a row's copy_kernel_gbps), and
 * GPU peers, timed at other moments, are not comparable row by row. */
int bitcts_bench_drifted(const bitcts_bench_result *r);

/** The row's short name, "xor uint8->uint8 packed 1 thr", into buf; returns buf. */
const char *bitcts_bench_row_name(const bitcts_bench_row *row, char *buf, size_t cap);

/** Runs the benchmark: the backend in a supervised child, then the peers.
 * @return BITCTS_OK (whatever the checks say: see failures); the plugin host's or the backend's
 *         refusal (out->refused); BITCTS_E_BACKEND_FAILED when the backend's process crashed,
 *         hung, exited, stopped itself, left a process running or wrote on the harness's
 *         channel (err and out->error say what, in which phase; the rows measured before are
 *         kept); BITCTS_E_INTERNAL, BITCTS_E_OUT_OF_MEMORY. Release with
 *         bitcts_bench_result_free. */
int bitcts_bench_run(const bitcts_bench_config *cfg, bitcts_bench_result *out, char *err,
                     size_t cap);
/** The result as JSON (configuration, backend and device, limits, peers, rows with ratios,
 * small, error). New reference, NULL when out of memory. */
json_t *bitcts_bench_json(const bitcts_bench_config *cfg, const bitcts_bench_result *r);
void bitcts_bench_result_free(bitcts_bench_result *r);

/** The kinds of host limit, each a string a row's `limit` points to. */
#define BITCTS_BENCH_LIMIT_KINDS 3
extern const char *const bitcts_bench_limit_kinds[BITCTS_BENCH_LIMIT_KINDS];

/** The spread of the host limits next to the rows of instance i and limit kind ("copy" or
 * "triad"): min, median, max; returns the number of rows (0: none, the figures untouched). */
size_t bitcts_bench_limit_spread(const bitcts_bench_result *r, int instance, const char *kind,
                                 double out[3]);

/** The ratio above which a row's limit is wrong for it (1.05). */
#define BITCTS_BENCH_OVER_LIMIT 1.05

/** Whether a host-timed row ran above BITCTS_BENCH_OVER_LIMIT of its limit, and why (the row
 * moved fewer bytes than its limit, or the limit was low next to it against its spread). */
int bitcts_bench_over_limit(const bitcts_bench_result *r, const bitcts_bench_row *row, char *why,
                            size_t cap);

/** The GB/s of PyTorch's strided bitwise_not on the transposed view of the same width as a
 * transposed row (the figure transposes are measured against), or < 0. */
double bitcts_bench_torch_strided_not(const bitcts_bench_result *r, const bitcts_bench_row *row);

/* ---- internal to harness/perf/bench*.c ---- */

/** The rows of a geometry (deterministic: the parent and the child build the same). */
int bitcts__bench_build_rows(const bitcts_bench_config *cfg, bitcts_bench_result *r);

/** The small tensors of the per-call cost. */
typedef struct bitcts__bench_small_case {
    uint32_t op, type, out_type, bytes;
} bitcts__bench_small_case;
extern const bitcts__bench_small_case bitcts__bench_small_cases[BITCTS_BENCH_SMALL];

/** The sandbox entry point of the bench's child: arg is a bitcts__perf_job (perf_child.h) of a
 * bitcts_bench_config. */
void bitcts__bench_child_main(void *arg, int chan, const char *nonce,
                              bitcts_sandbox_status *status);

/** Runs the asked peers that were not timed interleaved on the rows' shapes and fills
 * peer_gbps and peers. */
void bitcts__bench_peers(const bitcts_bench_config *cfg, bitcts_bench_result *r);

/** The median of n figures (v sorted in place). */
double bitcts__bench_median(double *v, uint32_t n);

/** The bytes the bench's A and B buffers (*in) and output buffer (*out) must hold for every row
 * of r: the largest input and output of a row, at least the size per input. */
void bitcts__bench_caps(const bitcts_bench_result *r, uint64_t *in, uint64_t *out);

/** The peers' short operator names, in bitcts_op_all's order ("and", ..., "shr"). */
extern const char *const bitcts__bench_peer_ops[BITCTS_OP_COUNT];

/** Why a peer stopped at the end of its share of a time budget. */
#define BITCTS__BENCH_PEER_BUDGET_END                                                              \
    "stopped at the end of its share of the time budget; rows it had not timed are not measured"

/** The rows' end within a budget once the CPU peers run inside the rows: `deadline` (the
 * backend's share) plus the share kept for peers after the backend, when no other peer is
 * asked; `deadline` as it is without a budget. The child and the parent reckon it alike. */
double bitcts__bench_rows_deadline(const bitcts_bench_config *cfg, double deadline);

/** The peers the config asks for, for a backend with device timing (1) or without (0): a mask. */
unsigned bitcts__bench_peers_asked(const bitcts_bench_config *cfg, int device_timing);

/** Of those, the host peers timed interleaved with a host-timed backend (none with device
 * timing): a mask. */
unsigned bitcts__bench_host_peers(const bitcts_bench_config *cfg, int device_timing);

/** The most seconds the parent takes to answer the child's ask (its peers' turn): half the
 * harness's deadline (harness/sandbox/child.h), so the child is never killed waiting. */
double bitcts__bench_answer_s(const bitcts_bench_config *cfg);

/** The host peers timed interleaved (bench_serve.c): started when the child shares its buffers,
 * a turn each after every timed call, closed at the child's end. One set per process. */
int bitcts__bench_serve_open(const bitcts_bench_config *cfg, bitcts_bench_result *r,
                             const char *line); /* 0: the peers interleave, -1: they run after */
void bitcts__bench_serve_turn(const bitcts_bench_config *cfg, bitcts_bench_result *r, size_t row);
void bitcts__bench_serve_close(bitcts_bench_result *r);
/** The peers' sandboxes, started or not, for the supervisor's reaper (their ends recorded, not
 * lost): *count of them. */
bitcts_sandbox *const *bitcts__bench_serve_sandboxes(size_t *count);

/** Adds reason to a peer's note unless it is there; a peer's first line into its fields. */
void bitcts__bench_peer_note(bitcts_bench_peer *p, const char *reason);
void bitcts__bench_peer_hello(bitcts_bench_peer *p, const json_t *o);

/** In a peer's sandboxed child: execs the interpreter on the peers' script with args, its
 * channel and nonce (--fd, --prefix). Never returns. */
void bitcts__bench_peer_exec(const bitcts_bench_config *cfg, char *const *args, size_t n, int chan,
                             const char *nonce);

#endif
