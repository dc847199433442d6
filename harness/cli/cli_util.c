/* SPDX-License-Identifier: MIT */
/* Helpers for the command line: one-line errors, option matching, strict numbers
 * (harness/number_text.c). */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* strtod */
#include <string.h> /* strncmp */

#include "cli_util.h"
#include "number_text.h"
#include "sanitize.h"

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

int bitcts_cli_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    const size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0) {
        return 0;
    }
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0') {
        return 0;
    }
    if (*i + 1 >= argc) {
        return -1;
    }
    *value = argv[++*i];
    return 1;
}
