/* SPDX-License-Identifier: MIT */
/* The skips file parser (skips.h). Each line is cut into its glob and the rest, the reason;
 * lines are taken one at a time from the buffer, so a file with no final newline reads alike. */
#include <fnmatch.h> /* fnmatch */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* realloc, free */
#include <string.h>  /* memchr, strspn */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "fs_util.h"
#include "skips.h"

#define SKIPS_MAX_ENTRIES 100000
#define SKIPS_BLANKS " \t\r"

/* One line without its newline: an entry in e, or blank/comment (*is_entry 0).
 * @return 0, or -1 with the problem in why. */
static int skip_line(const char *line, size_t len, bitcts_skip_entry *e, int *is_entry, char *why,
                     size_t cap)
{
    char text[1024];
    *is_entry = 0;
    if (memchr(line, '\0', len) != NULL) {
        snprintf(why, cap, "NUL byte in line");
        return -1;
    }
    if (len >= sizeof text) {
        snprintf(why, cap, "line longer than %zu bytes", sizeof text - 1);
        return -1;
    }
    memcpy(text, line, len);
    text[len] = '\0';
    const char *glob = text + strspn(text, SKIPS_BLANKS);
    if (*glob == '\0' || *glob == '#') {
        return 0;
    }
    const size_t glob_len = strcspn(glob, SKIPS_BLANKS);
    const char *reason = glob + glob_len + strspn(glob + glob_len, SKIPS_BLANKS);
    size_t reason_len = strlen(reason);
    while (reason_len > 0 && strchr(SKIPS_BLANKS, reason[reason_len - 1]) != NULL) {
        --reason_len;
    }
    if (glob_len >= sizeof e->glob) {
        snprintf(why, cap, "glob longer than %zu characters", sizeof e->glob - 1);
        return -1;
    }
    snprintf(e->glob, sizeof e->glob, "%.*s", (int)glob_len, glob);
    if (!bitcts_glob_is_valid(e->glob)) {
        snprintf(why, cap, "'%s' is a malformed glob (an unclosed '[' or a trailing '\\')",
                 e->glob);
        return -1;
    }
    if (reason_len == 0) {
        snprintf(why, cap, "'%s' has no reason (a line is '<glob> <reason...>')", e->glob);
        return -1;
    }
    snprintf(e->reason, sizeof e->reason, "%.*s", (int)reason_len, reason);
    *is_entry = 1;
    return 0;
}

static int add_entry(bitcts_skips *out, const bitcts_skip_entry *e)
{
    if (out->count % 64 == 0) {
        if (out->count >= SKIPS_MAX_ENTRIES) {
            return -1;
        }
        bitcts_skip_entry *grown = realloc(out->entries, (out->count + 64) * sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        out->entries = grown;
    }
    out->entries[out->count++] = *e;
    return 0;
}

int bitcts_skips_parse(const char *name, const char *text, size_t size, bitcts_skips *out,
                       char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    size_t at = 0;
    for (size_t line = 1; at < size; ++line) {
        const char *nl = memchr(text + at, '\n', size - at);
        const size_t len = nl != NULL ? (size_t)(nl - (text + at)) : size - at;
        bitcts_skip_entry e = {.line = line};
        int is_entry = 0;
        char why[400];
        if (skip_line(text + at, len, &e, &is_entry, why, sizeof why) != 0) {
            snprintf(err, cap, "%s:%zu: %s", name, line, why);
            bitcts_skips_free(out);
            return BITCTS_E_PARSE;
        }
        if (is_entry && add_entry(out, &e) != 0) {
            snprintf(err, cap, "%s:%zu: too many entries (at most %d)", name, line,
                     SKIPS_MAX_ENTRIES);
            bitcts_skips_free(out);
            return BITCTS_E_OUT_OF_MEMORY;
        }
        at += len + (nl != NULL);
    }
    return BITCTS_OK;
}

int bitcts_skips_load(const char *path, bitcts_skips *out, char *err, size_t cap)
{
    char *text = NULL;
    size_t size = 0;
    memset(out, 0, sizeof *out);
    int st = bitcts_fs_read(path, 64u << 20, &text, &size, err, cap);
    if (st == BITCTS_OK) {
        st = bitcts_skips_parse(path, text, size, out, err, cap);
    }
    free(text);
    return st;
}

void bitcts_skips_free(bitcts_skips *s)
{
    free(s->entries);
    s->entries = NULL;
    s->count = 0;
}

const bitcts_skip_entry *bitcts_skips_find(const bitcts_skips *s, const char *id)
{
    for (size_t i = 0; s != NULL && i < s->count; ++i) {
        if (fnmatch(s->entries[i].glob, id, 0) == 0) {
            return &s->entries[i];
        }
    }
    return NULL;
}

void bitcts_skips_result(const bitcts_skips *s, const bitcts_skip_entry *e, bitcts_case_result *r)
{
    memset(r, 0, sizeof *r);
    r->verdict = BITCTS_VERDICT_SKIPPED;
    snprintf(r->detail, sizeof r->detail, "skipped by %.300s:%zu: %s", s->name, e->line, e->reason);
}
