/* SPDX-License-Identifier: MIT */
/* Bit-exact comparison of a case's buffers and the verdict that follows: guard bands, inputs
 * unchanged, every asserted element equal, shift counts >= width classified, writes into the
 * output's padding a warning (DirectML may write anywhere inside TotalTensorSizeInBytes). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* calloc */
#include <string.h> /* memset */

#include "bitcts/bitcts_status.h"
#include "bitcts/bitcts_verdict.h"
#include "case_initial.h"
#include "compare.h"
#include "digest.h"
#include "ref_ops.h"
#include "tensor_iter.h"

/* 1 when the walk's current row of tensor t is contiguous in memory (its last dimension's
 * stride is one element): the row's elements are then its bytes, in order. */
static int row_is_contiguous(const bitcts_tensor_iter *it, uint32_t t)
{
    return it->stride[t][it->rank - 1] == 1;
}

void bitcts_compare_poison(const bitcts_op_desc *desc, const uint8_t *expected,
                           const uint8_t *expected_mask, uint8_t *output)
{
    bitcts_case_poison(desc, expected, expected_mask, output);
}

static void append(char *buf, size_t cap, const char *text)
{
    const size_t used = strlen(buf);
    if (used + 3 < cap) {
        snprintf(buf + used, cap - used, "%s%s", used ? "; " : "", text);
    }
}

/* How many guard bytes differ from what they must hold, and the first and last of them. */
static size_t guard_damage(const uint8_t *p, const uint8_t *expect, size_t len, size_t *first,
                           size_t *last)
{
    size_t count = 0;
    if (memcmp(p, expect, len) == 0) {
        return 0;
    }
    for (size_t i = 0; i < len; ++i) {
        if (p[i] != expect[i]) {
            *first = count == 0 ? i : *first;
            *last = i;
            ++count;
        }
    }
    return count;
}

int bitcts_compare_guards(const bitcts_op_desc *d, const bitcts_compare_guard guards[3], char *why,
                          size_t cap)
{
    int bad = 0;
    char text[200];
    for (uint32_t t = 0; t <= d->input_count; ++t) {
        const bitcts_compare_guard *g = &guards[t];
        const uint64_t size = t == d->input_count ? d->output.total_tensor_size_in_bytes
                                                  : d->inputs[t].total_tensor_size_in_bytes;
        const char *role = bitcts_role_name(d->input_count, t);
        size_t first = 0, last = 0;
        size_t n = g->before_len > 0
                       ? guard_damage(g->before, g->before_expect, g->before_len, &first, &last)
                       : 0;
        if (n > 0) {
            snprintf(text, sizeof text,
                     "wrote %zu bytes before the %s buffer (up to %zu bytes before its start)", n,
                     role, g->before_len - first);
            append(why, cap, text), bad = 1;
        }
        n = g->after_len > 0 ? guard_damage(g->after, g->after_expect, g->after_len, &first, &last)
                             : 0;
        if (n > 0) {
            snprintf(text, sizeof text,
                     "wrote %zu bytes past the end of the %s buffer (bytes %llu to %llu; "
                     "TotalTensorSizeInBytes %llu)",
                     n, role, (unsigned long long)(size + first), (unsigned long long)(size + last),
                     (unsigned long long)size);
            append(why, cap, text), bad = 1;
        }
    }
    return bad;
}

static int check_inputs(const bitcts_compare_args *a, char *why, size_t cap)
{
    int bad = 0;
    for (uint32_t t = 0; t < a->desc->input_count; ++t) {
        if ((int)t == a->alias_input) {
            continue; /* that buffer is the output */
        }
        const uint64_t size = a->desc->inputs[t].total_tensor_size_in_bytes;
        if (memcmp(a->inputs_before[t], a->inputs_after[t], (size_t)size) == 0) {
            continue; /* the common case, fast; the loop below counts what changed */
        }
        uint64_t first = size, count = 0;
        for (uint64_t i = 0; i < size; ++i) {
            if (a->inputs_before[t][i] != a->inputs_after[t][i]) {
                first = first < i ? first : i;
                ++count;
            }
        }
        if (count) {
            char text[160];
            snprintf(text, sizeof text, "input %s changed: %llu bytes differ, first at byte %llu",
                     bitcts_role_name(a->desc->input_count, t), (unsigned long long)count,
                     (unsigned long long)first);
            append(why, cap, text), bad = 1;
        }
    }
    return bad;
}

typedef struct element_scan {
    uint64_t mismatches;
    uint64_t oob; /* elements whose shift count is >= the width */
    int all_mask, all_saturate;
} element_scan;

/* Compares the element the walk stands on; marks the bytes it covers in `covered` (NULL: an
 * output without padding, whose elements cover every byte). */
static void scan_element(const bitcts_compare_args *a, const bitcts_tensor_iter *it,
                         uint8_t *covered, element_scan *s, bitcts_case_result *r)
{
    const bitcts_op_desc *d = a->desc;
    const uint32_t wi = bitcts_dtype_size(d->inputs[0].data_type);
    const uint32_t wo = bitcts_dtype_size(d->output.data_type);
    const uint32_t n_in = d->input_count;
    const uint64_t off = it->offset[n_in] * wo;
    if (covered != NULL) {
        memset(covered + off, 1, wo);
    }
    const uint64_t actual = bitcts_ref_load(a->output_after + off, wo);
    const uint64_t expected = bitcts_ref_load(a->expected + off, wo);
    if (a->recorded && bitcts_ref_load(a->inputs_before[1] + it->offset[1] * wi, wi) >= wi * 8) {
        ++s->oob;
        s->all_saturate &= actual == expected;
        s->all_mask &= actual == bitcts_ref_load(a->expected_mask + off, wo);
        return;
    }
    if (actual == expected) {
        return;
    }
    if (s->mismatches++ == 0) {
        r->has_first = 1;
        r->first_index = it->index;
        memcpy(r->first_coords, it->coord, sizeof it->coord);
        for (uint32_t t = 0; t < n_in; ++t) {
            r->first_inputs[t] = bitcts_ref_load(a->inputs_before[t] + it->offset[t] * wi, wi);
        }
        r->first_expected = expected;
        r->first_actual = actual;
    }
}

