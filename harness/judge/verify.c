/* SPDX-License-Identifier: MIT */
/* `bitcts report verify`: a report against what this bitcts makes of its seed and selection. */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc, strtoull */
#include <string.h> /* strcmp, memcpy */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "bitcts/bitcts_version.h"
#include "digest.h"
#include "explore.h"
#include "ref_ops.h"
#include "sanitize.h"
#include "tensor_model.h"
#include "verify.h"

#define VERIFY_TEXT 4096 /* a selection member's text */

typedef struct vstate {
    const json_t *report;
    const bitcts_plan *plan;
    bitcts_problem_sink sink; /* the caller's problem lines, counted in out->problems */
    bitcts_verify_result *out;
    uint64_t seed;
    bitcts_selection sel;
    char filter_text[VERIFY_TEXT], exclude_text[VERIFY_TEXT];
    uint32_t shard_index, shard_count;
    int balanced;      /* shards by timings: which cases a shard holds cannot be recomputed */
    size_t cursor;     /* where the last id was found in the plan */
    unsigned char *in; /* per plan case: 1 selected (this shard), 2 also seen in the report */
} vstate;

static const char *sel_str(const vstate *v, const char *key)
{
    return bitcts_report_str(json_object_get(v->report, "selection"), key);
}

/* One seed, this generator and this bitcts. 0, or -1 when nothing can be recomputed. */
static int check_identity(vstate *v)
{
    const json_t *gen = json_object_get(v->report, "generator_version");
    const char *seed = bitcts_report_str(v->report, "seed");
    char *end = NULL;
    v->seed = strtoull(seed, &end, 16);
    int ok = strncmp(seed, "0x", 2) == 0 && strlen(seed) == 18 && end != NULL && *end == '\0';
    if (!ok) {
        bitcts_problem_say(&v->sink, "seed '%.40s' is not a 64-bit seed (0x and 16 hex digits)",
                           seed);
    }
    if (!json_is_integer(gen) || json_integer_value(gen) != (json_int_t)BITCTS_GENERATOR_VERSION) {
        bitcts_problem_say(
            &v->sink,
            "generator_version %lld is not this bitcts's (%u): its cases cannot be rebuilt",
            (long long)json_integer_value(gen), BITCTS_GENERATOR_VERSION);
        ok = 0;
    }
    const char *suite = bitcts_report_str(v->report, "suite_version");
    if (strcmp(suite, BITCTS_VERSION_STRING) != 0) {
        bitcts_problem_say(&v->sink, "suite_version '%.40s' is not this bitcts's (%s)", suite,
                           BITCTS_VERSION_STRING);
    }
    return ok ? 0 : -1;
}

/* "a,b,c" into globs (borrowing buf); "*" or "" is no glob. 0, or -1 naming a bad glob. */
static int split_globs(vstate *v, const char *what, const char *text, char *buf, bitcts_filter *f)
{
    f->count = 0;
    snprintf(buf, VERIFY_TEXT, "%s", strcmp(text, "*") == 0 ? "" : text);
    for (char *p = buf; *p != '\0';) {
        char *comma = strchr(p, ',');
        if (comma != NULL) {
            *comma = '\0';
        }
        if (f->count == BITCTS_MAX_FILTERS || !bitcts_glob_is_valid(p)) {
            bitcts_problem_say(&v->sink, "selection.%s: '%.200s' is not a glob bitcts takes", what,
                               p);
            return -1;
        }
        f->globs[f->count++] = p;
        p = comma != NULL ? comma + 1 : p + strlen(p);
    }
    return 0;
}

static int parse_selection(vstate *v)
{
    const char *tier = sel_str(v, "tier");
    const char *fl = sel_str(v, "feature_level");
    const char *shard = sel_str(v, "shard");
    const char *balance = sel_str(v, "balance");
    int rc = split_globs(v, "filter", sel_str(v, "filter"), v->filter_text, &v->sel.filter) |
             split_globs(v, "exclude", sel_str(v, "exclude"), v->exclude_text, &v->sel.exclude);
    if ((v->sel.tiers = bitcts_tier_parse(tier)) == 0) {
        bitcts_problem_say(&v->sink, "selection.tier '%.100s' is not a tier", tier);
        rc = -1;
    }
    if (*fl != '\0' && (v->sel.max_feature_level = bitcts_fl_parse(fl)) == 0) {
        bitcts_problem_say(&v->sink, "selection.feature_level '%.40s' is not a feature level", fl);
        rc = -1;
    }
    char tail = 0;
    if (*shard != '\0' && (sscanf(shard, "%u/%u%c", &v->shard_index, &v->shard_count, &tail) != 2 ||
                           v->shard_index == 0 || v->shard_index > v->shard_count)) {
        bitcts_problem_say(&v->sink, "selection.shard '%.40s' is not I/N", shard);
        rc = -1;
    }
    v->balanced = strncmp(balance, "timings:", 8) == 0;
    return rc;
}

