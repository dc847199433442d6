/* SPDX-License-Identifier: MIT */
/* The bench's parent: resolves the backend without loading it, runs the child
 * (harness/perf/bench_measure.c) under the supervisor, rebuilds the rows from the geometry the
 * child chose and takes each figure only after checking it (whole numbers, finite GB/s, known check
 * words, indices in range); strings are sanitised again. Then the peers. */
#include <math.h>   /* isfinite */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strcmp */
#include <unistd.h> /* sysconf */

#include "bench.h"
#include "bitcts/bitcts_status.h"
#include "clock.h"
#include "perf_child.h"
#include "sanitize.h"
#include "supervise.h"

typedef struct bench_parent {
    const bitcts_bench_config *cfg;
    bitcts_bench_config *local; /* the same, for the budget's share when the peers interleave */
    bitcts_bench_result *r;
    int shared;   /* B taken: the child said whether it shared its buffers */
    int geometry; /* G taken: the rows exist */
    int done;     /* Z taken */
    int refusal_status;
    char refusal[1100];
    char internal[600];
    long current;       /* the row that began last, or -1 */
    long out_of_time;   /* the first row the budget did not reach, or -1 */
    long turn_row;      /* the row of the peers' last turn, or -1 */
    uint64_t turn_call; /* and its call */
} bench_parent;

/* The check words a row or a small case may carry, as static strings. */
static const char *known_check(const char *word)
{
    static const char *const words[] = {"ok",   "WRONG", "GUARD",     "INPUT",
                                        "DESC", "ERROR", "REF-ERROR", "n/a"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; ++i) {
        if (strcmp(word, words[i]) == 0) {
            return words[i];
        }
    }
    return NULL;
}

/* The next space-separated word of *p, NUL-terminated in place; NULL at the end. */
static char *word(char **p)
{
    char *w = *p;
    if (*w == '\0') {
        return NULL;
    }
    char *space = strchr(w, ' ');
    if (space != NULL) {
        *space = '\0';
        *p = space + 1;
    } else {
        *p = w + strlen(w);
    }
    return w;
}

static int take_u64(char **p, uint64_t max, uint64_t *out)
{
    const char *w = word(p);
    char *end = NULL;
    if (w == NULL || *w < '0' || *w > '9') {
        return -1;
    }
    *out = strtoull(w, &end, 10);
    return *end == '\0' && *out <= max ? 0 : -1;
}

/* A figure: finite, and either -1 (none) or not negative. */
static int take_figure(char **p, double *out)
{
    const char *w = word(p);
    char *end = NULL;
    if (w == NULL) {
        return -1;
    }
    *out = strtod(w, &end);
    return *end == '\0' && isfinite(*out) && (*out >= 0 || *out == -1) ? 0 : -1;
}

static int take_geometry(bench_parent *b, char *p)
{
    bitcts_bench_result *r = b->r;
    uint64_t size = 0, device = 0, check = 0, instances = 0;
    if (b->geometry || take_u64(&p, 1ull << 36, &size) != 0 || size < 4096 ||
        take_u64(&p, 1, &device) != 0 || take_u64(&p, BITCTS_BENCH_CHECK_CPU, &check) != 0 ||
        check == BITCTS_BENCH_CHECK_AUTO ||
        take_u64(&p, BITCTS_BENCH_MAX_INSTANCES, &instances) != 0 || instances == 0) {
        return -1;
    }
    for (uint64_t i = 0; i < instances; ++i) {
        uint64_t threads = 0;
        if (take_u64(&p, 256, &threads) != 0) {
            return -1;
        }
        r->threads[i] = (uint32_t)threads;
    }
    r->size_bytes = size;
    r->device_timing = (int)device;
    /* The child sizes a stream backend's automatic run by the host (bitcts_bench_host_size). */
    r->size_capped = b->cfg->size_bytes == 0 && !b->cfg->quick && !device &&
                     bitcts_bench_host_capped(&r->host) && size == bitcts_bench_host_size(&r->host);
    r->check = (int)check;
    r->instances = (int)instances;
    if (bitcts__bench_build_rows(b->cfg, r) != BITCTS_OK) {
        snprintf(b->internal, sizeof b->internal, "out of memory");
        return 0;
    }
    b->geometry = 1;
    return 0;
}

/* The limit kinds a W line may name. */
static const char *known_limit(const char *word)
{
    for (size_t i = 0; i < BITCTS_BENCH_LIMIT_KINDS; ++i) {
        if (strcmp(word, bitcts_bench_limit_kinds[i]) == 0) {
            return bitcts_bench_limit_kinds[i];
        }
    }
    return NULL;
}

