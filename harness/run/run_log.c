/* SPDX-License-Identifier: MIT */
/* Parsing results.jsonl. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memchr */

#include "bitcts/bitcts_status.h"
#include "run_log.h"

int bitcts_run_log_parse(const char *name, const char *text, size_t size, const json_t *want_header,
                         bitcts_run_log_end_fn on_end, void *user, size_t *complete, char *err,
                         size_t cap)
{
    size_t line = 0;
    const char *p = text;
    const char *end = text + size;
    *complete = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL) {
            break; /* a record cut short: dropped, the case runs again */
        }
        ++line;
        if (memchr(p, '\0', (size_t)(nl - p)) != NULL) {
            snprintf(err, cap, "%s:%zu: a NUL byte: not a bitcts log", name, line);
            return BITCTS_E_PARSE;
        }
        json_t *rec = json_loadb(p, (size_t)(nl - p), 0, NULL);
        const char *kind = json_string_value(json_object_get(rec, "record"));
        if (rec == NULL || kind == NULL) {
            json_decref(rec);
            snprintf(err, cap, "%s:%zu is not a bitcts log record", name, line);
            return BITCTS_E_PARSE;
        }
        if (line == 1 && (strcmp(kind, "header") != 0 ||
                          (want_header != NULL && !json_equal(rec, want_header)))) {
            json_decref(rec);
            snprintf(err, cap, "%s was written by a run with another seed, backend or selection",
                     name);
            return BITCTS_E_INVALID_ARGUMENT;
        }
        if (line > 1 && strcmp(kind, "header") == 0) {
            json_decref(rec);
            snprintf(err, cap, "%s:%zu: a second header", name, line);
            return BITCTS_E_PARSE;
        }
        if (strcmp(kind, "end") == 0) {
            const int st = on_end(user, rec, line, err, cap);
            if (st != BITCTS_OK) {
                return st;
            }
        } else {
            json_decref(rec);
        }
        p = nl + 1;
        *complete = (size_t)(p - text);
    }
    return BITCTS_OK;
}
