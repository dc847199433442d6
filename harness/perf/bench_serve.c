/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* pipe2 */
/* The host peers timed interleaved with the backend, reading its own buffers (bench.h): NumPy
 * (one process, on the rows of the first instance; its figure stands for that shape's rows of
 * every instance, as when it runs after the backend) and PyTorch on the CPU (one process per
 * instance, with that instance's threads and cores). Each is harness/perf/bench_peers.py with
 * --serve, started when the child shares its buffers (its "B" line), told to map them (sealed:
 * read-only to it; it writes its outputs to a buffer of its own), then given one command at a
 * time on its standard input and answered on its channel: after every timed call of the
 * backend, each peer whose row it is runs the row once on the same input tensors. A peer that
 * does not answer within the parent's time for the child's ask, answers something else, or
 * ends, is killed and named absent with the reason; the others go on. */
#include <errno.h>    /* errno, EPIPE */
#include <fcntl.h>    /* O_CLOEXEC */
#include <math.h>     /* isfinite */
#include <signal.h>   /* kill */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* strtol */
#include <string.h>   /* strcmp */
#include <sys/stat.h> /* fstat, S_ISREG */
#include <time.h>     /* nanosleep */
#include <unistd.h>   /* pipe2, write, close */

#include "bench.h"
#include "clock.h"
#include "guard_mem.h" /* BITCTS_GUARD_BEFORE */
#include "sanitize.h"
#include "supervise.h"

#define SERVE_MAX (1 + BITCTS_BENCH_MAX_INSTANCES)
_Static_assert(SERVE_MAX <= BITCTS_SUPERVISE_OTHERS_MAX, "the supervisor watches every server");
#define SERVE_CLOSE_S 2.0 /* a peer's time to end after its input closed */
/* A peer stops repeating a row once it ran it SERVE_ROW_RUNS times and for SERVE_ROW_S seconds
 * (a peer 20-50x behind, NumPy's transposes, would take minutes a row at 4 x a large LLC);
 * within a time budget, see run_again. */
#define SERVE_ROW_RUNS 3
#define SERVE_ROW_S 3.0

typedef struct server {
    bitcts_sandbox sb;
    int peer;
    int instance; /* -1: the rows of instance 0 stand for every instance's */
    int cmd;      /* the write end of its standard input, -1 once closed */
    int live;
    json_t *answer;                    /* the answer not yet taken, or NULL */
    int hello;                         /* its first line came */
    long row;                          /* the row its last row command set up, -1: none */
    uint32_t times_n;                  /* the row's runs so far */
    double spent;                      /* and their seconds */
    double rate[BITCTS_BENCH_LAYOUTS]; /* seconds per useful byte of its last run of each
                                        * layout (0: none yet) */
    size_t skipped; /* rows not run: one run would not fit their share of the time budget */
    double times[BITCTS_BENCH_MAX_REPS];
} server;

static struct {
    server s[SERVE_MAX];
    int count;
    bitcts_bench_result *r;
    int files[3]; /* the child's buffers, opened here (checked, and out of the backend's reach) */
    volatile sig_atomic_t *interrupted;
    bitcts_sandbox *all[SERVE_MAX]; /* &s[i].sb, for the supervisor */
} serve = {.files = {-1, -1, -1}};

bitcts_sandbox *const *bitcts__bench_serve_sandboxes(size_t *count)
{
    for (size_t i = 0; i < SERVE_MAX; ++i) {
        serve.all[i] = &serve.s[i].sb;
    }
    *count = SERVE_MAX;
    return serve.all;
}

/* The child of a server: the interpreter with --serve, its peer, threads and cores. */
typedef struct server_args {
    const bitcts_bench_config *cfg;
    int peer;
    char threads[16];
    char cpus[BITCTS_BENCH_HOST_MAX_CPUS * 5];
} server_args;

