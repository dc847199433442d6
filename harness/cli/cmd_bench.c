/* SPDX-License-Identifier: MIT */
/* `bitcts bench`: the command line of the benchmark engine (harness/bench.c): options, the
 * table on the terminal, and the JSON file, written whole then renamed. */
#include <stdio.h>  /* printf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp, strtok_r */
#include <unistd.h> /* sysconf */

#include "bench.h"
#include "cli_util.h"
#include "commands.h"
#include "fs_util.h"

#define BENCH_PYTHON "/usr/bin/python3"

static const char bench_usage[] =
    "usage: bitcts bench [--backend B] [--backend-option KEY=VALUE]... [--size-mib N] [--reps N]\n"
    "                    [--threads LIST] [--variant NAME] [--ops LIST] [--layouts LIST]\n"
    "                    [--nt MODE] [--no-numpy] [--json FILE] [--quick]\n"
    "\n"
    "Measures a backend (default: the built-in cpu) on 2-D tensors of N MiB per input (default\n"
    "64) in the layouts packed, padded (rows padded by 64 bytes), transposed (A stored\n"
    "column-major) and bcast (B one element), for every operator and element width (BIT_COUNT:\n"
    "UINT8 and UINT32 outputs). GB/s counts useful bytes; the limit is the backend's own triad\n"
    "(two array inputs) or copy (one), measured in the same run on the same buffers; NumPy\n"
    "(" BENCH_PYTHON ") runs the same shapes single-threaded. Every output is checked against\n"
    "the reference.\n"
    "  --backend B     a built-in backend or a plugin library path (default cpu)\n"
    "  --reps N        timed repetitions, median reported (default 11)\n"
    "  --threads LIST  an instance per thread count, e.g. 1,2 (default 1 and the online\n"
    "                  processors)\n"
    "  --variant NAME  --backend-option variant=NAME\n"
    "  --ops LIST      of and,or,xor,not,count,shl,shr (default all)\n"
    "  --layouts LIST  of packed,padded,transposed,bcast (default all)\n"
    "  --nt MODE       --backend-option nt=MODE (cpu: auto, always, never)\n"
    "  --no-numpy      skip the NumPy column\n"
    "  --json FILE     also write the results as JSON\n"
    "  --quick         1 MiB tensors and 3 repetitions (a smoke test)\n";

/* The short operator names of --ops, in bitcts_op_all's order. */
static const char *const op_short[BITCTS_OP_COUNT] = {"and",   "or",  "xor", "not",
                                                      "count", "shl", "shr"};

static int parse_names(const char *option, const char *text, const char *const *names, int count,
                       unsigned *mask)
{
    *mask = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
        int found = -1;
        for (int i = 0; i < count; ++i) {
            if (strcmp(t, names[i]) == 0) {
                found = i;
            }
        }
        if (found < 0) {
            return bitcts_cli_error("bench", "%s: unknown name '%s'", option, t);
        }
        *mask |= 1u << found;
    }
    return *mask != 0 ? 0 : bitcts_cli_error("bench", "%s: empty list", option);
}

typedef struct bench_args {
    bitcts_bench_config cfg;
    const char *json;
    int quick;
    int size_given, reps_given;
    char key_store[BITCTS_MAX_OPTIONS][64];
} bench_args;

static int add_option(bench_args *a, const char *key, const char *value)
{
    if (a->cfg.options.count >= BITCTS_MAX_OPTIONS) {
        return bitcts_cli_error("bench", "more than %d backend options", BITCTS_MAX_OPTIONS);
    }
    a->cfg.options.keys[a->cfg.options.count] = key;
    a->cfg.options.values[a->cfg.options.count++] = value;
    return 0;
}

