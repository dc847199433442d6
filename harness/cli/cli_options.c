/* SPDX-License-Identifier: MIT */
/* The option tables' parser and help (cli_options.h). Two passes: the first matches every
 * argument against the tables (unknown, repeated, missing values), the second checks and
 * stores each value, in the order given. */
#include <stdlib.h> /* calloc */
#include <string.h> /* strcmp, strncmp */

#include "backend.h"   /* bitcts_backend_options */
#include "case_plan.h" /* bitcts_filter, bitcts_glob_is_valid */
#include "cli_options.h"
#include "cli_util.h"
#include "commands.h" /* BITCTS_CLI_GLOB_RULE */

#define HELP_COLUMNS 100

/* One option found in argv: which, from which table, and its value (NULL for a flag). */
typedef struct found_option {
    const bitcts_cli_option *opt;
    void *base;
    const char *value;
} found_option;

/* The option arg names (its name part, up to '='), or NULL; *index counts across tables. */
static const bitcts_cli_option *find_option(const bitcts_cli_spec *spec, const char *arg,
                                            void **base, size_t *index, const char **attached)
{
    const size_t len = strcspn(arg, "=");
    size_t k = 0;
    for (size_t t = 0; t < spec->table_count; ++t) {
        for (size_t i = 0; i < spec->tables[t].count; ++i, ++k) {
            const bitcts_cli_option *o = &spec->tables[t].options[i];
            const int is_long =
                arg[1] == '-' && strlen(o->name) == len && strncmp(arg, o->name, len) == 0;
            const int is_short = arg[1] != '-' && o->short_name != 0 && arg[1] == o->short_name;
            if (is_long || is_short) {
                *base = spec->tables[t].base;
                *index = k;
                *attached = is_long ? (arg[len] == '=' ? arg + len + 1 : NULL)
                                    : (arg[2] != '\0' ? arg + 2 + (arg[2] == '=') : NULL);
                return o;
            }
        }
    }
    return NULL;
}

static int refuse_unknown(const bitcts_cli_spec *spec, const char *arg)
{
    const int len = (int)strcspn(arg, "=");
    for (size_t i = 0; spec->elsewhere != NULL && spec->elsewhere[i] != NULL; ++i) {
        if (strlen(spec->elsewhere[i]) == (size_t)len &&
            strncmp(arg, spec->elsewhere[i], len) == 0) {
            return bitcts_cli_error(spec->cmd, "%.*s is %s's, not %s's (see bitcts %s --help)", len,
                                    arg, spec->elsewhere_cmd, spec->cmd, spec->cmd);
        }
    }
    return bitcts_cli_error(spec->cmd, "unknown option '%.*s' (see bitcts %s --help)", len, arg,
                            spec->cmd);
}

static size_t option_total(const bitcts_cli_spec *spec)
{
    size_t n = 0;
    for (size_t t = 0; t < spec->table_count; ++t) {
        n += spec->tables[t].count;
    }
    return n;
}

/* The first pass: options matched, repeats and missing values refused, operands collected. */
static int match_all(const bitcts_cli_spec *spec, int argc, char **argv, found_option *found,
                     size_t *n_found, unsigned char *seen, const char **operands,
                     size_t *n_operands)
{
    for (int i = 1; i < argc; ++i) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            bitcts_cli_help(spec, stdout);
            return BITCTS_CLI_HELP;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (*n_operands >= spec->max_operands) {
                return bitcts_cli_error(
                    spec->cmd, "unexpected argument '%s' (see bitcts %s --help)", arg, spec->cmd);
            }
            operands[(*n_operands)++] = arg;
            continue;
        }
        void *base = NULL;
        size_t k = 0;
        const char *value = NULL;
        const bitcts_cli_option *o = find_option(spec, arg, &base, &k, &value);
        if (o == NULL) {
            return refuse_unknown(spec, arg);
        }
        if (seen[k] && !o->repeatable) {
            return bitcts_cli_error(spec->cmd, "%s given twice", o->name);
        }
        seen[k] = 1;
        if (o->value_name == NULL && value != NULL) {
            return bitcts_cli_error(spec->cmd, "%s takes no value", o->name);
        }
        if (o->value_name != NULL && value == NULL) {
            if (i + 1 >= argc) {
                return bitcts_cli_error(spec->cmd, "%s needs a value (%s)", o->name, o->value_name);
            }
            value = argv[++i];
        }
        found[(*n_found)++] = (found_option){.opt = o, .base = base, .value = value};
    }
    return 0;
}

