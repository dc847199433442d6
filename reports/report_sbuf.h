/* SPDX-License-Identifier: MIT */
/* The renderers' text buffer: a growable string that remembers an allocation failure (so a
 * renderer reads top to bottom and checks once at the end), and the escapers every string from
 * a report goes through (XML/HTML text and attributes, Markdown text, code spans and table
 * cells). Internal to reports/. Thread-safety: a buffer is single-threaded. */
#ifndef BITCTS_REPORTS_REPORT_SBUF_H
#define BITCTS_REPORTS_REPORT_SBUF_H

#include <stdarg.h> /* va_list */
#include <stdio.h>  /* vsnprintf */
#include <stdlib.h> /* realloc, free */
#include <string.h> /* memcpy, strlen, strchr */

#include "bitcts/bitcts_status.h" /* BITCTS_PRINTF */

typedef struct sbuf {
    char *data;
    size_t len;
    size_t cap;
    int failed;
} sbuf;

static inline void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->failed) {
        return;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n + 1) {
            cap *= 2;
        }
        char *grown = realloc(b->data, cap);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static inline void sb_puts(sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static inline void sb_printf(sbuf *b, const char *fmt, ...) BITCTS_PRINTF(2, 3);

static inline void sb_printf(sbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
    } else if ((size_t)n < sizeof small) {
        sb_add(b, small, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (big == NULL) {
            b->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb_add(b, big, (size_t)n);
        free(big);
    }
}

/* XML and HTML text: & < > " ' become references; characters XML 1.0 cannot hold (controls
 * other than tab and newline, U+FFFE, U+FFFF) become U+FFFD; in attributes tab and newline are
 * kept as references so that they survive attribute normalisation. */
static inline void sb_esc(sbuf *b, const char *s, int attr)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        const char *rep = NULL;
        switch (*p) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        case '\n': rep = attr ? "&#10;" : "\n"; break;
        case '\t': rep = attr ? "&#9;" : "\t"; break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                rep = "\xEF\xBF\xBD";
            } else if (p[0] == 0xEF && p[1] == 0xBF && (p[2] == 0xBE || p[2] == 0xBF)) {
                rep = "\xEF\xBF\xBD", p += 2;
            }
        }
        if (rep != NULL) {
            sb_puts(b, rep);
        } else {
            sb_add(b, (const char *)p, 1);
        }
    }
}

/* Markdown text: ASCII punctuation with a meaning is backslash-escaped, line breaks become
 * spaces, so a detail cannot open a table cell, a link, an HTML tag or a heading. */
static inline void sb_md(sbuf *b, const char *s)
{
    for (const char *p = s; *p; ++p) {
        if (*p == '\n' || *p == '\r' || *p == '\t') {
            sb_add(b, " ", 1);
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            sb_puts(b, "\xEF\xBF\xBD");
        } else if (strchr("\\`*_[]<>|#!~&", *p) != NULL) {
            sb_add(b, (const char[]){'\\', *p}, 2);
        } else {
            sb_add(b, p, 1);
        }
    }
}

/* A Markdown code span: the fence is one backtick longer than the longest run inside. In a
 * table cell '|' is escaped, which GitHub requires even inside code; elsewhere a backslash
 * would show, so it is not. */
static inline void sb_md_span(sbuf *b, const char *s, int in_table)
{
    size_t longest = 0;
    size_t run = 0;
    for (const char *p = s; *p; ++p) {
        run = *p == '`' ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    if (longest >= 7) { /* no fence of ours could hold it: escaped text instead */
        sb_md(b, s);
        return;
    }
    const size_t fence = longest + 1;
    const int pad = *s == '`' || (*s && s[strlen(s) - 1] == '`');
    sb_add(b, "````````", fence);
    if (pad) {
        sb_add(b, " ", 1);
    }
    for (const char *p = s; *p; ++p) {
        if (*p == '|' && in_table) {
            sb_puts(b, "\\|");
        } else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            sb_add(b, " ", 1);
        } else {
            sb_add(b, p, 1);
        }
    }
    if (pad) {
        sb_add(b, " ", 1);
    }
    sb_add(b, "````````", fence);
}

static inline void sb_esc_text(sbuf *b, const char *s)
{
    sb_esc(b, s, 0);
}

static inline void sb_md_code(sbuf *b, const char *s)
{
    sb_md_span(b, s, 0);
}

static inline void sb_md_cell(sbuf *b, const char *s)
{
    sb_md_span(b, s, 1);
}

/* Writes its arguments alternately as they are and through esc (one of the escapers above):
 * literal, value, literal, value, ..., ending with a NULL where a literal or a value would come.
 * A value is never NULL. */
static inline void sb_seq(sbuf *b, void (*esc)(sbuf *, const char *), const char *literal, ...)
{
    va_list ap;
    va_start(ap, literal);
    while (literal != NULL) {
        sb_puts(b, literal);
        const char *value = va_arg(ap, const char *);
        if (value == NULL) {
            break;
        }
        esc(b, value);
        literal = va_arg(ap, const char *);
    }
    va_end(ap);
}

#endif
