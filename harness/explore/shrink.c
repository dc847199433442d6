/* SPDX-License-Identifier: MIT */
/* Shrinking (harness/explore/shrink.h, docs/explore.md). A candidate is made from the current case
 * by one change: a dimension dropped or a size reduced (a slice at the origin: the strides, and so
 * every kept element's offset and bytes, stay as they were), a window past the origin (the
 * buffers start later), a size reduced with the buffers keeping their size, a tensor laid out
 * packed, the padding of one tensor halved (its dims keep the order of their strides), the output
 * no longer in place, spare bytes or the alignment promise removed, an input's values set to zero
 * or halved. Candidates that break a rule are not run. The first candidate, in this order, that
 * fails with the same signature becomes the current case, and the search starts over from it. */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* malloc, calloc, free */
#include <string.h> /* memcpy, strstr */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "clock.h"
#include "fs_util.h"
#include "grow.h"
#include "report_model.h"
#include "sanitize.h"
#include "self_exe.h"
#include "shrink.h"
#include "tensor_iter.h"
#include "validate.h"

#define SHRINK_CHUNK_MIN 8u /* candidates run together, at least */
#define SHRINK_ELEMENTS 64u /* value candidates: for inputs of at most this many elements */

/* ---- signatures ---- */

static const char *fail_kind(const char *detail)
{
    if (strstr(detail, "elements differ") != NULL) {
        return "mismatch";
    }
    if (strstr(detail, "nondeterministic") != NULL) {
        return "nondeterministic";
    }
    if (strstr(detail, "past the end") != NULL || strstr(detail, "before the") != NULL) {
        return "stray_write";
    }
    if (strncmp(detail, "input ", 6) == 0) {
        return "input_changed";
    }
    if (strstr(detail, "returned status") != NULL) {
        return "status";
    }
    if (strstr(detail, "not supported") != NULL) {
        return "not_supported";
    }
    if (strstr(detail, "the backend changed") != NULL || strstr(detail, "replaced the") != NULL ||
        strstr(detail, "closed or replaced") != NULL) {
        return "process_damage";
    }
    return "other";
}

const char *bitcts_shrink_signature(const json_t *c, char *out, size_t cap)
{
    const int v = bitcts_report_case_verdict(c);
    const char *detail = bitcts_report_str(c, "detail");
    out[0] = '\0';
    if (v == BITCTS_VERDICT_FAIL) {
        snprintf(out, cap, "fail:%s", fail_kind(detail));
    } else if (v == BITCTS_VERDICT_CRASH) {
        const char *sig = strstr(detail, "signal ");
        int number = 0;
        if (sig != NULL && sscanf(sig, "signal %d", &number) == 1) {
            snprintf(out, cap, "crash:signal %d", number);
        } else {
            snprintf(out, cap, "crash:exit");
        }
    } else if (v == BITCTS_VERDICT_TIMEOUT) {
        snprintf(out, cap, "timeout");
    } else if (v == BITCTS_VERDICT_WARN) {
        snprintf(out, cap, "warn");
    }
    return out;
}

/* ---- cases ---- */

static bitcts_tensor_desc *tensor(bitcts_case_data *d, uint32_t t)
{
    return t < d->desc.input_count ? &d->desc.inputs[t] : &d->desc.output;
}

static uint64_t elements(const bitcts_op_desc *d)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < d->output.dimension_count; ++k) {
        n *= d->output.sizes[k];
    }
    return n;
}

static uint8_t *copy_bytes(const uint8_t *src, uint64_t have, uint64_t want)
{
    uint8_t *p = calloc(1, (size_t)(want > 0 ? want : 1));
    if (p != NULL && src != NULL) {
        memcpy(p, src, (size_t)(have < want ? have : want));
    }
    return p;
}

/* Bytes `skip` on of `src` (`have` bytes long) into a new zeroed buffer of `want` bytes. */
static uint8_t *copy_bytes_from(const uint8_t *src, uint64_t have, uint64_t skip, uint64_t want)
{
    return copy_bytes(src != NULL ? src + (skip < have ? skip : have) : NULL,
                      skip < have ? have - skip : 0, want);
}

/* A new case with the description `desc` (same shape of aliasing as `c`) whose buffers hold
 * c's buffers from byte skip[t] on (skip NULL: from the start): right for any change that keeps
 * every element's offset from the new start. */
