/* SPDX-License-Identifier: MIT */
/* The plugin host: opens a backend plugin from an explicit path (or takes a built-in backend's
 * negotiate function), negotiates the ABI version, validates the function table and keeps a
 * host-side, full-size copy of it, plus the plugin's identity and the XXH3-128 digest of its
 * file. The harness calls it; it is internal and never installed. docs/plugin-abi.md (PLG-n).
 * Thread-safety: a bitcts_plugin_host is immutable between open and close, so its queries and
 * its table may be used from several threads (the plugin's own rules still apply: one thread
 * per instance). Open and close must not race with any other use of the same handle. */
#ifndef BITCTS_BACKENDS_PLUGIN_PLUGIN_HOST_H
#define BITCTS_BACKENDS_PLUGIN_PLUGIN_HOST_H

#include <stddef.h> /* size_t, offsetof */
#include <stdint.h> /* uint32_t, int32_t */

#include "bitcts/bitcts_plugin.h" /* bitcts_plugin_table, bitcts_plugin_negotiate_fn */
#include "bitcts/bitcts_status.h" /* bitcts_status, BITCTS_NODISCARD */

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI versions this host speaks. A minor bump raises MAX only; it stays backward
 * compatible because tables and records are append-only (PLG-2, PLG-4). */
#define BITCTS_PLUGIN_HOST_MIN_VERSION BITCTS_ABI_VERSION(1, 0)
#define BITCTS_PLUGIN_HOST_MAX_VERSION BITCTS_ABI_VERSION(1, 0)

/* The mandatory part of an ABI 1.x function table: everything up to and including
 * operator_destroy. A table whose struct_size is smaller is malformed (PLG-3). */
#define BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE                                                          \
    (offsetof(bitcts_plugin_table, operator_destroy) +                                             \
     sizeof(((const bitcts_plugin_table *)0)->operator_destroy))
/* A struct_size above this is treated as garbage rather than as a far-future table. */
#define BITCTS_PLUGIN_HOST_TABLE_MAX_SIZE 65536u

/* Hex digits of the XXH3-128 file digest (the string holds one more byte for the NUL). */
#define BITCTS_PLUGIN_HOST_DIGEST_CHARS 32u
/* A comfortable size for the caller's error buffer; longer messages are truncated. */
#define BITCTS_PLUGIN_HOST_ERROR_CAP 512u

/** Receives a plugin's log messages: level is BITCTS_ABI_LOG_*, message is borrowed. */
typedef void (*bitcts_plugin_host_log_fn)(void *user, int32_t level, const char *message);
/** Allocation hooks; both NULL means libc malloc/free. */
typedef void *(*bitcts_plugin_host_alloc_fn)(void *user, size_t size);
typedef void (*bitcts_plugin_host_free_fn)(void *user, void *ptr);

/** Options of a load. Copied at open; a NULL config means "no log, libc allocator". */
typedef struct bitcts_plugin_host_config {
    bitcts_plugin_host_log_fn log; /* NULL: the plugin's messages are dropped */
    void *log_user;                /* retained until close */
    bitcts_plugin_host_alloc_fn alloc;
    bitcts_plugin_host_free_fn free;
    void *alloc_user; /* retained until close */
} bitcts_plugin_host_config;

/** One loaded plugin (or built-in backend) with its validated table. */
typedef struct bitcts_plugin_host bitcts_plugin_host;

/* ---- lifecycle ---- */

/** Opens the plugin library at an explicit path (a name without '/' is taken relative to the
 * current directory, never searched for), negotiates and validates it (PLG-1..PLG-5).
 * @param path [in] file of the library.
 * @param config [in] optional; NULL for defaults.
 * @param out [out] the loaded plugin, to be closed with bitcts_plugin_host_close.
 * @param err [out] optional; receives one line "plugin PATH: problem" on failure, "" on success.
 * @return BITCTS_OK; BITCTS_E_INVALID_ARGUMENT (NULL or empty path, NULL out, half an
 *         allocator); BITCTS_E_OUT_OF_MEMORY; BITCTS_E_IO (the file cannot be read for its
 *         digest); BITCTS_E_PLUGIN_LOAD (dlopen failed, the library is already loaded in this
 *         process, or negotiate returned an error);
 *         BITCTS_E_PLUGIN_SYMBOL; BITCTS_E_PLUGIN_INCOMPATIBLE; BITCTS_E_PLUGIN_MALFORMED. */
BITCTS_NODISCARD bitcts_status bitcts_plugin_host_open(const char *path,
                                                       const bitcts_plugin_host_config *config,
                                                       bitcts_plugin_host **out, char *err,
                                                       size_t err_cap);

