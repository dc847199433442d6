/* SPDX-License-Identifier: MIT */
/* `bitcts bench`: the command line of the benchmark engine (harness/perf/bench.h): options, the
 * table on the terminal, and the JSON file, written whole then renamed. */
#include <stddef.h> /* offsetof */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free, getenv, strtod */
#include <string.h> /* strcmp, strtok_r */
#include <unistd.h> /* access */

#include "bench.h"
#include "bitcts/bitcts_status.h"
#include "cli_util.h"
#include "commands.h"
#include "sanitize.h"

#define BENCH_PYTHON "/usr/bin/python3"

static const char bench_description[] =
    "Measures a backend (default: the built-in cpu) on 2-D tensors in the layouts packed,\n"
    "padded (rows padded by 64 bytes), transposed (A stored column-major) and bcast (B one\n"
    "element), for every operator and element width (BIT_COUNT: UINT8 and UINT32 outputs).\n"
    "GB/s counts useful bytes (inputs once, the output once), median of the repetitions, next\n"
    "to the limit measured in the same run on the same device:\n"
    "  a CPU backend (stream extension): its own copy and triad on the same buffers, re-measured\n"
    "    next to every row, and memcpy; host clock; peers NumPy and PyTorch on the CPU\n"
    "  a GPU backend (device-timing extension, e.g. vulkan): vkCmdCopyBuffer (copy) and a copy\n"
    "    shader (kcopy) on the device at the start and the end; device timestamps; peers\n"
    "    PyTorch (CUDA), CuPy and JAX timed with device events\n"
    "Every output is checked; the backend runs in a child process under a watchdog, each peer\n"
    "in a Python process; the CPU peers run each row once after each of the backend's timed\n"
    "calls, reading the backend's own buffers (read-only to them; their outputs go to buffers\n"
    "of their own), the GPU peers after the backend. A missing peer is reported absent with\n"
    "the reason. Every call gets guarded buffers, a poisoned output and a read-only\n"
    "description and is checked between the timed calls: check WRONG (an output of any timed\n"
    "call differs), GUARD (a write outside the buffers), INPUT (an input changed), DESC (the\n"
    "description changed).\n";

static const char bench_epilogue[] =
    "Rows are printed (and --json rewritten) as they are measured. Exit code 0 when every\n"
    "check was ok and every row measured; 1 when a check was not, the backend failed (a\n"
    "crash, a hang, an exit), or --budget-s left rows not measured (named); 2 for bad input\n"
    "or a backend that does not start; 130 when interrupted.\n";

/* The short operator names of --ops, in bitcts_op_all's order. */
static const char *const op_short[BITCTS_OP_COUNT + 1] = {"and",   "or",  "xor", "not",
                                                          "count", "shl", "shr", NULL};

/* The peers' interpreter: $BITCTS_PYTHON, else Debian's (which has python3-numpy), else the
 * python3 found on PATH. */
static const char *default_python(void)
{
    const char *env = getenv("BITCTS_PYTHON");
    if (env != NULL && *env != '\0') {
        return env;
    }
    return access(BENCH_PYTHON, X_OK) == 0 ? BENCH_PYTHON : "python3";
}

typedef struct bench_args {
    bitcts_bench_config cfg;
    bitcts_cli_backend backend; /* into cfg */
    const char *json;
    int json_failed;   /* a partial write failed: said once, the run goes on */
    uint64_t size_mib; /* 0: automatic */
    uint32_t reps;     /* 0: not given */
} bench_args;

static int add_option(bitcts_backend_options *o, const char *key, const char *value, char *err,
                      size_t cap)
{
    if (o->count >= BITCTS_MAX_OPTIONS) {
        snprintf(err, cap, "more than %d backend options", BITCTS_MAX_OPTIONS);
        return -1;
    }
    o->keys[o->count] = key;
    o->values[o->count++] = value;
    return 0;
}

static int parse_variant(const char *v, void *dest, char *err, size_t cap)
{
    return add_option(dest, "variant", v, err, cap);
}

static int parse_nt(const char *v, void *dest, char *err, size_t cap)
{
    return add_option(dest, "nt", v, err, cap);
}

static int parse_threads(const char *v, void *dest, char *err, size_t cap)
{
    bitcts_bench_config *c = dest;
    c->thread_count = bitcts_cli_parse_u32_list(v, c->threads, BITCTS_BENCH_MAX_INSTANCES);
    for (int i = 0; i < c->thread_count; ++i) {
        c->thread_count = c->threads[i] < 1 || c->threads[i] > 256 ? -1 : c->thread_count;
    }
    if (c->thread_count < 1) {
        snprintf(err, cap, "--threads: '%s' is not a list of 1-256", v);
        return -1;
    }
    return 0;
}

