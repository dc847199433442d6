/* SPDX-License-Identifier: MIT */
/* Child processes for backends: fork, a fresh process group, descriptors cut down to the
 * channel and the capture pipe, and on the parent's side non-blocking reads, reaping and
 * killing. Orphans are found through /proc (PPid) and killed; that needs the subreaper bit,
 * set by bitcts_sandbox_init. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, syscall, sigaltstack, SA_ONSTACK */

#include <dirent.h>   /* opendir */
#include <errno.h>    /* errno */
#include <fcntl.h>    /* fcntl, open */
#include <poll.h>     /* poll */
#include <signal.h>   /* kill, sigaction */
#include <stdint.h>   /* SIZE_MAX */
#include <stdio.h>    /* snprintf */
#include <stdlib.h>   /* realloc, free */
#include <string.h>   /* memcpy, strsignal */
#include <sys/mman.h> /* mmap */
#include <sys/wait.h> /* waitpid */
#include <time.h>     /* nanosleep */
#include <unistd.h>   /* fork, pipe, read */
#ifdef __linux__
#include <sys/prctl.h>   /* PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER */
#include <sys/syscall.h> /* SYS_close_range, SYS_pidfd_open */
#endif

#include "clock.h"
#include "grow.h"
#include "sandbox.h"
#include "sanitize.h"

void bitcts_sandbox_init(void)
{
#ifdef __linux__
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#endif
    signal(SIGPIPE, SIG_IGN);
}

/* A nonce nobody outside this process can guess: the kernel's random bytes when it gives
 * them, else the clock and addresses (the nonce guards against accidents, not attackers). */
static void make_nonce(char *out)
{
    unsigned char bytes[BITCTS_SANDBOX_NONCE_LEN / 2];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    ssize_t got = fd >= 0 ? read(fd, bytes, sizeof bytes) : -1;
    if (fd >= 0) {
        close(fd);
    }
    if (got != (ssize_t)sizeof bytes) {
        const double t = bitcts_clock_now();
        uint64_t mix = (uint64_t)(t * 1e9) ^ (uint64_t)(uintptr_t)out ^ (uint64_t)getpid() << 32;
        memcpy(bytes, &mix, sizeof bytes);
    }
    for (size_t i = 0; i < sizeof bytes; ++i) {
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    }
}

static void set_nonblocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Every descriptor above 2 but `keep` is closed. */
static void close_others(int keep)
{
#if defined(__linux__) && defined(SYS_close_range)
    if (keep > 3 && syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) != 0) {
        for (int fd = 3; fd < keep; ++fd) {
            close(fd);
        }
    }
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0) {
        return;
    }
#endif
    long max = sysconf(_SC_OPEN_MAX);
    max = max < 0 || max > 65536 ? 65536 : max;
    for (int fd = 3; fd < (int)max; ++fd) {
        if (fd != keep) {
            close(fd);
        }
    }
}

/* The child: its own group, killed with the parent, default signals, the descriptors it is
 * given and no others; then fn. */
static void child_setup(int chan, int capture, int stdin_fd, pid_t parent)
{
    setpgid(0, 0);
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#endif
    if (getppid() != parent) { /* the parent died before the line above */
        _exit(125);
    }
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    for (int sig = 1; sig < 32; ++sig) {
        if (sig != SIGKILL && sig != SIGSTOP) {
            signal(sig, SIG_DFL);
        }
    }
    const int null_fd = stdin_fd > 0 ? stdin_fd : open("/dev/null", O_RDONLY);
    if (null_fd >= 0) {
        dup2(null_fd, 0);
    }
    dup2(capture, 1);
    dup2(capture, 2);
    fcntl(chan, F_SETFD, 0);
    close_others(chan);
}

/* A descriptor for the child that becomes readable when it ends (close-on-exec), or -1. */
static int open_pidfd(pid_t pid)
{
#if defined(__linux__) && defined(SYS_pidfd_open)
    const long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd >= 0 ? (int)fd : -1;
#else
    (void)pid;
    return -1;
#endif
}