/** Same checks as bitcts_plugin_host_open for a backend linked into the executable. Its path
 * reads "builtin:NAME" and its digest is "" (there is no library file). Like a library, a
 * built-in is open at most once at a time (nothing here can detect a second open).
 * @param name [in] short backend name used in the path and in messages.
 * @param negotiate [in] the backend's negotiate function.
 * @return as bitcts_plugin_host_open, without BITCTS_E_IO, _PLUGIN_LOAD for dlopen and
 *         _PLUGIN_SYMBOL (a NULL negotiate is BITCTS_E_INVALID_ARGUMENT). */
BITCTS_NODISCARD bitcts_status bitcts_plugin_host_open_builtin(
    const char *name, bitcts_plugin_negotiate_fn negotiate, const bitcts_plugin_host_config *config,
    bitcts_plugin_host **out, char *err, size_t err_cap);

/** Calls the plugin's plugin_shutdown (when provided), then dlclose. Accepts NULL.
 * @pre every instance created through the table has been destroyed. */
void bitcts_plugin_host_close(bitcts_plugin_host *host);

/** Calls the plugin's plugin_shutdown (when provided) and frees the handle, but leaves the
 * library loaded: for a process that ends right after. A thread the plugin left running keeps
 * the code it runs (unloading it would let that thread fault in unmapped code, after its cases
 * ended), and the library's destructors do not run (the process ends without them). Accepts
 * NULL.
 * @pre every instance created through the table has been destroyed. */
void bitcts_plugin_host_shutdown(bitcts_plugin_host *host);

/* ---- queries (strings live until close; never NULL) ---- */

/** The validated table: a host-side copy of sizeof(bitcts_plugin_table) bytes, zero-filled
 * beyond the plugin's struct_size, so a slot the plugin did not provide reads as NULL. */
const bitcts_plugin_table *bitcts_plugin_host_table(const bitcts_plugin_host *host);
/** The struct_size the plugin wrote in its table (may exceed sizeof(bitcts_plugin_table)). */
uint32_t bitcts_plugin_host_table_size(const bitcts_plugin_host *host);
/** The ABI version both sides agreed on (BITCTS_ABI_VERSION packing). */
uint32_t bitcts_plugin_host_abi_version(const bitcts_plugin_host *host);
/** The path opened (a bare file name gets "./" in front), or "builtin:NAME". */
const char *bitcts_plugin_host_path(const bitcts_plugin_host *host);
/** Identity from the table; "" where the plugin left vendor, version or build_id NULL. */
const char *bitcts_plugin_host_name(const bitcts_plugin_host *host);
const char *bitcts_plugin_host_vendor(const bitcts_plugin_host *host);
const char *bitcts_plugin_host_version(const bitcts_plugin_host *host);
const char *bitcts_plugin_host_build_id(const bitcts_plugin_host *host);
/** XXH3-128 of the library file as 32 lowercase hex digits (xxhsum's order); "" for built-ins. */
const char *bitcts_plugin_host_digest(const bitcts_plugin_host *host);

/* ---- operations ---- */

/** Checks the outcome of a negotiation without calling into the plugin and without
 * dereferencing any pointer found in the table, so it works on any byte buffer (fuzzable).
 * @param plugin_status [in] what bitcts_plugin_negotiate returned.
 * @param chosen_version [in] the version the plugin wrote back.
 * @param table [in] image of the plugin's table, or NULL when the plugin gave none.
 * @param table_readable [in] bytes readable at table; SIZE_MAX when unknown (a live plugin:
 *        its struct_size is then trusted up to BITCTS_PLUGIN_HOST_TABLE_MAX_SIZE).
 * @param host_min [in] lowest version the host speaks.
 * @param host_max [in] highest version the host speaks.
 * @param out_table [out] optional; on success the full-size copy of the fields wholly inside
 *        the plugin's struct_size, zero-filled beyond, with struct_size set to the bytes
 *        copied (a pointer slot cut by struct_size is not copied: PLG-3).
 * @param why [out] optional; the problem, without the "plugin PATH: " prefix.
 * @return BITCTS_OK; BITCTS_E_PLUGIN_LOAD (the plugin returned an error other than
 *         INCOMPATIBLE); BITCTS_E_PLUGIN_INCOMPATIBLE; BITCTS_E_PLUGIN_MALFORMED. */
BITCTS_NODISCARD bitcts_status bitcts_plugin_host_validate_negotiation(
    int32_t plugin_status, uint32_t chosen_version, const void *table, size_t table_readable,
    uint32_t host_min, uint32_t host_max, bitcts_plugin_table *out_table, char *why,
    size_t why_cap);

/** Streams a file through XXH3-128 and writes 32 lowercase hex digits and a NUL.
 * @param out_hex [out] at least BITCTS_PLUGIN_HOST_DIGEST_CHARS + 1 bytes.
 * @return BITCTS_OK, BITCTS_E_INVALID_ARGUMENT, BITCTS_E_IO (detail in err). */
BITCTS_NODISCARD bitcts_status bitcts_plugin_host_hash_file(const char *path, char *out_hex,
                                                            char *err, size_t err_cap);

#ifdef __cplusplus
}
#endif
#endif
