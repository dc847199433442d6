/* SPDX-License-Identifier: MIT */
/* The bench's peers: for each library asked, one Python process (harness/perf/bench_peers.py,
 * embedded in the executable at build time) runs the rows' shapes, one job per shape, and sends
 * a JSON line per job on the sandbox channel. The process is supervised like a backend: a peer
 * that sends nothing for peer_timeout_s is killed, one that is missing, crashes or refuses a job
 * is reported as absent with the reason, never as a failure of the bench. */
#include <math.h>     /* isfinite */
#include <stdarg.h>   /* va_list */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* calloc, setenv */
#include <string.h>   /* strcmp */
#include <sys/wait.h> /* WIFEXITED */
#include <unistd.h>   /* execvp, _exit */

#include "bench.h"
#include "bench_peers_py.h" /* bitcts__bench_peers_py: the script, generated */
#include "child.h"          /* bitcts_child_deadline */
#include "clock.h"
#include "sanitize.h"
#include "supervise.h"

#define PEER_COPY_COLS 1024u

typedef struct peer_run {
    const bitcts_bench_config *cfg;
    bitcts_bench_result *r;
    int peer;
    size_t per_shape;
    int instance;    /* the instance whose rows it times (threads and CPUs); -1: all, alike */
    double budget_s; /* seconds for its jobs (--budget-s); 0: none */
    char cpus[BITCTS_BENCH_HOST_MAX_CPUS * 5]; /* --cpus, or "" */
    char **argv; /* the interpreter's arguments, NULL-terminated; the child adds its channel */
    size_t argc;
    size_t jobs_done;
} peer_run;

/* The short operator names the script knows, in bitcts_op_all's order. */
const char *const bitcts__bench_peer_ops[BITCTS_OP_COUNT] = {"and",   "or",  "xor", "not",
                                                             "count", "shl", "shr"};

/* Adds reason to the peer's note unless it is there already. */
void bitcts__bench_peer_note(bitcts_bench_peer *p, const char *reason)
{
    char clean[300];
    bitcts_sanitize_string(reason, 4096, clean, sizeof clean);
    if (clean[0] == '\0' || strstr(p->note, clean) != NULL) {
        return;
    }
    const size_t used = strlen(p->note);
    snprintf(p->note + used, sizeof p->note - used, "%s%s", used > 0 ? "; " : "", clean);
}

static void copy_text(const json_t *o, const char *key, char *out, size_t cap)
{
    const char *v = json_string_value(json_object_get(o, key));
    if (v != NULL) {
        bitcts_sanitize_string(v, 4096, out, cap);
    }
}

void bitcts__bench_peer_hello(bitcts_bench_peer *p, const json_t *o)
{
    copy_text(o, "version", p->version, sizeof p->version);
    copy_text(o, "device", p->device, sizeof p->device);
    const char *note = json_string_value(json_object_get(o, "note"));
    if (note != NULL) {
        bitcts__bench_peer_note(p, note);
    }
}