/* A W line: "<row> <gbps> <limit> <kind> <check> [<text>]". */
static int take_row_line(bench_parent *b, char *p)
{
    uint64_t n = 0;
    double gbps = 0, limit = 0;
    if (!b->geometry || b->r->row_count == 0 || take_u64(&p, b->r->row_count - 1, &n) != 0 ||
        take_figure(&p, &gbps) != 0 || take_figure(&p, &limit) != 0) {
        return -1;
    }
    const char *k = word(&p);
    const char *kind = k != NULL ? known_limit(k) : NULL;
    const char *w = word(&p);
    const char *check = w != NULL ? known_check(w) : NULL;
    if (kind == NULL || check == NULL) {
        return -1;
    }
    bitcts_bench_row *row = &b->r->rows[n];
    row->limit = kind; /* what the child measured: copy where a backend has no shaped stream */
    row->check = check;
    row->gbps = strcmp(check, "ok") == 0 ? gbps : -1;
    row->limit_gbps = limit;
    bitcts_sanitize_again(p, 4096, row->note, sizeof row->note);
    b->r->failures += strcmp(check, "ok") != 0 && strcmp(check, "n/a") != 0;
    if (b->cfg->on_row != NULL) {
        b->cfg->on_row(b->cfg->on_row_user, b->r, (size_t)n);
    }
    return 0;
}

/* An R line: "<row> <reps>"; a T line: "<row>", the first row the budget did not reach. */
static int take_reps_or_end(bench_parent *b, char kind, char *p)
{
    uint64_t n = 0, reps = 0;
    if (!b->geometry || b->r->row_count == 0 || take_u64(&p, b->r->row_count - 1, &n) != 0) {
        return -1;
    }
    if (kind == 'T') {
        b->out_of_time = b->out_of_time < 0 ? (long)n : -2;
        return b->out_of_time >= 0 ? 0 : -1;
    }
    if (take_u64(&p, BITCTS_BENCH_MAX_REPS, &reps) != 0) {
        return -1;
    }
    b->r->rows[n].reps = (uint32_t)reps;
    return 0;
}

/* The rows from the first one the budget did not reach: not measured, and said so. */
static void mark_not_measured(bench_parent *b)
{
    for (size_t i = b->out_of_time >= 0 ? (size_t)b->out_of_time : b->r->row_count;
         i < b->r->row_count; ++i) {
        bitcts_bench_row *row = &b->r->rows[i];
        if (strcmp(row->check, "-") == 0) {
            snprintf(row->note, sizeof row->note,
                     "not measured: the time budget (--budget-s %g) ran out before this row",
                     b->cfg->budget_s);
            row->out_of_time = 1;
            ++b->r->not_measured;
        }
    }
}

/* An M line: "<case> <default_ns> <scalar_ns> <check> [<text>]". */
static int take_small(bench_parent *b, char *p)
{
    uint64_t i = 0;
    double default_ns = 0, scalar_ns = 0;
    if (take_u64(&p, BITCTS_BENCH_SMALL - 1, &i) != 0 || take_figure(&p, &default_ns) != 0 ||
        take_figure(&p, &scalar_ns) != 0 || b->r->small_count >= BITCTS_BENCH_SMALL) {
        return -1;
    }
    const char *w = word(&p);
    const char *check = w != NULL ? known_check(w) : NULL;
    if (check == NULL) {
        return -1;
    }
    const bitcts__bench_small_case *c = &bitcts__bench_small_cases[i];
    bitcts_bench_small *s = &b->r->small[b->r->small_count++];
    *s = (bitcts_bench_small){.op = c->op,
                              .in_type = c->type,
                              .out_type = c->out_type,
                              .bytes = c->bytes,
                              .default_ns = default_ns,
                              .scalar_ns = scalar_ns,
                              .check = check};
    bitcts_sanitize_again(p, 4096, s->note, sizeof s->note);
    b->r->failures += strcmp(check, "ok") != 0 && strcmp(check, "n/a") != 0;
    return 0;
}

static int take_limits(bench_parent *b, char kind, char *p)
{
    bitcts_bench_result *r = b->r;
    uint64_t i = 0;
    double x = 0, y = 0;
    if (kind == 'Y') {
        return take_figure(&p, &r->memcpy_gbps);
    }
    if (!b->geometry || take_u64(&p, kind == 'H' ? (uint64_t)r->instances - 1 : 1, &i) != 0 ||
        take_figure(&p, &x) != 0 || take_figure(&p, &y) != 0) {
        return -1;
    }
    if (kind == 'H') {
        r->copy_gbps[i] = x;
        r->triad_gbps[i] = y;
    } else {
        r->copy_api_gbps[i] = x;
        r->copy_kernel_gbps[i] = y;
    }
    return 0;
}

