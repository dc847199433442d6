/* SPDX-License-Identifier: MIT */
/* Status codes of bitcts: one X-macro list generates the enum, the names and the messages
 * (static inline, so the SDK needs no library), and the one way to word a failure's detail.
 * Values are pinned: never renumbered, never reused. Thread-safety: all functions are pure but
 * for writing the caller's err buffer. */
#ifndef BITCTS_INCLUDE_BITCTS_STATUS_H
#define BITCTS_INCLUDE_BITCTS_STATUS_H

#include <stdarg.h> /* va_list */
#include <stddef.h> /* size_t */
#include <stdio.h>  /* vsnprintf */

#ifdef __cplusplus
extern "C" {
#endif

/* name, value, message. Ranges: 1-99 general, 100-199 I/O and vectors, 200-299 backends,
 * 300-399 plugins. */
#define BITCTS_STATUS_LIST(X)                                                                      \
    X(BITCTS_OK, 0, "success")                                                                     \
    X(BITCTS_E_INVALID_ARGUMENT, 1, "invalid argument")                                            \
    X(BITCTS_E_OUT_OF_MEMORY, 2, "out of memory")                                                  \
    X(BITCTS_E_OVERFLOW, 3, "arithmetic overflow")                                                 \
    X(BITCTS_E_INVALID_DESCRIPTOR, 4, "invalid tensor or operator description")                    \
    X(BITCTS_E_NOT_FOUND, 5, "not found")                                                          \
    X(BITCTS_E_INTERNAL, 6, "internal error")                                                      \
    X(BITCTS_E_USAGE, 7, "invalid command line")                                                   \
    X(BITCTS_E_IO, 100, "input/output error")                                                      \
    X(BITCTS_E_PARSE, 101, "malformed input")                                                      \
    X(BITCTS_E_FORMAT_VERSION, 102, "unsupported format version")                                  \
    X(BITCTS_E_EXISTS, 103, "destination exists and is not a bitcts output")                       \
    X(BITCTS_E_NOT_SUPPORTED, 200, "not supported by the backend")                                 \
    X(BITCTS_E_BACKEND_FAILED, 201, "backend execution failed")                                    \
    X(BITCTS_E_DEVICE, 202, "device error")                                                        \
    X(BITCTS_E_PLUGIN_LOAD, 300, "plugin could not be loaded")                                     \
    X(BITCTS_E_PLUGIN_SYMBOL, 301, "plugin entry point missing")                                   \
    X(BITCTS_E_PLUGIN_INCOMPATIBLE, 302, "plugin ABI version incompatible")                        \
    X(BITCTS_E_PLUGIN_MALFORMED, 303, "plugin function table malformed")

#define BITCTS_STATUS_ENUM_ENTRY(name, value, message) name = value,
typedef enum bitcts_status { BITCTS_STATUS_LIST(BITCTS_STATUS_ENUM_ENTRY) } bitcts_status;
#undef BITCTS_STATUS_ENUM_ENTRY

/* Marks a function whose status must not be ignored (a warning under GCC and Clang). An
 * includer's own definition comes first. */
#ifndef BITCTS_NODISCARD
#if defined(__GNUC__) || defined(__clang__)
#define BITCTS_NODISCARD __attribute__((warn_unused_result))
#else
#define BITCTS_NODISCARD
#endif
#endif

/* Marks a printf-like function: argument FMT is the format, the values start at ARGS (checked
 * under GCC and Clang). An includer's own definition comes first. */
#ifndef BITCTS_PRINTF
#if defined(__GNUC__) || defined(__clang__)
#define BITCTS_PRINTF(FMT, ARGS) __attribute__((format(printf, FMT, ARGS)))
#else
#define BITCTS_PRINTF(FMT, ARGS)
#endif
#endif

/** Writes the detail text of a failure to err (when err is not NULL and cap > 0) and returns
 * status: one line naming the problem, kept by whoever reports it. */
static inline int bitcts_status_vfail(char *err, size_t cap, int status, const char *fmt,
                                      va_list ap)
{
    if (err != NULL && cap > 0) {
        vsnprintf(err, cap, fmt, ap);
    }
    return status;
}

/** bitcts_status_vfail with the values given inline. */
static inline int bitcts_status_fail(char *err, size_t cap, int status, const char *fmt, ...)
    BITCTS_PRINTF(4, 5);

static inline int bitcts_status_fail(char *err, size_t cap, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int st = bitcts_status_vfail(err, cap, status, fmt, ap);
    va_end(ap);
    return st;
}

/** Symbolic name of a status ("BITCTS_E_PARSE"); static, never NULL ("BITCTS_E_UNKNOWN"). */
static inline const char *bitcts_status_name(int status)
{
#define BITCTS_STATUS_NAME_CASE(name, value, message)                                              \
    case value: return #name;
    switch (status) {
        BITCTS_STATUS_LIST(BITCTS_STATUS_NAME_CASE)
    default: return "BITCTS_E_UNKNOWN";
    }
#undef BITCTS_STATUS_NAME_CASE
}

/** Human message of a status; static, never NULL ("unknown status" for unknown codes). */
static inline const char *bitcts_status_message(int status)
{
#define BITCTS_STATUS_MESSAGE_CASE(name, value, message)                                           \
    case value: return message;
    switch (status) {
        BITCTS_STATUS_LIST(BITCTS_STATUS_MESSAGE_CASE)
    default: return "unknown status";
    }
#undef BITCTS_STATUS_MESSAGE_CASE
}

#ifdef __cplusplus
}
#endif
#endif
