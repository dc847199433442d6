/* SPDX-License-Identifier: MIT */
/* The baseline update: one pass classifies every case of the report, finds the entry that
 * governs it (exact ids through a sorted index, globs by fnmatch, first line wins as in a run),
 * decides per entry keep / remove / split, and writes the file again line by line, copying every
 * line it keeps byte for byte. Passes repeat until the text stops changing (removing a glob can
 * hand its cases to a later glob), which makes the result a fixed point: idempotent. */
#include <fnmatch.h> /* fnmatch */
#include <stdarg.h>  /* va_list */
#include <stdio.h>   /* snprintf */
#include <stdlib.h>  /* calloc, qsort */
#include <string.h>  /* strcmp, strpbrk */

#include "baseline.h"
#include "baseline_update.h"
#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "grow.h"
#include "report_model.h"

#define UPDATE_MAX_PASSES 64
#define UPDATE_REASON_MAX 200 /* bytes of a new line's reason */

enum { ACT_KEEP, ACT_REMOVE, ACT_SPLIT };
enum { CLS_NONE, CLS_PASS, CLS_KIND, CLS_OTHER, CLS_LOST };

typedef struct upd_text {
    char *buf;
    size_t len;
    size_t cap;
    int failed;
} upd_text;

typedef struct exact_ref {
    const char *glob;
    size_t index;
} exact_ref;

typedef struct new_line {
    size_t slot; /* the entry it goes before (order 0) or replaces (order 1); count: the end */
    int order;
    const char *id;
    int kind;
    const char *reason; /* a detail (first line used) or an entry's reason */
} new_line;

typedef struct entry_stat {
    size_t reach, earn, pass, other;
    int action;
} entry_stat;

typedef struct upd_pass {
    const char *name;
    bitcts_baseline b;
    exact_ref *exact;
    size_t n_exact;
    size_t *globs;
    size_t n_globs;
    entry_stat *stats;
    new_line *lines;
    size_t n_lines;
    size_t lines_cap; /* bytes */
    size_t added, removed, unmatched, unbaselined, lost;
    const char *first_unbaselined, *first_lost;
    upd_text out, notes;
} upd_pass;

