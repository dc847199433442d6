/* SPDX-License-Identifier: MIT */
/* Joins the shard reports of one run into the report the unsharded run would have written:
 * first proves the shards belong together (same run identity, one complete set of shards, no
 * case with two different results), then rebuilds the cases in plan order and recomputes
 * everything derived from them. */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf, sscanf */
#include <stdlib.h> /* malloc, qsort */
#include <string.h> /* strcmp */

#include "report.h"

typedef struct merge_ctx {
    const json_t *const *shards;
    const char *const *names;
    size_t count;
    char *err;
    size_t cap;
} merge_ctx;

static bitcts_status merge_fail(merge_ctx *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (m->err != NULL && m->cap) {
        vsnprintf(m->err, m->cap, fmt, ap);
    }
    va_end(ap);
    return BITCTS_E_INVALID_ARGUMENT;
}

/* ---- one run? ---- */

/* The fields that identify a run, as paths of members: a backend's spec and the variant it
 * reports (cpu:scalar and cpu:avx2 share name and library) tell runs of one library apart. */
static const char *const identity_fields[] = {
    "schema_version",
    "suite_version",
    "seed",
    "backend.name",
    "backend.spec",
    "backend.version",
    "backend.info.variant",
    "backend.library_xxh3_128",
    "selection.tier",
    "selection.filter",
    "selection.exclude",
    "selection.feature_level",
    "selection.balance",
};

/* The string at a dotted path of members ("backend.info.variant"), or "". */
static const char *identity_str(const json_t *report, const char *path)
{
    const json_t *at = report;
    const char *dot = strchr(path, '.');
    while (dot != NULL) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        at = json_object_get(at, key);
        path = dot + 1;
        dot = strchr(path, '.');
    }
    return bitcts_report_str(at, path);
}

/* Both absent (reports of an older bitcts), or equal. */
static int equal_or_absent(const json_t *a, const json_t *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && json_equal(a, b));
}

static bitcts_status check_identity(merge_ctx *m)
{
    for (size_t i = 1; i < m->count; ++i) {
        for (size_t f = 0; f < sizeof identity_fields / sizeof identity_fields[0]; ++f) {
            const char *a = identity_str(m->shards[0], identity_fields[f]);
            const char *b = identity_str(m->shards[i], identity_fields[f]);
            if (strcmp(a, b) != 0) {
                return merge_fail(m,
                                  "%s and %s are not shards of one run: %s differs ('%s' vs '%s')",
                                  m->names[0], m->names[i], identity_fields[f], a, b);
            }
        }
        if (!json_equal(json_object_get(m->shards[0], "generator_version"),
                        json_object_get(m->shards[i], "generator_version"))) {
            return merge_fail(m, "%s and %s are not shards of one run: generator_version differs",
                              m->names[0], m->names[i]);
        }
        if (!equal_or_absent(
                json_object_get(json_object_get(m->shards[0], "selection"), "cases"),
                json_object_get(json_object_get(m->shards[i], "selection"), "cases"))) {
            return merge_fail(m, "%s and %s are not shards of one run: selection.cases differs",
                              m->names[0], m->names[i]);
        }
    }
    return BITCTS_OK;
}

/* "i/n" -> i and n; 0 when the text is not of that form. */
static int parse_shard(const char *text, unsigned *i, unsigned *n)
{
    int used = 0;
    return sscanf(text, "%9u/%9u%n", i, n, &used) == 2 && text[used] == '\0' && *n > 0 &&
           text[0] >= '0' && text[0] <= '9';
}

/* All shards unsharded (""), or "i/n" with one n, every i once, i counted from 1 (or 0). */
static bitcts_status check_shards(merge_ctx *m)
{
    unsigned n0 = 0;
    int base = 1;
    const char *first = bitcts_report_str(json_object_get(m->shards[0], "selection"), "shard");
    for (size_t i = 0; i < m->count; ++i) {
        const char *s = bitcts_report_str(json_object_get(m->shards[i], "selection"), "shard");
        unsigned idx = 0;
        unsigned n = 0;
        if (!*s != !*first) {
            return merge_fail(m, "%s is %s but %s is %s", m->names[0], *first ? first : "unsharded",
                              m->names[i], *s ? s : "unsharded");
        }
        if (!*s) {
            continue;
        }
        if (!parse_shard(s, &idx, &n)) {
            return merge_fail(m, "%s: shard '%s' is not I/N", m->names[i], s);
        }
        if (i == 0) {
            n0 = n;
        }
        if (n != n0) {
            return merge_fail(m, "%s is shard %s but %s is shard %s: different shard counts",
                              m->names[0], first, m->names[i], s);
        }
        base = idx == 0 ? 0 : base;
        for (size_t j = 0; j < i; ++j) {
            if (strcmp(s, bitcts_report_str(json_object_get(m->shards[j], "selection"), "shard")) ==
                0) {
                return merge_fail(m, "%s and %s are both shard %s", m->names[j], m->names[i], s);
            }
        }
    }
    if (!*first) {
        return BITCTS_OK;
    }
    for (size_t i = 0; i < m->count; ++i) {
        unsigned idx = 0;
        unsigned n = 0;
        parse_shard(bitcts_report_str(json_object_get(m->shards[i], "selection"), "shard"), &idx,
                    &n);
        if (idx < (unsigned)base || idx - (unsigned)base >= n) {
            return merge_fail(m, "%s: shard %u/%u is out of range", m->names[i], idx, n);
        }
    }
    if (m->count != n0) {
        return merge_fail(m, "got %zu of the %u shards of the run; give every shard", m->count, n0);
    }
    return BITCTS_OK;
}