static void server_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    (void)status;
    const server_args *a = arg;
    /* A thread pool that spins after an operator would take the backend's cores in its next
     * timed call: PyTorch's OpenMP threads sleep at once (unless the user said otherwise). */
    setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
    char *args[8] = {"--serve",
                     "--peer",
                     (char *)bitcts_bench_peer_name(a->peer),
                     "--threads",
                     (char *)a->threads,
                     "--cpus",
                     (char *)a->cpus,
                     NULL};
    bitcts__bench_peer_exec(a->cfg, args, a->cpus[0] != '\0' ? 7 : 5, chan, nonce);
}

static void on_server_line(void *user, char *line)
{
    server *sv = user;
    bitcts_bench_peer *p = &serve.r->peers[sv->peer];
    json_t *o = json_loads(line, JSON_REJECT_DUPLICATES, NULL);
    const char *absent = json_string_value(json_object_get(o, "absent"));
    if (json_is_object(o) && json_object_get(o, "peer") != NULL && !sv->hello) {
        sv->hello = 1;
        bitcts__bench_peer_hello(p, o);
    } else if (json_is_object(o) && absent != NULL && json_object_get(o, "id") == NULL &&
               json_object_get(o, "mapped") == NULL) {
        bitcts__bench_peer_note(p, absent); /* a note, or why the library cannot run at all */
        if (!sv->hello) {
            sv->hello = -1;
        }
    } else if (json_is_object(o) && sv->answer == NULL) {
        sv->answer = o;
        return;
    } else {
        ++sv->sb.garbage;
    }
    json_decref(o);
}

/* Reaps the server alone (never another child: the supervised one is the supervisor's to reap).
 * The supervisor's reaper records a server's end in its sandbox (bitcts__bench_serve_sandboxes);
 * one reaped anywhere else counts as ended, with no status. */
static void reap(server *sv)
{
    bitcts_sandbox_reap_one(&sv->sb);
}

/* Kills the server, with why it is absent from now on. */
static void server_fail(server *sv, const char *why)
{
    if (sv->live) {
        bitcts__bench_peer_note(&serve.r->peers[sv->peer], why);
        bitcts_sandbox_kill(&sv->sb);
        sv->live = 0;
    }
}

/* Fails a server that ended (its channel closed or its process reaped), with how: its wait
 * status when known and an excerpt of what it printed. */
static void server_ended(server *sv)
{
    char status[120] = "";
    if (sv->sb.exited && sv->sb.status != -1) {
        bitcts_sandbox_describe(sv->sb.status, status, sizeof status);
    }
    char output[BITCTS_SUPERVISE_OUTPUT_CAP];
    const uint64_t bytes = bitcts_sandbox_take_output(&sv->sb, -1, output, sizeof output);
    char how[500];
    snprintf(how, sizeof how, "the Python process ended%s%s%s%.300s",
             status[0] != '\0' ? " with " : "", status, bytes > 0 ? ": " : "",
             bytes > 0 ? output : "");
    server_fail(sv, how);
}

/* Until its first line (hello) or an answer (1), its end or the time `until` (0: the server
 * failed, named why; `late` says why when the time ran out). */
static int await_line(server *sv, double until, int hello, const char *late)
{
    bitcts_sandbox *one[1] = {&sv->sb};
    while (sv->live) {
        const int eof = bitcts_sandbox_pump(&sv->sb, on_server_line, sv);
        if (hello ? sv->hello != 0 : sv->answer != NULL) {
            return hello ? sv->hello > 0 : 1;
        }
        reap(sv);
        /* Its channel closed: it is ending, give it a moment to be reaped for its status. */
        for (double give = bitcts_clock_now() + 1.0;
             eof && !sv->sb.exited && bitcts_clock_now() < give; reap(sv)) {
            (void)bitcts_sandbox_wait(one, 1, 0.05);
        }
        if (eof || sv->sb.exited) {
            server_ended(sv);
            return 0;
        }
        const double now = bitcts_clock_now();
        if (serve.interrupted != NULL && *serve.interrupted != 0) {
            server_fail(sv, "interrupted");
            return 0;
        }
        if (now >= until) {
            server_fail(sv, late);
            return 0;
        }
        (void)bitcts_sandbox_wait(one, 1, until - now < 0.1 ? until - now : 0.1);
    }
    return 0;
}