/* Compares every logical element; marks the bytes elements cover in `covered`. A contiguous
 * row of the output whose bytes equal the expected row's has no differing element, so it is
 * passed in one memcmp; any other row is compared element by element. */
static void scan_elements(const bitcts_compare_args *a, uint8_t *covered, element_scan *s,
                          bitcts_case_result *r)
{
    const uint32_t wo = bitcts_dtype_size(a->desc->output.data_type);
    const uint32_t n_in = a->desc->input_count;
    bitcts_tensor_iter it;
    s->all_mask = s->all_saturate = 1;
    bitcts_tensor_iter_init_op(&it, a->desc);
    while (bitcts_tensor_iter_more(&it)) {
        const uint64_t left = bitcts_tensor_iter_row_left(&it);
        const uint64_t off = it.offset[n_in] * wo;
        if (!a->recorded && row_is_contiguous(&it, n_in) &&
            memcmp(a->output_after + off, a->expected + off, (size_t)(left * wo)) == 0) {
            if (covered != NULL) {
                memset(covered + off, 1, (size_t)(left * wo));
            }
            bitcts_tensor_iter_next_row(&it);
            continue;
        }
        for (uint64_t i = 0; i < left; ++i) {
            scan_element(a, &it, covered, s, r);
            bitcts_tensor_iter_next(&it);
        }
    }
}

static uint64_t padding_writes(const bitcts_compare_args *a, const uint8_t *covered)
{
    uint64_t changed = 0;
    for (uint64_t i = 0; i < a->desc->output.total_tensor_size_in_bytes; ++i) {
        changed += !covered[i] && a->output_before[i] != a->output_after[i];
    }
    return changed;
}

int bitcts_compare_untouched(const bitcts_compare_args *a, char *why, size_t cap)
{
    why[0] = '\0';
    const int guards = bitcts_compare_guards(a->desc, a->guards, why, cap);
    return check_inputs(a, why, cap) | guards;
}

int bitcts_compare_case(const bitcts_compare_args *a, bitcts_case_result *r)
{
    const bitcts_op_desc *d = a->desc;
    r->detail[0] = r->policy[0] = r->warning[0] = '\0';
    r->mismatches = 0;
    r->has_first = 0;
    r->elements = bitcts_tensor_element_count(&d->output);
    r->rank = d->output.dimension_count;
    r->input_count = d->input_count;
    r->in_width = bitcts_dtype_size(d->inputs[0].data_type);
    r->out_width = bitcts_dtype_size(d->output.data_type);
    /* Padding is what no element covers: an output whose elements fill its size has none
     * (a valid description's elements never overlap), and needs no map of it. */
    const int padded = r->elements * r->out_width != d->output.total_tensor_size_in_bytes;
    uint8_t *covered = padded ? calloc(1, (size_t)d->output.total_tensor_size_in_bytes + 1) : NULL;
    if (padded && covered == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    int bad = bitcts_compare_guards(d, a->guards, r->detail, sizeof r->detail);
    bad |= check_inputs(a, r->detail, sizeof r->detail);
    element_scan s = {0};
    scan_elements(a, covered, &s, r);
    r->mismatches = s.mismatches;
    bitcts_digest_logical(&d->output, a->output_after, r->digest);
    if (s.mismatches) {
        char text[320];
        snprintf(
            text, sizeof text,
            "%llu of %llu elements differ; first at index %llu: expected 0x%0*llx, got 0x%0*llx",
            (unsigned long long)s.mismatches, (unsigned long long)r->elements,
            (unsigned long long)r->first_index, (int)(2 * r->out_width),
            (unsigned long long)r->first_expected, (int)(2 * r->out_width),
            (unsigned long long)r->first_actual);
        append(r->detail, sizeof r->detail, text);
        bad = 1;
    }
    const uint64_t pad = padded ? padding_writes(a, covered) : 0;
    free(covered);
    if (pad) {
        snprintf(r->warning, sizeof r->warning,
                 "wrote %llu padding bytes inside TotalTensorSizeInBytes (allowed by DirectML)",
                 (unsigned long long)pad);
    }
    if (bad) {
        r->verdict = BITCTS_VERDICT_FAIL;
    } else if (s.oob) {
        r->verdict = BITCTS_VERDICT_RECORDED;
        snprintf(r->policy, sizeof r->policy, "%s",
                 s.all_mask && s.all_saturate ? "mask_or_saturate"
                 : s.all_mask                 ? "mask"
                 : s.all_saturate             ? "saturate"
                                              : "other");
        snprintf(r->detail, sizeof r->detail,
                 "%llu elements with shift counts >= %u bits behave as policy '%s'; the other %llu "
                 "elements are exact",
                 (unsigned long long)s.oob, r->in_width * 8, r->policy,
                 (unsigned long long)(r->elements - s.oob));
    } else if (pad) {
        r->verdict = BITCTS_VERDICT_WARN;
        snprintf(r->detail, sizeof r->detail, "%s", r->warning);
    } else {
        r->verdict = BITCTS_VERDICT_PASS;
    }
    return BITCTS_OK;
}
