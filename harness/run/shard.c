/* SPDX-License-Identifier: MIT */
/* Shards: the slice an engine hands out, and the balanced assignment of cases to shards. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc, qsort */
#include <string.h> /* strlen, strcmp */

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "shard.h"

#define SHARD_MAX 100000u /* as --shard I/N */

typedef struct engine {
    const char *name;
    const char *index_var; /* set: this engine started the process */
    const char *count_var; /* NULL: the count comes from --shard-count or BITCTS_SHARD_COUNT */
    uint32_t base;         /* the first index's value */
    const char *status_var;
} engine;

static const engine engines[] = {
    {"Kubernetes indexed job", "JOB_COMPLETION_INDEX", NULL, 0, NULL},
    {"Slurm array", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", 0, NULL},
    {"GitLab parallel job", "CI_NODE_INDEX", "CI_NODE_TOTAL", 1, NULL},
    {"Bazel/GoogleTest sharding", "TEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", 0,
     "TEST_SHARD_STATUS_FILE"},
};
#define ENGINE_COUNT (sizeof engines / sizeof engines[0])

/* A decimal number of at most 9 digits, nothing else; -1 when `text` is not one. */
static int64_t number(const char *text)
{
    if (text == NULL || text[0] == '\0' || strlen(text) > 9) {
        return -1;
    }
    int64_t v = 0;
    for (const char *p = text; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9') {
            return -1;
        }
        v = v * 10 + (*p - '0');
    }
    return v;
}

/* The variable's value as a number, or -1 with the problem in err. */
static int64_t read_number(bitcts_env_fn get, void *user, const char *engine_name, const char *var,
                           char *err, size_t cap)
{
    const char *text = get(user, var);
    const int64_t v = number(text);
    if (v < 0) {
        snprintf(err, cap, "--shard auto: %s: %s is %s%.40s%s, not a number", engine_name, var,
                 text != NULL ? "'" : "", text != NULL ? text : "not set", text != NULL ? "'" : "");
    }
    return v;
}

/* The shard count of engine e: its variable, else the hint, else BITCTS_SHARD_COUNT. */
static int64_t engine_count(bitcts_env_fn get, void *user, const engine *e, uint32_t hint,
                            char *err, size_t cap)
{
    if (e->count_var != NULL) {
        const int64_t n = read_number(get, user, e->name, e->count_var, err, cap);
        if (n >= 0 && hint != 0 && (uint64_t)n != hint) {
            snprintf(err, cap, "--shard auto: %s: %s is %lld but --shard-count is %u", e->name,
                     e->count_var, (long long)n, hint);
            return -1;
        }
        return n;
    }
    if (hint != 0) {
        return hint;
    }
    if (get(user, "BITCTS_SHARD_COUNT") == NULL) {
        snprintf(err, cap,
                 "--shard auto: %s: %s gives the index but nothing gives the count (--shard-count "
                 "N or BITCTS_SHARD_COUNT)",
                 e->name, e->index_var);
        return -1;
    }
    return read_number(get, user, e->name, "BITCTS_SHARD_COUNT", err, cap);
}

/* The 0-based index of engine e's slice (Slurm: from SLURM_ARRAY_TASK_MIN, in steps of
 * SLURM_ARRAY_TASK_STEP), or -1 with the problem in err. */
static int64_t engine_index(bitcts_env_fn get, void *user, const engine *e, char *err, size_t cap)
{
    const int64_t i = read_number(get, user, e->name, e->index_var, err, cap);
    if (i < 0) {
        return -1;
    }
    if (strcmp(e->index_var, "SLURM_ARRAY_TASK_ID") != 0) {
        if (i < (int64_t)e->base) {
            snprintf(err, cap, "--shard auto: %s: %s is %lld; it counts from %u", e->name,
                     e->index_var, (long long)i, e->base);
            return -1;
        }
        return i - (int64_t)e->base;
    }
    const int64_t lo = read_number(get, user, e->name, "SLURM_ARRAY_TASK_MIN", err, cap);
    const int64_t step = get(user, "SLURM_ARRAY_TASK_STEP") != NULL
                             ? read_number(get, user, e->name, "SLURM_ARRAY_TASK_STEP", err, cap)
                             : 1;
    if (lo < 0 || step < 0) {
        return -1;
    }
    if (step == 0 || i < lo || (i - lo) % step != 0) {
        snprintf(err, cap,
                 "--shard auto: Slurm array: task %lld is not MIN %lld plus a multiple of STEP "
                 "%lld (an array of consecutive tasks, as --array=0-N, is needed)",
                 (long long)i, (long long)lo, (long long)step);
        return -1;
    }
    return (i - lo) / step;
}

static int slice_of(bitcts_env_fn get, void *user, const engine *e, uint32_t hint,
                    bitcts_shard_slice *out, char *err, size_t cap)
{
    const int64_t n = engine_count(get, user, e, hint, err, cap);
    const int64_t i = n < 0 ? -1 : engine_index(get, user, e, err, cap);
    if (n < 0 || i < 0) {
        return -1;
    }
    if (n == 0 || n > SHARD_MAX || i >= n) {
        snprintf(err, cap,
                 "--shard auto: %s: %s=%.20s is shard %lld of %lld: not one of 1 to the count "
                 "(at most %u shards)",
                 e->name, e->index_var, get(user, e->index_var), (long long)i + 1, (long long)n,
                 SHARD_MAX);
        return -1;
    }
    out->index = (uint32_t)i + 1;
    out->count = (uint32_t)n;
    snprintf(out->engine, sizeof out->engine, "%s", e->name);
    const char *status = e->status_var != NULL ? get(user, e->status_var) : NULL;
    snprintf(out->status_file, sizeof out->status_file, "%s", status != NULL ? status : "");
    return 0;
}