/* Sends one command and takes its answer (NULL: the server failed). */
static json_t *ask(server *sv, const char *cmd, double until, const char *late)
{
    const size_t len = strlen(cmd);
    if (!sv->live) {
        return NULL;
    }
    const ssize_t put = write(sv->cmd, cmd, len); /* O_NONBLOCK: never waits */
    if (put != (ssize_t)len) {
        const char *deaf = "it does not read its commands (its standard input is full or closed)";
        if (put < 0 && errno == EPIPE) { /* mostly ended between two turns: a second to say how */
            (void)await_line(sv, bitcts_clock_now() + 1.0, 0, deaf);
        }
        server_fail(sv, deaf); /* nothing if await_line failed it */
        return NULL;
    }
    if (!await_line(sv, until, 0, late)) {
        return NULL;
    }
    json_t *o = sv->answer;
    sv->answer = NULL;
    return o;
}

/* Until when a server may take for what the parent does now: the parent's time for the child's
 * ask, at most the peers' own timeout, and within a budget at most the rows' end; `late` gets
 * why, for when that time runs out. */
static double until_of(const bitcts_bench_config *cfg, char *late, size_t cap)
{
    const double now = bitcts_clock_now();
    const double peer = cfg->peer_timeout_s > 0 ? cfg->peer_timeout_s : 120;
    const double answer = bitcts__bench_answer_s(cfg);
    const double timeout = peer < answer ? peer : answer;
    snprintf(late, cap, "no answer within %.3g s; the Python process was killed", timeout);
    if (cfg->budget_s > 0 && cfg->deadline > 0 && cfg->deadline < now + timeout) {
        snprintf(late, cap, "%s", BITCTS__BENCH_PEER_BUDGET_END);
        return cfg->deadline;
    }
    return now + timeout;
}

static int start_server(const bitcts_bench_config *cfg, bitcts_bench_result *r, int peer,
                        int instance)
{
    server *sv = &serve.s[serve.count];
    memset(sv, 0, sizeof *sv);
    sv->peer = peer;
    sv->instance = instance;
    sv->row = -1;
    sv->cmd = -1;
    server_args a = {.cfg = cfg, .peer = peer};
    const uint32_t threads = instance >= 0 ? r->threads[instance] : 1;
    snprintf(a.threads, sizeof a.threads, "%u", threads);
    if (r->placed && bitcts_bench_host_format_cpus(&r->host, threads, a.cpus, sizeof a.cpus) != 0) {
        a.cpus[0] = '\0';
    }
    int fds[2];
    char err[256];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        bitcts__bench_peer_note(&r->peers[peer], "cannot create a pipe for it");
        return -1;
    }
    sv->sb.stdin_fd = fds[0];
    const int st = bitcts_sandbox_spawn(&sv->sb, server_main, &a, err, sizeof err);
    close(fds[0]);
    if (st != 0) {
        close(fds[1]);
        bitcts__bench_peer_note(&r->peers[peer], err);
        return -1;
    }
    sv->cmd = fds[1];
    (void)fcntl(sv->cmd, F_SETFL, fcntl(sv->cmd, F_GETFL) | O_NONBLOCK);
    sv->live = 1;
    ++serve.count;
    return 0;
}

/* The server's start, by `until` (why it is late: `late`): its first line, the buffers mapped,
 * and for the first of a peer its own copy of the bench's size. */
static void server_ready(server *sv, const char *map, double until, const char *late)
{
    bitcts_bench_peer *p = &serve.r->peers[sv->peer];
    if (!await_line(sv, until, 1, late)) {
        server_fail(sv, "it cannot run");
        return;
    }
    json_t *o = ask(sv, map, until, late);
    const int mapped = json_is_true(json_object_get(o, "mapped"));
    if (o != NULL && !mapped) {
        const char *why = json_string_value(json_object_get(o, "absent"));
        server_fail(sv, why != NULL ? why : "it did not map the bench's buffers");
    }
    json_decref(o);
    if (mapped && p->copy_gbps < 0) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "copy %llu\n", (unsigned long long)serve.r->size_bytes);
        o = ask(sv, cmd, until, late);
        const double s = json_number_value(json_object_get(o, "seconds"));
        p->copy_gbps = s > 0 && isfinite(s) ? 2.0 * (double)serve.r->size_bytes / s / 1e9 : -1;
        json_decref(o);
    }
}

