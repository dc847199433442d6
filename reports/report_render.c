/* SPDX-License-Identifier: MIT */
/* Rendering a validated report: the dispatcher of bitcts_report_render (report.json itself, or one
 * of the views built on report_view.c). */
#include <stdlib.h> /* free, realloc */
#include <string.h> /* memcpy, strlen */

#include "report_render.h"

/* report.json: the tree as JSON with one space of indent, and a newline. */
static bitcts_status render_json(const json_t *report, char **out, size_t *size)
{
    char *text = json_dumps(report, JSON_INDENT(1));
    const size_t len = text != NULL ? strlen(text) : 0;
    char *with_newline = text != NULL ? realloc(text, len + 2) : NULL;
    if (with_newline == NULL) {
        free(text);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    memcpy(with_newline + len, "\n", 2);
    *out = with_newline;
    if (size != NULL) {
        *size = len + 1;
    }
    return BITCTS_OK;
}

/* One of the views (every format but JSON) from a built view. */
static bitcts_status render_view(const bitcts__report_view *v, bitcts_report_format format,
                                 char **out, size_t *size)
{
    sbuf b = {0};
    if (format == BITCTS_REPORT_FORMAT_JUNIT) {
        bitcts__report_render_junit(&b, v);
    } else if (format == BITCTS_REPORT_FORMAT_HTML) {
        bitcts__report_render_html(&b, v);
    } else if (format == BITCTS_REPORT_FORMAT_MARKDOWN) {
        bitcts__report_render_markdown(&b, v);
    } else {
        bitcts__report_render_text(&b, v);
    }
    if (!b.failed && b.data == NULL) {
        sb_add(&b, "", 0); /* an empty view is "", not a failure */
    }
    if (b.failed || b.data == NULL) {
        free(b.data);
        return BITCTS_E_OUT_OF_MEMORY;
    }
    *out = b.data;
    if (size != NULL) {
        *size = b.len;
    }
    return BITCTS_OK;
}

static int format_known(bitcts_report_format format)
{
    return format >= BITCTS_REPORT_FORMAT_JSON && format <= BITCTS_REPORT_FORMAT_TEXT;
}

bitcts_status bitcts_report_render(const json_t *report, bitcts_report_format format, char **out,
                                   size_t *size)
{
    if (out != NULL) {
        *out = NULL;
    }
    return bitcts_report_render_set(report, &format, 1, out, size);
}

bitcts_status bitcts_report_render_set(const json_t *report, const bitcts_report_format *formats,
                                       size_t count, char **out, size_t *size)
{
    if (report == NULL || formats == NULL || out == NULL) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    int views = 0;
    for (size_t i = 0; i < count; ++i) {
        out[i] = NULL;
        if (!format_known(formats[i])) {
            return BITCTS_E_INVALID_ARGUMENT;
        }
        views |= formats[i] != BITCTS_REPORT_FORMAT_JSON;
    }
    bitcts__report_view v;
    bitcts_status st = views ? bitcts__report_view_build(&v, report) : BITCTS_OK;
    if (st != BITCTS_OK) {
        return st;
    }
    for (size_t i = 0; st == BITCTS_OK && i < count; ++i) {
        size_t *len = size != NULL ? &size[i] : NULL;
        st = formats[i] == BITCTS_REPORT_FORMAT_JSON ? render_json(report, &out[i], len)
                                                     : render_view(&v, formats[i], &out[i], len);
    }
    if (views) {
        bitcts__report_view_release(&v);
    }
    for (size_t i = 0; st != BITCTS_OK && i < count; ++i) {
        free(out[i]);
        out[i] = NULL;
    }
    return st;
}