int bitcts_shard_from_env(bitcts_env_fn get, void *user, uint32_t count_hint,
                          bitcts_shard_slice *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    const engine *found = NULL;
    for (size_t k = 0; k < ENGINE_COUNT; ++k) {
        if (get(user, engines[k].index_var) == NULL) {
            continue;
        }
        if (found != NULL) {
            snprintf(err, cap,
                     "--shard auto: two engines set a shard: %s (%s=%.20s) and %s (%s=%.20s); "
                     "give --shard I/N",
                     found->name, found->index_var, get(user, found->index_var), engines[k].name,
                     engines[k].index_var, get(user, engines[k].index_var));
            return -1;
        }
        found = &engines[k];
    }
    if (found == NULL) {
        snprintf(err, cap,
                 "--shard auto: no engine set a shard (none of JOB_COMPLETION_INDEX, "
                 "SLURM_ARRAY_TASK_ID, CI_NODE_INDEX, TEST_SHARD_INDEX is set); give --shard I/N");
        return -1;
    }
    return slice_of(get, user, found, count_hint, out, err, cap);
}

/* ---- costs ---- */

static int by_id(const void *a, const void *b)
{
    return strcmp(((const bitcts_shard_timing *)a)->id, ((const bitcts_shard_timing *)b)->id);
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a;
    const double y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_ms(const bitcts_shard_timing *table, size_t count)
{
    double *v = malloc((count + 1) * sizeof *v);
    if (v == NULL || count == 0) {
        free(v);
        return 0;
    }
    for (size_t i = 0; i < count; ++i) {
        v[i] = table[i].ms;
    }
    qsort(v, count, sizeof *v, by_value);
    const double m = v[count / 2];
    free(v);
    return m;
}

void bitcts_shard_costs(const bitcts_shard_timing *table, size_t table_count,
                        const char *const *ids, size_t n, double *cost)
{
    const double fill = median_ms(table, table_count);
    for (size_t i = 0; i < n; ++i) {
        const bitcts_shard_timing key = {ids[i], 0};
        const bitcts_shard_timing *t =
            table_count != 0 ? bsearch(&key, table, table_count, sizeof *table, by_id) : NULL;
        cost[i] = 1.0 + (t != NULL ? t->ms : fill);
    }
}

void bitcts_shard_timings_name(const bitcts_shard_timing *table, size_t table_count, char out[32])
{
    uint64_t h = 0; /* each entry "id ms" hashed with the digest so far as its seed */
    for (size_t i = 0; i < table_count; ++i) {
        char ms[40];
        const int len = snprintf(ms, sizeof ms, " %.6f", table[i].ms);
        h = XXH3_64bits_withSeed(table[i].id, strlen(table[i].id), h);
        h = XXH3_64bits_withSeed(ms, (size_t)len, h);
    }
    snprintf(out, 32, "timings:%016llx", (unsigned long long)h);
}

/* ---- balance ---- */

typedef struct costed {
    double cost;
    size_t pos;
} costed;

static int by_cost_desc(const void *a, const void *b)
{
    const costed *x = a;
    const costed *y = b;
    if (x->cost != y->cost) {
        return x->cost > y->cost ? -1 : 1;
    }
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* A min-heap of shards by (load, index). */
typedef struct shard_load {
    double load;
    uint32_t shard;
} shard_load;

static int lighter(const shard_load *a, const shard_load *b)
{
    return a->load < b->load || (a->load == b->load && a->shard < b->shard);
}

static void sift_down(shard_load *h, uint32_t count, uint32_t at)
{
    for (;;) {
        uint32_t least = at;
        const uint32_t l = 2 * at + 1;
        const uint32_t r = l + 1;
        least = l < count && lighter(&h[l], &h[least]) ? l : least;
        least = r < count && lighter(&h[r], &h[least]) ? r : least;
        if (least == at) {
            return;
        }
        const shard_load t = h[at];
        h[at] = h[least];
        h[least] = t;
        at = least;
    }
}

int bitcts_shard_balance(const double *cost, size_t n, uint32_t count, uint32_t *shard_of)
{
    costed *order = malloc((n + 1) * sizeof *order);
    shard_load *heap = malloc(((size_t)count + 1) * sizeof *heap);
    if (order == NULL || heap == NULL || count == 0) {
        free(order);
        free(heap);
        return -1;
    }
    for (size_t i = 0; i < n; ++i) {
        order[i].cost = cost[i];
        order[i].pos = i;
    }
    qsort(order, n, sizeof *order, by_cost_desc);
    for (uint32_t s = 0; s < count; ++s) { /* all loads 0: already a heap by index */
        heap[s].load = 0;
        heap[s].shard = s;
    }
    for (size_t k = 0; k < n; ++k) {
        shard_of[order[k].pos] = heap[0].shard;
        heap[0].load += order[k].cost;
        sift_down(heap, count, 0);
    }
    free(order);
    free(heap);
    return 0;
}