int bitcts_sandbox_wait(bitcts_sandbox *const *all, size_t count, double max_s)
{
    struct pollfd fds[3 * 256];
    nfds_t n = 0;
    double wait = max_s > 0 ? max_s : 0;
    for (size_t i = 0; i < count && n + 3 <= sizeof fds / sizeof fds[0]; ++i) {
        const bitcts_sandbox *sb = all[i];
        if (sb == NULL || sb->pid <= 0 || sb->exited) {
            continue;
        }
        const nfds_t before = n;
        if (sb->chan >= 0) {
            fds[n++] = (struct pollfd){.fd = sb->chan, .events = POLLIN};
        }
        if (sb->capture >= 0) {
            fds[n++] = (struct pollfd){.fd = sb->capture, .events = POLLIN};
        }
        if (sb->pidfd >= 0) {
            fds[n++] = (struct pollfd){.fd = sb->pidfd, .events = POLLIN};
        } else if (n == before && wait > 0.002) {
            wait = 0.002; /* only reaping can see its end */
        }
    }
    return poll(fds, n, (int)(wait * 1000) + 1);
}

int bitcts_sandbox_spawn(bitcts_sandbox *sb, bitcts_sandbox_main_fn fn, void *arg, char *err,
                         size_t cap)
{
    int chan[2] = {-1, -1};
    int capture[2] = {-1, -1};
    const int stdin_fd = sb->stdin_fd;
    memset(sb, 0, sizeof *sb);
    sb->stdin_fd = stdin_fd;
    sb->chan = sb->capture = sb->pidfd = -1;
    make_nonce(sb->nonce);
    void *page =
        mmap(NULL, sizeof *sb->shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        snprintf(err, cap, "cannot map a status page for a worker: %s", strerror(errno));
        return -1;
    }
    sb->shared = page;
    sb->shared->index = -1;
    if (pipe(chan) != 0 || pipe(capture) != 0) {
        snprintf(err, cap, "cannot create a pipe for a worker: %s", strerror(errno));
        goto fail;
    }
    fflush(NULL);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, cap, "cannot start a worker process: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        close(chan[0]);
        close(capture[0]);
        child_setup(chan[1], capture[1], sb->stdin_fd, parent);
        fn(arg, chan[1], sb->nonce, sb->shared);
        _exit(0);
    }
    setpgid(pid, pid); /* also here: no window in which a kill of the group misses it */
    close(chan[1]);
    close(capture[1]);
    set_nonblocking(chan[0]);
    set_nonblocking(capture[0]);
    sb->pid = pid;
    sb->chan = chan[0];
    sb->capture = capture[0];
    sb->pidfd = open_pidfd(pid);
    return 0;
fail:
    munmap(sb->shared, sizeof *sb->shared);
    sb->shared = NULL;
    for (int i = 0; i < 2; ++i) {
        if (chan[i] >= 0) {
            close(chan[i]);
        }
        if (capture[i] >= 0) {
            close(capture[i]);
        }
    }
    return -1;
}

/* One channel line: the nonce's, or garbage. */
static void take_line(bitcts_sandbox *sb, char *line, void (*on_line)(void *, char *), void *user)
{
    const size_t n = BITCTS_SANDBOX_NONCE_LEN;
    if (!sb->line_overflow && line[0] == '\0') {
        return; /* the newline every message starts with */
    }
    if (!sb->line_overflow && strncmp(line, sb->nonce, n) == 0 && line[n] == ' ') {
        on_line(user, line + n + 1);
    } else {
        ++sb->garbage;
    }
}

static void pump_channel(bitcts_sandbox *sb, void (*on_line)(void *, char *), void *user, int *eof)
{
    char buf[65536];
    for (;;) {
        const ssize_t got = read(sb->chan, buf, sizeof buf);
        if (got == 0) {
            *eof = 1;
            return;
        }
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                *eof = 1;
            }
            return;
        }
        for (ssize_t i = 0; i < got; ++i) {
            if (buf[i] == '\n') {
                char nul = '\0';
                char *line = sb->line_len > 0 ? sb->line : &nul;
                if (sb->line_len > 0) {
                    sb->line[sb->line_len] = '\0';
                }
                take_line(sb, line, on_line, user);
                sb->line_len = 0;
                sb->line_overflow = 0;
                continue;
            }
            if (sb->line_len + 2 > sb->line_cap) {
                if (sb->line_cap >= BITCTS_SANDBOX_LINE_MAX) {
                    sb->line_overflow = 1; /* keep counting, stop storing */
                    continue;
                }
                if (bitcts_grow(&sb->line, &sb->line_cap, sb->line_len + 2, 4096) != 0) {
                    sb->line_overflow = 1;
                    continue;
                }
            }
            sb->line[sb->line_len++] = buf[i];
        }
    }
}