/* ---- the cases ---- */

/* Plan order: by plan_index; cases without one after those with one, by id. */
static int compare_plan(const void *a, const void *b)
{
    const json_t *x = ((const bitcts__report_keyed *)a)->obj;
    const json_t *y = ((const bitcts__report_keyed *)b)->obj;
    const json_t *px = json_object_get(x, "plan_index");
    const json_t *py = json_object_get(y, "plan_index");
    if (px != NULL && py != NULL && json_integer_value(px) != json_integer_value(py)) {
        return json_integer_value(px) < json_integer_value(py) ? -1 : 1;
    }
    if ((px == NULL) != (py == NULL)) {
        return px != NULL ? -1 : 1;
    }
    return strcmp(bitcts_report_str(x, "id"), bitcts_report_str(y, "id"));
}

static int same_result(const json_t *a, const json_t *b)
{
    static const char *const keys[] = {"verdict", "output_xxh3_128", "detail", "policy"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; ++k) {
        if (strcmp(bitcts_report_str(a, keys[k]), bitcts_report_str(b, keys[k])) != 0) {
            return 0;
        }
    }
    return json_equal(json_object_get(a, "failure"), json_object_get(b, "failure"));
}

/* Sorts by id, drops exact duplicates (refusing different results), returns the unique count. */
static bitcts_status dedupe(merge_ctx *m, bitcts__report_keyed *all, size_t n, size_t *unique)
{
    qsort(all, n, sizeof *all, bitcts__report_keyed_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        if (kept && strcmp(all[kept - 1].key, all[i].key) == 0) {
            if (!same_result(all[kept - 1].obj, all[i].obj)) {
                return merge_fail(m, "case %s has different results in %s (%s) and %s (%s)",
                                  bitcts_report_str(all[i].obj, "id"), m->names[all[kept - 1].pos],
                                  bitcts_report_str(all[kept - 1].obj, "verdict"),
                                  m->names[all[i].pos], bitcts_report_str(all[i].obj, "verdict"));
            }
            continue;
        }
        all[kept++] = all[i];
    }
    *unique = kept;
    return BITCTS_OK;
}

static bitcts_status merged_cases(merge_ctx *m, json_t **out)
{
    size_t n = 0;
    for (size_t i = 0; i < m->count; ++i) {
        n += json_array_size(json_object_get(m->shards[i], "cases"));
    }
    if (n > BITCTS_REPORT_MAX_CASES) {
        return merge_fail(m, "the shards hold %zu cases, more than the %u supported", n,
                          BITCTS_REPORT_MAX_CASES);
    }
    bitcts__report_keyed *all = malloc((n ? n : 1) * sizeof *all);
    json_t *cases = json_array();
    bitcts_status st = BITCTS_E_OUT_OF_MEMORY;
    size_t k = 0;
    if (all == NULL || cases == NULL) {
        goto cleanup;
    }
    for (size_t i = 0; i < m->count; ++i) {
        const json_t *list = json_object_get(m->shards[i], "cases");
        for (size_t j = 0; j < json_array_size(list); ++j) {
            const json_t *c = json_array_get(list, j);
            all[k++] =
                (bitcts__report_keyed){.key = bitcts_report_str(c, "id"), .obj = c, .pos = i};
        }
    }
    if ((st = dedupe(m, all, n, &k)) != BITCTS_OK) {
        goto cleanup;
    }
    const json_t *total = json_object_get(json_object_get(m->shards[0], "selection"), "cases");
    if (total != NULL && (json_int_t)k != json_integer_value(total)) {
        st = merge_fail(m, "the shards hold %zu distinct cases but the run selected %lld: %s", k,
                        (long long)json_integer_value(total),
                        (json_int_t)k < json_integer_value(total)
                            ? "cases are missing (a shard cut short, or shards of another layout)"
                            : "cases from outside the selection");
        goto cleanup;
    }
    qsort(all, k, sizeof *all, compare_plan);
    for (size_t i = 0; i < k; ++i) {
        const json_t *p = json_object_get(all[i].obj, "plan_index");
        if (i && p != NULL && json_equal(p, json_object_get(all[i - 1].obj, "plan_index"))) {
            st = merge_fail(m, "cases %s and %s both have plan_index %lld: not one plan",
                            bitcts_report_str(all[i - 1].obj, "id"),
                            bitcts_report_str(all[i].obj, "id"), (long long)json_integer_value(p));
            goto cleanup;
        }
        /* Shared for now; the caller deep-copies the finished report. */
        if (json_array_append_new(cases, json_incref((json_t *)all[i].obj)) != 0) {
            st = BITCTS_E_OUT_OF_MEMORY;
            goto cleanup;
        }
    }
    *out = cases;
    cases = NULL;
    st = BITCTS_OK;
cleanup:
    free(all);
    json_decref(cases);
    return st;
}

