/* SPDX-License-Identifier: MIT */
/* Hostile plugins: the example plugin (backends/example, correct) wrapped by code that misbehaves
 * on purpose, one behaviour per module: this file is compiled once, and each module adds the one
 * definition of bitcts_hostile_name, "<behaviour>" (the list is in tests/plugins/CMakeLists.txt;
 * tests/harness/hostile_plugins.py holds the verdict each must earn). Behaviours named exec_*
 * strike in operator_execute of BIT_COUNT only, so the other operators' cases show that the blame
 * stays where it belongs; mutant_* in every execute; the rest while loading, creating, querying,
 * destroying or unloading, so every case of the run is affected, except desc_* (operator_create of
 * BIT_COUNT only) and mem_* (operator_execute of BIT_COUNT only). A name batch_<behaviour>
 * (tests/harness/batch_plugins.py) is <behaviour> in a plugin that also offers
 * bitcts_batch_execute_v1, whose execute_batch runs each item through the same operator_execute: a
 * behaviour strikes inside a batched call as it strikes alone. Some exec_* behaviours exist for
 * those: exec_write_past and exec_write_far (a byte just past the output, in its guard bytes, or 64
 * KiB past it, in its no-access zone), exec_desc_rewrite (the lent description made writable and
 * every size set to 1 during the call), exec_lie (runs nothing and says OK), exec_batched_crash and
 * exec_batched_wrong (a null write, or one flipped output bit, only in a batched call of several
 * items). */
#define _GNU_SOURCE /* setsid, RLIMIT_*, pipe2 */

#include <fcntl.h>        /* open */
#include <pthread.h>      /* pthread_create */
#include <sched.h>        /* sched_yield */
#include <semaphore.h>    /* sem_t */
#include <signal.h>       /* raise, sigaction, kill */
#include <stdint.h>       /* uint8_t */
#include <stdio.h>        /* snprintf */
#include <stdlib.h>       /* exit, abort, getenv */
#include <string.h>       /* strcmp, memset */
#include <sys/mman.h>     /* mprotect, mmap */
#include <sys/resource.h> /* setrlimit */
#include <sys/stat.h>     /* mkdir */
#include <time.h>         /* nanosleep */
#include <unistd.h>       /* fork, _exit, write, close */

#include "bitcts/bitcts_plugin.h"

/* The module's behaviour, defined in its own one-line source (tests/plugins/CMakeLists.txt). */
extern const char bitcts_hostile_name[];

/* The example plugin's negotiation, compiled under another name into the same module. */
int32_t BITCTS_PLUGIN_CALL bitcts_example_inner_negotiate(bitcts_plugin_negotiation *n);

/* Whether the module's name is batch_<behaviour>: a plugin that also batches. */
static int batching(void)
{
    return strncmp(bitcts_hostile_name, "batch_", 6) == 0;
}

/* The behaviour: the module's name without a "batch_" prefix. */
static const char *behaviour(void)
{
    return batching() ? bitcts_hostile_name + 6 : bitcts_hostile_name;
}

static int is(const char *name)
{
    return strcmp(behaviour(), name) == 0;
}

static bitcts_plugin_table table;        /* the example's, with some entries replaced */
static const bitcts_plugin_table *inner; /* the example's own */
static const bitcts_abi_host *host;
static unsigned long calls; /* operator_execute calls of this process */
static uint32_t batched;    /* the items of the batched call under way, or 0 */
static void *last_output;   /* the output of the previous execute call */
static char bad_text[4096]; /* a string no harness should print as it is */

/* Invalid UTF-8, terminal escapes, a forged log line and a forged channel line. */
static void make_bad_text(void)
{
    static const char piece[] = "\xff\xfe\xc3\x28 \x1b[2J\x1b]0;pwned\x07 \r\nE 0 {\"id\":\"x\"}\n"
                                "\xed\xa0\x80 \xf4\x90\x80\x80 \x7f\x9b";
    size_t used = 0;
    while (used + sizeof piece < sizeof bad_text) {
        memcpy(bad_text + used, piece, sizeof piece - 1);
        used += sizeof piece - 1;
    }
    bad_text[used] = '\0';
}

