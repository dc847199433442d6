/* SPDX-License-Identifier: MIT */
/* The view every format of a validated report starts from, and the helpers the formats share
 * (the renderers are report_junit.c, report_html.c, report_markdown.c and report_text.c; the
 * dispatcher is report_render.c). */
#include <stdio.h>  /* snprintf */
#include <stdlib.h> /* free */
#include <string.h> /* strchr, strlen, strspn */

#include "report_render.h"

/* ---- the view: the tally plus what the failure sections need ---- */

int bitcts__report_is_listed(int verdict)
{
    return verdict != BITCTS_VERDICT_PASS && verdict != BITCTS_VERDICT_RECORDED &&
           verdict != BITCTS_VERDICT_NOT_SUPPORTED;
}

bitcts_status bitcts__report_view_build(bitcts__report_view *v, const json_t *report)
{
    *v = (bitcts__report_view){.report = report, .cases = json_object_get(report, "cases")};
    const bitcts_status st = bitcts_report_tally_create(report, &v->t);
    if (st != BITCTS_OK) {
        return st;
    }
    for (int k = 0; k < BITCTS_VERDICT_COUNT; ++k) {
        v->listed += bitcts__report_is_listed(k) ? v->t->totals[k] : 0;
    }
    v->clean = bitcts_report_is_clean(report);
    bitcts_status gst =
        bitcts__report_groups_create(v->cases, bitcts__report_is_listed, &v->groups);
    if (gst == BITCTS_OK) {
        gst = bitcts__report_analysis(v->cases, &v->analysis);
    }
    if (gst != BITCTS_OK) {
        bitcts__report_view_release(v);
    }
    return gst;
}

void bitcts__report_view_release(bitcts__report_view *v)
{
    bitcts_report_tally_destroy(v->t);
    bitcts__report_groups_destroy(v->groups);
    json_decref(v->analysis);
    *v = (bitcts__report_view){0}; /* nothing left to release, and nothing to read */
}

void bitcts__report_duration(char *out, size_t cap, double ms)
{
    if (ms < 1000.0) {
        snprintf(out, cap, "%.*f ms", ms < 10.0 ? 2 : 1, ms);
    } else if (ms < 120000.0) {
        snprintf(out, cap, "%.2f s", ms / 1000.0);
    } else {
        const long long minutes = (long long)(ms / 60000.0);
        snprintf(out, cap, "%lld min %.0f s", minutes, (ms - 60000.0 * (double)minutes) / 1000.0);
    }
}

/* "0x00ff" -> "0000000011111111"; other text is left out. */
void bitcts__report_hex_to_bin(const char *hex, char *out, size_t cap)
{
    static const char digits[] = "0123456789abcdef0123456789ABCDEF";
    size_t n = 0;
    out[0] = '\0';
    if (hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X') || !hex[2]) {
        return;
    }
    for (const char *p = hex + 2; *p; ++p) {
        const char *d = strchr(digits, *p);
        if (d == NULL || n + 5 > cap) {
            out[0] = '\0';
            return;
        }
        const int value = (int)((d - digits) % 16);
        for (int bit = 3; bit >= 0; --bit) {
            out[n++] = (char)('0' + ((value >> bit) & 1));
        }
    }
    out[n] = '\0';
}

/* The shell words of the command line, quoted where needed. */
void bitcts__report_command_line(sbuf *b, const json_t *report, void (*emit)(sbuf *, const char *))
{
    const json_t *argv = json_object_get(report, "command_line");
    sbuf line = {0};
    for (size_t i = 0; i < json_array_size(argv); ++i) {
        const char *arg = json_string_value(json_array_get(argv, i));
        const int plain = *arg && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_./:=,+-@%") == strlen(arg);
        if (i) {
            sb_add(&line, " ", 1);
        }
        if (plain) {
            sb_puts(&line, arg);
            continue;
        }
        sb_add(&line, "'", 1);
        for (const char *p = arg; *p; ++p) {
            if (*p == '\'') {
                sb_puts(&line, "'\\''");
            } else {
                sb_add(&line, p, 1);
            }
        }
        sb_add(&line, "'", 1);
    }
    b->failed |= line.failed;
    emit(b, line.data != NULL ? line.data : "");
    free(line.data);
}

void bitcts__report_int_list(sbuf *b, const json_t *array)
{
    for (size_t i = 0; i < json_array_size(array); ++i) {
        sb_printf(b, "%s%lld", i ? ", " : "",
                  (long long)json_integer_value(json_array_get(array, i)));
    }
}

const char *bitcts__report_input_name(size_t count, size_t i)
{
    static const char *const names[] = {"A", "B", "C", "D"};
    return count == 1 ? "input" : i < 4 ? names[i] : "?";
}