static int with_desc_from(const bitcts_case_data *c, const bitcts_op_desc *desc,
                          const uint64_t *skip, bitcts_case_data *out)
{
    memset(out, 0, sizeof *out);
    out->desc = *desc;
    out->case_seed = c->case_seed;
    out->alias_input = c->alias_input;
    if (c->alias_input >= 0) {
        out->desc.output = out->desc.inputs[c->alias_input];
    }
    for (uint32_t i = 0; i < desc->input_count; ++i) {
        out->inputs[i] = copy_bytes_from(c->inputs[i], c->desc.inputs[i].total_tensor_size_in_bytes,
                                         skip != NULL ? skip[i] : 0,
                                         out->desc.inputs[i].total_tensor_size_in_bytes);
        if (out->inputs[i] == NULL) {
            bitcts_case_free(out);
            return -1;
        }
    }
    if (out->alias_input >= 0) {
        out->output = out->inputs[out->alias_input];
        return 0;
    }
    out->owned_output = copy_bytes_from(c->output, c->desc.output.total_tensor_size_in_bytes,
                                        skip != NULL ? skip[desc->input_count] : 0,
                                        out->desc.output.total_tensor_size_in_bytes);
    if (out->owned_output == NULL) {
        bitcts_case_free(out);
        return -1;
    }
    out->output = out->owned_output;
    return 0;
}

static int with_desc(const bitcts_case_data *c, const bitcts_op_desc *desc, bitcts_case_data *out)
{
    return with_desc_from(c, desc, NULL, out);
}

static int min_size(bitcts_tensor_desc *t)
{
    uint64_t need = 0;
    if (bitcts_tensor_calc_buffer_size(t, &need) != 0) {
        return -1;
    }
    t->total_tensor_size_in_bytes = need;
    return 0;
}

/* A slice at the origin: sizes reduced (or dimension `drop` removed), the strides kept; every
 * buffer at its new minimum size, or (keep) at the size it had. */
static int slice(const bitcts_case_data *c, const uint32_t *sizes, int drop, int keep,
                 bitcts_case_data *out)
{
    bitcts_op_desc d = c->desc;
    for (uint32_t t = 0; t <= d.input_count; ++t) {
        bitcts_tensor_desc *n = t < d.input_count ? &d.inputs[t] : &d.output;
        const bitcts_tensor_desc *o =
            t < c->desc.input_count ? &c->desc.inputs[t] : &c->desc.output;
        uint32_t r = 0;
        for (uint32_t k = 0; k < o->dimension_count; ++k) {
            if ((int)k == drop) {
                continue;
            }
            n->sizes[r] = sizes[k];
            n->strides[r] = (uint32_t)bitcts_tensor_stride(o, k);
            ++r;
        }
        n->dimension_count = r;
        n->has_strides = 1;
        if (min_size(n) != 0 || n->total_tensor_size_in_bytes > o->total_tensor_size_in_bytes) {
            return -1;
        }
        n->total_tensor_size_in_bytes =
            keep ? o->total_tensor_size_in_bytes : n->total_tensor_size_in_bytes;
    }
    return with_desc(c, &d, out);
}

/* A window of dim k: `size` indices from `first` on, every other dim kept. The strides stay; each
 * buffer starts `first` strides of dim k later, so every kept element keeps its bytes and the
 * elements past the origin (where a value- or position-dependent failure may sit) can be kept
 * while the rest goes. */
static int window(const bitcts_case_data *c, uint32_t k, uint32_t first, uint32_t size,
                  bitcts_case_data *out)
{
    bitcts_op_desc d = c->desc;
    uint64_t skip[3]; /* the inputs, then the output */
    for (uint32_t t = 0; t <= d.input_count; ++t) {
        bitcts_tensor_desc *n = t < d.input_count ? &d.inputs[t] : &d.output;
        const bitcts_tensor_desc *o =
            t < c->desc.input_count ? &c->desc.inputs[t] : &c->desc.output;
        for (uint32_t j = 0; j < o->dimension_count; ++j) {
            n->strides[j] = (uint32_t)bitcts_tensor_stride(o, j);
        }
        n->has_strides = 1;
        n->sizes[k] = size;
        skip[t] = (uint64_t)first * n->strides[k] * bitcts_dtype_size(o->data_type);
        if (min_size(n) != 0) {
            return -1;
        }
    }
    return with_desc_from(c, &d, skip, out);
}

