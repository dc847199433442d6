/* SPDX-License-Identifier: MIT */
/* Comparing a committed golden set with the current one (docs/golden-vectors.md, "Verify"):
 * every difference is named with its reason: the header, a case or literal added or removed,
 * its description, one input's digest (or values), the expected output (per shift policy), the
 * rule a negative vector breaks, the operator a documented output matches. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strcmp */

#include "golden_internal.h"

typedef struct compare_ctx {
    bitcts_golden_change_fn fn;
    void *user;
    size_t count;
} compare_ctx;

/* A value as one short line: a string as is, anything else as compact JSON; cut to fit. */
static void text_of(const json_t *v, char *out, size_t cap)
{
    if (v == NULL) {
        snprintf(out, cap, "(none)");
        return;
    }
    if (json_is_string(v)) {
        snprintf(out, cap, "%s", json_string_value(v));
        return;
    }
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s == NULL) {
        snprintf(out, cap, "?");
        return;
    }
    if (strlen(s) >= cap) {
        snprintf(out, cap, "%.*s...", (int)cap - 4, s);
    } else {
        snprintf(out, cap, "%s", s);
    }
    free(s);
}

static void report(compare_ctx *c, bitcts_golden_change_kind kind, int literal, const char *id,
                   const char *what, const json_t *before, const json_t *after)
{
    bitcts_golden_change ch = {.kind = kind, .literal = literal, .id = id, .what = what};
    ch.before[0] = ch.after[0] = '\0';
    if (before != NULL || after != NULL) {
        text_of(before, ch.before, sizeof ch.before);
        text_of(after, ch.after, sizeof ch.after);
    }
    ++c->count;
    c->fn(c->user, &ch);
}

static int differ(const json_t *a, const json_t *b)
{
    if (a == NULL || b == NULL) {
        return a != b;
    }
    return !json_equal((json_t *)a, (json_t *)b);
}

/* Per-role values (digests of cases, element lists of literals). */
static void compare_inputs(compare_ctx *c, int literal, const char *id, const json_t *before,
                           const json_t *after)
{
    const char *role;
    json_t *v;
    json_object_foreach((json_t *)after, role, v)
    {
        if (differ(json_object_get(before, role), v)) {
            report(c, BITCTS_GOLDEN_INPUT, literal, id, role, json_object_get(before, role), v);
        }
    }
    json_object_foreach((json_t *)before, role, v)
    {
        if (json_object_get(after, role) == NULL) {
            report(c, BITCTS_GOLDEN_INPUT, literal, id, role, v, NULL);
        }
    }
}

static void compare_expected(compare_ctx *c, int literal, const char *id, const json_t *before,
                             const json_t *after)
{
    if (json_is_object(before) && json_is_object(after)) {
        static const char *const policies[2] = {"mask", "saturate"};
        for (int p = 0; p < 2; ++p) {
            const json_t *b = json_object_get(before, policies[p]);
            const json_t *a = json_object_get(after, policies[p]);
            if (differ(b, a)) {
                report(c, BITCTS_GOLDEN_EXPECTED, literal, id, policies[p], b, a);
            }
        }
    } else if (differ(before, after)) {
        report(c, BITCTS_GOLDEN_EXPECTED, literal, id, "", before, after);
    }
}

static void compare_entry(compare_ctx *c, int literal, const char *id, const json_t *before,
                          const json_t *after)
{
    static const char *const described[] = {"op", "tensors", "aliases", "documented_output"};
    for (size_t i = 0; i < sizeof described / sizeof described[0]; ++i) {
        const json_t *b = json_object_get(before, described[i]);
        const json_t *a = json_object_get(after, described[i]);
        if (differ(b, a)) {
            report(c, BITCTS_GOLDEN_DESCRIPTION, literal, id, described[i], b, a);
            break;
        }
    }
    compare_inputs(c, literal, id, json_object_get(before, "inputs"),
                   json_object_get(after, "inputs"));
    compare_expected(c, literal, id, json_object_get(before, "expected"),
                     json_object_get(after, "expected"));
    if (differ(json_object_get(before, "reject"), json_object_get(after, "reject"))) {
        report(c, BITCTS_GOLDEN_REJECTION, literal, id, "", json_object_get(before, "reject"),
               json_object_get(after, "reject"));
    }
    if (differ(json_object_get(before, "documented_output_is"),
               json_object_get(after, "documented_output_is"))) {
        report(c, BITCTS_GOLDEN_DOCUMENTED, literal, id, "",
               json_object_get(before, "documented_output_is"),
               json_object_get(after, "documented_output_is"));
    }
}