/* "a, b or c" */
static void words_text(const char *const *words, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    while (words[n] != NULL) {
        ++n;
    }
    for (size_t i = 0; i < n; ++i) {
        const size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%s",
                 i == 0       ? ""
                 : i + 1 == n ? " or "
                              : ", ",
                 words[i]);
    }
}

static int word_index(const char *const *words, const char *text, size_t len)
{
    for (int i = 0; words[i] != NULL; ++i) {
        if (strlen(words[i]) == len && strncmp(words[i], text, len) == 0) {
            return i;
        }
    }
    return -1;
}

int bitcts_cli_parse_words(const bitcts_cli_option *o, const char *v, unsigned *mask, char *err,
                           size_t cap)
{
    *mask = 0;
    for (const char *p = v; *p != '\0';) {
        const size_t len = strcspn(p, ",");
        const int k = len > 0 ? word_index(o->words, p, len) : -2;
        if (k == -1) {
            snprintf(err, cap, "%s: unknown name '%.*s'", o->name, (int)len, p);
            return -1;
        }
        *mask |= k >= 0 ? 1u << k : 0;
        p += len + (p[len] == ',');
    }
    if (*mask == 0) {
        snprintf(err, cap, "%s: empty list", o->name);
        return -1;
    }
    return 0;
}

static int parse_number(const bitcts_cli_option *o, const char *v, uint64_t *n, char *err,
                        size_t cap)
{
    if (bitcts_cli_parse_u64(v, n) == 0 && *n >= o->lo && *n <= o->hi) {
        return 0;
    }
    if (o->lo == 0 && o->hi == UINT64_MAX) {
        snprintf(err, cap, "%s: '%s' is not a 64-bit number", o->name, v);
    } else {
        snprintf(err, cap, "%s: '%s' is not a number from %llu to %llu", o->name, v,
                 (unsigned long long)o->lo, (unsigned long long)o->hi);
    }
    return -1;
}

static int store_glob(const bitcts_cli_option *o, const char *v, bitcts_filter *f, char *err,
                      size_t cap)
{
    if (!bitcts_glob_is_valid(v)) {
        snprintf(err, cap, "%s: '%s' is a malformed glob (%s)", o->name, v, BITCTS_CLI_GLOB_RULE);
        return -1;
    }
    if (f->count == BITCTS_MAX_FILTERS) {
        snprintf(err, cap, "at most %d %s options", BITCTS_MAX_FILTERS, o->name);
        return -1;
    }
    f->globs[f->count++] = v;
    return 0;
}

/* KEY=VALUE: the key copied into the store (the value stays in argv). */
static int store_key_value(const bitcts_cli_option *o, const char *v, bitcts_backend_options *kv,
                           char key_store[][64], char *err, size_t cap)
{
    const char *eq = strchr(v, '=');
    if (eq == NULL || eq == v || eq - v >= 64 || kv->count >= BITCTS_MAX_OPTIONS) {
        snprintf(err, cap, "%s needs KEY=VALUE (at most %d)", o->name, BITCTS_MAX_OPTIONS);
        return -1;
    }
    snprintf(key_store[kv->count], 64, "%.*s", (int)(eq - v), v);
    kv->keys[kv->count] = key_store[kv->count];
    kv->values[kv->count++] = eq + 1;
    return 0;
}