static int parse_value(bench_args *a, const char *name, const char *v)
{
    uint64_t n = 0;
    bitcts_bench_config *c = &a->cfg;
    if (strcmp(name, "--backend") == 0) {
        c->backend_spec = v;
    } else if (strcmp(name, "--backend-option") == 0) {
        if (bitcts_backend_options_add(&c->options, a->key_store, v) != 0) {
            return bitcts_cli_error("bench", "--backend-option needs KEY=VALUE (at most %d)",
                                    BITCTS_MAX_OPTIONS);
        }
    } else if (strcmp(name, "--size-mib") == 0) {
        if (bitcts_cli_parse_u64(v, &n) != 0 || n < 1 || n > 65536) {
            return bitcts_cli_error("bench", "--size-mib: '%s' is not a size from 1 to 65536", v);
        }
        c->size_bytes = n << 20;
        a->size_given = 1;
    } else if (strcmp(name, "--reps") == 0) {
        if (bitcts_cli_parse_u64(v, &n) != 0 || n < 1 || n > BITCTS_BENCH_MAX_REPS) {
            return bitcts_cli_error("bench", "--reps: '%s' is not a count from 1 to %d", v,
                                    BITCTS_BENCH_MAX_REPS);
        }
        c->reps = (uint32_t)n;
        a->reps_given = 1;
    } else if (strcmp(name, "--threads") == 0) {
        c->thread_count = bitcts_cli_parse_u32_list(v, c->threads, BITCTS_BENCH_MAX_INSTANCES);
        for (int i = 0; i < c->thread_count; ++i) {
            c->thread_count = c->threads[i] < 1 || c->threads[i] > 256 ? -1 : c->thread_count;
        }
        if (c->thread_count < 1) {
            return bitcts_cli_error("bench", "--threads: '%s' is not a list of 1-256", v);
        }
    } else if (strcmp(name, "--json") == 0) {
        a->json = v;
    } else if (strcmp(name, "--variant") == 0) {
        return add_option(a, "variant", v);
    } else if (strcmp(name, "--nt") == 0) {
        return add_option(a, "nt", v);
    } else if (strcmp(name, "--ops") == 0) {
        return parse_names("--ops", v, op_short, (int)BITCTS_OP_COUNT, &c->ops_mask);
    } else {
        static const char *const layouts[BITCTS_BENCH_LAYOUTS] = {"packed", "padded", "transposed",
                                                                  "bcast"};
        return parse_names("--layouts", v, layouts, BITCTS_BENCH_LAYOUTS, &c->layouts_mask);
    }
    return 0;
}

/* Returns -1 to go on, or an exit code. */
static int parse_args(int argc, char **argv, bench_args *a)
{
    static const char *const valued[] = {"--backend", "--backend-option", "--size-mib", "--reps",
                                         "--threads", "--json",           "--variant",  "--nt",
                                         "--ops",     "--layouts"};
    bitcts_bench_config *c = &a->cfg;
    *c = (bitcts_bench_config){.backend_spec = "cpu",
                               .size_bytes = 64u << 20,
                               .reps = 11,
                               .numpy = 1,
                               .python = BENCH_PYTHON,
                               .ops_mask = (1u << BITCTS_OP_COUNT) - 1,
                               .layouts_mask = (1u << BITCTS_BENCH_LAYOUTS) - 1};
    for (int i = 1; i < argc; ++i) {
        int handled = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !handled; ++k) {
            const char *v = NULL;
            const int r = bitcts_cli_option(argc, argv, &i, valued[k], &v);
            if (r < 0 || (r > 0 && *v == '\0')) {
                return bitcts_cli_error("bench", "%s needs a value", valued[k]);
            }
            handled = r > 0;
            const int rc = handled ? parse_value(a, valued[k], v) : 0;
            if (rc != 0) {
                return rc;
            }
        }
        if (handled) {
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(bench_usage, stdout);
            return 0;
        } else if (strcmp(argv[i], "--quick") == 0) {
            a->quick = 1;
        } else if (strcmp(argv[i], "--no-numpy") == 0) {
            c->numpy = 0;
        } else {
            return bitcts_cli_error("bench", "unknown argument '%s' (see --help)", argv[i]);
        }
    }
    c->size_bytes = a->quick && !a->size_given ? 1u << 20 : c->size_bytes;
    c->reps = a->quick && !a->reps_given ? 3 : c->reps;
    if (c->thread_count == 0) {
        const long n = sysconf(_SC_NPROCESSORS_ONLN);
        c->threads[c->thread_count++] = 1;
        if (n > 1) {
            c->threads[c->thread_count++] = n > 256 ? 256u : (uint32_t)n;
        }
    }
    return -1;
}

