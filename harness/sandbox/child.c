/* SPDX-License-Identifier: MIT */
/* One supervised child: the phase page, the one deadline rule, the kill and its words. */
#include <fcntl.h>  /* open */
#include <stdio.h>  /* snprintf, sscanf */
#include <string.h> /* memset, strchr, strrchr */
#include <unistd.h> /* read, close */

#include "child.h"
#include "clock.h"

int bitcts_child_spawn(bitcts_child *c, bitcts_sandbox_main_fn fn, void *arg, double timeout_s,
                       int foreign, char *err, size_t cap)
{
    const int stdin_fd = c->sb.stdin_fd; /* the caller's, as bitcts_sandbox_spawn takes it */
    memset(c, 0, sizeof *c);
    c->sb.stdin_fd = stdin_fd;
    c->sb.chan = c->sb.capture = c->sb.pidfd = -1;
    c->timeout_s = timeout_s;
    c->foreign = foreign;
    c->index = -1;
    if (bitcts_sandbox_spawn(&c->sb, fn, arg, err, cap) != 0) {
        return -1;
    }
    c->phase_start = bitcts_clock_now();
    return 0;
}

int bitcts_child_harness_phase(char phase, int foreign)
{
    return !foreign && (phase == 0 || phase == 'B' || phase == 'C');
}

double bitcts_child_deadline(char phase, double timeout_s, int foreign)
{
    if (bitcts_child_harness_phase(phase, foreign)) {
        const double harness = 10 * timeout_s;
        return harness > BITCTS_CHILD_HARNESS_MIN_S ? harness : BITCTS_CHILD_HARNESS_MIN_S;
    }
    return timeout_s;
}

/* The deadline of the phase the child is in: a batched call's is the sum of its cases'. */
static double child_deadline_now(const bitcts_child *c)
{
    const double one = bitcts_child_deadline(c->phase, c->timeout_s, c->foreign);
    return c->phase == 'P' && c->batch > 1 ? one * c->batch : one;
}

int bitcts_child_observe(bitcts_child *c)
{
    const bitcts_sandbox_status *page = c->sb.shared;
    if (page == NULL || page->seq == c->seen_seq) {
        return 0;
    }
    c->seen_seq = page->seq;
    const char phase = page->phase;
    if (phase != '\0' && strchr(BITCTS_CHILD_PHASES, phase) != NULL) {
        c->phase = phase;
        c->index = page->index;
        c->phase_start = 1e-9 * (double)page->since_ns;
        c->batch = page->batch;
    }
    return 1;
}

void bitcts_child_progress(bitcts_child *c)
{
    if (c->foreign) {
        c->phase_start = bitcts_clock_now();
    }
}

double bitcts_child_left(const bitcts_child *c, double now)
{
    if (c->killed_at > 0 || c->sb.exited || c->sb.pid <= 0) {
        return 1e9;
    }
    return c->phase_start + child_deadline_now(c) - now;
}

char bitcts_child_proc_state(pid_t pid, pid_t *pgrp)
{
    char path[64];
    char text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return '?';
    }
    const ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) {
        return '?';
    }
    text[got] = '\0';
    const char *paren = strrchr(text, ')'); /* the name may hold spaces and parentheses */
    char state = '?';
    int ppid = 0;
    int group = 0;
    if (paren == NULL || sscanf(paren + 1, " %c %d %d", &state, &ppid, &group) != 3) {
        return '?';
    }
    if (pgrp != NULL) {
        *pgrp = (pid_t)group;
    }
    return state;
}

void bitcts_child_kill(bitcts_child *c, double now)
{
    if (c->killed_at == 0 && !c->sb.exited) {
        bitcts_sandbox_kill(&c->sb);
        c->killed_at = now > 0 ? now : 1e-9;
    }
}

int bitcts_child_enforce(bitcts_child *c, double now)
{
    if (c->killed_at > 0 || c->sb.exited || c->sb.pid <= 0 || bitcts_child_left(c, now) >= 0) {
        return 0;
    }
    c->timed_out = 1;
    c->killed_for = c->phase;
    c->deadline_s = child_deadline_now(c);
    c->killed_batch = c->phase == 'P' ? c->batch : 0;
    c->state = bitcts_child_proc_state(c->sb.pid, NULL);
    bitcts_child_kill(c, now);
    return 1;
}

const char *bitcts_child_phase_name(char phase)
{
    switch (phase) {
    case 'L': return "loading the backend (its constructors and negotiation)";
    case 'I': return "instance_create";
    case 'Q': return "the capability queries";
    case 'B': return "the harness preparing a case (after the backend had run in the process)";
    case 'P': return "the backend's operator calls";
    case 'C': return "the harness checking (after the backend had run in the process)";
    case 'D': return "instance_destroy or plugin_shutdown";
    case 'X': return "the process's exit (the backend's destructors)";
    default: return "starting the process";
    }
}

static const char *state_words(char state)
{
    switch (state) {
    case 'R': return "running (a busy loop?)";
    case 'S': return "sleeping";
    case 'D': return "in uninterruptible sleep (a driver call?)";
    default: return "in state ?";
    }
}

void bitcts_child_killed_text(const bitcts_child *c, const char *where, char *out, size_t cap)
{
    if (bitcts_child_harness_phase(c->killed_for, c->foreign)) {
        snprintf(out, cap, "no progress within %.3g s in %s; killed", c->deadline_s, where);
    } else if (c->state == 'T' || c->state == 't') {
        snprintf(out, cap,
                 "the backend stopped its process (SIGSTOP or a tracer) in %s: no progress "
                 "within %.3g s; killed",
                 where, c->deadline_s);
    } else {
        snprintf(out, cap,
                 "the backend hung in %s: no progress within %.3g s, the process %s; killed", where,
                 c->deadline_s, state_words(c->state));
    }
    const size_t used = strlen(out);
    if (c->killed_batch > 1 && used < cap) {
        snprintf(out + used, cap - used,
                 " (a batched call of %u cases: %.3g s each, their deadlines summed)",
                 c->killed_batch, c->timeout_s);
    }
}
