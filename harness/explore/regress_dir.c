/* SPDX-License-Identifier: MIT */
/* A folder of regression case files (regress_dir.h): the format is vectors/regress_case.c's;
 * this file adds the file system, the origin of a shrunk failure and the plan. */
#include "regress_dir.h"

#include <dirent.h> /* opendir, readdir */
#include <errno.h>  /* errno */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, free, malloc, qsort */
#include <string.h> /* memcpy, strcmp, strerror, strlen, strrchr, strstr */
#include <unistd.h> /* access */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_version.h"
#include "case_json.h"
#include "explore.h"
#include "fs_util.h"
#include "regress_case.h"
#include "sanitize.h"

/* A crash's detail names the faulting address, which differs from run to run: the
 * parenthesis holding " at 0x..." is left out, so a saved set regenerates byte for byte. */
static void drop_address(char *detail)
{
    char *at = strstr(detail, " at 0x");
    if (at == NULL) {
        return;
    }
    *at = '\0';
    char *open = strrchr(detail, '(');
    if (open != NULL && open > detail && open[-1] == ' ') {
        open[-1] = '\0';
    } else {
        *at = ' ';
    }
}

json_t *bitcts_regress_origin(const bitcts_run_config *run, const bitcts_shrunk *s,
                              const bitcts_shrink_result *r)
{
    const char *spec = run->backend_spec != NULL ? run->backend_spec : "";
    const char *slash = strrchr(spec, '/');
    char backend[256];
    char detail[1200];
    char seed[19];
    bitcts_sanitize_string(slash != NULL ? slash + 1 : spec, 255, backend, sizeof backend);
    const char *text = json_string_value(json_object_get(r->result, "detail"));
    bitcts_sanitize_string(text != NULL ? text : "", 1000, detail, sizeof detail);
    drop_address(detail);
    bitcts_format_u64(run->seed, seed);
    const int64_t index = bitcts_explore_parse_id(s->id);
    return json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:I}", "backend",
                     backend, "seed", seed, "case", s->id, "explore_index",
                     index >= 0 ? json_integer(index) : json_null(), "signature", r->signature,
                     "detail", detail, "elements_before", (json_int_t)s->elements_before,
                     "elements_after", (json_int_t)s->elements_after, "rank_before",
                     (json_int_t)s->rank_before, "rank_after", (json_int_t)s->rank_after,
                     "bitcts_version", BITCTS_VERSION_STRING, "generator_version",
                     (json_int_t)BITCTS_GENERATOR_VERSION);
}

int bitcts_regress_save(const char *dir, const bitcts_case_key *key, const bitcts_case_data *data,
                        const json_t *origin, char *path, size_t path_cap, char *err, size_t cap)
{
    char *text = NULL;
    size_t size = 0;
    char name[BITCTS_REGRESS_NAME_HEX + 1];
    int st = bitcts_regress_encode(key, data, origin, &text, &size, name);
    if (st != BITCTS_OK) {
        snprintf(err, cap, "%s: cannot write %s as a regression case (%s)", dir, key->id,
                 bitcts_status_message(st));
        return st;
    }
    snprintf(path, path_cap, "%s/%s.json", dir, name);
    st = bitcts_fs_mkdirs(dir, err, cap);
    if (st == BITCTS_OK && access(path, F_OK) != 0) { /* the same case: one file, the first */
        st = bitcts_fs_write_atomic(path, text, size, err, cap);
    }
    free(text);
    return st;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_case_file(const char *name)
{
    const size_t len = strlen(name);
    return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".json") == 0;
}