/* One JSON line of the script (docs in harness/perf/bench_peers.py). */
static int peer_line(void *user, char *line)
{
    peer_run *pr = user;
    bitcts_bench_peer *p = &pr->r->peers[pr->peer];
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    const json_t *id = json_object_get(o, "id");
    const json_t *seconds = json_object_get(o, "seconds");
    const char *absent = json_string_value(json_object_get(o, "absent"));
    int rc = 0;
    if (!json_is_object(o)) {
        rc = -1;
    } else if (json_object_get(o, "peer") != NULL) {
        bitcts__bench_peer_hello(p, o);
    } else if (id == NULL && absent != NULL) {
        bitcts__bench_peer_note(p, absent);
    } else if (json_is_string(id) && strcmp(json_string_value(id), "copy") == 0) {
        const double s = json_number_value(seconds);
        p->copy_gbps = json_is_number(seconds) && s > 0 && isfinite(s)
                           ? 2.0 * (double)pr->r->size_bytes / s / 1e9
                           : -1;
    } else if (json_is_string(id)) {
        char *end = NULL;
        const unsigned long long n = strtoull(json_string_value(id), &end, 10);
        const double s = json_number_value(seconds);
        const size_t first = pr->instance < 0 ? 0 : (size_t)pr->instance;
        const size_t count = pr->instance < 0 ? pr->per_shape : 1;
        if (*end != '\0' || n >= pr->r->row_count || n % pr->per_shape != first) {
            rc = -1;
        } else if (json_is_number(seconds) && s > 0 && isfinite(s)) {
            for (size_t k = 0; k < count && n + k < pr->r->row_count; ++k) {
                bitcts_bench_row *row = &pr->r->rows[n + k];
                row->peer_gbps[pr->peer] = row->useful_bytes / s / 1e9;
            }
            p->present = 1;
        } else if (absent != NULL) {
            bitcts__bench_peer_note(p, absent);
        }
        ++pr->jobs_done;
    } else {
        rc = -1;
    }
    json_decref(o);
    return rc;
}

void bitcts__bench_peer_exec(const bitcts_bench_config *cfg, char *const *args, size_t n, int chan,
                             const char *nonce)
{
    char fd[16];
    snprintf(fd, sizeof fd, "%d", chan);
    char **argv = calloc(n + 8, sizeof *argv);
    if (argv == NULL) {
        _exit(126);
    }
    size_t k = 0;
    argv[k++] = (char *)cfg->python;
    if (cfg->peers_script != NULL) {
        argv[k++] = (char *)cfg->peers_script;
    } else {
        argv[k++] = "-c";
        argv[k++] = (char *)bitcts__bench_peers_py;
    }
    memcpy(argv + k, args, n * sizeof *argv);
    k += n;
    argv[k++] = "--fd";
    argv[k++] = fd;
    argv[k++] = "--prefix";
    argv[k++] = (char *)nonce;
    setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
    setenv("XLA_PYTHON_CLIENT_PREALLOCATE", "false", 0);
    execvp(argv[0], argv);
    _exit(127);
}

static void peer_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    (void)status;
    const peer_run *pr = arg;
    bitcts__bench_peer_exec(pr->cfg, pr->argv, pr->argc, chan, nonce);
}

/* Appends a formatted argument kept in store. */
static int add_arg(peer_run *pr, char *store, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int len = vsnprintf(store + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= cap - *used) {
        return -1;
    }
    pr->argv[pr->argc++] = store + *used;
    *used += (size_t)len + 1;
    return 0;
}

/* The script's arguments (bitcts__bench_peer_exec puts the interpreter and the script before
 * them): the peer, the repetitions, one job per shape ("id:op:w:ow:layout:rows:cols") and the
 * copy of the bench's size. */
static int build_argv(peer_run *pr, char *store, size_t cap)
{
    const bitcts_bench_config *cfg = pr->cfg;
    const bitcts_bench_result *r = pr->r;
    const size_t shapes = r->row_count / pr->per_shape;
    pr->argv = calloc(shapes + 16, sizeof *pr->argv);
    if (pr->argv == NULL) {
        return -1;
    }
    size_t used = 0;
    pr->argv[pr->argc++] = "--peer";
    pr->argv[pr->argc++] = (char *)bitcts_bench_peer_name(pr->peer);
    pr->argv[pr->argc++] = "--reps";
    int rc = add_arg(pr, store, cap, &used, "%u", cfg->reps);
    const size_t first = pr->instance < 0 ? 0 : (size_t)pr->instance;
    if (rc == 0 && pr->instance >= 0) {
        pr->argv[pr->argc++] = "--threads";
        rc = add_arg(pr, store, cap, &used, "%u", r->threads[pr->instance]);
    }
    if (rc == 0 && pr->budget_s > 0) {
        pr->argv[pr->argc++] = "--budget-s";
        rc = add_arg(pr, store, cap, &used, "%.3f", pr->budget_s);
    }
    if (rc == 0 && pr->cpus[0] != '\0') {
        pr->argv[pr->argc++] = "--cpus";
        pr->argv[pr->argc++] = pr->cpus;
    }
    for (size_t i = 0; rc == 0 && i < shapes; ++i) {
        const bitcts_bench_row *row = &r->rows[i * pr->per_shape + first];
        rc = add_arg(pr, store, cap, &used, "%zu:%s:%u:%u:%s:%u:%u", i * pr->per_shape + first,
                     bitcts__bench_peer_ops[bitcts_op_index(row->op)],
                     bitcts_dtype_size(row->in_type), bitcts_dtype_size(row->out_type),
                     bitcts_bench_layout_name(row->layout), row->rows, row->cols);
    }
    if (rc == 0) {
        rc = add_arg(pr, store, cap, &used, "copy:copy:1:1:packed:%llu:%u",
                     (unsigned long long)(r->size_bytes / PEER_COPY_COLS), PEER_COPY_COLS);
    }
    return rc;
}

