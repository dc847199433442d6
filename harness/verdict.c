/* SPDX-License-Identifier: MIT */
/* Verdict names, generated from the one list. */
#include <string.h> /* strcmp */

#include "verdict.h"

#define VERDICT_NAME_ENTRY(name, value, text) [value] = text,
static const char *const verdict_names[BITCTS_VERDICT_COUNT] = {BITCTS_VERDICT_LIST(VERDICT_NAME_ENTRY)};

const char *bitcts_verdict_name(int v)
{
    return v >= 0 && v < BITCTS_VERDICT_COUNT ? verdict_names[v] : "unknown";
}

int bitcts_verdict_parse(const char *name)
{
    for (int v = 0; name && v < BITCTS_VERDICT_COUNT; v++) {
        if (strcmp(name, verdict_names[v]) == 0)
            return v;
    }
    return -1;
}

int bitcts_verdict_is_failure(int v)
{
    return v == BITCTS_VERDICT_FAIL || v == BITCTS_VERDICT_TIMEOUT || v == BITCTS_VERDICT_CRASH ||
           v == BITCTS_VERDICT_MISSING || v == BITCTS_VERDICT_INTERNAL_ERROR ||
           v == BITCTS_VERDICT_UNEXPECTED_PASS;
}