static const char *const peer_words[] = {"numpy", "torch-cpu", "torch-cuda", "cupy", "jax", NULL};

static int parse_peers(const char *v, void *dest, char *err, size_t cap)
{
    static const bitcts_cli_option peers = {.name = "--peers", .words = peer_words};
    unsigned *mask = dest;
    if (strcmp(v, "none") == 0 || strcmp(v, "auto") == 0) {
        *mask = strcmp(v, "none") == 0 ? 0 : BITCTS_BENCH_PEERS_AUTO;
        return 0;
    }
    return bitcts_cli_parse_words(&peers, v, mask, err, cap);
}

static int parse_no_peers(const char *v, void *dest, char *err, size_t cap)
{
    (void)v;
    (void)err;
    (void)cap;
    *(unsigned *)dest = 0;
    return 0;
}

static const char *const layout_words[] = {"packed", "padded", "transposed", "bcast", NULL};
static const char *const check_words[] = {"auto", "reference", "cpu", NULL};

#define BENCH_AT(field) offsetof(bench_args, field)

static const bitcts_cli_option bench_options[] = {
    BITCTS_OPT_NUMBER("--size-mib", "N", U64, BENCH_AT(size_mib), 1, 65536,
                      "MiB per input (default: a CPU backend 4 x the last-level cache, at least "
                      "64, 256 when sysfs has no cache, at most a sixteenth of the available "
                      "memory; other host backends 64; on a GPU 1024, "
                      "less when its memory is under 16 GiB, 32 on a slow device such as "
                      "lavapipe)"),
    BITCTS_OPT_NUMBER("--reps", "N", U32, BENCH_AT(reps), 1, BITCTS_BENCH_MAX_REPS,
                      "timed repetitions, median reported (default 11)"),
    BITCTS_OPT_CUSTOM("--threads", "LIST", BENCH_AT(cfg), parse_threads,
                      "an instance per thread count, e.g. 1,2 (default for a CPU backend: 1 and "
                      "the physical cores; the cpu backend's threads one per core)"),
    BITCTS_OPT_CUSTOM("--variant", "NAME", BENCH_AT(backend.options), parse_variant,
                      "--backend-option variant=NAME"),
    BITCTS_OPT_WORDS("--ops", "LIST", LIST, BENCH_AT(cfg.ops_mask), op_short,
                     "of and,or,xor,not,count,shl,shr (default all)"),
    BITCTS_OPT_WORDS("--layouts", "LIST", LIST, BENCH_AT(cfg.layouts_mask), layout_words,
                     "of packed,padded,transposed,bcast (default all)"),
    BITCTS_OPT_CUSTOM("--nt", "MODE", BENCH_AT(backend.options), parse_nt,
                      "--backend-option nt=MODE (cpu: auto, always, never)"),
    BITCTS_OPT_CUSTOM("--peers", "LIST", BENCH_AT(cfg.peers_mask), parse_peers,
                      "of numpy,torch-cpu,torch-cuda,cupy,jax, or auto (default: the CPU peers "
                      "for a CPU backend, the GPU peers for a GPU backend) or none"),
    BITCTS_OPT_CUSTOM("--no-peers", NULL, BENCH_AT(cfg.peers_mask), parse_no_peers, "--peers none"),
    BITCTS_OPT_CUSTOM("--no-numpy", NULL, BENCH_AT(cfg.peers_mask), parse_no_peers,
                      "the same as --no-peers"),
    BITCTS_OPT_TEXT("--python", "PATH", BENCH_AT(cfg.python), 0,
                    "the peers' interpreter (default $BITCTS_PYTHON, else " BENCH_PYTHON
                    ", else python3 on PATH)"),
    BITCTS_OPT_TEXT("--peers-script", "FILE", BENCH_AT(cfg.peers_script), 0,
                    "run FILE instead of the embedded harness/perf/bench_peers.py"),
    BITCTS_OPT_WORDS("--check", "C", ENUM, BENCH_AT(cfg.check), check_words,
                     "what checks the outputs (auto: the reference up to 64 MiB and for the cpu "
                     "backend, else the cpu backend)"),
    BITCTS_OPT_SECONDS("--timeout", "S", BENCH_AT(cfg.timeout_s),
                       "seconds one backend call may take (default 120; 0.1 to 86400)"),
    BITCTS_OPT_SECONDS("--peer-timeout", "S", BENCH_AT(cfg.peer_timeout_s),
                       "seconds a peer may go without a result (default 120; 0.1 to 86400)"),
    BITCTS_OPT_SECONDS("--budget-s", "S", BENCH_AT(cfg.budget_s),
                       "seconds for the whole bench, peers included (default none)"),
    BITCTS_OPT_TEXT("--json", "FILE", BENCH_AT(json), 0, "also write every figure as JSON"),
    BITCTS_OPT_FLAG("--quick", BENCH_AT(cfg.quick),
                    "1 MiB tensors (64 KiB on a device) and 3 repetitions (a smoke test)"),
};

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    bitcts_bench_config *c = &a->cfg;
    a->backend.spec = "cpu";
    *c = (bitcts_bench_config){.peers_mask = BITCTS_BENCH_PEERS_AUTO,
                               .python = default_python(),
                               .check = BITCTS_BENCH_CHECK_AUTO,
                               .timeout_s = 120,
                               .peer_timeout_s = 120,
                               .ops_mask = (1u << BITCTS_OP_COUNT) - 1,
                               .layouts_mask = (1u << BITCTS_BENCH_LAYOUTS) - 1};
    const bitcts_cli_table tables[] = {
        bitcts_cli_backend_table(&a->backend, BITCTS_CLI_BACKEND_DEFAULT_CPU),
        BITCTS_CLI_TABLE(bench_options, a)};
    const bitcts_cli_spec spec = {.cmd = "bench",
                                  .description = bench_description,
                                  .epilogue = bench_epilogue,
                                  .tables = tables,
                                  .table_count = 2};
    const int rc = bitcts_cli_parse(&spec, argc, argv, NULL, NULL);
    if (rc != 0) {
        return rc == BITCTS_CLI_HELP ? BITCTS_EXIT_OK : rc;
    }
    c->backend_spec = a->backend.spec;
    c->options = a->backend.options;
    c->size_bytes = a->size_mib << 20;
    c->reps = a->reps != 0 ? a->reps : c->quick ? 3 : 11;
    return -1;
}

