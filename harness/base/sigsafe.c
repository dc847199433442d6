/* SPDX-License-Identifier: MIT */
/* Async-signal-safe line building. */
#include "sigsafe.h"

void bitcts_sigsafe_text(bitcts_sigsafe_line *l, const char *text)
{
    for (; *text != '\0' && l->len + 1 < l->cap; ++text) {
        l->out[l->len++] = *text;
    }
    l->out[l->len] = '\0';
}

void bitcts_sigsafe_number(bitcts_sigsafe_line *l, uint64_t v)
{
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    char text[24];
    for (size_t i = 0; i < n; ++i) {
        text[i] = digits[n - 1 - i];
    }
    text[n] = '\0';
    bitcts_sigsafe_text(l, text);
}

void bitcts_sigsafe_hex(bitcts_sigsafe_line *l, uint64_t v)
{
    char text[19] = "0x";
    for (int i = 0; i < 16; ++i) {
        text[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xF];
    }
    text[18] = '\0';
    bitcts_sigsafe_text(l, text);
}