/* Copies the logical elements of tensor `from` (bytes `src`) into `dst` laid out as `to`. */
static void relayout(const bitcts_tensor_desc *from, const uint8_t *src,
                     const bitcts_tensor_desc *to, uint8_t *dst)
{
    const uint32_t esize = bitcts_dtype_size(from->data_type);
    bitcts_tensor_iter a, b;
    bitcts_tensor_iter_init(&a, from);
    bitcts_tensor_iter_init(&b, to);
    for (; bitcts_tensor_iter_more(&a); bitcts_tensor_iter_next(&a), bitcts_tensor_iter_next(&b)) {
        memcpy(dst + b.offset[0] * esize, src + a.offset[0] * esize, esize);
    }
}

/* Tensors in `mask` (bit t: input t, bit input_count: the output) laid out packed. */
static int packed(const bitcts_case_data *c, uint32_t mask, bitcts_case_data *out)
{
    const uint32_t n_in = c->desc.input_count;
    if (c->alias_input >= 0) { /* the aliased input and the output change together */
        const uint32_t pair = (1u << c->alias_input) | (1u << n_in);
        mask = (mask & pair) != 0 ? mask | pair : mask;
    }
    memset(out, 0, sizeof *out);
    out->desc = c->desc;
    out->case_seed = c->case_seed;
    out->alias_input = c->alias_input;
    for (uint32_t t = 0; t <= n_in; ++t) {
        bitcts_tensor_desc *d = tensor(out, t);
        const bitcts_tensor_desc *o = t < n_in ? &c->desc.inputs[t] : &c->desc.output;
        if (mask & (1u << t)) {
            d->has_strides = 0;
            if (min_size(d) != 0) {
                return -1;
            }
        }
        const int is_output = t == n_in;
        if (is_output && c->alias_input >= 0) {
            out->output = out->inputs[c->alias_input];
            break;
        }
        const uint8_t *src = is_output ? c->output : c->inputs[t];
        uint8_t *buf = (mask & (1u << t)) ? calloc(1, (size_t)d->total_tensor_size_in_bytes + 1)
                                          : copy_bytes(src, o->total_tensor_size_in_bytes,
                                                       d->total_tensor_size_in_bytes);
        if (buf == NULL) {
            bitcts_case_free(out);
            return -1;
        }
        if (mask & (1u << t)) {
            relayout(o, src, d, buf);
        }
        if (is_output) {
            out->owned_output = out->output = buf;
        } else {
            out->inputs[t] = buf;
        }
    }
    return 0;
}

/* Tensor t's padding halved: its dims keep the order of their strides (broadcast dims stay 0),
 * each stride moves halfway to the smallest that keeps the elements apart. Not for a tensor
 * the output aliases. */
static int tightened(const bitcts_case_data *c, uint32_t t, bitcts_case_data *out)
{
    const uint32_t n_in = c->desc.input_count;
    if (c->alias_input >= 0 && (t == n_in || t == (uint32_t)c->alias_input)) {
        return -1;
    }
    const bitcts_tensor_desc *o = t < n_in ? &c->desc.inputs[t] : &c->desc.output;
    if (!o->has_strides) {
        return -1;
    }
    bitcts_op_desc desc = c->desc;
    bitcts_tensor_desc *n = t < n_in ? &desc.inputs[t] : &desc.output;
    uint32_t order[BITCTS_MAX_DIMS], count = 0;
    for (uint32_t d = 0; d < o->dimension_count; ++d) {
        if (o->strides[d] == 0) {
            continue;
        }
        uint32_t k = count++; /* insertion by stride, stable */
        for (; k > 0 && o->strides[order[k - 1]] > o->strides[d]; --k) {
            order[k] = order[k - 1];
        }
        order[k] = d;
    }
    uint64_t old_end = 1, new_end = 1; /* elements spanned by the dims placed so far */
    int changed = 0;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t d = order[k];
        const uint64_t s = o->strides[d];
        const uint64_t ns = new_end + (s > old_end ? (s - old_end) / 2 : 0);
        if (ns > UINT32_MAX) {
            return -1;
        }
        changed |= ns != s;
        n->strides[d] = (uint32_t)ns;
        old_end = s * o->sizes[d] > old_end ? s * o->sizes[d] : old_end;
        new_end = ns * o->sizes[d] > new_end ? ns * o->sizes[d] : new_end;
    }
    if (!changed || min_size(n) != 0) {
        return -1;
    }
    uint8_t *buf = calloc(1, (size_t)n->total_tensor_size_in_bytes + 1);
    if (buf == NULL) {
        return -1;
    }
    relayout(o, t < n_in ? c->inputs[t] : c->output, n, buf);
    if (with_desc(c, &desc, out) != 0) { /* the other buffers copied as they are */
        free(buf);
        return -1;
    }
    if (t < n_in) {
        free(out->inputs[t]);
        out->inputs[t] = buf;
    } else {
        free(out->owned_output);
        out->owned_output = out->output = buf;
    }
    return 0;
}