static int take_status(bench_parent *b, char *p)
{
    char *end = NULL;
    const long st = strtol(p, &end, 10);
    if (end == p || st <= 0 || st > 999) {
        return -1;
    }
    b->refusal_status = (int)st;
    bitcts_sanitize_again(*end == ' ' ? end + 1 : end, 4096, b->refusal, sizeof b->refusal);
    return 0;
}

/* A B line: the child shared its buffers (or "-": could not); the host peers start on them,
 * and with them inside the rows' time, the share of a budget kept for peers after the backend
 * goes to the rows, as the child reckons too. Answered whatever came of it. */
static int take_shared(bench_parent *b, char *p)
{
    const int known = b->geometry && !b->shared;
    b->shared = 1;
    const int on = known && strcmp(p, "-") != 0 && bitcts__bench_serve_open(b->cfg, b->r, p) == 0;
    if (on) {
        b->local->deadline = bitcts__bench_rows_deadline(b->local, b->local->deadline);
    }
    bitcts_supervise_answer(on ? 1u : 0u);
    return known ? 0 : -1;
}

/* A Q line "<row> <call>": the host peers' turn on row n after its timed call `call`, answered
 * when it is done. Only the row at hand, each call once and in order: a line the backend forged
 * gets no turn, and no answer (the child's own ask for that call then waits in vain, and it
 * stops interleaving). */
static int take_turn(bench_parent *b, char *p)
{
    uint64_t n = 0, call = 0;
    const int ok = b->geometry && b->r->row_count > 0 && b->current >= 0 &&
                   take_u64(&p, b->r->row_count - 1, &n) == 0 &&
                   take_u64(&p, BITCTS_BENCH_MAX_REPS, &call) == 0 && (long)n == b->current &&
                   (b->turn_row != b->current ? call == 0 : call == b->turn_call + 1);
    if (!ok) {
        return -1;
    }
    b->turn_row = b->current;
    b->turn_call = call;
    bitcts__bench_serve_turn(b->cfg, b->r, (size_t)n);
    bitcts_supervise_answer(1);
    return 0;
}

/* The child is gone: the CPU peers end before the supervisor looks for what the backend left
 * (a child that crashed or hung before its Z line). */
static void child_ended(void *user)
{
    bench_parent *b = user;
    bitcts__bench_serve_close(b->r);
}

static int on_line(void *user, char *line)
{
    bench_parent *b = user;
    char *rest = line[0] != '\0' && line[1] == ' ' ? line + 2 : line + 1;
    uint64_t n = 0;
    if (line[0] != 'Z' && line[1] != ' ') {
        return -1;
    }
    switch (line[0]) {
    case 'S': return take_status(b, rest);
    case 'I':
        if (b->r->backend != NULL) {
            return -1;
        }
        b->r->backend = json_loads(rest, JSON_REJECT_DUPLICATES, NULL);
        return json_is_object(b->r->backend) ? 0 : -1;
    case 'G': return take_geometry(b, rest);
    case 'H':
    case 'U':
    case 'Y': return take_limits(b, line[0], rest);
    case 'N':
        if (!b->geometry || b->r->row_count == 0 || take_u64(&rest, b->r->row_count - 1, &n) != 0) {
            return -1;
        }
        b->current = (long)n;
        return 0;
    case 'W': return take_row_line(b, rest);
    case 'R':
    case 'T': return take_reps_or_end(b, line[0], rest);
    case 'P':
        if (take_u64(&rest, 1, &n) != 0) {
            return -1;
        }
        b->r->placed = (int)n;
        return 0;
    case 'B': return take_shared(b, rest);
    case 'Q': return take_turn(b, rest);
    case 'M': return take_small(b, rest);
    case 'E': bitcts_sanitize_again(rest, 4096, b->internal, sizeof b->internal); return 0;
    case 'Z':
        if (line[1] != '\0' || b->done) {
            return -1;
        }
        bitcts__bench_serve_close(b->r); /* before the child's end: no peer outlives it */
        b->done = 1;
        return 0;
    default: return -1;
    }
}

/* Device limits: the API copy, the mean of the start and the end; the copy kernel, the one
 * timed right after each row (the W line's limit), else that mean. Records the spread of the
 * copy kernel over the run (drift: the device's clocks or a neighbour changed its speed). */
static double start_end_mean(const double v[2])
{
    const double mean = v[0] > 0 && v[1] > 0 ? 0.5 * (v[0] + v[1]) : v[0] > 0 ? v[0] : v[1];
    return mean > 0 ? mean : -1;
}

