/* SPDX-License-Identifier: MIT */
/* Strict parsing of unsigned numbers and number lists. */
#include <string.h> /* strchr, memcpy */

#include "number_text.h"

int bitcts_number_text_parse_u64(const char *text, uint64_t *out)
{
    if (text == NULL) {
        return -1;
    }
    /* Digit by digit: strtoull would also take leading white space, a sign, a second "0x" and
     * a leading 0 as octal ("010" is ten here). */
    const int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const unsigned base = hex ? 16 : 10;
    const char *p = hex ? text + 2 : text;
    uint64_t v = 0;
    if (*p == '\0') {
        return -1;
    }
    for (; *p; ++p) {
        const char c = *p;
        const unsigned digit = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                               : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                               : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                      : 16;
        if (digit >= base || v > (UINT64_MAX - digit) / base) {
            return -1;
        }
        v = v * base + digit;
    }
    *out = v;
    return 0;
}

int bitcts_number_text_parse_u32_list(const char *text, uint32_t *out, int cap)
{
    int n = 0;
    const char *p = text;
    if (p == NULL || !*p) {
        return -1;
    }
    while (*p) {
        const char *comma = strchr(p, ',');
        char item[32];
        const size_t len = comma != NULL ? (size_t)(comma - p) : strlen(p);
        if (len == 0 || len >= sizeof item || n >= cap) {
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        uint64_t v = 0;
        if (bitcts_number_text_parse_u64(item, &v) != 0 || v > UINT32_MAX) {
            return -1;
        }
        out[n++] = (uint32_t)v;
        if (comma == NULL) {
            break;
        }
        p = comma + 1;
        if (!*p) {
            return -1; /* trailing comma */
        }
    }
    return n;
}
