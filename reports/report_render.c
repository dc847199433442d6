/* SPDX-License-Identifier: MIT */
/* Rendering a validated report: the dispatcher of bitcts_report_render (report.json itself, or one
 * of the views built on report_view.c). */
#include <stdlib.h> /* free, realloc */
#include <string.h> /* memcpy, strlen */

#include "report_render.h"

bitcts_status bitcts_report_render(const json_t *report, bitcts_report_format format, char **out,
                                   size_t *size)
{
    if (report == NULL || out == NULL || format < BITCTS_REPORT_FORMAT_JSON ||
        format > BITCTS_REPORT_FORMAT_TEXT) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (format == BITCTS_REPORT_FORMAT_JSON) {
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
    bitcts__report_view v;
    const bitcts_status st = bitcts__report_view_build(&v, report);
    if (st != BITCTS_OK) {
        return st;
    }
    sbuf b = {0};
    if (format == BITCTS_REPORT_FORMAT_JUNIT) {
        bitcts__report_render_junit(&b, &v);
    } else if (format == BITCTS_REPORT_FORMAT_HTML) {
        bitcts__report_render_html(&b, &v);
    } else if (format == BITCTS_REPORT_FORMAT_MARKDOWN) {
        bitcts__report_render_markdown(&b, &v);
    } else {
        bitcts__report_render_text(&b, &v);
    }
    bitcts__report_view_release(&v);
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
