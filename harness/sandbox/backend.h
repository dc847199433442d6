/* SPDX-License-Identifier: MIT */
/* Backends as the harness sees them: a spec ("cpu", "cpu:avx2", "./libimpl.so") resolved to a
 * built-in negotiate function or a plugin path, loaded through the plugin host, instances made
 * with the run's options, capabilities and identity read. Loading and every call into the
 * backend happen in a child process (harness/sandbox/sandbox.h); the parent only resolves the spec
 * and reads the identity a child sends it (bitcts_backend_identity_json). Every string the backend
 * gives is sanitised here. Thread-safety: one backend per process. */
#ifndef BITCTS_HARNESS_BACKEND_H
#define BITCTS_HARNESS_BACKEND_H

#include <jansson.h> /* json_t */
#include <stddef.h>  /* size_t */
#include <stdint.h>  /* uint32_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_abi_op_caps */
#include "plugin_host.h"          /* bitcts_plugin_host */

#define BITCTS_MAX_OPTIONS 16
#define BITCTS_BACKEND_TEXT 256        /* bytes of a sanitised string from a backend */
#define BITCTS_BACKEND_CLAIMS_TEXT 640 /* bitcts_backend_claims_text, and its difference */

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

/** A backend spec resolved without loading anything: a built-in, or a library file. */
typedef struct bitcts_backend_spec {
    const char *spec;               /* as given */
    int builtin;                    /* 1: a built-in backend */
    char name[64];                  /* the built-in's name, or the library path */
    char variant[64];               /* "name:variant" gives variant=VARIANT */
    bitcts_backend_options options; /* the run's options, with the variant's */
} bitcts_backend_spec;

/** A loaded backend (in a child): the host handle, its table, and what an instance said. */
typedef struct bitcts_backend {
    bitcts_backend_spec spec;
    bitcts_plugin_host *host;
    const bitcts_plugin_table *table;
    bitcts_backend_caps caps;
    char info_variant[BITCTS_BACKEND_TEXT];
    char info_features[BITCTS_BACKEND_TEXT];
    char info_extra[BITCTS_BACKEND_TEXT]; /* other instance_info keys, "key=value; ..." */
    char last_log[BITCTS_BACKEND_TEXT];   /* its last error or warning through the host log */
} bitcts_backend;

/** Resolves a spec: a known built-in ("cpu", "cpu:avx2": the variant becomes the option
 * variant=...) or an existing, readable file. Loads nothing: safe in the parent.
 * @return BITCTS_OK; BITCTS_E_NOT_FOUND (no such built-in, no such file); BITCTS_E_USAGE (a
 *         malformed variant, too many options); err says which. */
int bitcts_backend_resolve(const char *spec, const bitcts_backend_options *options,
                           bitcts_backend_spec *out, char *err, size_t cap);

/** Loads a resolved backend through the plugin host (dlopen and negotiation, or the built-in's
 * negotiate). In a child process only.
 * @return BITCTS_OK, or the host's status (BITCTS_E_PLUGIN_*) with its message. */
int bitcts_backend_load(const bitcts_backend_spec *spec, bitcts_backend *out, char *err,
                        size_t cap);

/** Creates an instance with the run's options. */
int bitcts_backend_instance(const bitcts_backend *b, void **instance, char *err, size_t cap);
/** Creates an instance with the run's options and `extra` ones (an extra key replaces the
 * run's option of that key): the bench's per-thread-count instances. */
int bitcts_backend_instance_with(const bitcts_backend *b, const bitcts_backend_options *extra,
                                 void **instance, char *err, size_t cap);

/** Reads the instance's capabilities and info into b (strings sanitised).
 * @return BITCTS_OK or BITCTS_E_BACKEND_FAILED (query_caps failed). */
int bitcts_backend_query(bitcts_backend *b, void *instance, char *err, size_t cap);

/** resolve + load + instance + query + destroy: a backend ready for cases, in a child. */
int bitcts_backend_open(const char *spec, const bitcts_backend_options *options,
                        bitcts_backend *out, char *err, size_t cap);
void bitcts_backend_close(bitcts_backend *b);
/** The end of a child process that ran the backend: plugin_shutdown, the library left loaded
 * (bitcts_plugin_host_shutdown); the child exits right after. */
void bitcts_backend_shutdown(bitcts_backend *b);

/** The identity and capabilities for report.json's "backend" (docs/report-schema.md), every
 * string sanitised: name, vendor, version, build_id, path, abi_version, library_xxh3_128,
 * library_size (bytes of the library file; 0 for a built-in), feature_level, capabilities, info.
 * New reference. */
json_t *bitcts_backend_identity_json(const bitcts_backend *b);

/** What the instance says about its device, from instance_info, every string sanitised: an
 * object with whichever of "device", "driver", "api_version" and "device_memory_mib" it gives
 * (empty for a CPU backend). New reference. */
json_t *bitcts_backend_device_json(const bitcts_backend *b, void *instance);

/** Names of the built-in backends, comma-separated, for messages; written into buf. */
const char *bitcts_backend_builtin_names(char *buf, size_t cap);

/** The claims that decide verdicts (the feature level, and per operator its type, rank and
 * flag masks or "none") as one line of space-separated words, "feature_level=0x4100
 * bit_and=in:0x3fc,out:0x3fc,dims:0x1fe,flags:0x1 bit_or=none ...": what a probe tells the
 * workers, which compare their own instance's with it. */
void bitcts_backend_claims_text(const bitcts_backend *b, char *out, size_t cap);

/** The claims of a bitcts_backend_claims_text line back into caps (the parent, which never
 * loads a backend, learns them from the probe this way). @return 0, or -1 for a malformed line. */
int bitcts_backend_claims_parse(const char *text, bitcts_backend_caps *out);

/** The first difference between two claims texts in words: "the backend's claims differ from
 * the probe's instance: bit_xor: the probe was told in:0x3fc,..., this instance says none
 * (claims may not change from instance to instance: PLG-14)". */
void bitcts_backend_claims_diff(const char *probe, const char *mine, char *out, size_t cap);

/** The op caps of `op` (NULL when the backend does not support it at all). */
const bitcts_abi_op_caps *bitcts_backend_op_caps(const bitcts_backend *b, uint32_t op);
/** The backend's last error text for an instance (instance_last_error, else its last log
 * message), sanitised into buf; "no detail" when it gave none. */
const char *bitcts_backend_last_error(const bitcts_backend *b, void *instance, char *buf,
                                      size_t cap);

#endif