/* Why a peer that timed nothing is absent, from how its process ended. */
static void explain_end(bitcts_bench_peer *p, const bitcts_supervise_result *sv, double timeout)
{
    char how[700];
    if (sv->over_budget) {
        snprintf(how, sizeof how, "%s", BITCTS__BENCH_PEER_BUDGET_END);
    } else if (sv->timed_out || (sv->exited && WIFSIGNALED(sv->status) && sv->interrupted)) {
        snprintf(how, sizeof how, "no result within %.0f s; the Python process was killed",
                 timeout);
    } else if (sv->exited && WIFEXITED(sv->status) && WEXITSTATUS(sv->status) == 127) {
        snprintf(how, sizeof how, "the Python interpreter could not be started");
    } else if (sv->exited && (!WIFEXITED(sv->status) || WEXITSTATUS(sv->status) != 0)) {
        char status[160];
        bitcts_sandbox_describe(sv->status, status, sizeof status);
        snprintf(how, sizeof how, "the Python process ended with %s%s%.300s", status,
                 sv->output_bytes > 0 ? ": " : "", sv->output);
    } else {
        return;
    }
    bitcts__bench_peer_note(p, how);
}

/* One process of a peer: the rows of `instance` (-1: of all instances alike), on the cores the
 * backend's threads ran on when they were placed. */
static void run_peer(const bitcts_bench_config *cfg, bitcts_bench_result *r, int peer, int instance,
                     double budget_s)
{
    bitcts_bench_peer *p = &r->peers[peer];
    peer_run pr = {.cfg = cfg, .r = r, .peer = peer, .instance = instance, .budget_s = budget_s};
    pr.per_shape = r->instances > 0 ? (size_t)r->instances : 1;
    const uint32_t threads = instance >= 0 ? r->threads[instance] : 1;
    if (r->placed &&
        bitcts_bench_host_format_cpus(&r->host, threads, pr.cpus, sizeof pr.cpus) != 0) {
        pr.cpus[0] = '\0';
    }
    const size_t store_cap = (r->row_count / pr.per_shape + 4) * 96;
    char *store = calloc(store_cap, 1);
    char err[256];
    if (store == NULL || build_argv(&pr, store, store_cap) != 0) {
        bitcts__bench_peer_note(p, "out of memory");
        free(store);
        free(pr.argv);
        return;
    }
    const double timeout = cfg->peer_timeout_s > 0 ? cfg->peer_timeout_s : 120;
    /* Within a budget the script paces its jobs itself; its start (the interpreter, the
     * libraries, the buffers) is not paced, so the process ends at its share plus a grace. */
    const double grace = budget_s > 0 ? 2 + 0.05 * budget_s : 0;
    const bitcts_supervise_config sv_cfg = {
        .timeout_s = timeout,
        .lines_are_progress = 1,
        .on_line = peer_line,
        .user = &pr,
        .interrupted = cfg->interrupted,
        .end_at = budget_s > 0 ? bitcts_clock_now() + budget_s + grace : 0};
    bitcts_supervise_result sv;
    if (bitcts_supervise_run(&sv_cfg, peer_main, &pr, &sv, err, sizeof err) != 0) {
        bitcts__bench_peer_note(p, err);
    } else if (!p->present || sv.timed_out || sv.over_budget) {
        explain_end(p, &sv, timeout);
    }
    if (p->note[0] == '\0' && !p->present) {
        bitcts__bench_peer_note(p, "it timed nothing");
    }
    free(store);
    free(pr.argv);
}