/* The output no longer in place: its own buffer, holding what the aliased input held. */
static int unaliased(const bitcts_case_data *c, bitcts_case_data *out)
{
    if (c->alias_input < 0 || bitcts_case_copy(c, out) != BITCTS_OK) {
        return -1;
    }
    const uint64_t bytes = out->desc.output.total_tensor_size_in_bytes;
    out->owned_output = copy_bytes(c->output, bytes, bytes);
    if (out->owned_output == NULL) {
        bitcts_case_free(out);
        return -1;
    }
    out->output = out->owned_output;
    out->alias_input = -1;
    return 0;
}

/* Every buffer at its minimum size (spare: 1) or without the alignment promise (spare: 0). */
static int trimmed(const bitcts_case_data *c, int spare, bitcts_case_data *out)
{
    bitcts_op_desc d = c->desc;
    int changed = 0;
    for (uint32_t t = 0; t <= d.input_count; ++t) {
        bitcts_tensor_desc *n = t < d.input_count ? &d.inputs[t] : &d.output;
        const uint64_t before = n->total_tensor_size_in_bytes;
        const uint32_t align = n->guaranteed_base_offset_alignment;
        if (spare ? min_size(n) != 0 : (n->guaranteed_base_offset_alignment = 0, 0)) {
            return -1;
        }
        changed |=
            n->total_tensor_size_in_bytes != before || n->guaranteed_base_offset_alignment != align;
    }
    return changed ? with_desc(c, &d, out) : -1;
}

/* The element offsets of input `which` in the order first read, at most `cap`; the count. */
static size_t input_elements(const bitcts_case_data *c, uint32_t which, uint64_t *offs, size_t cap)
{
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init(&it, &c->desc.inputs[which]);
    size_t n = 0;
    for (; bitcts_tensor_iter_more(&it); bitcts_tensor_iter_next(&it)) {
        int seen = 0;
        for (size_t k = 0; k < n && !seen; ++k) {
            seen = offs[k] == it.offset[0];
        }
        if (!seen) {
            if (n == cap) {
                return cap + 1;
            }
            offs[n++] = it.offset[0];
        }
    }
    return n;
}

/* Input `which`'s element at offset `off` (or all its elements: off UINT64_MAX) set to zero
 * (halve 0) or halved (halve 1). -1 when nothing changes. */
static int valued(const bitcts_case_data *c, uint32_t which, uint64_t off, int halve,
                  bitcts_case_data *out)
{
    if (bitcts_case_copy(c, out) != BITCTS_OK) {
        return -1;
    }
    const uint32_t esize = bitcts_dtype_size(c->desc.inputs[which].data_type);
    int changed = 0;
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init(&it, &c->desc.inputs[which]);
    for (; bitcts_tensor_iter_more(&it); bitcts_tensor_iter_next(&it)) {
        if (off != UINT64_MAX && it.offset[0] != off) {
            continue;
        }
        uint8_t *p = out->inputs[which] + it.offset[0] * esize;
        uint64_t v = 0;
        for (uint32_t k = 0; k < esize; ++k) {
            v |= (uint64_t)p[k] << (8 * k);
        }
        const uint64_t w = halve ? v >> 1 : 0;
        changed |= w != v;
        for (uint32_t k = 0; k < esize; ++k) {
            p[k] = (uint8_t)(w >> (8 * k));
        }
    }
    if (!changed) {
        bitcts_case_free(out);
        return -1;
    }
    return 0;
}

/* Candidate `index` of the current case, in the order of simplicity. 1: made; 0: none for
 * this index (try the next); -1: no more candidates. */