/* Opens the child's three buffer files (its process and descriptors from the B line) here, and
 * keeps them only when each is a file sealed as bitcts_guard_share seals it (read-only to
 * others, of a fixed size) and large enough: then what the peers map is out of the backend's
 * reach (it cannot swap its descriptors under them). 0, or -1 (none kept). */
static int open_files(const bitcts_bench_result *r, long pid, const long fd[3])
{
    const int want = BITCTS_GUARD_SHARE_SEALS;
    uint64_t need[3];
    bitcts__bench_caps(r, &need[0], &need[2]); /* the data, after BITCTS_GUARD_BEFORE bytes */
    need[1] = need[0];
    int ok = 1;
    for (int k = 0; k < 3; ++k) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/fd/%ld", pid, fd[k]);
        serve.files[k] = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        const int seals = serve.files[k] >= 0 ? fcntl(serve.files[k], 1034 /* F_GET_SEALS */) : -1;
        ok &= serve.files[k] >= 0 && fstat(serve.files[k], &st) == 0 && S_ISREG(st.st_mode) &&
              seals >= 0 && (seals & want) == want &&
              (uint64_t)st.st_size >= BITCTS_GUARD_BEFORE + need[k];
    }
    for (int k = 0; !ok && k < 3; ++k) {
        if (serve.files[k] >= 0) {
            close(serve.files[k]);
        }
        serve.files[k] = -1;
    }
    return ok ? 0 : -1;
}

/* "<pid> <fd A> <fd B> <fd output> <offset>" of the supervised child, each a decimal number. */
static int parse_shared(const char *line, long *pid, long fd[3])
{
    long v[5];
    const char *p = line;
    for (int k = 0; k < 5; ++k) {
        char *end = NULL;
        errno = 0;
        v[k] = strtol(p, &end, 10);
        if (end == p || errno != 0 || v[k] < 0 || v[k] > 0x7fffffffL ||
            (*end != ' ' && *end != '\0') || (k < 4 && *end != ' ') || (k == 4 && *end != '\0')) {
            return -1;
        }
        p = end + 1;
    }
    *pid = v[0];
    fd[0] = v[1];
    fd[1] = v[2];
    fd[2] = v[3];
    return v[0] == bitcts_supervise_child_pid() && v[4] == BITCTS_GUARD_BEFORE ? 0 : -1;
}

int bitcts__bench_serve_open(const bitcts_bench_config *cfg, bitcts_bench_result *r,
                             const char *line)
{
    long pid = 0, fd[3];
    const unsigned mask = bitcts__bench_host_peers(cfg, 0);
    serve.r = r;
    serve.interrupted = cfg->interrupted;
    if (serve.count > 0 || mask == 0 || r->device_timing || parse_shared(line, &pid, fd) != 0 ||
        open_files(r, pid, fd) != 0) {
        return -1; /* "-" (not shared), not this child's, or not the files it shares */
    }
    char map[160];
    const long self = (long)getpid();
    snprintf(map, sizeof map, "map /proc/%ld/fd/%d /proc/%ld/fd/%d /proc/%ld/fd/%d %u\n", self,
             serve.files[0], self, serve.files[1], self, serve.files[2], BITCTS_GUARD_BEFORE);
    for (int p = 0; p < BITCTS_BENCH_PEERS; ++p) { /* every process first: they start together */
        if ((mask & (1u << p)) == 0) {
            continue;
        }
        memset(&r->peers[p], 0, sizeof r->peers[p]);
        r->peers[p].asked = r->peers[p].interleaved = 1;
        r->peers[p].copy_gbps = -1;
        const int per_instance = p == BITCTS_BENCH_PEER_TORCH_CPU;
        for (int i = per_instance ? 0 : -1; i < (per_instance ? r->instances : 0); ++i) {
            (void)start_server(cfg, r, p, i);
        }
    }
    char late[200];
    const double until = until_of(cfg, late, sizeof late); /* one time for them all */
    for (int i = 0; i < serve.count; ++i) {
        server_ready(&serve.s[i], map, until, late);
    }
    return 0;
}