/* ---- the terminal ---- */

/* A string of the identity JSON (sanitised again: it came from the child), or "". */
static const char *id_text(const json_t *backend, const char *object, const char *key, char *buf,
                           size_t cap)
{
    const json_t *o = object != NULL ? json_object_get(backend, object) : backend;
    return bitcts_sanitize_string(json_string_value(json_object_get(o, key)), 4096, buf, cap);
}

static void print_header(const bitcts_bench_config *c, const bitcts_bench_result *r)
{
    char t[6][300];
    printf("bitcts bench: %s %s (%s), variant %s; ", id_text(r->backend, NULL, "name", t[0], 300),
           id_text(r->backend, NULL, "version", t[1], 300),
           id_text(r->backend, NULL, "vendor", t[2], 300),
           id_text(r->backend, "info", "variant", t[3], 300));
    if (id_text(r->backend, "device", "device", t[4], 300)[0] != '\0') {
        printf("device %s, driver %s, API %s; ", t[4],
               id_text(r->backend, "device", "driver", t[5], 300),
               id_text(r->backend, "device", "api_version", t[0], 300));
    }
    printf("%s timing, %.0f MiB per input, %u reps, outputs checked by %s\n",
           r->device_timing ? "device" : "host clock", (double)r->size_bytes / (1 << 20), c->reps,
           r->check == BITCTS_BENCH_CHECK_CPU ? "the cpu backend" : "the reference");
}

