/* SPDX-License-Identifier: MIT */
/* The baseline file parser and its application to verdicts. */
#include <fnmatch.h> /* fnmatch */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* realloc */
#include <string.h>  /* memchr */

#include "baseline.h"
#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"

#define BASELINE_MAX_ENTRIES 100000

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) {
        ++p;
    }
    return p;
}

static const char *word_end(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#') {
        ++p;
    }
    return p;
}

static int parse_line(const char *p, const char *end, bitcts_baseline_entry *e, char *why,
                      size_t cap)
{
    const char *g = skip_space(p, end), *g_end = word_end(g, end);
    const char *v = skip_space(g_end, end), *v_end = word_end(v, end);
    if ((size_t)(g_end - g) >= sizeof e->glob) {
        snprintf(why, cap, "glob longer than %zu characters", sizeof e->glob - 1);
        return -1;
    }
    if (v == v_end) {
        snprintf(why, cap, "missing verdict after '%.*s' (expected fail, timeout, crash or flake)",
                 (int)(g_end - g), g);
        return -1;
    }
    char verdict[32];
    snprintf(verdict, sizeof verdict, "%.*s", (int)(v_end - v), v);
    e->verdict = bitcts_verdict_parse(verdict);
    if (e->verdict != BITCTS_VERDICT_FAIL && e->verdict != BITCTS_VERDICT_TIMEOUT &&
        e->verdict != BITCTS_VERDICT_FLAKE && e->verdict != BITCTS_VERDICT_CRASH) {
        snprintf(why, cap, "unknown verdict '%s' (expected fail, timeout, crash or flake)",
                 verdict);
        return -1;
    }
    snprintf(e->glob, sizeof e->glob, "%.*s", (int)(g_end - g), g);
    if (!bitcts_glob_is_valid(e->glob)) {
        snprintf(why, cap, "'%s' is a malformed glob (an unclosed '[' or a trailing '\\')",
                 e->glob);
        return -1;
    }
    const char *r = skip_space(v_end, end);
    if (r < end && *r == '#') {
        r = skip_space(r + 1, end);
    }
    snprintf(e->reason, sizeof e->reason, "%.*s", (int)(end - r), r);
    return 0;
}

int bitcts_baseline_parse(const char *name, const char *text, size_t size, bitcts_baseline *out,
                          char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    size_t line = 0, room = 0;
    const char *p = text, *end = text + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl != NULL ? nl : end;
        ++line;
        const char *q = skip_space(p, line_end);
        if (q < line_end && *q != '#') {
            if (out->count == room) {
                room = room ? room * 2 : 64;
                bitcts_baseline_entry *grown = room <= BASELINE_MAX_ENTRIES
                                                   ? realloc(out->entries, room * sizeof *grown)
                                                   : NULL;
                if (grown == NULL) {
                    snprintf(err, cap, "%s:%zu: too many entries", name, line);
                    bitcts_baseline_free(out);
                    return BITCTS_E_PARSE;
                }
                out->entries = grown;
            }
            char why[320];
            if (memchr(q, '\0', (size_t)(line_end - q)) != NULL ||
                parse_line(q, line_end, &out->entries[out->count], why, sizeof why) != 0) {
                snprintf(err, cap, "%s:%zu: %s", name, line,
                         memchr(q, '\0', (size_t)(line_end - q)) != NULL ? "NUL byte in line"
                                                                         : why);
                bitcts_baseline_free(out);
                return BITCTS_E_PARSE;
            }
            out->entries[out->count++].line = line;
        }
        p = nl != NULL ? nl + 1 : end;
    }
    return BITCTS_OK;
}

void bitcts_baseline_free(bitcts_baseline *b)
{
    free(b->entries);
    b->entries = NULL;
    b->count = 0;
}

const bitcts_baseline_entry *bitcts_baseline_find(const bitcts_baseline *b, const char *id)
{
    for (size_t i = 0; b != NULL && i < b->count; ++i) {
        if (fnmatch(b->entries[i].glob, id, 0) == 0) {
            return &b->entries[i];
        }
    }
    return NULL;
}

int bitcts_baseline_entry_can_match(const bitcts_baseline_entry *e, const bitcts_plan *plan)
{
    static const char explored[] = "explore.";
    if (strncmp(e->glob, explored, sizeof explored - 1) == 0 ||
        fnmatch(e->glob, "explore.1", 0) == 0) {
        return 1;
    }
    for (size_t i = 0; i < plan->count; ++i) {
        if (fnmatch(e->glob, plan->cases[i].id, 0) == 0) {
            return 1;
        }
    }
    return 0;
}

int bitcts_baseline_apply(const bitcts_baseline_entry *e, int verdict)
{
    if (e == NULL) {
        return verdict;
    }
    if (verdict == e->verdict) { /* only the failure the entry names is expected */
        return BITCTS_VERDICT_EXPECTED_FAIL;
    }
    if (verdict == BITCTS_VERDICT_PASS || verdict == BITCTS_VERDICT_WARN ||
        verdict == BITCTS_VERDICT_RECORDED) {
        return BITCTS_VERDICT_UNEXPECTED_PASS;
    }
    return verdict;
}
