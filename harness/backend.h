/* SPDX-License-Identifier: MIT */
/* Backends as the harness sees them: a spec ("cpu", "cpu:avx2", "./libimpl.so") resolved to a
 * built-in negotiate function or a plugin path, opened through the plugin host; instances made
 * with the run's options; capabilities gathered once. Thread-safety: one open backend per process.
 */
#ifndef BITCTS_HARNESS_BACKEND_H
#define BITCTS_HARNESS_BACKEND_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint32_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_abi_op_caps */
#include "plugin_host.h"          /* bitcts_plugin_host */

#define BITCTS_MAX_OPTIONS 16

typedef struct bitcts_backend_options {
    uint32_t count;
    const char *keys[BITCTS_MAX_OPTIONS];
    const char *values[BITCTS_MAX_OPTIONS];
} bitcts_backend_options;

typedef struct bitcts_backend_caps {
    uint32_t feature_level;
    int has_op[BITCTS_OP_COUNT]; /* indexed like bitcts_op_all */
    bitcts_abi_op_caps ops[BITCTS_OP_COUNT];
} bitcts_backend_caps;

/** An opened backend: the host handle, its table, and what the parent learnt from one instance. */
typedef struct bitcts_backend {
    bitcts_plugin_host *host;
    const bitcts_plugin_table *table;
    bitcts_backend_options options;
    bitcts_backend_caps caps;
    char info_variant[64];
    char info_features[256];
    char info_extra[256];    /* other instance_info keys, "key=value; ..." */
    char variant_option[64]; /* storage for the variant of a "name:variant" spec */
    char last_log[256];      /* the backend's last error or warning through the host log */
} bitcts_backend;

/** Resolves a spec and opens it; the built-in "cpu:VARIANT" adds the option variant=VARIANT.
 * Creates one instance to read capabilities and info, then destroys it.
 * @return BITCTS_OK or a status with a one-line message in err. */
int bitcts_backend_open(const char *spec, const bitcts_backend_options *options,
                        bitcts_backend *out, char *err, size_t cap);
void bitcts_backend_close(bitcts_backend *b);
/** Creates an instance with the run's options. */
int bitcts_backend_instance(const bitcts_backend *b, void **instance, char *err, size_t cap);
/** Creates an instance with the run's options and `extra` ones (an extra key replaces the
 * run's option of that key): the bench's per-thread-count instances. */
int bitcts_backend_instance_with(const bitcts_backend *b, const bitcts_backend_options *extra,
                                 void **instance, char *err, size_t cap);
/** Adds "KEY=VALUE" to the options; the key is copied into key_store[count] (64 bytes).
 * @return 0, or -1 when the text is not KEY=VALUE or the options are full. */
int bitcts_backend_options_add(bitcts_backend_options *o, char key_store[][64], const char *text);
/** Names of the built-in backends, comma-separated, for messages; written into buf. */
const char *bitcts_backend_builtin_names(char *buf, size_t cap);

/** The op caps of `op` (NULL when the backend does not support it at all). */
const bitcts_abi_op_caps *bitcts_backend_op_caps(const bitcts_backend *b, uint32_t op);

#endif
