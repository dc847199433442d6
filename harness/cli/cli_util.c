/* SPDX-License-Identifier: MIT */
/* Strict parsing helpers for the command line. */
#include <errno.h>  /* errno */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* fprintf */
#include <stdlib.h> /* strtoull */
#include <string.h> /* strncmp */

#include "cli_util.h"

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

int bitcts_cli_parse_u64(const char *text, uint64_t *out)
{
    if (text == NULL || !*text || *text == '-' || *text == '+' || *text == ' ') {
        return -1;
    }
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end) {
        return -1;
    }
    *out = v;
    return 0;
}

int bitcts_cli_parse_u32_list(const char *text, uint32_t *out, int cap)
{
    int n = 0;
    const char *p = text;
    if (p == NULL || !*p) {
        return -1;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        char item[32];
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof item || n >= cap) {
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        uint64_t v = 0;
        if (bitcts_cli_parse_u64(item, &v) != 0 || v > UINT32_MAX) {
            return -1;
        }
        out[n++] = (uint32_t)v;
        if (comma == NULL) {
            break;
        }
        p = comma + 1;
        if (!*p) {
            return -1; /* trailing comma */
        }
    }
    return n;
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
