/* SPDX-License-Identifier: MIT */
/* Strict parsing of unsigned numbers and number lists. */
#include <errno.h>  /* errno */
#include <stdlib.h> /* strtoull */
#include <string.h> /* strchr, memcpy */

#include "number_text.h"

int bitcts_number_text_parse_u64(const char *text, uint64_t *out)
{
    if (text == NULL || !*text || *text == '-' || *text == '+' || *text == ' ') {
        return -1;
    }
    char *end = NULL;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end) {
        return -1;
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