/* ---- the rest of the report ---- */

/* The first shard's command line without "--shard X" / "--shard=X". */
/* --shard, --shard-count or --shard-timings, alone or with "=VALUE". */
static int is_shard_option(const char *arg)
{
    static const char *const names[] = {"--shard", "--shard-count", "--shard-timings"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        const size_t len = strlen(names[k]);
        if (strncmp(arg, names[k], len) == 0 && (arg[len] == '\0' || arg[len] == '=')) {
            return 1;
        }
    }
    return 0;
}

static json_t *unsharded_command_line(const json_t *report)
{
    const json_t *argv = json_object_get(report, "command_line");
    json_t *out = json_array();
    for (size_t i = 0; out != NULL && i < json_array_size(argv); ++i) {
        const char *arg = json_string_value(json_array_get(argv, i));
        if (is_shard_option(arg)) {
            i += strchr(arg, '=') == NULL; /* its value is the next argument */
            continue;
        }
        if (json_array_append_new(out, json_string(arg)) != 0) {
            json_decref(out);
            out = NULL;
        }
    }
    return out;
}

/* The merged run's identity: shard 0's, with the earliest start, the command line without
 * --shard and no shard in the selection; and the latest finish and the summed duration. */
static json_t *merged_identity(merge_ctx *m, const char **finished, double *duration)
{
    const char *started = bitcts_report_str(m->shards[0], "started");
    *finished = bitcts_report_str(m->shards[0], "finished");
    *duration = 0;
    for (size_t i = 0; i < m->count; ++i) {
        const char *s = bitcts_report_str(m->shards[i], "started");
        const char *f = bitcts_report_str(m->shards[i], "finished");
        started = strcmp(s, started) < 0 ? s : started; /* ISO 8601 UTC sorts as text */
        *finished = strcmp(f, *finished) > 0 ? f : *finished;
        *duration += bitcts_report_num(m->shards[i], "duration_s");
    }
    json_t *identity = json_copy((json_t *)m->shards[0]); /* members shared until the builder
                                                             copies them */
    json_t *selection = json_deep_copy(json_object_get(m->shards[0], "selection"));
    int rc = identity == NULL || selection == NULL ||
             json_object_set_new(selection, "shard", json_string("")) != 0;
    if (rc == 0 && json_object_get(selection, "balance") != NULL) {
        rc = json_object_set_new(selection, "balance", json_string("")) != 0;
    }
    rc |= identity == NULL || json_object_set_new(identity, "selection", selection) != 0;
    rc |= identity == NULL || json_object_set_new(identity, "started", json_string(started)) != 0;
    rc |= identity == NULL ||
          json_object_set_new(identity, "command_line", unsharded_command_line(m->shards[0])) != 0;
    static const char *const notes[] = {"stopped", "retried"}; /* a shard's is the run's */
    for (size_t k = 0; k < 2; ++k) {
        for (size_t i = 0; !rc && i < m->count; ++i) {
            const char *note = bitcts_report_str(m->shards[i], notes[k]);
            if (note[0] != '\0') {
                rc |= json_object_set_new(identity, notes[k], json_string(note)) != 0;
                break;
            }
        }
    }
    if (rc) {
        json_decref(identity);
        return NULL;
    }
    return identity;
}

bitcts_status bitcts_report_merge(const json_t *const *shards, const char *const *names,
                                  size_t count, json_t **out, char *err, size_t cap)
{
    merge_ctx m = {.shards = shards, .names = names, .count = count, .err = err, .cap = cap};
    if (err != NULL && cap) {
        err[0] = '\0';
    }
    if (shards == NULL || names == NULL || out == NULL || count == 0) {
        return merge_fail(&m, "no shard reports given");
    }
    *out = NULL;
    json_t *cases = NULL;
    bitcts_status st = check_identity(&m);
    if (st == BITCTS_OK) {
        st = check_shards(&m);
    }
    if (st == BITCTS_OK) {
        st = merged_cases(&m, &cases);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    const char *finished = NULL;
    double duration = 0;
    json_t *identity = merged_identity(&m, &finished, &duration);
    bitcts_report_builder *b = NULL;
    st = identity != NULL ? bitcts_report_builder_create(identity, &b) : BITCTS_E_OUT_OF_MEMORY;
    for (size_t i = 0; st == BITCTS_OK && i < json_array_size(cases); ++i) {
        json_t *copy = json_deep_copy(json_array_get(cases, i)); /* nothing shared with shards */
        st = copy != NULL ? bitcts_report_builder_add(b, copy) : BITCTS_E_OUT_OF_MEMORY;
    }
    if (st == BITCTS_OK) {
        st = bitcts_report_builder_finish(b, finished, duration, out, err, cap);
    } else {
        merge_fail(&m, "out of memory");
    }
    bitcts_report_builder_destroy(b);
    json_decref(identity);
    json_decref(cases);
    return st;
}
