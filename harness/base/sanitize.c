/* SPDX-License-Identifier: MIT */
/* UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) and escaping
 * of what is not printable text. */
#include <stdarg.h> /* va_list */
#include <stdint.h> /* uint32_t */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memcpy, strnlen */

#include "sanitize.h"

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), or 0, and its code point. */
static size_t utf8_sequence(const unsigned char *p, size_t n, uint32_t *cp)
{
    const unsigned char c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len = 0;
    uint32_t min = 0;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, min = 0x80, *cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, min = 0x800, *cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, min = 0x10000, *cp = c & 0x07u;
    } else {
        return 0;
    }
    if (len > n) {
        return 0;
    }
    for (size_t i = 1; i < len; ++i) {
        if ((p[i] & 0xC0) != 0x80) {
            return 0;
        }
        *cp = (*cp << 6) | (p[i] & 0x3Fu);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) {
        return 0;
    }
    return len;
}

/* The escape of a control character or of a stray byte, into buf. */
static size_t escape(uint32_t cp, int stray, char *buf, size_t size)
{
    if (stray) {
        return (size_t)snprintf(buf, size, "\\x%02X", (unsigned)cp);
    }
    switch (cp) {
    case '\n': return (size_t)snprintf(buf, size, "\\n");
    case '\t': return (size_t)snprintf(buf, size, "\\t");
    case '\r': return (size_t)snprintf(buf, size, "\\r");
    case '\\': return (size_t)snprintf(buf, size, "\\\\");
    default: return (size_t)snprintf(buf, size, "\\u%04X", (unsigned)cp);
    }
}

static int is_control(uint32_t cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

char *bitcts_sanitize_text(const char *text, size_t len, char *out, size_t cap)
{
    size_t used = 0;
    const unsigned char *p = (const unsigned char *)(text != NULL ? text : "");
    const size_t n = text != NULL ? len : 0;
    const size_t limit = cap - 4; /* room for "..." and the NUL */
    for (size_t i = 0; i < n;) {
        uint32_t cp = p[i];
        size_t seq = utf8_sequence(p + i, n - i, &cp);
        char piece[16];
        size_t piece_len = 0;
        if (seq == 0) {
            piece_len = escape(p[i], 1, piece, sizeof piece);
            seq = 1;
        } else if (is_control(cp) || cp == '\\') {
            piece_len = escape(cp, 0, piece, sizeof piece);
        } else {
            memcpy(piece, p + i, seq);
            piece_len = seq;
        }
        if (used + piece_len > limit) {
            memcpy(out + used, "...", 3);
            used += 3;
            break;
        }
        memcpy(out + used, piece, piece_len);
        used += piece_len;
        i += seq;
    }
    out[used] = '\0';
    return out;
}

char *bitcts_sanitize_string(const char *text, size_t max_in, char *out, size_t cap)
{
    return bitcts_sanitize_text(text, text != NULL ? strnlen(text, max_in) : 0, out, cap);
}

int bitcts_sanitize_is_clean(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        const size_t seq = utf8_sequence(p + i, len - i, &cp);
        if (seq == 0 || (is_control(cp) && cp != '\t')) {
            return 0;
        }
        i += seq;
    }
    return 1;
}

int bitcts_sanitize_is_utf8(const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < len;) {
        uint32_t cp = 0;
        const size_t seq = utf8_sequence(p + i, len - i, &cp);
        if (seq == 0) {
            return 0;
        }
        i += seq;
    }
    return 1;
}

/* ---- shell words ---- */

char *bitcts_sanitize_again(const char *text, size_t max_in, char *out, size_t cap)
{
    const size_t len = text != NULL ? strnlen(text, max_in) : 0;
    if (text != NULL && bitcts_sanitize_is_clean(text, len) && len < cap) {
        memcpy(out, text, len);
        out[len] = '\0';
        return out;
    }
    return bitcts_sanitize_text(text, len, out, cap);
}

static void put(char *out, size_t cap, size_t *used, const char *piece)
{
    for (; *piece != '\0' && *used + 1 < cap; ++piece) {
        out[(*used)++] = *piece;
    }
    out[*used] = '\0';
}

char *bitcts_shell_quote(const char *text, char *out, size_t cap)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_./:=,+-@%";
    const size_t n = strlen(text);
    size_t used = 0;
    out[0] = '\0';
    if (n > 0 && strspn(text, plain) == n) {
        put(out, cap, &used, text);
        return out;
    }
    if (bitcts_sanitize_is_clean(text, n) && strchr(text, '\t') == NULL) {
        put(out, cap, &used, "'");
        for (const char *p = text; *p != '\0'; ++p) {
            const char piece[2] = {*p, '\0'};
            put(out, cap, &used, *p == '\'' ? "'\\''" : piece);
        }
        put(out, cap, &used, "'");
        return out;
    }
    put(out, cap, &used, "$'");
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; ++p) {
        char piece[8];
        if (*p == '\'' || *p == '\\') {
            snprintf(piece, sizeof piece, "\\%c", *p);
        } else if (*p < 0x20 || *p >= 0x7F) {
            snprintf(piece, sizeof piece, "\\x%02X", *p);
        } else {
            piece[0] = (char)*p;
            piece[1] = '\0';
        }
        put(out, cap, &used, piece);
    }
    put(out, cap, &used, "'");
    return out;
}

void bitcts_problem_say(const bitcts_problem_sink *sink, const char *fmt, ...)
{
    char raw[1200], clean[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    ++*sink->count;
    if (sink->fn != NULL) {
        sink->fn(sink->user, bitcts_sanitize_string(raw, sizeof raw, clean, sizeof clean));
    }
}