/* The second pass, for one option: its value checked and stored. */
static int store_value(const found_option *f, char *err, size_t cap)
{
    const bitcts_cli_option *o = f->opt;
    char *dest = (char *)f->base + o->offset;
    const char *v = f->value;
    uint64_t n = 0;
    char words[200];
    if (o->kind == BITCTS_CLI_FLAG) {
        *(int *)dest = 1;
        return 0;
    }
    if (v != NULL && *v == '\0') {
        snprintf(err, cap, "%s needs a value (%s)", o->name, o->value_name);
        return -1;
    }
    if (o->kind == BITCTS_CLI_CUSTOM) {
        return o->parse(v, dest, err, cap);
    }
    if ((o->kind == BITCTS_CLI_TEXT || o->kind == BITCTS_CLI_GLOB) && o->hi > 0 &&
        strlen(v) > o->hi) {
        snprintf(err, cap, "%s: the value is longer than %llu bytes", o->name,
                 (unsigned long long)o->hi);
        return -1;
    }
    switch (o->kind) {
    case BITCTS_CLI_TEXT: *(const char **)dest = v; return 0;
    case BITCTS_CLI_GLOB: return store_glob(o, v, (bitcts_filter *)dest, err, cap);
    case BITCTS_CLI_U64: return parse_number(o, v, (uint64_t *)dest, err, cap);
    case BITCTS_CLI_INT:
    case BITCTS_CLI_U32:
        if (parse_number(o, v, &n, err, cap) != 0) {
            return -1;
        }
        if (o->kind == BITCTS_CLI_INT) {
            *(int *)dest = (int)n;
        } else {
            *(uint32_t *)dest = (uint32_t)n;
        }
        return 0;
    case BITCTS_CLI_SECONDS:
        if (bitcts_cli_parse_seconds(v, (double *)dest) != 0) {
            snprintf(err, cap, "%s: '%s' " BITCTS_CLI_SECONDS_RULE, o->name, v);
            return -1;
        }
        return 0;
    case BITCTS_CLI_ENUM:
        *(int *)dest = word_index(o->words, v, strlen(v));
        if (*(int *)dest < 0) {
            words_text(o->words, words, sizeof words);
            snprintf(err, cap, "%s: '%s' is not %s", o->name, v, words);
            return -1;
        }
        return 0;
    case BITCTS_CLI_LIST: return bitcts_cli_parse_words(o, v, (unsigned *)dest, err, cap);
    case BITCTS_CLI_KEYVALUE:
        return store_key_value(o, v, (bitcts_backend_options *)dest,
                               (char(*)[64])((char *)f->base + o->aux), err, cap);
    default: snprintf(err, cap, "%s: no parser", o->name); return -1;
    }
}

int bitcts_cli_parse(const bitcts_cli_spec *spec, int argc, char **argv, const char **operands,
                     size_t *n_operands)
{
    if (spec->needs_arguments && argc < 2) {
        bitcts_cli_help(spec, stderr);
        return BITCTS_EXIT_USAGE;
    }
    const size_t total = option_total(spec);
    found_option *found = calloc((size_t)argc + 1, sizeof *found);
    unsigned char *seen = calloc(total + 1, 1);
    size_t n_found = 0;
    size_t no_operands = 0;
    if (n_operands == NULL) {
        n_operands = &no_operands;
    }
    *n_operands = 0;
    int rc = found != NULL && seen != NULL ? 0 : bitcts_cli_error(spec->cmd, "out of memory");
    if (rc == 0) {
        rc = match_all(spec, argc, argv, found, &n_found, seen, operands, n_operands);
    }
    for (size_t i = 0; rc == 0 && i < n_found; ++i) {
        char err[1200] = "";
        if (store_value(&found[i], err, sizeof err) != 0) {
            rc = bitcts_cli_error(spec->cmd, "%s", err);
        }
    }
    if (rc == 0 && spec->needs != NULL && *n_operands == 0) {
        rc = bitcts_cli_error(spec->cmd, "needs %s (see bitcts %s --help)", spec->needs, spec->cmd);
    }
    free(found);
    free(seen);
    return rc;
}

/* ---- help ---- */

/* Writes one unbreakable word at column *col, first wrapping at HELP_COLUMNS to column indent
 * when it would not fit. */