static int candidate(const bitcts_case_data *c, unsigned index, bitcts_case_data *out)
{
    const uint32_t r = c->desc.output.dimension_count;
    const uint32_t n_in = c->desc.input_count;
    unsigned i = index;
    uint32_t sizes[BITCTS_MAX_DIMS];
    memcpy(sizes, c->desc.output.sizes, sizeof sizes);
    if (i < r) { /* fewer dims */
        return r > 1 && slice(c, sizes, (int)i, 0, out) == 0;
    }
    i -= r;
    if (i < 3 * r) { /* smaller sizes: 1, half, one less */
        const uint32_t k = i / 3, s = sizes[k];
        const uint32_t want = i % 3 == 0 ? 1 : i % 3 == 1 ? (s + 1) / 2 : s - 1;
        if (s <= 1 || want == s || want < 1 || (i % 3 != 0 && want == 1)) {
            return 0;
        }
        sizes[k] = want;
        return slice(c, sizes, -1, 0, out) == 0;
    }
    i -= 3 * r;
    if (i < 2 * r) { /* a window past the origin: the upper half, all but the first index */
        const uint32_t k = i / 2, s = sizes[k];
        const uint32_t first = i % 2 == 0 ? s / 2 : 1;
        return s > 1 && (i % 2 == 0 || s > 2) && window(c, k, first, s - first, out) == 0;
    }
    i -= 2 * r;
    if (i < 2 * r) { /* sizes 1 or half, every buffer keeping its size (a failure that needs
                      * the bytes past the elements: a write into them, a read of them) */
        const uint32_t k = i / 2, s = sizes[k];
        const uint32_t want = i % 2 == 0 ? 1 : (s + 1) / 2;
        if (s <= 1 || want == s || (i % 2 != 0 && want == 1)) {
            return 0;
        }
        sizes[k] = want;
        return slice(c, sizes, -1, 1, out) == 0;
    }
    i -= 2 * r;
    if (i < n_in + 2) { /* packed: every tensor, then one at a time */
        const uint32_t mask = i == 0 ? (1u << (n_in + 1)) - 1 : 1u << (i - 1);
        int any = 0;
        for (uint32_t t = 0; t <= n_in; ++t) {
            any |= (mask & (1u << t)) &&
                   (t < n_in ? c->desc.inputs[t].has_strides : c->desc.output.has_strides);
        }
        return any && packed(c, mask, out) == 0;
    }
    i -= n_in + 2;
    if (i < n_in + 1) { /* padding halved, one tensor at a time */
        return tightened(c, i, out) == 0;
    }
    i -= n_in + 1;
    if (i == 0) {
        return unaliased(c, out) == 0;
    }
    if (i == 1 || i == 2) {
        return trimmed(c, i == 1, out) == 0;
    }
    i -= 3;
    for (uint32_t w = 0; w < n_in; ++w) { /* values: all zero, then each zero, each halved */
        uint64_t offs[SHRINK_ELEMENTS];
        const size_t n = input_elements(c, w, offs, SHRINK_ELEMENTS);
        const size_t per = 1 + (n <= SHRINK_ELEMENTS ? 2 * n : 0);
        if (i < per) {
            if (i == 0) {
                return valued(c, w, UINT64_MAX, 0, out) == 0;
            }
            const size_t e = (i - 1) % n;
            return valued(c, w, offs[e], (i - 1) >= n, out) == 0;
        }
        i -= (unsigned)per;
    }
    return -1;
}

static int valid(const bitcts_case_data *d)
{
    const uint32_t fl =
        bitcts_fl_required(d->desc.op, d->desc.inputs[0].data_type, d->desc.output.data_type,
                           d->desc.output.dimension_count);
    bitcts_validation v;
    return bitcts_validate_op(&d->desc, fl, &v) == BITCTS_RULE_OK;
}

/* ---- running candidates ---- */

