/* SPDX-License-Identifier: MIT */
/* The options a repro line carries: every option of a run that can change a case's verdict
 * (runner.h, bitcts_run_repro_options). */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strlen */

#include "bitcts/bitcts_status.h"
#include "runner.h"
#include "sanitize.h"
#include "self_exe.h"
#include "tensor_model.h"

/* Appends a formatted piece to out, keeping it NUL-terminated when it does not fit. */
static void append(char *out, size_t cap, const char *fmt, ...) BITCTS_PRINTF(3, 4);

static void append(char *out, size_t cap, const char *fmt, ...)
{
    const size_t used = strlen(out);
    if (used + 1 >= cap) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, cap - used, fmt, ap);
    va_end(ap);
}

/* " --NAME 'VALUE'": an option whose value is quoted for the shell. */
static void append_quoted(char *out, size_t cap, const char *name, const char *value)
{
    const size_t qcap = 4 * strlen(value) + 4;
    char *q = malloc(qcap);
    if (q != NULL) {
        append(out, cap, " %s %s", name, bitcts_shell_quote(value, q, qcap));
    }
    free(q);
}

/* The shortest decimal that reads back as the same double (at least 6 significant digits, so
 * that the seconds --timeout takes, 0.1 to 86400, never get an exponent). */
static void format_seconds(double v, char *out, size_t cap)
{
    for (int digits = 6; digits <= 17; ++digits) {
        snprintf(out, cap, "%.*g", digits, v);
        if (strtod(out, NULL) == v) {
            return;
        }
    }
}

void bitcts_run_repro_options(const bitcts_run_config *cfg, char *out, size_t cap)
{
    out[0] = '\0';
    const bitcts_backend_options *o = &cfg->options;
    for (uint32_t i = 0; i < o->count; ++i) {
        char pair[600];
        snprintf(pair, sizeof pair, "%s=%s", o->keys[i], o->values[i]);
        append_quoted(out, cap, "--backend-option", pair);
    }
    char seconds[40];
    format_seconds(cfg->timeout_s, seconds, sizeof seconds);
    append(out, cap, " --timeout %s", seconds);
    if (cfg->isolate_case) {
        append(out, cap, " --isolate case");
    }
    if (cfg->selection.max_feature_level != 0) {
        char fl[8];
        bitcts_fl_format(cfg->selection.max_feature_level, fl, sizeof fl);
        append(out, cap, " --feature-level %s", fl);
    }
    if (cfg->repeat > 1) {
        append(out, cap, " --repeat %u", cfg->repeat);
    }
    if (cfg->baseline_path != NULL) {
        char path[1024];
        append_quoted(out, cap, "--baseline",
                      bitcts_paste_path(cfg->baseline_path, path, sizeof path));
    }
    if (cfg->skips_path != NULL) { /* a listed case is skipped: the repro says so too */
        char path[1024];
        append_quoted(out, cap, "--skips", bitcts_paste_path(cfg->skips_path, path, sizeof path));
    }
    if (cfg->repro_extra != NULL) {
        append(out, cap, "%s", cfg->repro_extra);
    }
}