static void print_limits(const bitcts_bench_config *c, const bitcts_bench_result *r)
{
    if (r->device_timing) {
        printf("\ndevice limits, GB/s (read + write), median of %u, start / end: "
               "copy (the API's buffer copy) %.1f / %.1f, kcopy (a copy kernel) "
               "%.1f / %.1f\n",
               c->reps, r->copy_api_gbps[0], r->copy_api_gbps[1], r->copy_kernel_gbps[0],
               r->copy_kernel_gbps[1]);
        printf("kcopy is also timed right after every row (the row's kcopy ratio uses it): "
               "%.1f to %.1f over the run\n",
               r->kcopy_min_gbps, r->kcopy_max_gbps);
        if (bitcts_bench_drifted(r)) {
            printf("WARNING: the device's copy bandwidth drifted by more than 10%% during the run "
                   "(its clocks or another user): read rows against their own kcopy; the peers "
                   "ran at other moments\n");
        }
    } else {
        printf("\nlimits at start, GB/s (in+out), median of %u:", c->reps);
        for (int i = 0; i < r->instances; ++i) {
            if (r->copy_gbps[i] < 0) {
                printf("  %u threads: the backend has no stream extension;", r->threads[i]);
            } else {
                printf("  %u thread%s: copy %.1f, triad %.1f;", r->threads[i],
                       r->threads[i] != 1 ? "s" : "", r->copy_gbps[i], r->triad_gbps[i]);
            }
        }
        printf("  memcpy (1 thread) %.1f\n", r->memcpy_gbps);
    }
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        if (r->peers[p].asked && r->peers[p].copy_gbps > 0) {
            printf("  %s copy of the same bytes: %.1f GB/s\n", bitcts_bench_peer_name(p),
                   r->peers[p].copy_gbps);
        }
    }
    printf("\n");
}

static void print_cell(double v, double of, int percent)
{
    if (v > 0 && of > 0) {
        printf(percent ? " %5.0f%%" : " %6.2f", percent ? 100.0 * v / of : v / of);
    } else {
        printf(" %6s", "-");
    }
}

static void print_gbps(double v, int width)
{
    if (v > 0) {
        printf(" %*.1f", width, v);
    } else {
        printf(" %*s", width, "-");
    }
}

static void print_row(const bitcts_bench_result *r, const bitcts_bench_row *row)
{
    printf("%-5s %-6s %-6s %-10s", op_short[bitcts_op_index(row->op)],
           bitcts_dtype_name(row->in_type), bitcts_dtype_name(row->out_type),
           bitcts_bench_layout_name(row->layout));
    if (!r->device_timing) {
        printf(" %3u", row->threads);
    }
    print_gbps(row->gbps, 8);
    print_gbps(row->limit_gbps, 7);
    print_cell(row->gbps, row->limit_gbps, 1);
    if (r->device_timing) {
        print_cell(row->gbps, row->limit2_gbps, 1);
    }
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        if (r->peers[p].present) {
            print_gbps(row->peer_gbps[p], 7);
            print_cell(row->gbps, row->peer_gbps[p], 0);
        }
    }
    printf("  %s\n", row->check);
}

static void print_table(const bitcts_bench_result *r)
{
    printf("%-5s %-6s %-6s %-10s", "op", "in", "out", "layout");
    if (!r->device_timing) {
        printf(" %3s", "thr");
    }
    printf(" %8s %7s %7s", "GB/s", r->device_timing ? "copy" : "limit",
           r->device_timing ? "%copy" : "%lim");
    if (r->device_timing) {
        printf(" %7s", "%kcopy");
    }
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        if (r->peers[p].present) {
            printf(" %7s %6s", bitcts_bench_peer_title(p), "x");
        }
    }
    printf("  check\n");
    for (size_t i = 0; i < r->row_count; ++i) {
        print_row(r, &r->rows[i]);
    }
}

static void print_notes(const bitcts_bench_result *r)
{
    printf("\nlimit: %s; x: the backend's GB/s over the peer's (same shapes, layout, widths)\n",
           r->device_timing ? "the device's API copy of the same size (kcopy: a copy kernel)"
                            : "the backend's triad (A and B arrays) or copy (one array input), "
                              "re-measured next to each row with the same instance");
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        const bitcts_bench_peer *peer = &r->peers[p];
        if (peer->asked) {
            printf("peer %s: %s%s%s%s%s%s%s\n", bitcts_bench_peer_name(p),
                   peer->present ? "" : "absent: ", peer->version,
                   peer->device[0] != '\0' ? " on " : "", peer->device,
                   peer->interleaved && peer->present
                       ? ", timed between the backend's calls, reading the backend's buffers"
                       : "",
                   peer->note[0] != '\0' && (peer->present || peer->version[0] != '\0') ? "; " : "",
                   peer->note);
        }
    }
    int shown = 0;
    for (size_t i = 0; i < r->row_count && shown < 8; ++i) {
        const bitcts_bench_row *row = &r->rows[i];
        if (row->note[0] != '\0' && strcmp(row->check, "ok") != 0) {
            printf("%s %s %s %s: %s: %s\n", op_short[bitcts_op_index(row->op)],
                   bitcts_dtype_name(row->in_type), bitcts_dtype_name(row->out_type),
                   bitcts_bench_layout_name(row->layout), row->check, row->note);
            ++shown;
        }
    }
}