/* ---- captured output, in segments ---- */

#define MARK_BYTE '\x1e' /* a case mark: MARK_BYTE nonce ' ' index '\n' */

static void segment_drop(bitcts_sandbox *sb, size_t i)
{
    free(sb->segments[i].text);
    memmove(&sb->segments[i], &sb->segments[i + 1],
            (sb->segment_count - i - 1) * sizeof sb->segments[0]);
    --sb->segment_count;
}

static struct bitcts_sandbox_segment *segment_open(bitcts_sandbox *sb, int64_t index)
{
    if (sb->segment_count == BITCTS_SANDBOX_SEGMENTS) { /* drop the oldest case's (not -1's) */
        segment_drop(sb, sb->segments[0].index < 0 ? 1 : 0);
    }
    if (sb->segment_count == sb->segment_cap) {
        const size_t cap = sb->segment_cap != 0 ? 2 * sb->segment_cap : 16;
        struct bitcts_sandbox_segment *grown = realloc(sb->segments, cap * sizeof *grown);
        if (grown == NULL) {
            return NULL;
        }
        sb->segments = grown;
        sb->segment_cap = cap;
    }
    struct bitcts_sandbox_segment *g = &sb->segments[sb->segment_count++];
    memset(g, 0, sizeof *g);
    g->index = index;
    return g;
}

static void segment_append(bitcts_sandbox *sb, const char *bytes, size_t n)
{
    if (n == 0) {
        return;
    }
    struct bitcts_sandbox_segment *g =
        sb->segment_count > 0 ? &sb->segments[sb->segment_count - 1] : segment_open(sb, -1);
    if (g == NULL) {
        return;
    }
    if (g->text == NULL && (g->text = malloc(BITCTS_SANDBOX_CAPTURE_MAX)) == NULL) {
        g->bytes += n;
        return;
    }
    const size_t room = BITCTS_SANDBOX_CAPTURE_MAX - g->len;
    const size_t keep = n < room ? n : room;
    memcpy(g->text + g->len, bytes, keep);
    g->len += keep;
    g->bytes += n;
}

/* A complete mark (without its first byte and newline): the nonce's opens a segment; anything
 * else was the backend's output. */
static void take_mark(bitcts_sandbox *sb)
{
    const size_t n = BITCTS_SANDBOX_NONCE_LEN;
    char *end = NULL;
    if (sb->mark_len > n + 1 && memcmp(sb->mark, sb->nonce, n) == 0 && sb->mark[n] == ' ') {
        sb->mark[sb->mark_len] = '\0';
        const long long index = strtoll(sb->mark + n + 1, &end, 10);
        if (end != NULL && *end == '\0' && index >= 0) {
            segment_open(sb, index);
            return;
        }
    }
    const char first = MARK_BYTE;
    segment_append(sb, &first, 1);
    segment_append(sb, sb->mark, sb->mark_len);
}

static void capture_bytes(bitcts_sandbox *sb, const char *buf, size_t n)
{
    size_t plain = 0; /* the start of bytes not yet appended */
    for (size_t i = 0; i < n; ++i) {
        if (sb->in_mark) {
            if (buf[i] == '\n') {
                take_mark(sb);
                sb->in_mark = 0;
                plain = i + 1;
            } else if (sb->mark_len + 1 >= sizeof sb->mark) { /* too long: not a mark */
                const char first = MARK_BYTE;
                segment_append(sb, &first, 1);
                segment_append(sb, sb->mark, sb->mark_len);
                sb->in_mark = 0;
                plain = i;
            } else {
                sb->mark[sb->mark_len++] = buf[i];
                plain = i + 1;
            }
        } else if (buf[i] == MARK_BYTE) {
            segment_append(sb, buf + plain, i - plain);
            sb->in_mark = 1;
            sb->mark_len = 0;
            plain = i + 1;
        }
    }
    if (!sb->in_mark) {
        segment_append(sb, buf + plain, n - plain);
    }
}

static void pump_capture(bitcts_sandbox *sb)
{
    char buf[16384];
    for (;;) {
        const ssize_t got = read(sb->capture, buf, sizeof buf);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(sb->capture);
            sb->capture = -1;
            return;
        }
        if (got < 0) {
            return;
        }
        capture_bytes(sb, buf, (size_t)got);
    }
}