/* ---- things a hostile plugin does ---- */

/* An endless loop in the plugin's own code, never returning. It polls (a millisecond's sleep a
 * round) rather than burning a core: to the harness the same hang, while the other tests of a
 * busy machine keep the cores (misbehave_plugin.c's loop_execute is the busy loop, whose
 * "running" state cli.isolation checks). */
static void spin_forever(void)
{
    const struct timespec ms = {0, 1000000};
    for (;;) {
        nanosleep(&ms, NULL);
    }
}

static void sleep_forever(void)
{
    for (;;) {
        pause();
    }
}

static void crash_null(void)
{
    volatile int *p = NULL;
    *p = 42;
}

/* A child (or with `detach`, a grandchild in a session of its own) that outlives the call,
 * holding every descriptor the process has. */
static void leave_sleeper(int detach)
{
    const pid_t pid = fork();
    if (pid != 0) {
        return;
    }
    if (detach) {
        setsid();
        if (fork() != 0) {
            _exit(0);
        }
    }
    for (int i = 0; i < 3000; ++i) {
        usleep(100000); /* 300 s, unless someone cleans up */
    }
    _exit(0);
}

/* Writes `len` bytes of text to every descriptor from 3 to 255 (the harness's, if it can). */
static void write_everywhere(const char *text, size_t len)
{
    for (int fd = 3; fd < 256; ++fd) {
        (void)!write(fd, text, len);
    }
}

static void close_everything(void)
{
    for (int fd = 0; fd < 1024; ++fd) {
        close(fd);
    }
}

static void flood(int fd, size_t total)
{
    char chunk[65536];
    for (size_t i = 0; i < sizeof chunk; ++i) {
        chunk[i] = bad_text[i % (sizeof bad_text - 1)];
    }
    for (size_t done = 0; done < total; done += sizeof chunk) {
        if (write(fd, chunk, sizeof chunk) < 0) {
            return;
        }
    }
}

static void log_bad(void)
{
    if (host != NULL && host->log != NULL) {
        for (int i = 0; i < 200; ++i) {
            host->log(host->user, BITCTS_ABI_LOG_ERROR, bad_text);
        }
    }
}

/* The first instance_create under a given harness succeeds, the later ones crash: a marker
 * file per harness process in $HOSTILE_DIR. */
static int first_create_of_run(void)
{
    const char *dir = getenv("HOSTILE_DIR");
    char path[512];
    snprintf(path, sizeof path, "%s/first-create-%ld", dir != NULL ? dir : "/tmp", (long)getppid());
    const int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
        return 0;
    }
    close(fd);
    return 1;
}

/* A byte outside the output, its value and distance drawn from the case's input (so that a
 * run over many cases writes every byte value at every distance, whatever the batching): near
 * and far, after and before, up to the edge of the harness's 1 GiB no-access zones. What it
 * does goes to stderr first ("spill <value> <offset>"), for the test to check its coverage. */
static const int64_t spill_offsets[] = {0,     1,          7,          63,
                                        64,    100,        4095,       4096,
                                        65536, 1 << 20,    1 << 28,    (1 << 30) - 1,
                                        -1,    -2,         -64,        -65,
                                        -4096, -(1 << 20), -(1 << 29), -(1 << 30)};

static void spill(uint8_t *out, uint64_t bytes, const uint8_t *in, uint64_t in_bytes)
{
    const size_t n = sizeof spill_offsets / sizeof spill_offsets[0];
    uint64_t h = 1469598103934665603u; /* FNV-1a of the input */
    for (uint64_t i = 0; i < in_bytes && i < 4096; ++i) {
        h = (h ^ in[i]) * 1099511628211u;
    }
    const uint8_t value = (uint8_t)(h >> 8);
    const int64_t offset = spill_offsets[(h >> 16) % n];
    uint8_t *target = offset >= 0 ? out + bytes + offset : out + offset;
    char note[64];
    const int len = snprintf(note, sizeof note, "spill %u %lld\n", value, (long long)offset);
    (void)!write(2, note, (size_t)len);
    *(volatile uint8_t *)target = value;
}

