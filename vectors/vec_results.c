/* SPDX-License-Identifier: MIT */
/* The readers of an export's manifest.json and of a producer's results.json
 * (vectors/vec_results.h). Every field is checked for its kind and range before it is believed;
 * a malformed case entry is kept with its problem, so that one bad entry costs one case. */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* calloc, qsort, bsearch */
#include <string.h> /* strcmp */

#include "bitcts/bitcts_status.h"
#include "vec_results.h"

static int fail(char *err, size_t cap, int status, const char *what, const char *fmt, ...)
    BITCTS_PRINTF(5, 6);

static int fail(char *err, size_t cap, int status, const char *what, const char *fmt, ...)
{
    char text[220];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (err != NULL && cap > 0) {
        snprintf(err, cap, "%s: %s", what, text);
        for (char *c = err; *c != '\0'; ++c) { /* one line: the parser quotes what it read */
            if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7F) {
                *c = '?';
            }
        }
    }
    return status;
}

/* 1 when s (n bytes) is printable ASCII or UTF-8 without control characters. */
static int is_clean_text(const char *s, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            return 0;
        }
    }
    return 1;
}

static const char *str_member(const json_t *obj, const char *key, size_t max)
{
    const json_t *v = json_object_get(obj, key);
    if (!json_is_string(v) || json_string_length(v) > max ||
        !is_clean_text(json_string_value(v), json_string_length(v))) {
        return NULL;
    }
    return json_string_value(v);
}

/* "MAJOR.MINOR" with small numbers. */
static int parse_version(const char *text, uint32_t *major, uint32_t *minor)
{
    unsigned a = 0, b = 0;
    int used = 0;
    if (text == NULL || text[0] < '0' || text[0] > '9' ||
        sscanf(text, "%3u.%3u%n", &a, &b, &used) != 2 || text[used] != '\0') {
        return -1;
    }
    *major = a;
    *minor = b;
    return 0;
}