/* PyTorch on the CPU: one process per instance, with its thread count and cores; the others
 * are single-threaded (NumPy) or on a device: one process for all. */
static int peer_per_instance(const bitcts_bench_result *r, int p)
{
    return p == BITCTS_BENCH_PEER_TORCH_CPU && !r->device_timing;
}

/* Within a budget (cfg->deadline), a peer process's even share of the time left over the
 * processes left (at least a millisecond: the script then measures nothing and says so). */
static double peer_budget(const bitcts_bench_config *cfg, int processes_left)
{
    if (cfg->budget_s <= 0) {
        return 0;
    }
    const double left =
        (cfg->deadline - bitcts_clock_now()) / (processes_left > 0 ? processes_left : 1);
    return left > 1e-3 ? left : 1e-3;
}

double bitcts__bench_answer_s(const bitcts_bench_config *cfg)
{
    return 0.5 * bitcts_child_deadline('C', cfg->timeout_s > 0 ? cfg->timeout_s : 120, 0);
}

double bitcts__bench_rows_deadline(const bitcts_bench_config *cfg, double deadline)
{
    const int alone = bitcts__bench_peers_asked(cfg, 0) == bitcts__bench_host_peers(cfg, 0);
    return cfg->budget_s > 0 && deadline > 0 && alone
               ? deadline + cfg->budget_s * (1.0 - BITCTS_BENCH_BACKEND_SHARE)
               : deadline;
}

unsigned bitcts__bench_peers_asked(const bitcts_bench_config *cfg, int device_timing)
{
    unsigned mask = cfg->peers_mask;
    if (mask == BITCTS_BENCH_PEERS_AUTO) {
        mask = 0;
        for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
            mask |= (bitcts_bench_peer_is_device(p) == device_timing) ? 1u << p : 0;
        }
    }
    return mask;
}

unsigned bitcts__bench_host_peers(const bitcts_bench_config *cfg, int device_timing)
{
    unsigned mask = 0;
    const unsigned asked = device_timing ? 0 : bitcts__bench_peers_asked(cfg, 0);
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        mask |= (asked & (1u << p)) != 0 && !bitcts_bench_peer_is_device(p) ? 1u << p : 0;
    }
    return mask;
}

void bitcts__bench_peers(const bitcts_bench_config *cfg, bitcts_bench_result *r)
{
    unsigned mask = bitcts__bench_peers_asked(cfg, r->device_timing);
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        mask &= r->peers[p].interleaved ? ~(1u << p) : ~0u;
    }
    int processes = 0;
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) {
        processes += (mask & (1u << p)) != 0 ? (peer_per_instance(r, p) ? r->instances : 1) : 0;
    }
    for (int p = 0; p < BITCTS_BENCH_PEERS && r->row_count > 0; ++p) {
        if ((mask & (1u << p)) == 0) {
            continue;
        }
        memset(&r->peers[p], 0, sizeof r->peers[p]);
        r->peers[p].asked = 1;
        r->peers[p].copy_gbps = -1;
        const int per_instance = peer_per_instance(r, p);
        for (int i = per_instance ? 0 : -1; i < (per_instance ? r->instances : 0); ++i) {
            if (cfg->interrupted == NULL || *cfg->interrupted == 0) {
                run_peer(cfg, r, p, i, peer_budget(cfg, processes));
            }
            --processes;
        }
    }
}