/* Every size of every tensor of a description rewritten to 1, through its const pointers: the
 * case's check would then look at one element, if the harness trusted what it lent. With
 * `unprotect`, the pages are made writable first (as a plugin determined to do it would). */
static void shrink_desc(const bitcts_abi_operator_desc *desc, int unprotect)
{
    for (uint32_t t = 0; t <= desc->input_count; ++t) {
        const bitcts_abi_tensor *a = t < desc->input_count ? &desc->inputs[t] : desc->output;
        uint32_t *sizes = (uint32_t *)(uintptr_t)a->sizes;
        if (unprotect) {
            const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
            const uintptr_t lo = (uintptr_t)sizes & ~(page - 1);
            const uintptr_t hi = ((uintptr_t)(sizes + a->dimension_count) + page - 1) & ~(page - 1);
            mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE);
        }
        for (uint32_t i = 0; i < a->dimension_count; ++i) {
            sizes[i] = 1;
        }
    }
}

/* Address space taken until none is left (PROT_NONE, so no memory is used), then what the heap
 * has free: the allocations that follow in the process fail. */
static void eat_address_space(void)
{
    for (size_t chunk = (size_t)1 << 40; chunk >= 4096; chunk /= 2) {
        while (mmap(NULL, chunk, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) !=
               MAP_FAILED) {
        }
    }
    while (malloc(64) != NULL) {
    }
}

/* exec_late_write: each call leaves a thread behind that writes into that call's output when
 * the next call begins (a late completion), and the next call waits for it: the write lands
 * while another case runs, deterministically. */
static sem_t late_go;
static pthread_t late_thread;
static int late_pending;

static void *late_writer(void *output)
{
    while (sem_wait(&late_go) != 0) {
    }
    ((volatile uint8_t *)output)[0] ^= 0xFF;
    return NULL;
}

static void late_write(void *output)
{
    if (late_pending) { /* the previous call's thread writes now, into its own call's output */
        sem_post(&late_go);
        pthread_join(late_thread, NULL);
        late_pending = 0;
    }
    if (sem_init(&late_go, 0, 0) == 0 &&
        pthread_create(&late_thread, NULL, late_writer, output) == 0) {
        late_pending = 1;
    }
}

/* ---- the wrapped table ---- */

typedef struct hostile_op {
    void *inner;
    uint32_t operator_type;
    uint64_t out_bytes;
    uint64_t in_bytes;
    const bitcts_abi_operator_desc *desc; /* the lent description, kept against the rules */
} hostile_op;

/* create_stdin_thief: a thread that reads the process's standard input to its end and drops it
 * (the probe's process waits there for its first batch). */
static void *steal_stdin(void *arg)
{
    (void)arg;
    char sink[256];
    while (read(0, sink, sizeof sink) > 0) {
    }
    return NULL;
}

static int32_t BITCTS_PLUGIN_CALL h_instance_create(const bitcts_abi_create_info *info, void **out)
{
    if (is("create_stdin_thief")) {
        pthread_t t;
        if (pthread_create(&t, NULL, steal_stdin, NULL) == 0) {
            pthread_detach(t);
        }
    }
    if (is("create_exit")) {
        _exit(0);
    }
    if (is("create_hang")) {
        spin_forever();
    }
    if (is("create_crash_in_workers") && !first_create_of_run()) {
        crash_null();
    }
    if (is("log_flood")) {
        log_bad();
    }
    return inner->instance_create(info, out);
}

static void BITCTS_PLUGIN_CALL h_instance_destroy(void *instance)
{
    if (is("destroy_hang")) {
        sleep_forever();
    }
    if (is("destroy_crash")) {
        crash_null();
    }
    inner->instance_destroy(instance);
}