/* Runs `n` candidates and gives the index of the first whose signature is `want`, or -1. */
static int run_chunk(const bitcts_shrink_options *o, const bitcts_case_key *key,
                     bitcts_case_data *cands, size_t n, const char *want, json_t **kept, char *err,
                     size_t cap)
{
    bitcts_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL || (plan->cases = calloc(n, sizeof *plan->cases)) == NULL ||
        (plan->fixed = calloc(n, sizeof *plan->fixed)) == NULL) {
        bitcts_plan_destroy(plan);
        snprintf(err, cap, "out of memory");
        return -2;
    }
    plan->count = n;
    for (size_t i = 0; i < n; ++i) {
        bitcts_case_key *k = &plan->cases[i];
        *k = *key;
        snprintf(k->id, sizeof k->id, "shrink.%zu", i);
        k->rank = cands[i].desc.output.dimension_count;
        k->feature_level = bitcts_fl_required(k->op, k->in_type, k->out_type, k->rank);
        plan->fixed[i] = malloc(sizeof **plan->fixed);
        if (plan->fixed[i] == NULL) {
            bitcts_plan_destroy(plan);
            snprintf(err, cap, "out of memory");
            return -2;
        }
        *plan->fixed[i] = cands[i]; /* the plan owns the buffers now */
        memset(&cands[i], 0, sizeof cands[i]);
    }
    bitcts_run_config cfg = *o->run;
    cfg.plan = plan;
    cfg.report_dir = NULL;
    cfg.progress = NULL;
    cfg.resume = 0;
    cfg.repeat = 1;
    cfg.stop_at = 0;
    cfg.shard_count = cfg.shard_index = 0;
    cfg.baseline_path = NULL;
    cfg.skips_path = NULL;
    cfg.claimed = 0;
    cfg.selection.filter.count = 0;
    cfg.selection.exclude.count = 0;
    cfg.selection.tiers = BITCTS_TIER_ALL;
    cfg.selection.max_feature_level = 0;
    bitcts_run_result r;
    const int st = bitcts_run(&cfg, &r);
    int found = -1;
    if (st != BITCTS_OK) {
        snprintf(err, cap, "%s", r.error);
        found = -2;
    }
    const json_t *cases = r.report != NULL ? json_object_get(r.report, "cases") : NULL;
    for (size_t i = 0; found == -1 && i < json_array_size(cases); ++i) {
        char sig[96];
        const json_t *c = json_array_get(cases, i);
        if (strcmp(bitcts_shrink_signature(c, sig, sizeof sig), want) == 0) {
            const int pos = atoi(bitcts_report_str(c, "id") + 7); /* "shrink.<i>" */
            found = pos;
            *kept = json_deep_copy(c);
            cands[pos] = *plan->fixed[pos]; /* hand the winner's data back */
            free(plan->fixed[pos]);
            plan->fixed[pos] = NULL;
        }
    }
    bitcts_run_result_free(&r);
    bitcts_plan_destroy(plan);
    return found;
}

/* Up to `chunk` valid candidates of `cur`, from candidate index *next on; how many. */
static size_t fill_chunk(const bitcts_case_data *cur, unsigned *next, bitcts_case_data *cands,
                         size_t chunk)
{
    size_t n = 0;
    for (;;) {
        if (n == chunk) {
            return n;
        }
        const int made = candidate(cur, (*next)++, &cands[n]);
        if (made < 0) {
            return n;
        }
        if (made > 0 && valid(&cands[n])) {
            ++n;
        } else if (made > 0) {
            bitcts_case_free(&cands[n]);
        }
    }
}