/* The case file names of dir, sorted (malloc'd strings in a malloc'd array). */
static int list_names(const char *dir, char ***names, size_t *count, char *err, size_t cap)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL) {
        snprintf(err, cap, "%s: cannot read the folder: %s", dir, strerror(errno));
        return BITCTS_E_IO;
    }
    size_t n_cap = 0;
    int st = BITCTS_OK;
    for (struct dirent *e; st == BITCTS_OK && (e = readdir(d)) != NULL;) {
        if (!is_case_file(e->d_name)) {
            continue;
        }
        if (*count == n_cap) {
            n_cap = n_cap * 2 + 16;
            char **grown = realloc(*names, n_cap * sizeof *grown);
            st = grown != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
            *names = grown != NULL ? grown : *names;
        }
        char *copy = st == BITCTS_OK ? strdup(e->d_name) : NULL;
        st = copy != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
        if (copy != NULL) {
            (*names)[(*count)++] = copy;
        }
    }
    closedir(d);
    if (*count > 0) {
        qsort(*names, *count, sizeof **names, by_name);
    }
    return st;
}

/* One file into key and data; its origin into origins. */
static int load_one(const char *dir, const char *file, bitcts_case_key *key, bitcts_case_data *data,
                    json_t *origins, char *err, size_t cap)
{
    char path[4400];
    char why[600] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = NULL;
    size_t size = 0;
    int st = bitcts_fs_read(path, BITCTS_REGRESS_MAX_FILE, &text, &size, why, sizeof why);
    if (st != BITCTS_OK) {
        snprintf(err, cap, "%s", why);
        return st;
    }
    char name[BITCTS_REGRESS_NAME_HEX + 1];
    json_t *origin = NULL;
    st = bitcts_regress_decode(text, size, key, data, &origin, name, why, sizeof why);
    free(text);
    if (st == BITCTS_OK && (strlen(file) != BITCTS_REGRESS_NAME_HEX + 5 ||
                            strncmp(file, name, BITCTS_REGRESS_NAME_HEX) != 0)) {
        snprintf(why, sizeof why, "its file name is not its name (%s.json)", name);
        bitcts_case_free(data);
        st = BITCTS_E_PARSE;
    }
    if (st != BITCTS_OK) {
        snprintf(err, cap, "%s: %s", path, why);
    } else if (json_object_set_new(origins, key->id, origin) != 0) {
        bitcts_case_free(data);
        st = BITCTS_E_OUT_OF_MEMORY;
    }
    return st;
}

/* A plan of base's cases and room for n more. */
static bitcts_plan *plan_with_room(const bitcts_plan *base, size_t n)
{
    const size_t first = base != NULL ? base->count : 0;
    bitcts_plan *p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NULL;
    }
    p->cases = calloc(first + n + 1, sizeof *p->cases);
    p->fixed = calloc(first + n + 1, sizeof *p->fixed);
    if (p->cases == NULL || p->fixed == NULL) {
        bitcts_plan_destroy(p);
        return NULL;
    }
    if (first > 0) {
        memcpy(p->cases, base->cases, first * sizeof *p->cases);
    }
    p->count = first;
    return p;
}

int bitcts_regress_load(const char *dir, const bitcts_plan *base, bitcts_plan **out,
                        json_t **origins, size_t *added, char *err, size_t cap)
{
    *out = NULL;
    *origins = json_object();
    *added = 0;
    char **names = NULL;
    size_t n = 0;
    int st = *origins != NULL ? list_names(dir, &names, &n, err, cap) : BITCTS_E_OUT_OF_MEMORY;
    bitcts_plan *p = st == BITCTS_OK ? plan_with_room(base, n) : NULL;
    st = st != BITCTS_OK || p != NULL ? st : BITCTS_E_OUT_OF_MEMORY;
    for (size_t i = 0; st == BITCTS_OK && i < n; ++i) {
        bitcts_case_data *d = malloc(sizeof *d);
        st = d != NULL ? load_one(dir, names[i], &p->cases[p->count], d, *origins, err, cap)
                       : BITCTS_E_OUT_OF_MEMORY;
        if (st != BITCTS_OK) {
            free(d);
        } else {
            p->fixed[p->count++] = d;
            ++*added;
        }
    }
    for (size_t i = 0; i < n; ++i) {
        free(names[i]);
    }
    free(names);
    if (st != BITCTS_OK) {
        bitcts_plan_destroy(p);
        json_decref(*origins);
        *origins = NULL;
        *added = 0;
        return st;
    }
    *out = p;
    return BITCTS_OK;
}