static const char *BITCTS_PLUGIN_CALL h_last_error(void *instance)
{
    if (is("exec_bad_error")) {
        return bad_text;
    }
    return inner->instance_last_error(instance);
}

static int32_t BITCTS_PLUGIN_CALL h_query_caps(void *instance, bitcts_abi_caps *out)
{
    if (is("caps_crash")) {
        crash_null();
    }
    return inner->query_caps(instance, out);
}

/* caps_fickle: the first instance of a run (the harness's probe) claims what the example
 * does, every later one claims nothing. */
static int32_t BITCTS_PLUGIN_CALL h_query_op_caps(void *instance, uint32_t operator_type,
                                                  bitcts_abi_op_caps *out)
{
    static int first = -1;
    if (is("caps_fickle")) {
        first = first < 0 ? first_create_of_run() : first;
        if (first == 0) {
            return BITCTS_ABI_E_NOT_SUPPORTED;
        }
    }
    return inner->query_op_caps(instance, operator_type, out);
}

static const char *BITCTS_PLUGIN_CALL h_instance_info(void *instance, const char *key)
{
    if (is("info_garbage")) {
        return (const char *)(uintptr_t)0x10;
    }
    if (is("bad_strings")) {
        return bad_text;
    }
    return inner->instance_info(instance, key);
}