int bitcts_shrink_case(const bitcts_shrink_options *o, const bitcts_case_key *key,
                       const bitcts_case_data *failing, const json_t *failing_result,
                       bitcts_shrink_result *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (key->pattern == BITCTS_PAT_INVALID || failing->output == NULL ||
        bitcts_shrink_signature(failing_result, out->signature, sizeof out->signature)[0] == '\0') {
        snprintf(err, cap, "%s: nothing to shrink (verdict %s)", key->id,
                 bitcts_report_str(failing_result, "verdict"));
        return BITCTS_E_INVALID_ARGUMENT;
    }
    const double end = bitcts_clock_now() + o->budget_s;
    bitcts_case_data cur;
    if (bitcts_case_copy(failing, &cur) != BITCTS_OK) {
        snprintf(err, cap, "out of memory");
        return BITCTS_E_OUT_OF_MEMORY;
    }
    json_t *cur_result = json_deep_copy(failing_result);
    const size_t chunk =
        o->run->jobs * 2u > SHRINK_CHUNK_MIN ? (size_t)o->run->jobs * 2u : SHRINK_CHUNK_MIN;
    bitcts_case_data *cands = calloc(chunk, sizeof *cands);
    int st = cands != NULL ? BITCTS_OK : BITCTS_E_OUT_OF_MEMORY;
    out->elements_before = elements(&failing->desc);
    out->rank_before = failing->desc.output.dimension_count;
    out->exhausted = 1;
    unsigned next = 0; /* the next candidate index of the current case */
    while (st == BITCTS_OK) {
        if (bitcts_clock_now() > end) {
            out->exhausted = 0;
            break;
        }
        const size_t n = o->stop_after > 0 && out->steps >= o->stop_after
                             ? 0 /* the broken shrinker of the tests */
                             : fill_chunk(&cur, &next, cands, chunk);
        if (n == 0) {
            break; /* every candidate of the current case tried: it is the smallest found */
        }
        json_t *kept = NULL;
        const int won = run_chunk(o, key, cands, n, out->signature, &kept, err, cap);
        out->candidates += (unsigned)n;
        if (won == -2) {
            st = BITCTS_E_INTERNAL;
        } else if (won >= 0) {
            bitcts_case_free(&cur);
            cur = cands[won];
            memset(&cands[won], 0, sizeof cands[won]);
            json_decref(cur_result);
            cur_result = kept;
            ++out->steps;
            next = 0;
        }
        for (size_t i = 0; i < n; ++i) {
            bitcts_case_free(&cands[i]);
        }
    }
    free(cands);
    if (st != BITCTS_OK) {
        bitcts_case_free(&cur);
        json_decref(cur_result);
        return st;
    }
    out->data = cur;
    out->result = cur_result;
    out->key = *key;
    snprintf(out->key.id, sizeof out->key.id, "%.80s.shrunk", key->id);
    out->key.rank = cur.desc.output.dimension_count;
    out->key.feature_level =
        bitcts_fl_required(key->op, key->in_type, key->out_type, out->key.rank);
    out->elements_after = elements(&cur.desc);
    out->rank_after = out->key.rank;
    return BITCTS_OK;
}

void bitcts_shrink_result_free(bitcts_shrink_result *r)
{
    if (r != NULL) {
        bitcts_case_free(&r->data);
        json_decref(r->result);
        memset(r, 0, sizeof *r);
    }
}

/* ---- the eval command ---- */

typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...) BITCTS_PRINTF(2, 3);

static void put(text *t, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2 && !t->failed; ++attempt) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        if (bitcts_grow(&t->p, &t->cap, t->len + (size_t)(n > 0 ? n : 0) + 1, 256) != 0) {
            t->failed = 1;
            return;
        }
    }
}

static void put_list(text *t, const char *flag, const uint32_t *v, uint32_t n)
{
    put(t, " %s ", flag);
    for (uint32_t k = 0; k < n; ++k) {
        put(t, "%s%u", k ? "," : "", v[k]);
    }
}

/* The elements from the first to the last one the tensor reaches (the buffer eval reads). */
static uint64_t reached(const bitcts_tensor_desc *d)
{
    uint64_t count = 1;
    uint64_t packed = 1;
    for (uint32_t k = d->dimension_count; k-- > 0;) {
        count += (uint64_t)(d->sizes[k] - 1) * (d->has_strides ? d->strides[k] : packed);
        packed *= d->sizes[k];
    }
    return count;
}

/* --NAME v,v,... (file NULL) or --NAME @FILE. */
static void put_tensor(text *t, const char *name, const bitcts_tensor_desc *d, const uint8_t *buf,
                       const char *file)
{
    const uint32_t esize = bitcts_dtype_size(d->data_type);
    put(t, " --%s ", name);
    if (file != NULL) {
        char at[BITCTS_SHRINK_REPRO_MAX + 1];
        char quoted[4 * sizeof at + 4];
        snprintf(at, sizeof at, "@%s", file);
        put(t, "%s", bitcts_shell_quote(at, quoted, sizeof quoted));
        return;
    }
    const uint64_t count = reached(d);
    for (uint64_t e = 0; e < count; ++e) {
        uint64_t v = 0;
        for (uint32_t k = 0; k < esize; ++k) {
            v |= (uint64_t)buf[e * esize + k] << (8 * k);
        }
        put(t, "%s0x%0*llx", e ? "," : "", (int)(2 * esize), (unsigned long long)v);
    }
}