/* "0x" and 16 hex digits. */
static int parse_seed(const char *text, uint64_t *out)
{
    if (text == NULL || strlen(text) != 18 || text[0] != '0' || text[1] != 'x') {
        return -1;
    }
    uint64_t v = 0;
    for (int i = 2; i < 18; ++i) {
        const char c = text[i];
        const int d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
        if (d < 0) {
            return -1;
        }
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

static int is_uint(const json_t *v, json_int_t max)
{
    return json_is_integer(v) && json_integer_value(v) >= 0 && json_integer_value(v) <= max;
}

/* The file's root object into *root (NULL when the bytes are not a JSON object). */
static int load(const void *data, size_t size, const char *what, json_t **root, char *err,
                size_t cap)
{
    json_error_t je;
    *root = json_loadb(data, size, JSON_REJECT_DUPLICATES, &je);
    if (*root == NULL) {
        return fail(err, cap, BITCTS_E_PARSE, what, "not JSON (line %d: %.80s)", je.line, je.text);
    }
    if (!json_is_object(*root)) {
        json_decref(*root);
        *root = NULL;
        return fail(err, cap, BITCTS_E_PARSE, what, "not a JSON object");
    }
    return BITCTS_OK;
}

/* The "cases" member, which must be an array of at most BITCTS_RESULTS_MAX_CASES; *st is left
 * alone unless it is BITCTS_OK and the member is wrong. */
static const json_t *cases_member(const json_t *root, const char *what, int *st, char *err,
                                  size_t cap)
{
    const json_t *cases = json_object_get(root, "cases");
    if (*st == BITCTS_OK &&
        (!json_is_array(cases) || json_array_size(cases) > BITCTS_RESULTS_MAX_CASES)) {
        *st = fail(err, cap, BITCTS_E_PARSE, what, "\"cases\" is not an array");
    }
    return cases;
}

/* The members every file shares: format, format_version (major 1 to major_max), and the suite
 * seed and generator version, found in `where`. */
static int check_header(const json_t *root, const char *format, uint32_t major_max,
                        const json_t *where, const char *what, uint32_t *major, uint32_t *minor,
                        uint64_t *seed, uint32_t *generator, char *err, size_t cap)
{
    const char *f = str_member(root, "format", 64);
    if (f == NULL || strcmp(f, format) != 0) {
        return fail(err, cap, BITCTS_E_FORMAT_VERSION, what, "\"format\" is not \"%s\"", format);
    }
    if (parse_version(str_member(root, "format_version", 16), major, minor) != 0) {
        return fail(err, cap, BITCTS_E_PARSE, what, "\"format_version\" is not MAJOR.MINOR");
    }
    if (*major < 1 || *major > major_max) {
        return fail(err, cap, BITCTS_E_FORMAT_VERSION, what,
                    "format_version %u.%u is not supported (this bitcts reads %s%u.x)", *major,
                    *minor, major_max > 1 ? "1.x to " : "", major_max);
    }
    if (!json_is_object(where) || parse_seed(str_member(where, "seed", 32), seed) != 0) {
        return fail(err, cap, BITCTS_E_PARSE, what, "\"seed\" is not 0x and 16 hex digits");
    }
    const json_t *g = json_object_get(where, "generator_version");
    if (!is_uint(g, 0xFFFFFFFF)) {
        return fail(err, cap, BITCTS_E_PARSE, what, "\"generator_version\" is not a number");
    }
    *generator = (uint32_t)json_integer_value(g);
    return BITCTS_OK;
}

/* ---- manifest.json ---- */

void bitcts_export_manifest_free(bitcts_export_manifest *m)
{
    if (m != NULL) {
        free(m->ids);
        json_decref(m->root);
        memset(m, 0, sizeof *m);
    }
}

static int compare_id_pointers(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first id given twice, or NULL. */
static const char *first_duplicate(const char **ids, size_t n)
{
    const char **sorted = malloc((n + 1) * sizeof *sorted);
    if (sorted == NULL) {
        return NULL;
    }
    memcpy(sorted, ids, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_id_pointers);
    const char *dup = NULL;
    for (size_t i = 1; i < n && dup == NULL; ++i) {
        dup = strcmp(sorted[i - 1], sorted[i]) == 0 ? sorted[i] : NULL;
    }
    free(sorted);
    return dup;
}

/* The ids of "cases", each once, as many as "case_count" says. */
static int manifest_ids(bitcts_export_manifest *m, const json_t *cases, char *err, size_t cap)
{
    static const char what[] = "manifest.json";
    m->count = json_array_size(cases);
    const json_t *count = json_object_get(m->root, "case_count");
    if (!is_uint(count, BITCTS_RESULTS_MAX_CASES)) {
        return fail(err, cap, BITCTS_E_PARSE, what, "\"case_count\" is not a count");
    }
    if ((size_t)json_integer_value(count) != m->count) {
        return fail(err, cap, BITCTS_E_PARSE, what,
                    "\"case_count\" is %lld, but \"cases\" holds %zu cases",
                    (long long)json_integer_value(count), m->count);
    }
    m->ids = calloc(m->count + 1, sizeof *m->ids);
    if (m->ids == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < m->count; ++i) {
        const char *id = str_member(json_array_get(cases, i), "id", BITCTS_RESULTS_MAX_ID);
        if (id == NULL || id[0] == '\0') {
            return fail(err, cap, BITCTS_E_PARSE, what,
                        "cases[%zu] has no \"id\" of 1 to 95 printable characters", i);
        }
        m->ids[i] = id;
    }
    const char *dup = first_duplicate(m->ids, m->count);
    if (dup != NULL) {
        return fail(err, cap, BITCTS_E_PARSE, what, "case %s is listed twice", dup);
    }
    return BITCTS_OK;
}

int bitcts_export_manifest_parse(const void *data, size_t size, bitcts_export_manifest *m,
                                 char *err, size_t cap)
{
    static const char what[] = "manifest.json";
    memset(m, 0, sizeof *m);
    int st = load(data, size, what, &m->root, err, cap);
    if (st == BITCTS_OK) {
        st = check_header(m->root, "bitcts-vectors", BITCTS_EXPORT_MAJOR_MAX, m->root, what,
                          &m->format_major, &m->format_minor, &m->seed, &m->generator_version, err,
                          cap);
    }
    if (st == BITCTS_OK) {
        m->tier = str_member(m->root, "tier", 200);
        m->filter = str_member(m->root, "filter", BITCTS_RESULTS_MAX_TEXT);
        m->feature_level = str_member(m->root, "max_feature_level", 16);
        if (m->tier == NULL || m->filter == NULL || m->feature_level == NULL) {
            st = fail(err, cap, BITCTS_E_PARSE, what,
                      "\"tier\", \"filter\" or \"max_feature_level\" is not a string");
        }
    }
    const json_t *cases = cases_member(m->root, what, &st, err, cap);
    if (st == BITCTS_OK) {
        st = manifest_ids(m, cases, err, cap);
    }
    if (st != BITCTS_OK) {
        bitcts_export_manifest_free(m);
    }
    return st;
}

/* ---- results.json ---- */

static const char *const status_names[] = {"done",     "not_supported", "rejected",
                                           "accepted", "error",         "bad"};

const char *bitcts_result_status_name(int status)
{
    return status >= 0 && status <= BITCTS_RESULT_BAD ? status_names[status] : "unknown";
}

/* A relative path inside the results folder: no leading '/', no empty, "." or ".." component,
 * no backslash, nothing but printable ASCII. */
static int is_safe_path(const char *p)
{
    if (p == NULL || p[0] == '\0' || p[0] == '/') {
        return 0;
    }
    for (const char *c = p; *c != '\0'; ++c) {
        if (*c == '\\' || (unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e) {
            return 0;
        }
    }
    const char *comp = p;
    for (;;) {
        const char *end = strchr(comp, '/');
        const size_t n = end != NULL ? (size_t)(end - comp) : strlen(comp);
        if (n == 0 || (n == 1 && comp[0] == '.') || (n == 2 && comp[0] == '.' && comp[1] == '.')) {
            return 0;
        }
        if (end == NULL) {
            return 1;
        }
        comp = end + 1;
    }
}

static int parse_crc(const char *text, uint32_t *out)
{
    if (text == NULL || strlen(text) != 8) {
        return -1;
    }
    uint32_t v = 0;
    for (int i = 0; i < 8; ++i) {
        const char c = text[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) {
            return -1;
        }
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

static int entry_bad(bitcts_result_entry *e, const char *text)
{
    e->status = BITCTS_RESULT_BAD;
    snprintf(e->problem, sizeof e->problem, "%s", text);
    return 0;
}

/* Fills e from the case entry c; a malformed entry becomes BAD. */
static void parse_entry(const json_t *c, bitcts_result_entry *e)
{
    e->duration_ms = -1;
    e->reason = "";
    const char *status = str_member(c, "status", 32);
    int s = -1;
    for (int k = 0; status != NULL && k < BITCTS_RESULT_BAD; ++k) {
        s = strcmp(status, status_names[k]) == 0 ? k : s;
    }
    if (s < 0) {
        entry_bad(e, "\"status\" is not done, not_supported, rejected, accepted or error");
        return;
    }
    e->status = s;
    const json_t *reason = json_object_get(c, "reason");
    if (reason != NULL) {
        e->reason = str_member(c, "reason", BITCTS_RESULTS_MAX_TEXT);
        if (e->reason == NULL) {
            entry_bad(e, "\"reason\" is not a string of at most 4096 printable characters");
            e->reason = "";
            return;
        }
    }
    const json_t *ms = json_object_get(c, "duration_ms");
    if (ms != NULL) {
        if (!json_is_number(ms) || !(json_number_value(ms) >= 0) || json_number_value(ms) > 1e12) {
            entry_bad(e, "\"duration_ms\" is not a number of milliseconds");
            return;
        }
        e->duration_ms = json_number_value(ms);
    }
    if (s != BITCTS_RESULT_DONE) {
        return;
    }
    const char *layout = str_member(c, "layout", 16);
    if (layout == NULL || (strcmp(layout, "buffer") != 0 && strcmp(layout, "elements") != 0)) {
        entry_bad(e, "\"layout\" is not buffer or elements");
        return;
    }
    e->layout = strcmp(layout, "buffer") == 0 ? BITCTS_RESULT_BUFFER : BITCTS_RESULT_ELEMENTS;
    e->path = str_member(c, "path", BITCTS_RESULTS_MAX_TEXT);
    if (!is_safe_path(e->path)) {
        e->path = NULL;
        entry_bad(e, "\"path\" is not a relative path inside the results folder");
        return;
    }
    const json_t *offset = json_object_get(c, "offset");
    const json_t *bytes = json_object_get(c, "bytes");
    if ((offset != NULL && !is_uint(offset, INT64_MAX)) || !is_uint(bytes, INT64_MAX)) {
        entry_bad(e, "\"offset\" or \"bytes\" is not a byte count");
        return;
    }
    e->offset = offset != NULL ? (uint64_t)json_integer_value(offset) : 0;
    e->bytes = (uint64_t)json_integer_value(bytes);
    if (e->offset > (uint64_t)INT64_MAX - e->bytes) {
        entry_bad(e, "\"offset\" + \"bytes\" overflows");
        return;
    }
    if (parse_crc(str_member(c, "crc32", 16), &e->crc32) != 0) {
        entry_bad(e, "\"crc32\" is not 8 lower-case hex digits");
    }
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const bitcts_result_entry *)a)->id, ((const bitcts_result_entry *)b)->id);
}

void bitcts_result_set_free(bitcts_result_set *set)
{
    if (set != NULL) {
        free(set->entries);
        json_decref(set->root);
        memset(set, 0, sizeof *set);
    }
}

static int check_producer(bitcts_result_set *set, char *err, size_t cap)
{
    static const char what[] = "results.json";
    const json_t *p = json_object_get(set->root, "producer");
    set->producer_name = str_member(p, "name", 200);
    set->producer_version = str_member(p, "version", 200);
    if (!json_is_object(p) || set->producer_name == NULL || set->producer_name[0] == '\0' ||
        set->producer_version == NULL) {
        return fail(err, cap, BITCTS_E_PARSE, what,
                    "\"producer\" is not an object with a \"name\" and a \"version\"");
    }
    const json_t *info = json_object_get(p, "info");
    if (info == NULL) {
        return BITCTS_OK;
    }
    if (!json_is_object(info) || json_object_size(info) > 64) {
        return fail(err, cap, BITCTS_E_PARSE, what,
                    "\"producer.info\" is not an object of at most 64 strings");
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)info, key, v)
    {
        if (strlen(key) > 64 || str_member(info, key, BITCTS_RESULTS_MAX_TEXT) == NULL) {
            return fail(err, cap, BITCTS_E_PARSE, what,
                        "\"producer.info\" member is not a short name with a printable string");
        }
    }
    set->producer_info = info;
    return BITCTS_OK;
}

int bitcts_results_parse(const void *data, size_t size, bitcts_result_set *set, char *err,
                         size_t cap)
{
    static const char what[] = "results.json";
    memset(set, 0, sizeof *set);
    int st = load(data, size, what, &set->root, err, cap);
    if (st == BITCTS_OK) {
        st = check_header(set->root, BITCTS_RESULTS_FORMAT, BITCTS_RESULTS_FORMAT_MAJOR,
                          json_object_get(set->root, "vectors"), what, &set->format_major,
                          &set->format_minor, &set->seed, &set->generator_version, err, cap);
    }
    if (st == BITCTS_OK) {
        st = check_producer(set, err, cap);
    }
    const json_t *cases = cases_member(set->root, what, &st, err, cap);
    if (st == BITCTS_OK) {
        set->entries = calloc(json_array_size(cases) + 1, sizeof *set->entries);
        st = set->entries == NULL ? BITCTS_E_OUT_OF_MEMORY : BITCTS_OK;
    }
    for (size_t i = 0; st == BITCTS_OK && i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        const char *id = str_member(c, "id", BITCTS_RESULTS_MAX_ID);
        if (id == NULL || id[0] == '\0') {
            if (set->unattributed++ == 0) {
                snprintf(set->first_unattributed, sizeof set->first_unattributed,
                         "cases[%zu] has no \"id\" of 1 to 95 printable characters", i);
            }
            continue;
        }
        bitcts_result_entry *e = &set->entries[set->count++];
        e->id = id;
        parse_entry(c, e);
    }
    if (st != BITCTS_OK) {
        bitcts_result_set_free(set);
        return st;
    }
    qsort(set->entries, set->count, sizeof *set->entries, by_id);
    for (size_t i = 1; i < set->count; ++i) { /* a case given twice: both entries are bad */
        if (strcmp(set->entries[i].id, set->entries[i - 1].id) == 0) {
            entry_bad(&set->entries[i - 1], "the case is listed more than once");
            entry_bad(&set->entries[i], "the case is listed more than once");
        }
    }
    return BITCTS_OK;
}

const bitcts_result_entry *bitcts_results_find(const bitcts_result_set *set, const char *id)
{
    if (set->count == 0) {
        return NULL;
    }
    bitcts_result_entry key;
    memset(&key, 0, sizeof key);
    key.id = id;
    return bsearch(&key, set->entries, set->count, sizeof *set->entries, by_id);
}

uint32_t bitcts_crc32(uint32_t crc, const void *data, size_t size)
{
    /* A byte at a time: the 256-entry table of the reflected polynomial 0xEDB88320, constant,
     * no state. An export checksums every blob: the default tier took 4.3 s of CPU with a
     * 16-entry table (two steps a byte), 3.2 s with this one. */
    static const uint32_t table[256] = {
        0x00000000u, 0x77073096u, 0xEE0E612Cu, 0x990951BAu, 0x076DC419u, 0x706AF48Fu, 0xE963A535u,
        0x9E6495A3u, 0x0EDB8832u, 0x79DCB8A4u, 0xE0D5E91Eu, 0x97D2D988u, 0x09B64C2Bu, 0x7EB17CBDu,
        0xE7B82D07u, 0x90BF1D91u, 0x1DB71064u, 0x6AB020F2u, 0xF3B97148u, 0x84BE41DEu, 0x1ADAD47Du,
        0x6DDDE4EBu, 0xF4D4B551u, 0x83D385C7u, 0x136C9856u, 0x646BA8C0u, 0xFD62F97Au, 0x8A65C9ECu,
        0x14015C4Fu, 0x63066CD9u, 0xFA0F3D63u, 0x8D080DF5u, 0x3B6E20C8u, 0x4C69105Eu, 0xD56041E4u,
        0xA2677172u, 0x3C03E4D1u, 0x4B04D447u, 0xD20D85FDu, 0xA50AB56Bu, 0x35B5A8FAu, 0x42B2986Cu,
        0xDBBBC9D6u, 0xACBCF940u, 0x32D86CE3u, 0x45DF5C75u, 0xDCD60DCFu, 0xABD13D59u, 0x26D930ACu,
        0x51DE003Au, 0xC8D75180u, 0xBFD06116u, 0x21B4F4B5u, 0x56B3C423u, 0xCFBA9599u, 0xB8BDA50Fu,
        0x2802B89Eu, 0x5F058808u, 0xC60CD9B2u, 0xB10BE924u, 0x2F6F7C87u, 0x58684C11u, 0xC1611DABu,
        0xB6662D3Du, 0x76DC4190u, 0x01DB7106u, 0x98D220BCu, 0xEFD5102Au, 0x71B18589u, 0x06B6B51Fu,
        0x9FBFE4A5u, 0xE8B8D433u, 0x7807C9A2u, 0x0F00F934u, 0x9609A88Eu, 0xE10E9818u, 0x7F6A0DBBu,
        0x086D3D2Du, 0x91646C97u, 0xE6635C01u, 0x6B6B51F4u, 0x1C6C6162u, 0x856530D8u, 0xF262004Eu,
        0x6C0695EDu, 0x1B01A57Bu, 0x8208F4C1u, 0xF50FC457u, 0x65B0D9C6u, 0x12B7E950u, 0x8BBEB8EAu,
        0xFCB9887Cu, 0x62DD1DDFu, 0x15DA2D49u, 0x8CD37CF3u, 0xFBD44C65u, 0x4DB26158u, 0x3AB551CEu,
        0xA3BC0074u, 0xD4BB30E2u, 0x4ADFA541u, 0x3DD895D7u, 0xA4D1C46Du, 0xD3D6F4FBu, 0x4369E96Au,
        0x346ED9FCu, 0xAD678846u, 0xDA60B8D0u, 0x44042D73u, 0x33031DE5u, 0xAA0A4C5Fu, 0xDD0D7CC9u,
        0x5005713Cu, 0x270241AAu, 0xBE0B1010u, 0xC90C2086u, 0x5768B525u, 0x206F85B3u, 0xB966D409u,
        0xCE61E49Fu, 0x5EDEF90Eu, 0x29D9C998u, 0xB0D09822u, 0xC7D7A8B4u, 0x59B33D17u, 0x2EB40D81u,
        0xB7BD5C3Bu, 0xC0BA6CADu, 0xEDB88320u, 0x9ABFB3B6u, 0x03B6E20Cu, 0x74B1D29Au, 0xEAD54739u,
        0x9DD277AFu, 0x04DB2615u, 0x73DC1683u, 0xE3630B12u, 0x94643B84u, 0x0D6D6A3Eu, 0x7A6A5AA8u,
        0xE40ECF0Bu, 0x9309FF9Du, 0x0A00AE27u, 0x7D079EB1u, 0xF00F9344u, 0x8708A3D2u, 0x1E01F268u,
        0x6906C2FEu, 0xF762575Du, 0x806567CBu, 0x196C3671u, 0x6E6B06E7u, 0xFED41B76u, 0x89D32BE0u,
        0x10DA7A5Au, 0x67DD4ACCu, 0xF9B9DF6Fu, 0x8EBEEFF9u, 0x17B7BE43u, 0x60B08ED5u, 0xD6D6A3E8u,
        0xA1D1937Eu, 0x38D8C2C4u, 0x4FDFF252u, 0xD1BB67F1u, 0xA6BC5767u, 0x3FB506DDu, 0x48B2364Bu,
        0xD80D2BDAu, 0xAF0A1B4Cu, 0x36034AF6u, 0x41047A60u, 0xDF60EFC3u, 0xA867DF55u, 0x316E8EEFu,
        0x4669BE79u, 0xCB61B38Cu, 0xBC66831Au, 0x256FD2A0u, 0x5268E236u, 0xCC0C7795u, 0xBB0B4703u,
        0x220216B9u, 0x5505262Fu, 0xC5BA3BBEu, 0xB2BD0B28u, 0x2BB45A92u, 0x5CB36A04u, 0xC2D7FFA7u,
        0xB5D0CF31u, 0x2CD99E8Bu, 0x5BDEAE1Du, 0x9B64C2B0u, 0xEC63F226u, 0x756AA39Cu, 0x026D930Au,
        0x9C0906A9u, 0xEB0E363Fu, 0x72076785u, 0x05005713u, 0x95BF4A82u, 0xE2B87A14u, 0x7BB12BAEu,
        0x0CB61B38u, 0x92D28E9Bu, 0xE5D5BE0Du, 0x7CDCEFB7u, 0x0BDBDF21u, 0x86D3D2D4u, 0xF1D4E242u,
        0x68DDB3F8u, 0x1FDA836Eu, 0x81BE16CDu, 0xF6B9265Bu, 0x6FB077E1u, 0x18B74777u, 0x88085AE6u,
        0xFF0F6A70u, 0x66063BCAu, 0x11010B5Cu, 0x8F659EFFu, 0xF862AE69u, 0x616BFFD3u, 0x166CCF45u,
        0xA00AE278u, 0xD70DD2EEu, 0x4E048354u, 0x3903B3C2u, 0xA7672661u, 0xD06016F7u, 0x4969474Du,
        0x3E6E77DBu, 0xAED16A4Au, 0xD9D65ADCu, 0x40DF0B66u, 0x37D83BF0u, 0xA9BCAE53u, 0xDEBB9EC5u,
        0x47B2CF7Fu, 0x30B5FFE9u, 0xBDBDF21Cu, 0xCABAC28Au, 0x53B39330u, 0x24B4A3A6u, 0xBAD03605u,
        0xCDD70693u, 0x54DE5729u, 0x23D967BFu, 0xB3667A2Eu, 0xC4614AB8u, 0x5D681B02u, 0x2A6F2B94u,
        0xB40BBE37u, 0xC30C8EA1u, 0x5A05DF1Bu, 0x2D02EF8Du,
    };
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < size; ++i) {
        crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
    }
    return ~crc;
}
