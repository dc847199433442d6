/* SPDX-License-Identifier: MIT */
/* Helpers for the command line: one-line errors, paths, strict numbers
 * (harness/base/number_text.c). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>        /* ENOSPC, EDQUOT, EIO */
#include <limits.h>       /* PATH_MAX */
#include <stdarg.h>       /* va_list */
#include <stdio.h>        /* fprintf */
#include <stdlib.h>       /* strtod */
#include <string.h>       /* strncmp */
#include <sys/stat.h>     /* stat */

#include "cli_util.h"
#include "fs_util.h"
#include "number_text.h"
#include "sanitize.h"

volatile sig_atomic_t bitcts_cli_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    bitcts_cli_interrupted = 1;
}

void bitcts_cli_interrupts_catch(bitcts_cli_interrupts *saved)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    bitcts_cli_interrupted = 0;
    sigaction(SIGINT, &sa, &saved->old_int);
    sigaction(SIGTERM, &sa, &saved->old_term);
}

void bitcts_cli_interrupts_restore(const bitcts_cli_interrupts *saved)
{
    sigaction(SIGINT, &saved->old_int, NULL);
    sigaction(SIGTERM, &saved->old_term, NULL);
}

int bitcts_cli_write_json(const char *cmd, json_t *doc, size_t indent, const char *path)
{
    char *text = doc != NULL ? json_dumps(doc, JSON_INDENT(indent)) : NULL;
    json_decref(doc);
    if (text == NULL) {
        return bitcts_cli_error(cmd, "out of memory writing %s", path);
    }
    char err[1024];
    const int st = bitcts_fs_write_atomic(path, text, strlen(text), err, sizeof err);
    free(text);
    return st == 0 ? 0 : bitcts_cli_error(cmd, "%s", err);
}

int bitcts_cli_environment_failed(int status, const char *error)
{
    if (status == BITCTS_E_DEVICE) {
        return 1;
    }
    static const int disk[] = {ENOSPC, EDQUOT, EIO};
    for (size_t i = 0; status == BITCTS_E_IO && i < sizeof disk / sizeof disk[0]; ++i) {
        if (strstr(error, strerror(disk[i])) != NULL) {
            return 1;
        }
    }
    return 0;
}

int bitcts_cli_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "bitcts%s%s: error: %s\n", cmd != NULL ? " " : "", cmd != NULL ? cmd : "", msg);
    return BITCTS_EXIT_USAGE;
}

int bitcts_cli_check_utf8(const char *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (bitcts_sanitize_is_utf8(arg, strlen(arg))) {
            continue;
        }
        const char *eq = strchr(arg, '=');
        if (arg[0] == '-' && arg[1] == '-' && eq != NULL &&
            bitcts_sanitize_is_utf8(arg, (size_t)(eq - arg))) {
            return bitcts_cli_error(cmd, "the value of %.*s is not valid UTF-8", (int)(eq - arg),
                                    arg);
        }
        const char *prev = argv[i - 1];
        if (i > 1 && prev[0] == '-' && prev[1] != '\0' && strchr(prev, '=') == NULL) {
            return bitcts_cli_error(cmd, "the value of %s is not valid UTF-8", prev);
        }
        return bitcts_cli_error(cmd, "argument %d is not valid UTF-8", i);
    }
    return 0;
}

/* The canonical form of a path whose last part may not exist: realpath of its folder, then
 * the name. */
static void canonical_path(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    char folder[PATH_MAX], real[PATH_MAX];
    snprintf(folder, sizeof folder, "%.*s", slash != NULL ? (int)(slash - path + 1) : 1,
             slash != NULL ? path : ".");
    const char *name = slash != NULL ? slash + 1 : path;
    if (realpath(folder, real) == NULL) {
        snprintf(out, cap, "%s", path);
        return;
    }
    snprintf(out, cap, "%s/%s", real, name);
}

int bitcts_cli_same_file(const char *a, const char *b)
{
    struct stat sa;
    struct stat sb;
    const int has_a = stat(a, &sa) == 0;
    const int has_b = stat(b, &sb) == 0;
    if (has_a && has_b) {
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    if (has_a != has_b) {
        return 0;
    }
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    canonical_path(a, ca, sizeof ca);
    canonical_path(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

void bitcts_cli_report_file(const char *path, char *out, size_t cap)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(out, cap, "%s/report.json", path);
    } else {
        snprintf(out, cap, "%s", path);
    }
}

int bitcts_cli_outputs_apart(const char *cmd, const char *const *outputs, const char *const *names,
                             int n_outputs, const char *const *inputs, int n_inputs)
{
    for (int k = 0; k < n_outputs; ++k) {
        for (int j = 0; outputs[k] != NULL && j < k; ++j) {
            if (outputs[j] != NULL && bitcts_cli_same_file(outputs[j], outputs[k])) {
                return bitcts_cli_error(cmd, "%s and %s name the same file (%s)", names[j],
                                        names[k], outputs[k]);
            }
        }
        for (int i = 0; outputs[k] != NULL && i < n_inputs; ++i) {
            char file[4200];
            bitcts_cli_report_file(inputs[i], file, sizeof file);
            if (bitcts_cli_same_file(outputs[k], file)) {
                return bitcts_cli_error(cmd, "%s %s is the input report %s; give another file",
                                        names[k], outputs[k], file);
            }
        }
    }
    return 0;
}

int bitcts_cli_parse_seconds(const char *text, double *out)
{
    char *end = NULL;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= BITCTS_CLI_MIN_TIMEOUT_S) ||
        v > BITCTS_CLI_MAX_TIMEOUT_S) {
        return -1;
    }
    *out = v;
    return 0;
}

int bitcts_cli_parse_u64(const char *text, uint64_t *out)
{
    return bitcts_number_text_parse_u64(text, out);
}

int bitcts_cli_parse_u32_list(const char *text, uint32_t *out, int cap)
{
    return bitcts_number_text_parse_u32_list(text, out, cap);
}