/* Marks the selection (this shard's share when interleaved) in v->in; the count. */
static size_t mark_selection(vstate *v)
{
    size_t position = 0, marked = 0;
    for (size_t i = 0; i < v->plan->count; ++i) {
        if (!bitcts_selection_matches(&v->sel, &v->plan->cases[i])) {
            continue;
        }
        const int mine =
            v->shard_count == 0 || v->balanced || position % v->shard_count == v->shard_index - 1;
        ++position;
        v->in[i] = (unsigned char)mine;
        marked += (size_t)mine;
    }
    const json_t *total = json_object_get(json_object_get(v->report, "selection"), "cases");
    if (total != NULL && json_integer_value(total) != (json_int_t)position) {
        bitcts_problem_say(&v->sink, "selection.cases is %lld but the selection holds %zu cases",
                           (long long)json_integer_value(total), position);
    }
    return marked;
}

/* The output digest the reference gives the case (policy: BITCTS_SHIFT_POLICY_*). 0 or -1. */
static int reference_digest(uint64_t seed, const bitcts_case_key *key, int policy,
                            char out[BITCTS_DIGEST_HEX])
{
    bitcts_case_data d;
    if (bitcts_case_build(seed, key, &d) != BITCTS_OK || d.output == NULL) {
        return -1;
    }
    const size_t bytes = (size_t)d.desc.output.total_tensor_size_in_bytes;
    uint8_t *buf = malloc(bytes + 1);
    int rc = buf == NULL ? -1 : 0;
    if (rc == 0) {
        memcpy(buf, d.output, bytes);
        const void *in[2] = {d.inputs[0], d.inputs[1]};
        if (d.alias_input >= 0) {
            in[d.alias_input] = buf; /* in place: the output is that input */
        }
        rc = bitcts_ref_execute(&d.desc, in, buf, policy) == BITCTS_OK ? 0 : -1;
    }
    if (rc == 0) {
        bitcts_digest_logical(&d.desc.output, buf, out);
    }
    free(buf);
    bitcts_case_free(&d);
    return rc;
}

static int policy_of(const char *name)
{
    return strcmp(name, "mask") == 0               ? BITCTS_SHIFT_POLICY_MASK
           : strcmp(name, "saturate") == 0         ? BITCTS_SHIFT_POLICY_SATURATE
           : strcmp(name, "mask_or_saturate") == 0 ? BITCTS_SHIFT_POLICY_MASK
                                                   : 0;
}

/* The verdict fits the case, and where the outputs were right their digest is the reference's. */
static void check_outcome(vstate *v, const json_t *c, const bitcts_case_key *key)
{
    const char *id = bitcts_report_str(c, "id");
    const int verdict = bitcts_report_case_verdict(c);
    const char *digest = bitcts_report_str(c, "output_xxh3_128");
    const char *policy_name = bitcts_report_str(c, "policy");
    const int negative = key->pattern == BITCTS_PAT_INVALID;
    if (verdict == BITCTS_VERDICT_RECORDED && (negative || !bitcts_op_is_shift(key->op))) {
        bitcts_problem_say(&v->sink,
                           "case %s: 'recorded' is only for shifts by counts >= the width", id);
        return;
    }
    if (negative) {
        if (*digest != '\0') {
            bitcts_problem_say(
                &v->sink, "case %s: a negative case has no output, but the report gives a digest",
                id);
        }
        return;
    }
    const int right = verdict == BITCTS_VERDICT_PASS || verdict == BITCTS_VERDICT_WARN ||
                      verdict == BITCTS_VERDICT_UNEXPECTED_PASS ||
                      (verdict == BITCTS_VERDICT_RECORDED && policy_of(policy_name) != 0);
    if (!right) {
        return;
    }
    char want[BITCTS_DIGEST_HEX];
    const int policy =
        policy_of(policy_name) != 0 ? policy_of(policy_name) : BITCTS_SHIFT_POLICY_SATURATE;
    if (reference_digest(v->seed, key, policy, want) != 0) {
        bitcts_problem_say(&v->sink, "case %s: the reference cannot rebuild it", id);
    } else if (strcmp(want, digest) != 0) {
        bitcts_problem_say(
            &v->sink, "case %s (%s): output digest %.40s is not the one seed %s gives (%s)", id,
            bitcts_verdict_name(verdict), digest, bitcts_report_str(v->report, "seed"), want);
    } else {
        ++v->out->recomputed;
    }
}

