/* SPDX-License-Identifier: MIT */
/* The supervisor's reaper (harness/sandbox/supervise.c) beside the command's own children: it
 * reaps any child that ends, so a process of the command's (the bench's peer) that ends while
 * the supervised child runs must have its end and wait status recorded in its sandbox
 * (bitcts_supervise_config.others) rather than lost. Deterministic: the supervised child waits
 * until the other process has left /proc, that is until it was reaped, and meanwhile nothing but
 * the supervisor's loop reaps in this process. */
#define _GNU_SOURCE /* kill */

#include <signal.h>   /* kill */
#include <stdio.h>    /* snprintf */
#include <string.h>   /* strstr */
#include <sys/wait.h> /* WIFEXITED */
#include <time.h>     /* nanosleep */
#include <unistd.h>   /* _exit, access */

#include "check.h"
#include "sandbox.h"
#include "supervise.h"

#define OTHER_EXIT 5
#define CHILD_WAIT_S 60 /* for the other process to be reaped (never reached when it works) */

static void other_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    (void)arg;
    (void)chan;
    (void)nonce;
    (void)status;
    _exit(OTHER_EXIT);
}

/* Exits 0 once the other process is gone from /proc (reaped by the supervisor), 1 if it is
 * still there after CHILD_WAIT_S. */
static void child_main(void *arg, int chan, const char *nonce, bitcts_sandbox_status *status)
{
    bitcts_supervise_child_start(chan, nonce, status);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)*(const pid_t *)arg);
    const struct timespec pause = {0, 5000000};
    for (int i = 0; i < CHILD_WAIT_S * 200; ++i) {
        if (access(path, F_OK) != 0) {
            bitcts_supervise_mark('X', -1);
            _exit(0);
        }
        nanosleep(&pause, NULL);
    }
    _exit(1);
}

static void other_recorded(int listed)
{
    bitcts_sandbox other = {0};
    char err[256] = "";
    CHECK(bitcts_sandbox_spawn(&other, other_main, NULL, err, sizeof err) == 0);
    bitcts_sandbox *others[1] = {&other};
    const bitcts_supervise_config cfg = {
        .timeout_s = 30, .others = listed ? others : NULL, .other_count = listed ? 1 : 0};
    bitcts_supervise_result r;
    CHECK(bitcts_supervise_run(&cfg, child_main, &other.pid, &r, err, sizeof err) == 0);
    CHECK(r.exited && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0); /* it was reaped */
    if (listed) {
        CHECK(other.exited);
        CHECK(WIFEXITED(other.status) && WEXITSTATUS(other.status) == OTHER_EXIT);
        char how[64];
        bitcts_sandbox_describe(other.status, how, sizeof how);
        CHECK_EQ_STR(how, "exit status 5");
    } else {
        CHECK(!other.exited); /* reaped, and its status went nowhere: what `others` is for */
        CHECK(waitpid(other.pid, NULL, WNOHANG) < 0);
    }
    other.exited = 1;
    bitcts_sandbox_close(&other);
}

static void too_many(void)
{
    bitcts_sandbox *others[BITCTS_SUPERVISE_OTHERS_MAX + 1] = {NULL};
    const bitcts_supervise_config cfg = {
        .timeout_s = 30, .others = others, .other_count = BITCTS_SUPERVISE_OTHERS_MAX + 1};
    bitcts_supervise_result r;
    char err[256] = "";
    CHECK(bitcts_supervise_run(&cfg, child_main, NULL, &r, err, sizeof err) == -1);
    CHECK(strstr(err, "at most 64") != NULL);
}

int main(void)
{
    bitcts_sandbox_init();
    other_recorded(1);
    other_recorded(0);
    too_many();
    return check_exit();
}