/* One tensor: "A sizes [3, 5] strides [5, 1] 60 B" (strides "packed" when null). */
static void description_tensor(sbuf *b, const json_t *t)
{
    sb_printf(b, "; %s sizes [", bitcts_report_str(t, "role"));
    bitcts__report_int_list(b, json_object_get(t, "Sizes"));
    const json_t *strides = json_object_get(t, "Strides");
    if (json_is_array(strides)) {
        sb_puts(b, "] strides [");
        bitcts__report_int_list(b, strides);
        sb_puts(b, "]");
    } else {
        sb_puts(b, "] packed");
    }
    sb_printf(b, " %.0f B", bitcts_report_num(t, "TotalTensorSizeInBytes"));
    if (bitcts_report_num(t, "GuaranteedBaseOffsetAlignment") > 0) {
        sb_printf(b, " base offset aligned %.0f",
                  bitcts_report_num(t, "GuaranteedBaseOffsetAlignment"));
    }
}

void bitcts__report_case_description(sbuf *b, const json_t *c)
{
    const json_t *d = json_object_get(c, "description");
    if (!json_is_object(d)) {
        return;
    }
    sb_seq(b, sb_puts, "", bitcts_report_str(c, "operator"), " ",
           bitcts_report_str(d, "input_type"), " -> ", bitcts_report_str(d, "output_type"), NULL);
    sb_printf(b, ", rank %.0f, pattern %s, values %s, feature level %s, %.0f elements, ",
              bitcts_report_num(d, "rank"), bitcts_report_str(d, "pattern"),
              bitcts_report_str(d, "values"), bitcts_report_str(c, "feature_level"),
              bitcts_report_num(d, "elements"));
    const char *alias = bitcts_report_str(d, "output_aliases");
    if (*alias != '\0') {
        sb_seq(b, sb_puts, "", "in place (the output is ", alias, ")", NULL);
    } else {
        sb_puts(b, "not in place");
    }
    if (*bitcts_report_str(d, "rule") != '\0') {
        sb_seq(b, sb_puts, "", ", breaks rule ", bitcts_report_str(d, "rule"), NULL);
    }
    const json_t *tensors = json_object_get(d, "tensors");
    for (size_t i = 0; i < json_array_size(tensors); ++i) {
        description_tensor(b, json_array_get(tensors, i));
    }
}

/* The plain-text evidence of a case: detail, mismatch, digest, warnings, baseline, repro. */
void bitcts__report_case_evidence(sbuf *b, const json_t *c)
{
    const json_t *failure = json_object_get(c, "failure");
    const json_t *first = json_object_get(failure, "first");
    const json_t *warnings = json_object_get(c, "warnings");
    if (*bitcts_report_str(c, "detail")) {
        sb_printf(b, "detail: %s\n", bitcts_report_str(c, "detail"));
    }
    if (json_is_object(json_object_get(c, "description"))) {
        sb_puts(b, "case: ");
        bitcts__report_case_description(b, c);
        sb_puts(b, "\n");
    }
    if (json_is_object(failure)) {
        sb_printf(b, "mismatches: %lld of %lld elements\n",
                  (long long)json_integer_value(json_object_get(failure, "mismatches")),
                  (long long)json_integer_value(json_object_get(failure, "elements")));
    }
    if (json_is_object(first)) {
        const json_t *coords = json_object_get(first, "coords");
        const json_t *inputs = json_object_get(first, "inputs");
        sb_printf(b, "first mismatch: index %lld, coords [",
                  (long long)json_integer_value(json_object_get(first, "index")));
        bitcts__report_int_list(b, coords);
        sb_puts(b, "]\n");
        for (size_t i = 0; i < json_array_size(inputs); ++i) {
            sb_printf(b, "  %-8s %s\n", bitcts__report_input_name(json_array_size(inputs), i),
                      json_string_value(json_array_get(inputs, i)));
        }
        sb_printf(b, "  expected %s %s\n  actual   %s %s\n", bitcts_report_str(first, "expected"),
                  bitcts_report_str(first, "expected_bin"), bitcts_report_str(first, "actual"),
                  bitcts_report_str(first, "actual_bin"));
    }
    if (*bitcts_report_str(c, "output_xxh3_128")) {
        sb_printf(b, "output xxh3-128: %s\n", bitcts_report_str(c, "output_xxh3_128"));
    }
    for (size_t i = 0; i < json_array_size(warnings); ++i) {
        sb_printf(b, "warning: %s\n", json_string_value(json_array_get(warnings, i)));
    }
    if (*bitcts_report_str(c, "baseline")) {
        sb_printf(b, "baseline: %s\n", bitcts_report_str(c, "baseline"));
    }
    if (*bitcts_report_str(c, "policy")) {
        sb_printf(b, "policy: %s\n", bitcts_report_str(c, "policy"));
    }
    sb_printf(b, "repro: %s\n", bitcts_report_str(c, "repro"));
}