/* Widens [*lo, *hi] to hold x (values <= 0 are "none"). */
static void widen(double *lo, double *hi, double x)
{
    if (x > 0) {
        *lo = *lo < 0 || x < *lo ? x : *lo;
        *hi = x > *hi ? x : *hi;
    }
}

static void spread_device_limits(bitcts_bench_result *r)
{
    const double api = start_end_mean(r->copy_api_gbps);
    const double kernel = start_end_mean(r->copy_kernel_gbps);
    r->kcopy_min_gbps = r->kcopy_max_gbps = -1;
    widen(&r->kcopy_min_gbps, &r->kcopy_max_gbps, r->copy_kernel_gbps[0]);
    widen(&r->kcopy_min_gbps, &r->kcopy_max_gbps, r->copy_kernel_gbps[1]);
    for (size_t i = 0; i < r->row_count; ++i) {
        bitcts_bench_row *row = &r->rows[i];
        row->limit2_gbps = row->limit_gbps > 0 ? row->limit_gbps : kernel;
        row->limit_gbps = api;
        row->limit = "copy";
        widen(&r->kcopy_min_gbps, &r->kcopy_max_gbps, row->limit2_gbps);
    }
}

static int settle(bench_parent *b, const bitcts_supervise_result *sv, char *err, size_t cap)
{
    bitcts_bench_result *r = b->r;
    char where[160] = "";
    if (b->current >= 0) {
        const bitcts_bench_row *row = &r->rows[b->current];
        snprintf(where, sizeof where, " (row %ld: %s %s->%s %s)", b->current,
                 bitcts_op_name(row->op), bitcts_dtype_name(row->in_type),
                 bitcts_dtype_name(row->out_type), bitcts_bench_layout_name(row->layout));
    }
    const bitcts__perf_end end = {b->refusal_status, b->refusal, b->internal, where};
    const int st = bitcts__perf_settle(sv, &end, &r->refused, err, cap);
    if (!bitcts_supervise_clean(sv)) { /* how the backend's process ended is the result's too */
        snprintf(r->error, sizeof r->error, "%s", err);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    if (!b->done || !b->geometry) {
        snprintf(err, cap, "the bench's process ended without its results");
        return BITCTS_E_INTERNAL;
    }
    return BITCTS_OK;
}

int bitcts_bench_run(const bitcts_bench_config *cfg, bitcts_bench_result *out, char *err,
                     size_t cap)
{
    const double started = bitcts_clock_now();
    memset(out, 0, sizeof *out);
    out->memcpy_gbps = -1;
    for (int k = 0; k < 2; ++k) {
        out->copy_api_gbps[k] = out->copy_kernel_gbps[k] = -1;
    }
    out->kcopy_min_gbps = out->kcopy_max_gbps = -1;
    for (int i = 0; i < BITCTS_BENCH_MAX_INSTANCES; ++i) {
        out->copy_gbps[i] = out->triad_gbps[i] = -1;
    }
    /* The host's cache and cores, read here for the child (its sizes and placement) and the
     * peers (theirs). */
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    bitcts_bench_host_read("", online > 0 ? (uint32_t)online : 1, &out->host);
    bitcts_bench_config local = *cfg;
    local.host = &out->host;
    local.deadline = 0;
    if (cfg->budget_s > 0) {
        local.deadline = bitcts_clock_now() +
                         cfg->budget_s * (cfg->peers_mask != 0 ? BITCTS_BENCH_BACKEND_SHARE : 1.0);
    }
    cfg = &local;
    bench_parent b = {
        .cfg = cfg, .local = &local, .r = out, .current = -1, .out_of_time = -1, .turn_row = -1};
    out->in_progress = 1;
    bitcts__perf_launch launch = BITCTS__PERF_LAUNCH(cfg, bitcts__bench_child_main, on_line, &b);
    launch.on_end = child_ended;
    launch.others = bitcts__bench_serve_sandboxes(&launch.other_count);
    bitcts_supervise_result sv;
    int st = bitcts__perf_run(&launch, &out->refused, &sv, err, cap);
    if (st != BITCTS_OK) {
        out->in_progress = 0;
        return st;
    }
    out->seconds = sv.seconds;
    st = settle(&b, &sv, err, cap);
    if (out->device_timing && b.geometry) {
        spread_device_limits(out);
    }
    if (b.geometry) {
        mark_not_measured(&b);
    }
    if (cfg->budget_s > 0) { /* the peers: what is left of the whole budget */
        local.deadline = started + cfg->budget_s;
    }
    if (st == BITCTS_OK && cfg->peers_mask != 0) {
        bitcts__bench_peers(cfg, out);
    }
    out->total_seconds = bitcts_clock_now() - started;
    out->in_progress = 0;
    return st;
}