static void print_limits(const bitcts_bench_config *c, const bitcts_bench_result *r)
{
    printf("\nlimits at start, GB/s (in+out), median of %u:", c->reps);
    for (int i = 0; i < c->thread_count; ++i) {
        if (r->copy_gbps[i] < 0) {
            printf("  %u threads: the backend has no stream extension;", c->threads[i]);
        } else {
            printf("  %u thread%s: copy %.1f, triad %.1f;", c->threads[i],
                   c->threads[i] > 1 ? "s" : "", r->copy_gbps[i], r->triad_gbps[i]);
        }
    }
    printf("  memcpy (1 thread) %.1f\n\n", r->memcpy_gbps);
    printf("limit: the backend's triad (A and B arrays) or copy (one array input), re-measured\n"
           "next to each row with the same instance; numpy: single-threaded, same shapes and "
           "layout\n\n");
}

static void print_row(const bitcts_bench_row *row)
{
    printf("%-6s %-7s %-7s %-10s %3u ", op_short[bitcts_op_index(row->op)],
           bitcts_dtype_name(row->in_type), bitcts_dtype_name(row->out_type),
           bitcts_bench_layout_name(row->layout), row->threads);
    if (row->gbps > 0 && row->limit_gbps > 0) {
        printf("%7.1f %6.1f %5.0f%% ", row->gbps, row->limit_gbps,
               100.0 * row->gbps / row->limit_gbps);
    } else if (row->gbps > 0) {
        printf("%7.1f %6s %6s ", row->gbps, "-", "-");
    } else {
        printf("%7s %6.1f %6s ", "-", row->limit_gbps, "-");
    }
    if (row->numpy_gbps > 0 && row->gbps > 0) {
        printf("%7.1f %6.2f  %s\n", row->numpy_gbps, row->gbps / row->numpy_gbps, row->check);
    } else {
        printf("%7s %6s  %s\n", "n/a", "n/a", row->check);
    }
}

static void print_result(const bitcts_bench_config *c, const bitcts_bench_result *r)
{
    printf("bitcts bench: %s, variant %s (%s), features %s, %llu MiB per input, %u reps\n",
           r->backend, r->variant, r->variants, r->features,
           (unsigned long long)(c->size_bytes >> 20), c->reps);
    print_limits(c, r);
    printf("%-6s %-7s %-7s %-10s %3s %7s %6s %6s %7s %6s  %s\n", "op", "in", "out", "layout", "thr",
           "GB/s", "limit", "%lim", "numpy", "x np", "check");
    for (size_t i = 0; i < r->row_count; ++i) {
        print_row(&r->rows[i]);
    }
    if (r->numpy_version[0] == '\0') {
        printf("note: numpy column n/a: %s\n", r->numpy_note);
    } else {
        printf("note: numpy %s; n/a where numpy has no such operation (bitwise_count before "
               "2.0, or a UINT32 count)\n",
               r->numpy_version);
    }
    printf("\nsmall tensors in cache, ns per call (the last instance vs the scalar variant on "
           "1 thread):\n");
    for (size_t i = 0; i < r->small_count; ++i) {
        const bitcts_bench_small *s = &r->small[i];
        printf("  %-5s %-6s -> %-6s %6u B: default %8.0f ns, scalar %8.0f ns  %s\n",
               op_short[bitcts_op_index(s->op)], bitcts_dtype_name(s->in_type),
               bitcts_dtype_name(s->out_type), s->bytes, s->default_ns, s->scalar_ns, s->check);
    }
}

static int write_json(const bench_args *a, const bitcts_bench_result *r)
{
    json_t *doc = bitcts_bench_json(&a->cfg, r);
    char *text = doc != NULL ? json_dumps(doc, JSON_INDENT(2)) : NULL;
    json_decref(doc);
    if (text == NULL) {
        return bitcts_cli_error("bench", "out of memory writing %s", a->json);
    }
    char err[1024];
    const int st = bitcts_fs_write_atomic(a->json, text, strlen(text), err, sizeof err);
    free(text);
    return st == 0 ? 0 : bitcts_cli_error("bench", "%s", err);
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
    char err[1024] = "";
    if (bitcts_bench_run(&a.cfg, &r, err, sizeof err) != 0) {
        bitcts_bench_result_free(&r);
        return bitcts_cli_error("bench", "%s", err);
    }
    print_result(&a.cfg, &r);
    rc = a.json != NULL ? write_json(&a, &r) : 0;
    if (rc == 0 && r.failures > 0) {
        rc = BITCTS_EXIT_FAILURES;
    }
    bitcts_bench_result_free(&r);
    return rc;
}
