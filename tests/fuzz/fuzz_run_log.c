/* SPDX-License-Identifier: MIT */
/* Fuzz target: results.jsonl, the run log that --resume reads (harness/run/run_log.c). Any bytes
 * either parse, handing every "end" record to the callback and saying how many bytes hold
 * whole lines, or fail with one error line. Parsing only the whole lines gives the same
 * result; the header and the end records written back as JSON lines parse to the same
 * records, with the header as the one the log must start with; and each end record, once the
 * log's own fields are dropped, is checked as the runner checks a case it believes. */
#include <jansson.h> /* json_t */
#include <string.h>  /* memchr, strncmp */

#include "bitcts/bitcts_status.h"
#include "fuzz_check.h"
#include "report_model.h"
#include "run_log.h"

typedef struct fuzz_log {
    json_t *ends; /* array of the end records, in order */
    size_t calls;
} fuzz_log;

static int take_end(void *user, json_t *rec, size_t line, char *err, size_t cap)
{
    fuzz_log *log = user;
    FUZZ_CHECK(json_is_object(rec));
    const char *kind = json_string_value(json_object_get(rec, "record"));
    FUZZ_CHECK(kind != NULL && strcmp(kind, "end") == 0);
    FUZZ_CHECK(line >= 2);
    ++log->calls;
    /* The runner's use: the case object without the log's fields must validate, or the case is
     * dropped; neither may crash. */
    json_t *obj = json_deep_copy(rec);
    char why[BITCTS_REPORT_ERROR_CAP];
    if (obj != NULL) {
        json_object_del(obj, "record");
        json_object_del(obj, "round");
        if (bitcts_report_validate_case(obj, why, sizeof why) != BITCTS_OK) {
            FUZZ_CHECK(why[0] != '\0' && strchr(why, '\n') == NULL);
        }
        json_decref(obj);
    }
    if (json_is_true(json_object_get(rec, "fuzz_stop"))) {
        json_decref(rec);
        snprintf(err, cap, "stopped at line %zu", line);
        return BITCTS_E_NOT_FOUND;
    }
    FUZZ_CHECK(json_array_append_new(log->ends, rec) == 0);
    return BITCTS_OK;
}

static int parse(const char *text, size_t size, const json_t *want, fuzz_log *log, size_t *complete,
                 char *err, size_t cap)
{
    log->ends = json_array();
    log->calls = 0;
    FUZZ_CHECK(log->ends != NULL);
    err[0] = '\0';
    return bitcts_run_log_parse("fuzz.jsonl", text, size, want, take_end, log, complete, err, cap);
}

/* The header and the end records as JSON lines. */
static char *write_back(const json_t *header, const json_t *ends, size_t *size)
{
    json_t *lines = json_array();
    FUZZ_CHECK(lines != NULL && json_array_append(lines, (json_t *)header) == 0);
    FUZZ_CHECK(json_array_extend(lines, (json_t *)ends) == 0);
    size_t cap = 1;
    char **dumps = calloc(json_array_size(lines), sizeof *dumps);
    FUZZ_CHECK(dumps != NULL);
    for (size_t i = 0; i < json_array_size(lines); ++i) {
        dumps[i] = json_dumps(json_array_get(lines, i), JSON_COMPACT);
        FUZZ_CHECK(dumps[i] != NULL && strchr(dumps[i], '\n') == NULL);
        cap += strlen(dumps[i]) + 1;
    }
    char *text = malloc(cap);
    FUZZ_CHECK(text != NULL);
    size_t n = 0;
    for (size_t i = 0; i < json_array_size(lines); ++i) {
        const size_t len = strlen(dumps[i]);
        memcpy(text + n, dumps[i], len);
        text[n + len] = '\n';
        n += len + 1;
        free(dumps[i]);
    }
    free(dumps);
    json_decref(lines);
    *size = n;
    return text;
}

static void check_parsed(const char *text, size_t size, size_t complete, const fuzz_log *log)
{
    FUZZ_CHECK(complete <= size);
    FUZZ_CHECK(complete == 0 || text[complete - 1] == '\n');
    FUZZ_CHECK(memchr(text + complete, '\n', size - complete) == NULL);
    FUZZ_CHECK(log->calls == json_array_size(log->ends));

    /* The whole lines alone parse the same. */
    fuzz_log again;
    size_t complete2 = 0;
    char err[1024];
    FUZZ_CHECK(parse(text, complete, NULL, &again, &complete2, err, sizeof err) == BITCTS_OK);
    FUZZ_CHECK(complete2 == complete && json_equal(again.ends, log->ends));
    json_decref(again.ends);
    if (complete == 0) {
        return;
    }

    /* Written back, with the header required. */
    json_t *header =
        json_loadb(text, (size_t)((const char *)memchr(text, '\n', size) - text), 0, NULL);
    FUZZ_CHECK(header != NULL);
    size_t back_size = 0;
    char *back = write_back(header, log->ends, &back_size);
    FUZZ_CHECK(parse(back, back_size, header, &again, &complete2, err, sizeof err) == BITCTS_OK);
    FUZZ_CHECK(complete2 == back_size && json_equal(again.ends, log->ends));
    json_decref(again.ends);
    free(back);

    /* The log's own header is the one it must start with. */
    FUZZ_CHECK(parse(text, size, header, &again, &complete2, err, sizeof err) == BITCTS_OK);
    FUZZ_CHECK(complete2 == complete && json_equal(again.ends, log->ends));
    json_decref(again.ends);
    json_decref(header);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    fuzz_log log;
    size_t complete = 0;
    char err[1024];
    const int st = parse(text, size, NULL, &log, &complete, err, sizeof err);
    if (st == BITCTS_OK) {
        check_parsed(text, size, complete, &log);
    } else {
        FUZZ_CHECK(st == BITCTS_E_PARSE || st == BITCTS_E_INVALID_ARGUMENT ||
                   st == BITCTS_E_NOT_FOUND);
        FUZZ_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
        FUZZ_CHECK(st == BITCTS_E_NOT_FOUND || strncmp(err, "fuzz.jsonl", 10) == 0);
        FUZZ_CHECK(complete < size);
    }
    json_decref(log.ends);
    return 0;
}