static int32_t BITCTS_PLUGIN_CALL h_operator_create(void *instance,
                                                    const bitcts_abi_operator_desc *desc,
                                                    void **out)
{
    hostile_op *op = calloc(1, sizeof *op);
    if (op == NULL || out == NULL) {
        free(op);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    if (desc != NULL && desc->operator_type == BITCTS_OP_BIT_COUNT &&
        (is("desc_shrink") || is("desc_unprotect_shrink"))) {
        shrink_desc(desc, is("desc_unprotect_shrink"));
    }
    const int32_t st = inner->operator_create(instance, desc, &op->inner);
    if (st != BITCTS_ABI_OK) {
        free(op);
        *out = NULL;
        return st;
    }
    op->operator_type = desc->operator_type;
    op->out_bytes = desc->output->total_tensor_size_in_bytes;
    op->in_bytes = desc->inputs[0].total_tensor_size_in_bytes;
    op->desc = desc;
    *out = op;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL h_operator_destroy(void *instance, void *opaque)
{
    hostile_op *op = opaque;
    if (op != NULL) {
        inner->operator_destroy(instance, op->inner);
        free(op);
    }
}

/* What exec_* behaviours do before (1) or after (0) the real work; returns a status to return
 * instead of BITCTS_ABI_OK, or BITCTS_ABI_OK. */
static int32_t strike(hostile_op *op, const void *const *inputs, void *output, int before)
{
    const unsigned long n = calls;
    if (before) {
        if (is("exec_segv")) {
            crash_null();
        } else if (is("exec_abort")) {
            abort();
        } else if (is("exec_exit0")) {
            exit(0);
        } else if (is("exec_hang")) {
            spin_forever();
        } else if (is("exec_sigstop")) {
            raise(SIGSTOP);
        } else if (is("exec_deaf_hang")) { /* ignores and blocks every signal it can */
            sigset_t all;
            sigfillset(&all);
            sigprocmask(SIG_BLOCK, &all, NULL);
            for (int s = 1; s < 32; ++s) {
                signal(s, SIG_IGN);
            }
            sleep_forever();
        } else if (is("exec_close_fds_hang")) {
            close_everything();
            sleep_forever();
        } else if (is("exec_kill_group")) {
            kill(0, SIGKILL);
        } else if (is("exec_raise_term")) {
            raise(SIGTERM);
        } else if (is("exec_stack_overflow")) {
            volatile char big[1 << 16];
            big[0] = (char)n;
            strike(op, inputs, output, (int)big[0] + 1);
        } else if (is("exec_bad_error")) {
            return BITCTS_ABI_E_BACKEND_FAILED;
        } else if (is("mem_eat_address_space")) {
            eat_address_space();
        } else if (is("exec_late_write")) {
            late_write(output);
        } else if (is("exec_batched_crash") && batched > 1) {
            crash_null();
        }
        return BITCTS_ABI_OK;
    }
    if (is("exec_fork_sleeper")) {
        leave_sleeper(0);
    } else if (is("exec_setsid_grandchild")) {
        leave_sleeper(1);
    } else if (is("exec_close_fds")) {
        close_everything();
    } else if (is("exec_flood_stdout")) {
        flood(1, (size_t)64 << 20);
        flood(2, (size_t)1 << 20);
    } else if (is("exec_flood_fds")) {
        write_everywhere(bad_text, strlen(bad_text));
    } else if (is("exec_forge_pass")) {
        ((uint8_t *)output)[0] ^= 1; /* a wrong result, and a forged line saying it passed */
        char line[512];
        for (unsigned long idx = 0; idx < 200000; idx += 997) {
            const int len = snprintf(line, sizeof line,
                                     "E %lu {\"id\":\"forged\",\"verdict\":\"pass\"}\n", idx);
            write_everywhere(line, (size_t)len);
        }
    } else if (is("exec_setrlimit_as")) {
        struct rlimit r = {(rlim_t)1 << 40, RLIM_INFINITY};
        setrlimit(RLIMIT_AS, &r);
    } else if (is("exec_setrlimit_nofile")) {
        struct rlimit r = {8, 8};
        setrlimit(RLIMIT_NOFILE, &r);
    } else if (is("exec_segv_handler")) {
        signal(SIGSEGV, SIG_IGN);
    } else if (is("exec_write_input")) {
        ((uint8_t *)(uintptr_t)inputs[0])[0] ^= 0x10;
    } else if (is("mutant_spill")) {
        spill(output, op->out_bytes, inputs[0], op->in_bytes);
    } else if (is("exec_stale_write")) {
        if (last_output != NULL) { /* the previous call's output, maybe long retired */
            ((volatile uint8_t *)last_output)[0] ^= 0xFF;
        }
    } else if (is("exec_flaky_reused")) { /* wrong only after many calls in one process */
        if (n > 16) {
            ((uint8_t *)output)[0] ^= 0x01;
        }
    } else if (is("exec_write_past")) {
        ((volatile uint8_t *)output)[op->out_bytes] ^= 0x5A;
    } else if (is("exec_write_far")) {
        ((volatile uint8_t *)output)[op->out_bytes + 65536] = 1;
    } else if (is("exec_desc_rewrite")) {
        shrink_desc(op->desc, 1);
    } else if (is("exec_batched_wrong") && batched > 1) {
        ((uint8_t *)output)[0] ^= 0x01;
    } else if (is("exec_leak_child_stdout")) { /* a child that keeps writing after the call */
        if (fork() == 0) {
            for (int i = 0; i < 50; ++i) {
                (void)!write(1, bad_text, 64);
                usleep(20000);
            }
            _exit(0);
        }
    }
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL h_operator_execute(void *instance, void *opaque,
                                                     const void *const *inputs, void *output)
{
    hostile_op *op = opaque;
    /* exec_*: BIT_COUNT only; mutant_*: every operator. */
    const int target = op != NULL && (op->operator_type == BITCTS_OP_BIT_COUNT ||
                                      strncmp(behaviour(), "mutant_", 7) == 0);
    ++calls;
    if (target && is("exec_lie")) {
        return BITCTS_ABI_OK;
    }
    if (target) {
        const int32_t st = strike(op, inputs, output, 1);
        if (st != BITCTS_ABI_OK) {
            return st;
        }
    }
    const int32_t st =
        inner->operator_execute(instance, op != NULL ? op->inner : NULL, inputs, output);
    if (target && st == BITCTS_ABI_OK) {
        strike(op, inputs, output, 0);
    }
    if (target) {
        last_output = output;
    }
    return st;
}

/* batch_*: each item through h_operator_execute, in order. */
static int32_t BITCTS_PLUGIN_CALL h_execute_batch(void *instance, uint32_t count,
                                                  bitcts_abi_batch_item *items)
{
    if (items == NULL && count > 0) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    batched = count;
    for (uint32_t i = 0; i < count; ++i) {
        items[i].status =
            h_operator_execute(instance, items[i].op, items[i].inputs, items[i].output);
    }
    batched = 0;
    return BITCTS_ABI_OK;
}

static const bitcts_abi_batch_ext batch_ext = {
    .struct_size = sizeof(bitcts_abi_batch_ext),
    .execute_batch = h_execute_batch,
};

static const void *BITCTS_PLUGIN_CALL h_get_extension(const char *name)
{
    if (batching() && name != NULL && strcmp(name, BITCTS_ABI_EXT_BATCH_EXECUTE) == 0) {
        return &batch_ext;
    }
    return inner->get_extension != NULL ? inner->get_extension(name) : NULL;
}

/* shutdown_spin_thread: plugin_shutdown leaves threads spinning in the plugin's code, as a
 * backend whose worker threads outlive it does; unloading the library under it faults. */
static volatile int spinners_started;

static void *spinner(void *unused)
{
    (void)unused;
    __atomic_add_fetch(&spinners_started, 1, __ATOMIC_SEQ_CST);
    spin_forever();
    return NULL;
}

/* Four threads, so that one is on a core whatever the machine's load. */
static void leave_spinners(void)
{
    int made = 0;
    for (int i = 0; i < 4; ++i) {
        pthread_t t;
        made += pthread_create(&t, NULL, spinner, NULL) == 0;
    }
    while (__atomic_load_n(&spinners_started, __ATOMIC_SEQ_CST) < made) {
        sched_yield();
    }
}

static void BITCTS_PLUGIN_CALL h_plugin_shutdown(void)
{
    if (is("shutdown_crash")) {
        crash_null();
    }
    if (is("shutdown_spin_thread")) {
        leave_spinners();
    }
    inner->plugin_shutdown();
}

/* ---- loading ---- */

__attribute__((constructor)) static void hostile_constructor(void)
{
    make_bad_text();
    if (is("ctor_exit")) {
        exit(0);
    } else if (is("ctor_abort")) {
        abort();
    } else if (is("ctor_loop")) {
        spin_forever();
    } else if (is("ctor_daemon")) {
        leave_sleeper(1);
    } else if (is("ctor_flood_stderr")) {
        flood(2, (size_t)4 << 20);
    }
}

__attribute__((destructor)) static void hostile_destructor(void)
{
    if (is("dtor_hang")) {
        sleep_forever();
    }
}

BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
    if (is("negotiate_hang")) {
        spin_forever();
    }
    const int32_t st = bitcts_example_inner_negotiate(n);
    if (st != BITCTS_ABI_OK) {
        return st;
    }
    host = n->host;
    inner = n->table;
    table = *inner;
    table.instance_create = h_instance_create;
    table.instance_destroy = h_instance_destroy;
    table.instance_last_error = h_last_error;
    table.query_caps = h_query_caps;
    table.query_op_caps = h_query_op_caps;
    table.instance_info = h_instance_info;
    table.operator_create = h_operator_create;
    table.operator_destroy = h_operator_destroy;
    table.operator_execute = h_operator_execute;
    table.plugin_shutdown = h_plugin_shutdown;
    table.get_extension = h_get_extension;
    if (is("bad_strings")) {
        table.name = bad_text;
        table.vendor = bad_text + 1;
        table.version = bad_text + 2;
        table.build_id = bad_text + 3;
    }
    n->table = &table;
    if (is("negotiate_garbage_table")) {
        n->table = (const bitcts_plugin_table *)(uintptr_t)0x40;
    }
    return BITCTS_ABI_OK;
}