static void put(upd_text *t, const char *s, size_t n)
{
    if (t->failed || bitcts_grow(&t->buf, &t->cap, t->len + n + 1, 256) != 0) {
        t->failed = 1;
        return;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void putf(upd_text *t, const char *fmt, ...) BITCTS_PRINTF(2, 3);
static void putf(upd_text *t, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    put(t, line, n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static int exact_cmp(const void *a, const void *b)
{
    const exact_ref *x = a, *y = b;
    const int c = strcmp(x->glob, y->glob);
    return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

static int line_cmp(const void *a, const void *b)
{
    const new_line *x = a, *y = b;
    if (x->slot != y->slot) {
        return x->slot < y->slot ? -1 : 1;
    }
    if (x->order != y->order) {
        return x->order - y->order;
    }
    return strcmp(x->id, y->id);
}

/* Exact entries (no glob character) into a sorted index, the others into a list. */
static int index_entries(upd_pass *p)
{
    p->exact = calloc(p->b.count + 1, sizeof *p->exact);
    p->globs = calloc(p->b.count + 1, sizeof *p->globs);
    p->stats = calloc(p->b.count + 1, sizeof *p->stats);
    if (p->exact == NULL || p->globs == NULL || p->stats == NULL) {
        return -1;
    }
    for (size_t i = 0; i < p->b.count; ++i) {
        if (strpbrk(p->b.entries[i].glob, "*?[\\") == NULL) {
            p->exact[p->n_exact++] = (exact_ref){p->b.entries[i].glob, i};
        } else {
            p->globs[p->n_globs++] = i;
        }
    }
    qsort(p->exact, p->n_exact, sizeof *p->exact, exact_cmp);
    return 0;
}

/* The first entry matching id, as bitcts_baseline_find; b.count when none. */
static size_t governing(const upd_pass *p, const char *id)
{
    size_t lo = 0, hi = p->n_exact;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (strcmp(p->exact[mid].glob, id) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    size_t best =
        lo < p->n_exact && strcmp(p->exact[lo].glob, id) == 0 ? p->exact[lo].index : p->b.count;
    for (size_t g = 0; g < p->n_globs && p->globs[g] < best; ++g) {
        if (fnmatch(p->b.entries[p->globs[g]].glob, id, 0) == 0) {
            return p->globs[g];
        }
    }
    return best;
}

/* What a case's verdict says for the baseline; *kind the failure kind for CLS_KIND. */
static int classify(int verdict, const upd_pass *p, size_t gov, int *kind)
{
    *kind = verdict;
    switch (verdict) {
    case BITCTS_VERDICT_PASS:
    case BITCTS_VERDICT_WARN:
    case BITCTS_VERDICT_RECORDED:
    case BITCTS_VERDICT_UNEXPECTED_PASS: return CLS_PASS;
    case BITCTS_VERDICT_FAIL:
    case BITCTS_VERDICT_TIMEOUT:
    case BITCTS_VERDICT_CRASH:
    case BITCTS_VERDICT_FLAKE: return CLS_KIND;
    case BITCTS_VERDICT_EXPECTED_FAIL:
        if (gov < p->b.count) {
            *kind = p->b.entries[gov].verdict;
            return CLS_KIND;
        }
        return CLS_LOST;
    case BITCTS_VERDICT_NOT_SUPPORTED:
    case BITCTS_VERDICT_SKIPPED:
    case BITCTS_VERDICT_NOT_RUN: return CLS_NONE;
    default: return CLS_OTHER;
    }
}

/* An id a baseline line can hold: glob characters escaped, no blank, '#' or control byte. */
static int id_writable(const char *id)
{
    size_t escaped = 0;
    for (const char *c = id; *c != '\0'; ++c) {
        if ((unsigned char)*c <= ' ' || *c == '#' || *c == 0x7f) {
            return 0;
        }
        escaped += strchr("*?[]\\", *c) != NULL ? 2 : 1;
    }
    return escaped > 0 && escaped < sizeof(((bitcts_baseline_entry *)0)->glob);
}

static int add_line(upd_pass *p, size_t slot, int order, const char *id, int kind,
                    const char *reason)
{
    if (!id_writable(id)) {
        ++p->unbaselined;
        p->first_unbaselined = p->first_unbaselined != NULL ? p->first_unbaselined : id;
        return 0;
    }
    char *grown = (char *)p->lines;
    if (bitcts_grow(&grown, &p->lines_cap, (p->n_lines + 1) * sizeof *p->lines,
                    64 * sizeof *p->lines) != 0) {
        return -1;
    }
    p->lines = (new_line *)(void *)grown;
    p->lines[p->n_lines++] = (new_line){slot, order, id, kind, reason};
    return 0;
}

/* Every case: its governing entry's tally, and a new line for a failure no entry expects. */
static int tally_cases(upd_pass *p, const json_t *cases)
{
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        const char *id = bitcts_report_str(c, "id");
        const size_t gov = governing(p, id);
        int kind = 0;
        const int cls =
            classify(bitcts_verdict_parse(bitcts_report_str(c, "verdict")), p, gov, &kind);
        entry_stat *st = &p->stats[gov]; /* stats[count]: the cases no entry governs */
        ++st->reach;
        if (cls == CLS_PASS) {
            ++st->pass;
        } else if (cls == CLS_KIND && gov < p->b.count && kind == p->b.entries[gov].verdict) {
            ++st->earn;
        } else if (cls == CLS_KIND) {
            ++st->other;
            if (add_line(p, gov, 0, id, kind, bitcts_report_str(c, "detail")) != 0) {
                return -1;
            }
        } else if (cls == CLS_OTHER) {
            ++p->unbaselined;
            p->first_unbaselined = p->first_unbaselined != NULL ? p->first_unbaselined : id;
        } else if (cls == CLS_LOST) {
            ++p->lost;
            p->first_lost = p->first_lost != NULL ? p->first_lost : id;
        }
    }
    return 0;
}

/* Keep, remove or split each entry; a split entry's earning cases become lines in its place. */
static int decide(upd_pass *p, const json_t *cases)
{
    for (size_t e = 0; e < p->b.count; ++e) {
        entry_stat *st = &p->stats[e];
        st->action = st->earn == 0 && st->pass + st->other > 0 ? ACT_REMOVE
                     : st->earn > 0 && st->pass > 0            ? ACT_SPLIT
                                                               : ACT_KEEP;
        p->removed += st->action != ACT_KEEP;
        p->unmatched += st->reach == 0;
    }
    for (size_t i = 0; i < json_array_size(cases); ++i) {
        const json_t *c = json_array_get(cases, i);
        const char *id = bitcts_report_str(c, "id");
        const size_t gov = governing(p, id);
        if (gov == p->b.count || p->stats[gov].action != ACT_SPLIT) {
            continue;
        }
        int kind = 0;
        const int cls =
            classify(bitcts_verdict_parse(bitcts_report_str(c, "verdict")), p, gov, &kind);
        if (cls == CLS_KIND && kind == p->b.entries[gov].verdict &&
            add_line(p, gov, 1, id, kind, p->b.entries[gov].reason) != 0) {
            return -1;
        }
    }
    p->added = p->n_lines;
    if (p->n_lines > 1) { /* qsort takes no NULL array, even for no lines */
        qsort(p->lines, p->n_lines, sizeof *p->lines, line_cmp);
    }
    return 0;
}

/* "<id, glob characters escaped> <kind>[ # <reason's first line>]\n". */
static void put_line(upd_text *t, const new_line *l)
{
    for (const char *c = l->id; *c != '\0'; ++c) {
        if (strchr("*?[]\\", *c) != NULL) {
            put(t, "\\", 1);
        }
        put(t, c, 1);
    }
    put(t, " ", 1);
    const char *kind = bitcts_verdict_name(l->kind);
    put(t, kind, strlen(kind));
    char reason[UPDATE_REASON_MAX + 1];
    size_t n = 0;
    for (const char *c = l->reason; *c != '\0' && *c != '\n' && n < UPDATE_REASON_MAX; ++c) {
        reason[n++] = (unsigned char)*c < ' ' || *c == 0x7f ? ' ' : *c;
    }
    if (l->reason[n] != '\0' && l->reason[n] != '\n') { /* cut: not inside a UTF-8 sequence */
        while (n > 0 && ((unsigned char)l->reason[n] & 0xc0) == 0x80) {
            --n;
        }
    }
    while (n > 0 && reason[n - 1] == ' ') {
        --n;
    }
    if (n > 0) {
        put(t, " # ", 3);
        put(t, reason, n);
    }
    put(t, "\n", 1);
}

/* The new lines of one slot and order, from *k on. */
static void put_slot(upd_pass *p, size_t *k, size_t slot, int order)
{
    while (*k < p->n_lines && p->lines[*k].slot == slot && p->lines[*k].order == order) {
        put_line(&p->out, &p->lines[(*k)++]);
    }
}

/* The file again: kept lines byte for byte, new lines before or in place of their entry, the
 * rest at the end. */
static void write_text(upd_pass *p, const char *text, size_t size)
{
    const char *q = text, *end = text + size;
    size_t line = 0, e = 0, k = 0;
    while (q < end) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        const char *next = nl != NULL ? nl + 1 : end;
        ++line;
        if (e < p->b.count && p->b.entries[e].line == line) {
            put_slot(p, &k, e, 0);
            if (p->stats[e].action == ACT_KEEP) {
                put(&p->out, q, (size_t)(next - q));
            }
            put_slot(p, &k, e, 1);
            ++e;
        } else {
            put(&p->out, q, (size_t)(next - q));
        }
        q = next;
    }
    if (k < p->n_lines && p->out.len > 0 && p->out.buf[p->out.len - 1] != '\n') {
        put(&p->out, "\n", 1);
    }
    put_slot(p, &k, p->b.count, 0);
    put(&p->out, "", 0); /* an empty file is "" rather than NULL */
}

static void write_notes(upd_pass *p)
{
    for (size_t e = 0; e < p->b.count; ++e) {
        if (p->stats[e].reach == 0) {
            putf(&p->notes, "%s:%zu: '%s' governs no case of the reports: kept\n", p->name,
                 p->b.entries[e].line, p->b.entries[e].glob);
        }
    }
    if (p->unbaselined > 0) {
        putf(&p->notes,
             "%zu failing cases have a verdict or an id a baseline cannot hold (missing, "
             "internal_error): not added; the first is %s\n",
             p->unbaselined, p->first_unbaselined);
    }
    if (p->lost > 0) {
        putf(&p->notes,
             "%zu cases are expected_fail under the run's baseline but no entry here governs "
             "them (their kind is not known): not added; the first is %s\n",
             p->lost, p->first_lost);
    }
    put(&p->notes, "", 0);
}

static void pass_free(upd_pass *p)
{
    bitcts_baseline_free(&p->b);
    free(p->exact);
    free(p->globs);
    free(p->stats);
    free(p->lines);
    free(p->out.buf);
    free(p->notes.buf);
}

/* One pass over text. @return BITCTS_OK, BITCTS_E_PARSE or BITCTS_E_OUT_OF_MEMORY. */
static int run_pass(upd_pass *p, const char *text, size_t size, const json_t *report, char *err,
                    size_t cap)
{
    const int st = bitcts_baseline_parse(p->name, text, size, &p->b, err, cap);
    if (st != BITCTS_OK) {
        return st;
    }
    const json_t *cases = json_object_get(report, "cases");
    if (index_entries(p) != 0 || tally_cases(p, cases) != 0 || decide(p, cases) != 0) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    write_text(p, text, size);
    write_notes(p);
    if (p->out.failed || p->notes.failed) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    return BITCTS_OK;
}

int bitcts_baseline_update_run(const char *name, const char *text, size_t size,
                               const json_t *report, bitcts_baseline_update *out, char *err,
                               size_t cap)
{
    memset(out, 0, sizeof *out);
    upd_pass prev = {.name = name};
    const char *cur = text;
    size_t cur_size = size;
    for (int i = 0; i < UPDATE_MAX_PASSES; ++i) {
        upd_pass p = {.name = name};
        const int st = run_pass(&p, cur, cur_size, report, err, cap);
        if (st != BITCTS_OK) {
            pass_free(&p);
            pass_free(&prev);
            return st;
        }
        out->added += p.added;
        out->removed += p.removed;
        const int same = p.out.len == cur_size && memcmp(p.out.buf, cur, cur_size) == 0;
        pass_free(&prev);
        prev = p;
        cur = prev.out.buf;
        cur_size = prev.out.len;
        if (same) {
            break;
        }
    }
    out->unmatched = prev.unmatched;
    out->unbaselined = prev.unbaselined;
    out->text = prev.out.buf;
    out->size = prev.out.len;
    out->notes = prev.notes.buf;
    prev.out.buf = NULL;
    prev.notes.buf = NULL;
    pass_free(&prev);
    return BITCTS_OK;
}

void bitcts_baseline_update_free(bitcts_baseline_update *u)
{
    free(u->text);
    free(u->notes);
    memset(u, 0, sizeof *u);
}
