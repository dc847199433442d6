/* SPDX-License-Identifier: MIT */
/* The backends linked into the bitcts executable: a constant table of {name, negotiate, help}.
 * The only file outside a backend's own folder that names a backend; the harness reaches them
 * through it and the plugin ABI, exactly as it reaches a plugin library.
 * Thread-safety: the table is immutable. */
#ifndef BITCTS_BACKENDS_BUILTIN_H
#define BITCTS_BACKENDS_BUILTIN_H

#include "bitcts/bitcts_plugin.h" /* bitcts_plugin_negotiate_fn */

#ifdef __cplusplus
extern "C" {
#endif

/** One built-in backend. */
typedef struct bitcts_builtin_backend {
    const char *name;                     /* what --backend takes: "cpu" */
    bitcts_plugin_negotiate_fn negotiate; /* its bitcts_plugin_negotiate */
    const char *help;                     /* one line for --help and error messages */
} bitcts_builtin_backend;

/** The built-in backends, ending with an entry whose name is NULL. */
const bitcts_builtin_backend *bitcts_builtin_backends(void);

/** The built-in backend called `name`, or NULL. */
const bitcts_builtin_backend *bitcts_builtin_find(const char *name);

#ifdef __cplusplus
}
#endif
#endif