static void put_word(FILE *out, const char *word, size_t len, size_t indent, size_t *col)
{
    if (*col > indent && *col + 1 + len > HELP_COLUMNS) {
        fprintf(out, "\n%*s", (int)indent, "");
        *col = indent;
    } else if (*col > indent) {
        fputc(' ', out);
        ++*col;
    }
    fprintf(out, "%.*s", (int)len, word);
    *col += len;
}

/* Writes `text` word by word from column *col, wrapping to column indent. */
static void put_wrapped(FILE *out, const char *text, size_t indent, size_t *col)
{
    for (const char *p = text + strspn(text, " \n"); *p != '\0'; p += strspn(p, " \n")) {
        const size_t len = strcspn(p, " \n");
        put_word(out, p, len, indent, col);
        p += len;
    }
}

static void usage_line(const bitcts_cli_spec *spec, FILE *out)
{
    char head[200];
    snprintf(head, sizeof head, "usage: bitcts %s", spec->cmd);
    const size_t indent = strlen(head) + 1;
    size_t col = indent;
    fprintf(out, "%s ", head);
    if (spec->operands != NULL) {
        put_word(out, spec->operands, strlen(spec->operands), indent, &col);
    }
    for (size_t t = 0; t < spec->table_count; ++t) {
        for (size_t i = 0; i < spec->tables[t].count; ++i) {
            const bitcts_cli_option *o = &spec->tables[t].options[i];
            char word[200];
            snprintf(word, sizeof word, "%s%s%s%s%s%s", o->required ? "" : "[", o->name,
                     o->value_name != NULL ? " " : "", o->value_name != NULL ? o->value_name : "",
                     o->required ? "" : "]", o->repeatable ? "..." : "");
            put_word(out, word, strlen(word), indent, &col);
        }
    }
    fputc('\n', out);
}

static void option_line(const bitcts_cli_option *o, size_t width, FILE *out)
{
    char left[200];
    snprintf(left, sizeof left, "  %s%c%s%s%s%s", o->short_name ? "-" : "",
             o->short_name ? o->short_name : ' ', o->short_name ? ", " : "", o->name,
             o->value_name != NULL ? " " : "", o->value_name != NULL ? o->value_name : "");
    if (!o->short_name) { /* "  " then the name: drop the placeholder space */
        memmove(left + 2, left + 3, strlen(left + 3) + 1);
    }
    size_t col = strlen(left);
    fputs(left, out);
    if (col + 2 > width) {
        fprintf(out, "\n%*s", (int)width, "");
    } else {
        fprintf(out, "%*s", (int)(width - col), "");
    }
    col = width;
    put_wrapped(out, o->help, width, &col);
    if (o->repeatable) {
        put_wrapped(out, "(repeatable)", width, &col);
    }
    fputc('\n', out);
}

void bitcts_cli_help(const bitcts_cli_spec *spec, FILE *out)
{
    usage_line(spec, out);
    if (spec->description != NULL) {
        fprintf(out, "\n%s", spec->description);
    }
    size_t width = 0;
    for (size_t t = 0; t < spec->table_count; ++t) {
        for (size_t i = 0; i < spec->tables[t].count; ++i) {
            const bitcts_cli_option *o = &spec->tables[t].options[i];
            const size_t w = 2 + (o->short_name ? 4 : 0) + strlen(o->name) +
                             (o->value_name != NULL ? 1 + strlen(o->value_name) : 0);
            width = w > width && w <= 24 ? w : width;
        }
    }
    width += 2;
    fputs("\noptions:\n", out);
    for (size_t t = 0; t < spec->table_count; ++t) {
        for (size_t i = 0; i < spec->tables[t].count; ++i) {
            option_line(&spec->tables[t].options[i], width, out);
        }
    }
    const bitcts_cli_option help = {.name = "--help", .short_name = 'h', .help = "this text"};
    option_line(&help, width, out);
    if (spec->epilogue != NULL) {
        fprintf(out, "\n%s", spec->epilogue);
    }
}