/* Each case of the report: in the plan (or an explored id), in the selection, in plan order. */
static void check_cases(vstate *v)
{
    const json_t *cases = json_object_get(v->report, "cases");
    long last = -1;
    for (size_t k = 0; k < json_array_size(cases); ++k) {
        const json_t *c = json_array_get(cases, k);
        const char *id = bitcts_report_str(c, "id");
        bitcts_case_key explored;
        const int64_t ex = bitcts_explore_parse_id(id);
        if (ex >= 0 && bitcts_explore_key(v->seed, (uint64_t)ex, &explored) == BITCTS_OK) {
            check_outcome(v, c, &explored);
            continue;
        }
        const bitcts_case_key *found = bitcts_plan_find_from(v->plan, id, &v->cursor);
        const long at = found != NULL ? (long)(found - v->plan->cases) : -1;
        if (at < 0) {
            bitcts_problem_say(&v->sink, "case %s is not a case of this bitcts's plan", id);
            continue;
        }
        if (v->in[at] == 0) {
            bitcts_problem_say(&v->sink, "case %s is not in the report's selection%s", id,
                               v->shard_count != 0 ? " (this shard)" : "");
        } else if (at < last) {
            bitcts_problem_say(&v->sink, "case %s is out of plan order (it comes after %s)", id,
                               v->plan->cases[last].id);
        }
        v->in[at] = 2;
        last = at > last ? at : last;
        check_outcome(v, c, &v->plan->cases[at]);
    }
}

/* Cases of the selection the report lacks: none, or as many as `claims` says were not claimed
 * (run --claimed), or, for a shard balanced by timings, whatever the other shards hold. */
static void check_missing(vstate *v)
{
    size_t missing = 0;
    const char *first = NULL;
    for (size_t i = 0; i < v->plan->count; ++i) {
        if (v->in[i] == 1) {
            first = first != NULL ? first : v->plan->cases[i].id;
            ++missing;
        }
    }
    const json_t *claims = json_object_get(v->report, "claims");
    const json_t *not_claimed = json_object_get(claims, "not_claimed");
    if (v->balanced || missing == 0) {
        return;
    }
    if (claims != NULL && json_integer_value(not_claimed) == (json_int_t)missing) {
        return;
    }
    bitcts_problem_say(&v->sink, "%zu cases of the selection are missing (the first: %s)%s",
                       missing, first,
                       claims != NULL ? ", not the number its claims say were not claimed" : "");
}

/* 1 when every case is an explored one (explore.N): a report of `bitcts explore`. */
static int all_explored(const json_t *report)
{
    const json_t *cases = json_object_get(report, "cases");
    for (size_t k = 0; k < json_array_size(cases); ++k) {
        if (bitcts_explore_parse_id(bitcts_report_str(json_array_get(cases, k), "id")) < 0) {
            return 0;
        }
    }
    return json_array_size(cases) > 0;
}

int bitcts_report_verify(const json_t *report, const bitcts_plan *plan, bitcts_verify_problem_fn fn,
                         void *user, bitcts_verify_result *out)
{
    memset(out, 0, sizeof *out);
    vstate v = {.report = report, .plan = plan, .sink = {fn, user, &out->problems}, .out = out};
    out->cases = json_array_size(json_object_get(report, "cases"));
    if (check_identity(&v) != 0 || parse_selection(&v) != 0) {
        return BITCTS_E_PARSE;
    }
    if ((v.in = calloc(plan->count + 1, 1)) == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    if (all_explored(report)) { /* bitcts explore: its cases are its own plan */
        out->selected = out->cases;
        check_cases(&v);
    } else {
        out->selected = mark_selection(&v);
        check_cases(&v);
        check_missing(&v);
    }
    free(v.in);
    return out->problems == 0 ? BITCTS_OK : BITCTS_E_PARSE;
}