int bitcts_sandbox_pump(bitcts_sandbox *sb, void (*on_line)(void *user, char *line), void *user)
{
    int eof = 0;
    if (sb->capture >= 0) {
        pump_capture(sb);
    }
    if (sb->chan >= 0) {
        pump_channel(sb, on_line, user, &eof);
        if (eof) {
            close(sb->chan);
            sb->chan = -1;
        }
    }
    return sb->chan < 0;
}

void bitcts_sandbox_reap(bitcts_sandbox *const *all, size_t count)
{
    for (;;) {
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) {
            if (pid < 0 && errno == EINTR) {
                continue;
            }
            return;
        }
        for (size_t i = 0; i < count; ++i) {
            if (all[i] != NULL && all[i]->pid == pid && !all[i]->exited) {
                all[i]->exited = 1;
                all[i]->status = status;
            }
        }
    }
}

void bitcts_sandbox_reap_one(bitcts_sandbox *sb)
{
    int status = 0;
    const pid_t pid = sb->pid > 0 && !sb->exited ? waitpid(sb->pid, &status, WNOHANG) : 0;
    if (pid == sb->pid || (pid < 0 && errno == ECHILD)) {
        sb->exited = 1;
        sb->status = pid == sb->pid ? status : -1;
    }
}

void bitcts_sandbox_kill(bitcts_sandbox *sb)
{
    if (sb->pid > 0 && !sb->exited) {
        kill(-sb->pid, SIGKILL);
        kill(sb->pid, SIGKILL);
    } else if (sb->pid > 0) {
        kill(-sb->pid, SIGKILL); /* what the child left in its group */
    }
}

/* The parent of pid, from /proc; 0 when unknown. */
static pid_t parent_of(pid_t pid)
{
    char path[64];
    char text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    const ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) {
        return 0;
    }
    text[got] = '\0';
    const char *paren = strrchr(text, ')'); /* the name may hold spaces and parentheses */
    int ppid = 0;
    char state = 0;
    if (paren == NULL || sscanf(paren + 1, " %c %d", &state, &ppid) != 2) {
        return 0;
    }
    return state == 'Z' ? 0 : (pid_t)ppid; /* a zombie needs reaping, not killing */
}

/* One pass over /proc: kills this process's children that no live sandbox owns. */
static size_t sweep_once(bitcts_sandbox *const *all, size_t count)
{
    DIR *dir = opendir("/proc");
    if (dir == NULL) {
        return 0;
    }
    const pid_t self = getpid();
    size_t killed = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char *end = NULL;
        const long pid = strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0' || parent_of((pid_t)pid) != self) {
            continue;
        }
        int owned = 0;
        for (size_t i = 0; i < count; ++i) {
            owned |= all[i] != NULL && all[i]->pid == (pid_t)pid && !all[i]->exited;
        }
        if (!owned) {
            kill((pid_t)pid, SIGKILL);
            ++killed;
        }
    }
    closedir(dir);
    return killed;
}