/* Row n's tensors for a row command: "row ID OP W OW ROWS COLS SA0 SA1 SB0 SB1 SO0 SO1". */
static void row_command(const bitcts_bench_result *r, size_t n, char *out, size_t cap)
{
    const bitcts_op_desc *d = &r->descs[n];
    const bitcts_bench_row *row = &r->rows[n];
    uint32_t s[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    const bitcts_tensor_desc *t[3] = {&d->inputs[0], d->input_count == 2 ? &d->inputs[1] : NULL,
                                      &d->output};
    for (int k = 0; k < 3; ++k) {
        if (t[k] != NULL) {
            s[k][0] = t[k]->has_strides ? t[k]->strides[0] : t[k]->sizes[1];
            s[k][1] = t[k]->has_strides ? t[k]->strides[1] : 1;
        }
    }
    snprintf(out, cap, "row %zu %s %u %u %u %u %u %u %u %u %u %u\n", n,
             bitcts__bench_peer_ops[bitcts_op_index(row->op)], bitcts_dtype_size(row->in_type),
             bitcts_dtype_size(row->out_type), row->rows, row->cols, s[0][0], s[0][1], s[1][0],
             s[1][1], s[2][0], s[2][1]);
}

/* Whether an answer is for row n (its "id"). */
static int answer_for(const json_t *o, size_t n)
{
    char id[32];
    snprintf(id, sizeof id, "%zu", n);
    const char *got = json_string_value(json_object_get(o, "id"));
    return got != NULL && strcmp(got, id) == 0;
}

/* The server's row n set up (1), or why not, named on the row's peer (0). */
static int server_row(server *sv, size_t n, double until, const char *late)
{
    if (sv->row == (long)n) {
        return 1;
    }
    char cmd[160];
    row_command(serve.r, n, cmd, sizeof cmd);
    json_t *o = ask(sv, cmd, until, late);
    const int ready = json_is_true(json_object_get(o, "ready")) && answer_for(o, n);
    const char *why = json_string_value(json_object_get(o, "absent"));
    if (o != NULL && !ready) {
        bitcts__bench_peer_note(&serve.r->peers[sv->peer],
                                why != NULL ? why : "an answer that was not one");
    }
    json_decref(o);
    sv->row = (long)n;
    sv->times_n = ready ? 0 : BITCTS_BENCH_MAX_REPS; /* full: no run of a row it refused */
    sv->spent = 0;
    return ready;
}

/* Whether the server runs its row once more now (serve_turn, after a timed call of the
 * backend). Within a time budget (share > 0: half the row's even share of what is left), a row
 * whose one run would take over twice that share, by the server's last run of that layout, is
 * not run at all (at 4 x a 300 MiB LLC one run of NumPy's or PyTorch's transposes took 4-14 s
 * against a share of about 1 s: they alone would spend the budget). */
static int run_again(server *sv, const bitcts_bench_row *row, double share)
{
    if (sv->times_n >= BITCTS_BENCH_MAX_REPS) {
        return 0;
    }
    if (share <= 0) {
        return sv->times_n < SERVE_ROW_RUNS || sv->spent < SERVE_ROW_S;
    }
    const double expect = sv->rate[row->layout % BITCTS_BENCH_LAYOUTS] * row->useful_bytes;
    if (sv->times_n == 0 && expect > 2 * share) {
        ++sv->skipped;
        sv->times_n = BITCTS_BENCH_MAX_REPS; /* not this row */
        return 0;
    }
    return sv->times_n == 0 || sv->spent < share;
}

void bitcts__bench_serve_turn(const bitcts_bench_config *cfg, bitcts_bench_result *r, size_t n)
{
    const size_t per_shape = r->instances > 0 ? (size_t)r->instances : 1;
    char late[200];
    const double until = until_of(cfg, late, sizeof late);
    const double now = bitcts_clock_now();
    const double share = cfg->budget_s > 0 && cfg->deadline > now
                             ? 0.5 * (cfg->deadline - now) / (double)(r->row_count - n)
                             : 0;
    for (int i = 0; i < serve.count && n < r->row_count; ++i) {
        server *sv = &serve.s[i];
        const size_t mine = sv->instance < 0 ? 0 : (size_t)sv->instance;
        if (!sv->live || n % per_shape != mine || !server_row(sv, n, until, late) ||
            !run_again(sv, &r->rows[n], share)) {
            continue;
        }
        char cmd[48];
        snprintf(cmd, sizeof cmd, "rep %zu\n", n);
        json_t *o = ask(sv, cmd, until, late);
        const double s = json_number_value(json_object_get(o, "seconds"));
        if (o != NULL && (!answer_for(o, n) || !(s > 0) || !isfinite(s))) {
            server_fail(sv, "an answer that was not a time of the row asked for; killed");
        } else if (o != NULL) {
            sv->times[sv->times_n++] = s;
            sv->spent += s;
            sv->rate[r->rows[n].layout % BITCTS_BENCH_LAYOUTS] = s / r->rows[n].useful_bytes;
            double sorted[BITCTS_BENCH_MAX_REPS];
            memcpy(sorted, sv->times, sv->times_n * sizeof *sorted);
            const double med = bitcts__bench_median(sorted, sv->times_n);
            const size_t count = sv->instance < 0 ? per_shape : 1;
            for (size_t j = 0; j < count && n + j < r->row_count; ++j) {
                r->rows[n + j].peer_gbps[sv->peer] = r->rows[n + j].useful_bytes / med / 1e9;
            }
            r->peers[sv->peer].present = 1;
        }
        json_decref(o);
    }
}

void bitcts__bench_serve_close(bitcts_bench_result *r)
{
    bitcts_sandbox *all[SERVE_MAX];
    for (int i = 0; i < serve.count; ++i) {
        all[i] = &serve.s[i].sb;
        if (serve.s[i].cmd >= 0) {
            close(serve.s[i].cmd); /* end of input: the script returns */
            serve.s[i].cmd = -1;
        }
    }
    const double end = bitcts_clock_now() + SERVE_CLOSE_S;
    for (int left = serve.count; left > 0 && bitcts_clock_now() < end;) {
        (void)bitcts_sandbox_wait(all, (size_t)serve.count, 0.05);
        left = 0;
        for (int i = 0; i < serve.count; ++i) {
            reap(&serve.s[i]);
            left += !serve.s[i].sb.exited;
        }
    }
    for (int i = 0; i < serve.count; ++i) {
        server *sv = &serve.s[i];
        bitcts_sandbox_kill(&sv->sb);
        for (int k = 0; k < 500 && !sv->sb.exited; ++k) {
            const struct timespec pause = {0, 2000000};
            nanosleep(&pause, NULL);
            reap(sv);
        }
        sv->sb.exited = 1; /* reaped here, or by the supervisor's reaper */
        json_decref(sv->answer);
        bitcts_sandbox_close(&sv->sb);
        bitcts_bench_peer *p = &r->peers[sv->peer];
        if (sv->skipped > 0) {
            char why[200];
            snprintf(why, sizeof why,
                     "%zu rows not run: one run would take over twice the row's share of the time "
                     "budget, by its last run of that layout",
                     sv->skipped);
            bitcts__bench_peer_note(p, why);
        }
        if (!p->present && p->note[0] == '\0') {
            bitcts__bench_peer_note(p, "it timed nothing");
        }
    }
    serve.count = 0;
    for (int k = 0; k < 3; ++k) {
        if (serve.files[k] >= 0) {
            close(serve.files[k]);
        }
        serve.files[k] = -1;
    }
}