/* Transposed rows against PyTorch's strided bitwise_not on the same transposed view. */
static void print_transposed(const bitcts_bench_result *r)
{
    int header = 0;
    for (size_t i = 0; i < r->row_count; ++i) {
        const bitcts_bench_row *row = &r->rows[i];
        const double torch_not = bitcts_bench_torch_strided_not(r, row);
        if (torch_not <= 0 || row->gbps <= 0) {
            continue;
        }
        if (!header) {
            printf("\ntransposed rows vs PyTorch's strided bitwise_not on the same transposed "
                   "view (GB/s, ratio):\n");
            header = 1;
        }
        char threads[24] = "";
        if (!r->device_timing) {
            snprintf(threads, sizeof threads, " %3u thr", row->threads);
        }
        printf("  %-5s %-6s -> %-6s%s %8.1f vs %8.1f  x%.2f\n", op_short[bitcts_op_index(row->op)],
               bitcts_dtype_name(row->in_type), bitcts_dtype_name(row->out_type), threads,
               row->gbps, torch_not, row->gbps / torch_not);
    }
}

static void print_small(const bitcts_bench_result *r)
{
    if (r->small_count == 0) {
        return;
    }
    printf("\nsmall tensors, ns per call with the host's clock (the last instance; scalar: the "
           "scalar variant on 1 thread):\n");
    for (size_t i = 0; i < r->small_count; ++i) {
        const bitcts_bench_small *s = &r->small[i];
        printf("  %-5s %-6s -> %-6s %6u B: default", op_short[bitcts_op_index(s->op)],
               bitcts_dtype_name(s->in_type), bitcts_dtype_name(s->out_type), s->bytes);
        if (s->default_ns >= 0) {
            printf(" %9.0f ns", s->default_ns);
        } else {
            printf(" %9s ns", "-");
        }
        if (s->scalar_ns >= 0) {
            printf(", scalar %9.0f ns", s->scalar_ns);
        }
        printf("  %s%s%s\n", s->check, s->note[0] != '\0' ? ": " : "", s->note);
    }
}

/* The host that sized and placed a host-timed run, and the spread of each instance's limits. */
static void print_host(const bitcts_bench_result *r)
{
    const bitcts_bench_host *h = &r->host;
    if (h->llc_from_sysfs) {
        printf("\nhost: last-level cache L%u %.1f MiB x %u (sysfs); ", h->llc_level,
               (double)h->llc_bytes / (1 << 20), h->llc_count);
    } else {
        printf("\nhost: last-level cache unknown (no sysfs cache information); ");
    }
    printf("%u cores of %u online CPUs (%s)", h->cores, h->online,
           h->topology_from_sysfs ? "sysfs topology" : "no topology: one core per CPU");
    if (r->placed) {
        printf("; threads placed one per core, the calling thread on CPU %u\n", h->cpus[0]);
    } else {
        printf("; threads not placed\n");
    }
    if (r->size_capped) {
        printf(
            "inputs of %.0f MiB, less than the cache asks for: capped at a sixteenth of the %.0f "
            "MiB of memory available\n",
            (double)r->size_bytes / (1 << 20), (double)h->mem_available / (1 << 20));
    }
    printf("limit spread over the rows, GB/s min / median / max:\n");
    const char *const *kinds = bitcts_bench_limit_kinds;
    for (int i = 0; i < r->instances; ++i) {
        printf("  %3u thread%s:", r->threads[i], r->threads[i] != 1 ? "s" : " ");
        for (int k = 0; k < BITCTS_BENCH_LIMIT_KINDS; ++k) {
            double v[3];
            const size_t n = bitcts_bench_limit_spread(r, i, kinds[k], v);
            if (n > 0) {
                printf("  %s %.1f / %.1f / %.1f (%zu rows)", kinds[k], v[0], v[1], v[2], n);
            }
        }
        printf("\n");
    }
    for (size_t i = 0; i < r->row_count; ++i) {
        const bitcts_bench_row *row = &r->rows[i];
        char why[400];
        if (bitcts_bench_over_limit(r, row, why, sizeof why)) {
            printf("OVER %.2f of its limit: %s %s->%s %s %u thr: %s\n", row->gbps / row->limit_gbps,
                   op_short[bitcts_op_index(row->op)], bitcts_dtype_name(row->in_type),
                   bitcts_dtype_name(row->out_type), bitcts_bench_layout_name(row->layout),
                   row->threads, why);
        }
    }
}