size_t bitcts_sandbox_sweep(bitcts_sandbox *const *all, size_t count, double budget_s)
{
    const double end = bitcts_clock_now() + budget_s;
    size_t total = 0;
    for (;;) {
        bitcts_sandbox_reap(all, count);
        const size_t killed = sweep_once(all, count);
        total += killed;
        if (killed == 0 || bitcts_clock_now() > end) {
            return total;
        }
        /* Their children are reparented here once they die: look again shortly. */
        const struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
}

uint64_t bitcts_sandbox_take_output(bitcts_sandbox *sb, int64_t index, char *out, size_t cap)
{
    if (sb->capture >= 0) {
        pump_capture(sb); /* what the child wrote before the line being handled is there now */
    }
    char text[2 * BITCTS_SANDBOX_CAPTURE_MAX];
    size_t len = 0;
    uint64_t bytes = 0;
    size_t last = SIZE_MAX; /* the case's segment */
    for (size_t i = 0; i < sb->segment_count; ++i) {
        const struct bitcts_sandbox_segment *g = &sb->segments[i];
        if (g->index == index) {
            last = i;
        }
        if ((g->index == -1 || g->index == index) && len + g->len <= sizeof text) {
            if (g->len > 0) {
                memcpy(text + len, g->text, g->len);
            }
            len += g->len;
            bytes += g->bytes;
        }
    }
    /* Kept: the segments of later cases (read before this case's line was handled). */
    for (size_t i = sb->segment_count; i-- > 0;) {
        if ((last != SIZE_MAX && i <= last) || sb->segments[i].index == -1) {
            segment_drop(sb, i);
        }
    }
    bitcts_sanitize_text(text, len, out, cap);
    return bytes;
}

void bitcts_sandbox_close(bitcts_sandbox *sb)
{
    while (sb->segment_count > 0) {
        segment_drop(sb, sb->segment_count - 1);
    }
    free(sb->segments);
    sb->segments = NULL;
    sb->segment_cap = 0;
    if (sb->chan >= 0) {
        close(sb->chan);
    }
    if (sb->capture >= 0) {
        close(sb->capture);
    }
    if (sb->pid > 0 && sb->pidfd >= 0) {
        close(sb->pidfd);
    }
    free(sb->line);
    if (sb->shared != NULL) {
        munmap(sb->shared, sizeof *sb->shared);
    }
    memset(sb, 0, sizeof *sb);
    sb->chan = sb->capture = sb->pidfd = -1;
}

void bitcts_sandbox_mark(bitcts_sandbox_status *status, char phase, int64_t index)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    status->index = index;
    if (phase == 'B' && index >= 0) {
        status->begun = (uint64_t)index + 1;
    }
    status->since_ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    status->phase = phase;
    status->seq = status->seq + 1; /* last: a reader that sees it sees the rest on this page */
}

void bitcts_sandbox_describe(int status, char *out, size_t cap)
{
    if (WIFSIGNALED(status)) {
        snprintf(out, cap, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        snprintf(out, cap, "exit status %d", WEXITSTATUS(status));
    }
}

static char fatal_altstack[65536];

void bitcts_sandbox_catch_fatal(void (*handler)(int sig, siginfo_t *info, void *context))
{
    stack_t alt = {.ss_sp = fatal_altstack, .ss_size = sizeof fatal_altstack, .ss_flags = 0};
    sigaltstack(&alt, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    const int fatal[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; ++i) {
        sigaction(fatal[i], &sa, NULL);
    }
}

void bitcts_sandbox_mark_output(const char *nonce, int64_t index)
{
    char line[64];
    const size_t n = BITCTS_SANDBOX_NONCE_LEN;
    size_t len = 0;
    line[len++] = MARK_BYTE;
    memcpy(line + len, nonce, n);
    len += n;
    line[len++] = ' ';
    char digits[24];
    size_t d = 0;
    uint64_t v = index >= 0 ? (uint64_t)index : 0;
    do {
        digits[d++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (d > 0) {
        line[len++] = digits[--d];
    }
    line[len++] = '\n';
    (void)!write(1, line, len); /* one write: the backend's output cannot split it */
}

/* Writes len bytes of p to chan, through interruptions and short writes; -1 when a write
 * fails or writes nothing. */
static int send_all(int chan, const char *p, size_t len)
{
    while (len > 0) {
        const ssize_t put = write(chan, p, len);
        if (put < 0 && errno == EINTR) {
            continue;
        }
        if (put <= 0) {
            return -1;
        }
        p += put;
        len -= (size_t)put;
    }
    return 0;
}

void bitcts_sandbox_send(int chan, const char *nonce, const char *text, size_t len)
{
    /* A message starts with a newline, so that bytes a backend left on the channel without one
     * become a line of their own (garbage) instead of the start of the harness's line. */
    char small[4096];
    const size_t n = BITCTS_SANDBOX_NONCE_LEN;
    if (n + 3 + len <= sizeof small) { /* one write: atomic on a pipe */
        small[0] = '\n';
        memcpy(small + 1, nonce, n);
        small[n + 1] = ' ';
        memcpy(small + n + 2, text, len);
        small[n + 2 + len] = '\n';
        len += n + 3;
        (void)send_all(chan, small, len);
        return;
    }
    const char space = ' ';
    const char newline = '\n';
    const struct {
        const char *p;
        size_t n;
    } parts[5] = {{&newline, 1}, {nonce, n}, {&space, 1}, {text, len}, {&newline, 1}};
    for (int k = 0; k < 5; ++k) {
        if (send_all(chan, parts[k].p, parts[k].n) != 0) {
            return;
        }
    }
}
