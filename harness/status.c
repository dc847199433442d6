/* SPDX-License-Identifier: MIT */
/* Names and messages of bitcts_status, generated from the one X-macro list. */
#include "bitcts/bitcts_status.h"

const char *bitcts_status_name(int status)
{
#define STATUS_NAME_CASE(name, value, message)                                                     \
    case value: return #name;
    switch (status) {
        BITCTS_STATUS_LIST(STATUS_NAME_CASE)
    default: return "BITCTS_E_UNKNOWN";
    }
#undef STATUS_NAME_CASE
}

const char *bitcts_status_message(int status)
{
#define STATUS_MESSAGE_CASE(name, value, message)                                                  \
    case value: return message;
    switch (status) {
        BITCTS_STATUS_LIST(STATUS_MESSAGE_CASE)
    default: return "unknown status";
    }
#undef STATUS_MESSAGE_CASE
}