/* Entries of one array (cases or literals), matched by key. */
static void compare_array(compare_ctx *c, int literal, const bitcts_golden *committed,
                          const bitcts_golden *current)
{
    const char *field = literal ? "name" : "id";
    const char *array = literal ? "literals" : "cases";
    const bitcts_golden_key *index = literal ? committed->literals_by_name : committed->cases_by_id;
    json_t *old_entries = json_object_get(committed->root, array);
    json_t *new_entries = json_object_get(current->root, array);
    const size_t n_old = json_array_size(old_entries);
    char *matched = calloc(n_old + 1, 1);
    for (size_t i = 0; i < json_array_size(new_entries); ++i) {
        json_t *now = json_array_get(new_entries, i);
        const char *key = json_string_value(json_object_get(now, field));
        const bitcts_golden_key *was = bitcts__golden_find(index, n_old, key);
        if (was == NULL) {
            report(c, BITCTS_GOLDEN_ADDED, literal, key, "", NULL, NULL);
            continue;
        }
        if (matched != NULL) {
            matched[was->position] = 1;
        }
        compare_entry(c, literal, key, was->entry, now);
    }
    for (size_t i = 0; matched != NULL && i < n_old; ++i) {
        if (!matched[i]) {
            json_t *gone = json_array_get(old_entries, i);
            report(c, BITCTS_GOLDEN_REMOVED, literal,
                   json_string_value(json_object_get(gone, field)), "", NULL, NULL);
        }
    }
    free(matched);
}

size_t bitcts_golden_compare(const bitcts_golden *committed, const bitcts_golden *current,
                             bitcts_golden_change_fn fn, void *user)
{
    compare_ctx c = {.fn = fn, .user = user};
    static const char *const header[] = {"generator_version", "seed", "tier"};
    for (size_t i = 0; i < sizeof header / sizeof header[0]; ++i) {
        const json_t *b = json_object_get(committed->root, header[i]);
        const json_t *a = json_object_get(current->root, header[i]);
        if (differ(b, a)) {
            report(&c, BITCTS_GOLDEN_HEADER, 0, "", header[i], b, a);
        }
    }
    compare_array(&c, 1, committed, current);
    compare_array(&c, 0, committed, current);
    return c.count;
}

void bitcts_golden_change_line(const bitcts_golden_change *ch, char *buf, size_t cap)
{
    const char *prefix = ch->literal ? "literal " : "";
    switch (ch->kind) {
    case BITCTS_GOLDEN_HEADER:
        snprintf(buf, cap, "manifest: %s changed: %s -> %s", ch->what, ch->before, ch->after);
        break;
    case BITCTS_GOLDEN_ADDED:
        snprintf(buf, cap, "%s%s: added (not in the manifest)", prefix, ch->id);
        break;
    case BITCTS_GOLDEN_REMOVED:
        snprintf(buf, cap, "%s%s: removed (in the manifest, no longer generated)", prefix, ch->id);
        break;
    case BITCTS_GOLDEN_DESCRIPTION:
        snprintf(buf, cap, "%s%s: description changed (%s): %s -> %s", prefix, ch->id, ch->what,
                 ch->before, ch->after);
        break;
    case BITCTS_GOLDEN_INPUT:
        snprintf(buf, cap, "%s%s: input %s changed: %s -> %s", prefix, ch->id, ch->what, ch->before,
                 ch->after);
        break;
    case BITCTS_GOLDEN_EXPECTED:
        snprintf(buf, cap, "%s%s: expected output%s%s%s changed: %s -> %s", prefix, ch->id,
                 ch->what[0] ? " (" : "", ch->what, ch->what[0] ? ")" : "", ch->before, ch->after);
        break;
    case BITCTS_GOLDEN_REJECTION:
        snprintf(buf, cap, "%s%s: rejection rule changed: %s -> %s", prefix, ch->id, ch->before,
                 ch->after);
        break;
    default:
        snprintf(buf, cap, "%s%s: documented output now matches %s (was %s)", prefix, ch->id,
                 ch->after, ch->before);
        break;
    }
}