static void print_result(const bitcts_bench_config *c, const bitcts_bench_result *r)
{
    print_header(c, r);
    print_limits(c, r);
    print_table(r);
    if (!r->device_timing) {
        print_host(r);
    }
    print_notes(r);
    print_transposed(r);
    print_small(r);
}

/* A row as soon as it is measured: one line, flushed, and the JSON so far (written whole, then
 * renamed, so that a run stopped from outside leaves the rows it measured). */
static void stream_row(void *user, const bitcts_bench_result *r, size_t n)
{
    bench_args *a = user;
    const bitcts_bench_row *row = &r->rows[n];
    char name[96];
    printf("row %zu/%zu: %s:", n + 1, r->row_count, bitcts_bench_row_name(row, name, sizeof name));
    if (row->gbps > 0) {
        printf(" %.1f GB/s, %u reps", row->gbps, row->reps);
    }
    if (row->gbps > 0 && row->limit_gbps > 0) {
        printf(", %.2f of its limit (%s %.1f)", row->gbps / row->limit_gbps, row->limit,
               row->limit_gbps);
    }
    printf(", %s\n", row->check);
    fflush(stdout);
    if (a->json != NULL && !a->json_failed) {
        a->json_failed = bitcts_cli_write_json("bench", bitcts_bench_json(&a->cfg, r), 2, a->json);
    }
}

/* The rows the budget did not reach, named (the first few), as the run's last word. */
static void print_not_measured(const bench_args *a, const bitcts_bench_result *r)
{
    if (r->not_measured == 0) {
        return;
    }
    printf("\nNOT MEASURED: %zu of %zu rows: the time budget (--budget-s %g) ran out after "
           "%.1f s:",
           r->not_measured, r->row_count, a->cfg.budget_s, r->seconds);
    size_t shown = 0;
    for (size_t i = 0; i < r->row_count; ++i) {
        char name[96];
        if (r->rows[i].out_of_time && shown++ < 6) {
            printf("%s %s", shown > 1 ? "," : "",
                   bitcts_bench_row_name(&r->rows[i], name, sizeof name));
        }
    }
    printf("%s\n", shown > 6 ? ", ..." : "");
}

static int run_bench(bench_args *a, bitcts_bench_result *r, char *err, size_t cap)
{
    a->cfg.on_row = stream_row;
    a->cfg.on_row_user = a;
    bitcts_cli_interrupts saved;
    bitcts_cli_interrupts_catch(&saved);
    a->cfg.interrupted = &bitcts_cli_interrupted;
    const int st = bitcts_bench_run(&a->cfg, r, err, cap);
    bitcts_cli_interrupts_restore(&saved);
    return st;
}

int bitcts_cmd_bench(int argc, char **argv)
{
    bench_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) {
        return rc;
    }
    bitcts_bench_result r;
    char err[2048] = "";
    const int st = run_bench(&a, &r, err, sizeof err);
    if (bitcts_cli_interrupted) {
        fprintf(stderr, "bitcts bench: interrupted; the child processes were killed\n");
        bitcts_bench_result_free(&r);
        return BITCTS_EXIT_INTERRUPTED;
    }
    if (st != BITCTS_OK && r.refused) {
        bitcts_bench_result_free(&r);
        return bitcts_cli_error("bench", "%s", err[0] ? err : bitcts_status_message(st));
    }
    if (st == BITCTS_OK) {
        print_result(&a.cfg, &r);
        print_not_measured(&a, &r);
        rc = r.failures > 0 || r.not_measured > 0 ? BITCTS_EXIT_FAILURES : BITCTS_EXIT_OK;
    } else {
        fprintf(stderr, "bitcts bench: FAILED: %s\n", err[0] ? err : bitcts_status_message(st));
        if (r.error[0] == '\0') {
            snprintf(r.error, sizeof r.error, "%s", err[0] ? err : bitcts_status_message(st));
        }
        rc = BITCTS_EXIT_FAILURES;
    }
    if (a.json != NULL) {
        a.cfg.on_row = NULL;
        const int jrc = bitcts_cli_write_json("bench", bitcts_bench_json(&a.cfg, &r), 2, a.json);
        rc = rc == BITCTS_EXIT_OK ? jrc : rc;
    }
    bitcts_bench_result_free(&r);
    return rc;
}