/* The eval line; files[i]: input i's values as @FILE (NULL: inline). */
static int eval_line(const bitcts_case_data *data, const char *const files[2], char **out)
{
    const bitcts_op_desc *d = &data->desc;
    text t = {malloc(256), 0, 256, 0};
    t.failed = t.p == NULL;
    char exe[1024], quoted[4100];
    put(&t, "%s eval %s --type %s",
        bitcts_shell_quote(bitcts_self_exe(exe, sizeof exe), quoted, sizeof quoted),
        bitcts_op_name(d->op), bitcts_dtype_name(d->inputs[0].data_type));
    if (d->output.data_type != d->inputs[0].data_type) {
        put(&t, " --out-type %s", bitcts_dtype_name(d->output.data_type));
    }
    put_list(&t, "--sizes", d->output.sizes, d->output.dimension_count);
    for (uint32_t i = 0; i < d->input_count; ++i) {
        const char *name = bitcts_shrink_role(d, i);
        put_tensor(&t, name, &d->inputs[i], data->inputs[i], files[i]);
        if (d->inputs[i].has_strides) {
            char flag[24];
            snprintf(flag, sizeof flag, "--%s-strides", name);
            put_list(&t, flag, d->inputs[i].strides, d->inputs[i].dimension_count);
        }
    }
    if (d->output.has_strides) {
        put_list(&t, "--out-strides", d->output.strides, d->output.dimension_count);
    }
    if (t.failed) {
        free(t.p);
        *out = NULL;
        return BITCTS_E_OUT_OF_MEMORY;
    }
    *out = t.p;
    return BITCTS_OK;
}

const char *bitcts_shrink_role(const bitcts_op_desc *d, uint32_t input)
{
    static const char *const names[2][2] = {{"input", "input"}, {"a", "b"}};
    return names[d->input_count == 1 ? 0 : 1][input & 1u];
}

int bitcts_shrink_eval_command(const bitcts_case_data *data, char **out)
{
    const char *const inline_values[2] = {NULL, NULL};
    return eval_line(data, inline_values, out);
}

/* Input i's buffer (the elements eval reads) written to `file`. */
static int write_values(const bitcts_case_data *data, uint32_t i, const char *file, char *err,
                        size_t cap)
{
    const bitcts_tensor_desc *d = &data->desc.inputs[i];
    const int st = bitcts_fs_write_atomic(
        file, data->inputs[i], (size_t)(reached(d) * bitcts_dtype_size(d->data_type)), err, cap);
    return st == BITCTS_OK || st == BITCTS_E_OUT_OF_MEMORY ? st : BITCTS_E_IO;
}

/* The eval line naming DIR/<role>.bin by absolute path, checked against the cap before any file
 * is written (a line too long leaves no file behind). */
static int file_line(const bitcts_case_data *data, const char *vectors_dir, char **out, char *err,
                     size_t cap)
{
    char dir[4200];
    char paths[2][4300];
    const char *files[2] = {NULL, NULL};
    if (bitcts_fs_mkdirs(vectors_dir, err, cap) != BITCTS_OK) {
        return BITCTS_E_IO;
    }
    bitcts_paste_path(vectors_dir, dir, sizeof dir);
    for (uint32_t i = 0; i < data->desc.input_count; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s/%s.bin", dir, bitcts_shrink_role(&data->desc, i));
        files[i] = paths[i];
    }
    int st = eval_line(data, files, out);
    if (st == BITCTS_OK && strlen(*out) > BITCTS_SHRINK_REPRO_MAX) {
        snprintf(err, cap, "the eval line would be %zu characters (at most %u): a shorter path",
                 strlen(*out), BITCTS_SHRINK_REPRO_MAX);
        st = BITCTS_E_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; st == BITCTS_OK && i < data->desc.input_count; ++i) {
        st = write_values(data, i, paths[i], err, cap);
    }
    if (st != BITCTS_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

int bitcts_shrink_repro_command(const bitcts_case_data *data, const char *vectors_dir, char **out,
                                char *err, size_t cap)
{
    uint64_t chars = 0; /* the values' characters at least, before the line is made */
    for (uint32_t i = 0; i < data->desc.input_count; ++i) {
        const bitcts_tensor_desc *d = &data->desc.inputs[i];
        chars += reached(d) * (2u * bitcts_dtype_size(d->data_type) + 3u);
    }
    *out = NULL;
    if (chars <= BITCTS_SHRINK_INLINE_MAX) {
        const int st = bitcts_shrink_eval_command(data, out);
        if (st != BITCTS_OK || strlen(*out) <= BITCTS_SHRINK_INLINE_MAX) {
            return st;
        }
        free(*out);
        *out = NULL;
    }
    return file_line(data, vectors_dir, out, err, cap);
}
