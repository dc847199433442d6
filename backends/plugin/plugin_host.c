/* SPDX-License-Identifier: MIT */
/* The plugin host: dlopen of an explicit path, one symbol, version negotiation and a validated
 * host-side copy of the plugin's table (docs/plugin-abi.md, PLG-1..PLG-5). Validation is a pure
 * function over bytes so that the fuzzer and the loader run the same checks. */
#define _POSIX_C_SOURCE 200809L /* dlopen, clock_gettime */

#include "plugin_host.h"

#include <dlfcn.h>  /* dlopen, dlsym, dlclose, dlerror */
#include <errno.h>  /* errno */
#include <stdarg.h> /* va_list */
#include <stdio.h>  /* snprintf, fopen, fread */
#include <stdlib.h> /* malloc, free */
#include <string.h> /* memcpy, memset, strlen, strchr, strerror */
#include <time.h>   /* clock_gettime, CLOCK_MONOTONIC */

#define XXH_INLINE_ALL /* header-only: cannot clash with a plugin's own xxHash */
#include <xxhash.h>    /* XXH3_128bits_* */

struct bitcts_plugin_host {
    bitcts_plugin_host_config config;
    bitcts_abi_host services;  /* retained by the plugin until plugin_shutdown */
    bitcts_plugin_table table; /* validated full-size copy */
    uint32_t table_size;       /* the plugin's own struct_size */
    uint32_t abi_version;
    void *library; /* dlopen handle; NULL for a built-in backend */
    char *path;    /* as opened ("./" before a bare name) or "builtin:NAME"; after the struct */
    char digest[BITCTS_PLUGIN_HOST_DIGEST_CHARS + 1];
};

/* The mandatory slots of ABI 1.x in table order, with the names used in messages. */
typedef struct host_slot {
    const char *name;
    size_t offset;
} host_slot;

static const host_slot host_mandatory_slots[] = {
    {"name", offsetof(bitcts_plugin_table, name)},
    {"instance_create", offsetof(bitcts_plugin_table, instance_create)},
    {"instance_destroy", offsetof(bitcts_plugin_table, instance_destroy)},
    {"query_caps", offsetof(bitcts_plugin_table, query_caps)},
    {"query_op_caps", offsetof(bitcts_plugin_table, query_op_caps)},
    {"operator_create", offsetof(bitcts_plugin_table, operator_create)},
    {"operator_execute", offsetof(bitcts_plugin_table, operator_execute)},
    {"operator_destroy", offsetof(bitcts_plugin_table, operator_destroy)},
};

_Static_assert((sizeof(bitcts_plugin_table) - BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE) % sizeof(void *) ==
                   0,
               "the optional part of the table is pointer slots");

/* Formats into an optional caller buffer; a NULL buffer or zero capacity discards the text. */
static void host_format(char *buf, size_t cap, const char *fmt, ...)
{
    if (buf == NULL || cap == 0) {
        return;
    }
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, cap, fmt, args);
    va_end(args);
}

/* True when the pointer-sized field at `offset` of the table image is all zero bytes: a NULL
 * slot, read without forming a pointer the image may not really hold. */
static int host_slot_is_null(const bitcts_plugin_table *table, size_t offset)
{
    unsigned char bytes[sizeof(void *)];
    memcpy(bytes, (const unsigned char *)table + offset, sizeof bytes);
    for (size_t i = 0; i < sizeof bytes; ++i) {
        if (bytes[i] != 0) {
            return 0;
        }
    }
    return 1;
}

/* The version half of the validation: the plugin's answer and its choice. */
static bitcts_status host_check_version(int32_t plugin_status, uint32_t chosen_version,
                                        uint32_t host_min, uint32_t host_max, char *why,
                                        size_t why_cap)
{
    const unsigned min_major = BITCTS_ABI_MAJOR(host_min);
    const unsigned min_minor = BITCTS_ABI_MINOR(host_min);
    const unsigned max_major = BITCTS_ABI_MAJOR(host_max);
    const unsigned max_minor = BITCTS_ABI_MINOR(host_max);
    if (plugin_status == BITCTS_ABI_E_INCOMPATIBLE) {
        host_format(why, why_cap, "refused every ABI version the host speaks (%u.%u-%u.%u)",
                    min_major, min_minor, max_major, max_minor);
        return BITCTS_E_PLUGIN_INCOMPATIBLE;
    }
    if (plugin_status != BITCTS_ABI_OK) {
        host_format(why, why_cap, "%s failed with status %d", BITCTS_PLUGIN_ENTRY_NAME,
                    (int)plugin_status);
        return BITCTS_E_PLUGIN_LOAD;
    }
    const unsigned major = BITCTS_ABI_MAJOR(chosen_version);
    if (major < min_major || major > max_major) {
        host_format(why, why_cap, "ABI major %u not supported (host speaks %u.%u-%u.%u)", major,
                    min_major, min_minor, max_major, max_minor);
        return BITCTS_E_PLUGIN_INCOMPATIBLE;
    }
    if (chosen_version < host_min || chosen_version > host_max) {
        host_format(why, why_cap, "chose ABI %u.%u, outside what the host speaks (%u.%u-%u.%u)",
                    major, (unsigned)BITCTS_ABI_MINOR(chosen_version), min_major, min_minor,
                    max_major, max_minor);
        return BITCTS_E_PLUGIN_INCOMPATIBLE;
    }
    return BITCTS_OK;
}

bitcts_status bitcts_plugin_host_validate_negotiation(
    int32_t plugin_status, uint32_t chosen_version, const void *table, size_t table_readable,
    uint32_t host_min, uint32_t host_max, bitcts_plugin_table *out_table, char *why, size_t why_cap)
{
    host_format(why, why_cap, "%s", "");
    const bitcts_status status =
        host_check_version(plugin_status, chosen_version, host_min, host_max, why, why_cap);
    if (status != BITCTS_OK) {
        return status;
    }
    if (table == NULL) {
        host_format(why, why_cap, "%s", "function table is NULL");
        return BITCTS_E_PLUGIN_MALFORMED;
    }
    uint32_t struct_size = 0;
    if (table_readable < sizeof struct_size) {
        host_format(why, why_cap, "function table truncated at %zu bytes", table_readable);
        return BITCTS_E_PLUGIN_MALFORMED;
    }
    memcpy(&struct_size, table, sizeof struct_size);
    if (struct_size < BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE) {
        host_format(why, why_cap,
                    "table struct_size %u is smaller than the mandatory part of ABI %u.%u (%zu "
                    "bytes)",
                    struct_size, (unsigned)BITCTS_ABI_MAJOR(chosen_version),
                    (unsigned)BITCTS_ABI_MINOR(chosen_version),
                    (size_t)BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE);
        return BITCTS_E_PLUGIN_MALFORMED;
    }
    if (struct_size > BITCTS_PLUGIN_HOST_TABLE_MAX_SIZE) {
        host_format(why, why_cap, "table struct_size %u exceeds the limit of %u bytes", struct_size,
                    BITCTS_PLUGIN_HOST_TABLE_MAX_SIZE);
        return BITCTS_E_PLUGIN_MALFORMED;
    }
    if (struct_size > table_readable) {
        host_format(why, why_cap, "table struct_size %u exceeds the %zu bytes available",
                    struct_size, table_readable);
        return BITCTS_E_PLUGIN_MALFORMED;
    }

    /* Only the fields wholly inside the plugin's struct_size are read (PLG-3); the rest stays
     * zero, which every later reader sees as "slot not provided". Past the mandatory part every
     * field is one pointer, so a struct_size that cuts a pointer drops that pointer rather
     * than keep some of its bytes. */
    bitcts_plugin_table copy;
    memset(&copy, 0, sizeof copy);
    size_t copied = struct_size < sizeof copy ? struct_size : sizeof copy;
    copied -= (copied - BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE) % sizeof(void *);
    memcpy(&copy, table, copied);
    copy.struct_size = (uint32_t)copied;
    for (size_t i = 0; i < sizeof host_mandatory_slots / sizeof host_mandatory_slots[0]; ++i) {
        if (host_slot_is_null(&copy, host_mandatory_slots[i].offset)) {
            host_format(why, why_cap, "table slot %s is NULL", host_mandatory_slots[i].name);
            return BITCTS_E_PLUGIN_MALFORMED;
        }
    }
    if (out_table != NULL) {
        *out_table = copy;
    }
    return BITCTS_OK;
}

bitcts_status bitcts_plugin_host_hash_file(const char *path, char *out_hex, char *err,
                                           size_t err_cap)
{
    host_format(err, err_cap, "%s", "");
    if (path == NULL || out_hex == NULL) {
        host_format(err, err_cap, "%s", "hash_file: NULL path or output");
        return BITCTS_E_INVALID_ARGUMENT;
    }
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        host_format(err, err_cap, "cannot open %s for its digest: %s", path, strerror(errno));
        return BITCTS_E_IO;
    }
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    (void)XXH3_128bits_reset(&state);
    unsigned char chunk[16384];
    size_t got = 0;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0) {
        (void)XXH3_128bits_update(&state, chunk, got);
    }
    const int failed = ferror(file);
    fclose(file);
    if (failed) {
        host_format(err, err_cap, "cannot read %s for its digest", path);
        return BITCTS_E_IO;
    }
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(&state));
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof canonical.digest; ++i) {
        out_hex[2 * i] = hex[canonical.digest[i] >> 4];
        out_hex[2 * i + 1] = hex[canonical.digest[i] & 0xF];
    }
    out_hex[2 * sizeof canonical.digest] = '\0';
    return BITCTS_OK;
}

/* ---- host services offered to the plugin ---- */

static void BITCTS_PLUGIN_CALL host_service_log(void *user, int32_t level, const char *message)
{
    const bitcts_plugin_host *host = user;
    if (host != NULL && host->config.log != NULL) {
        host->config.log(host->config.log_user, level, message != NULL ? message : "(null)");
    }
}

static uint64_t BITCTS_PLUGIN_CALL host_service_now_ns(void *user)
{
    (void)user;
    struct timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) {
        return 0;
    }
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* ---- lifecycle ---- */

static void host_release(bitcts_plugin_host *host)
{
    if (host->config.free != NULL) {
        host->config.free(host->config.alloc_user, host);
    } else {
        free(host);
    }
}

/* Allocates the handle with room for the path after it ("prefix" + text), wires the services
 * table and copies the config. */
static bitcts_status host_allocate(const bitcts_plugin_host_config *config, const char *prefix,
                                   const char *text, bitcts_plugin_host **out)
{
    bitcts_plugin_host_config defaults;
    memset(&defaults, 0, sizeof defaults);
    if (config == NULL) {
        config = &defaults;
    }
    if ((config->alloc == NULL) != (config->free == NULL)) {
        return BITCTS_E_INVALID_ARGUMENT;
    }
    const size_t path_size = strlen(prefix) + strlen(text) + 1;
    const size_t size = sizeof(bitcts_plugin_host) + path_size;
    bitcts_plugin_host *host =
        config->alloc != NULL ? config->alloc(config->alloc_user, size) : malloc(size);
    if (host == NULL) {
        return BITCTS_E_OUT_OF_MEMORY;
    }
    memset(host, 0, sizeof *host);
    host->config = *config;
    host->path = (char *)(host + 1);
    snprintf(host->path, path_size, "%s%s", prefix, text);
    host->services.struct_size = sizeof host->services;
    host->services.user = host;
    host->services.log = host_service_log;
    host->services.now_ns = host_service_now_ns;
    *out = host;
    return BITCTS_OK;
}

/* Runs the negotiation with a host-owned record and keeps the validated result. */
static bitcts_status host_negotiate(bitcts_plugin_host *host, bitcts_plugin_negotiate_fn negotiate,
                                    char *err, size_t err_cap)
{
    bitcts_plugin_negotiation record;
    memset(&record, 0, sizeof record);
    record.struct_size = sizeof record;
    record.host_min_version = BITCTS_PLUGIN_HOST_MIN_VERSION;
    record.host_max_version = BITCTS_PLUGIN_HOST_MAX_VERSION;
    record.host = &host->services;
    const int32_t plugin_status = negotiate(&record);

    /* The host's own constants, not the record (which the plugin could overwrite), decide. */
    char why[BITCTS_PLUGIN_HOST_ERROR_CAP];
    const bitcts_status status = bitcts_plugin_host_validate_negotiation(
        plugin_status, record.chosen_version, record.table, SIZE_MAX,
        BITCTS_PLUGIN_HOST_MIN_VERSION, BITCTS_PLUGIN_HOST_MAX_VERSION, &host->table, why,
        sizeof why);
    if (status != BITCTS_OK) {
        host_format(err, err_cap, "plugin %s: %s", host->path, why);
        return status;
    }
    host->table_size = record.table->struct_size;
    host->abi_version = record.chosen_version;
    return BITCTS_OK;
}

/* dlopen, the single symbol, the digest of the file that was loaded, then the negotiation. */
static bitcts_status host_load(bitcts_plugin_host *host, char *err, size_t err_cap)
{
#ifdef RTLD_NOLOAD
    /* A library already open in this process would share its globals (the retained host
     * services, for one) with the earlier load, and either load's plugin_shutdown would pull
     * them from under the other, so a second concurrent load is refused (PLG-8). */
    void *already = dlopen(host->path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (already != NULL) {
        dlclose(already);
        host_format(err, err_cap, "plugin %s: already loaded in this process", host->path);
        return BITCTS_E_PLUGIN_LOAD;
    }
#endif
    host->library = dlopen(host->path, RTLD_NOW | RTLD_LOCAL);
    if (host->library == NULL) {
        const char *reason = dlerror();
        host_format(err, err_cap, "plugin %s: cannot load: %s", host->path,
                    reason != NULL ? reason : "unknown dlopen error");
        return BITCTS_E_PLUGIN_LOAD;
    }
    (void)dlerror();
    void *symbol = dlsym(host->library, BITCTS_PLUGIN_ENTRY_NAME);
    if (symbol == NULL) {
        host_format(err, err_cap, "plugin %s: symbol %s not found", host->path,
                    BITCTS_PLUGIN_ENTRY_NAME);
        return BITCTS_E_PLUGIN_SYMBOL;
    }
    /* POSIX guarantees that an object pointer from dlsym converts to a function pointer;
     * memcpy keeps ISO C quiet about it. */
    bitcts_plugin_negotiate_fn negotiate = NULL;
    _Static_assert(sizeof negotiate == sizeof symbol, "function and object pointers differ");
    memcpy(&negotiate, &symbol, sizeof negotiate);

    char why[BITCTS_PLUGIN_HOST_ERROR_CAP];
    const bitcts_status status =
        bitcts_plugin_host_hash_file(host->path, host->digest, why, sizeof why);
    if (status != BITCTS_OK) {
        host_format(err, err_cap, "plugin %s: %s", host->path, why);
        return status;
    }
    return host_negotiate(host, negotiate, err, err_cap);
}

bitcts_status bitcts_plugin_host_open(const char *path, const bitcts_plugin_host_config *config,
                                      bitcts_plugin_host **out, char *err, size_t err_cap)
{
    host_format(err, err_cap, "%s", "");
    if (path == NULL || path[0] == '\0' || out == NULL) {
        host_format(err, err_cap, "%s", "plugin: empty path or NULL output");
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    /* A bare file name would make dlopen search the library path; PLG-1 allows only the
     * explicit file, so it is anchored to the current directory. */
    const char *prefix = strchr(path, '/') == NULL ? "./" : "";
    bitcts_plugin_host *host = NULL;
    bitcts_status status = host_allocate(config, prefix, path, &host);
    if (status != BITCTS_OK) {
        host_format(err, err_cap, "plugin %s: %s", path,
                    status == BITCTS_E_OUT_OF_MEMORY ? "out of memory" : "allocator incomplete");
        return status;
    }
    status = host_load(host, err, err_cap);
    if (status != BITCTS_OK) {
        /* A rejected plugin gets no further call, not even plugin_shutdown (PLG-1). */
        if (host->library != NULL) {
            dlclose(host->library);
        }
        host_release(host);
        return status;
    }
    *out = host;
    return BITCTS_OK;
}

bitcts_status bitcts_plugin_host_open_builtin(const char *name,
                                              bitcts_plugin_negotiate_fn negotiate,
                                              const bitcts_plugin_host_config *config,
                                              bitcts_plugin_host **out, char *err, size_t err_cap)
{
    host_format(err, err_cap, "%s", "");
    if (name == NULL || name[0] == '\0' || negotiate == NULL || out == NULL) {
        host_format(err, err_cap, "%s", "plugin builtin: empty name, NULL negotiate or output");
        return BITCTS_E_INVALID_ARGUMENT;
    }
    *out = NULL;
    bitcts_plugin_host *host = NULL;
    bitcts_status status = host_allocate(config, "builtin:", name, &host);
    if (status != BITCTS_OK) {
        host_format(err, err_cap, "plugin builtin:%s: %s", name,
                    status == BITCTS_E_OUT_OF_MEMORY ? "out of memory" : "allocator incomplete");
        return status;
    }
    status = host_negotiate(host, negotiate, err, err_cap);
    if (status != BITCTS_OK) {
        host_release(host);
        return status;
    }
    *out = host;
    return BITCTS_OK;
}

void bitcts_plugin_host_close(bitcts_plugin_host *host)
{
    if (host == NULL) {
        return;
    }
    if (host->table.plugin_shutdown != NULL) {
        host->table.plugin_shutdown();
    }
    if (host->library != NULL) {
        dlclose(host->library);
    }
    host_release(host);
}

void bitcts_plugin_host_shutdown(bitcts_plugin_host *host)
{
    if (host == NULL) {
        return;
    }
    if (host->table.plugin_shutdown != NULL) {
        host->table.plugin_shutdown();
    }
    host_release(host); /* host->library stays loaded until the process ends */
}

/* ---- queries ---- */

static const char *host_text(const char *text)
{
    return text != NULL ? text : "";
}

const bitcts_plugin_table *bitcts_plugin_host_table(const bitcts_plugin_host *host)
{
    return &host->table;
}

uint32_t bitcts_plugin_host_table_size(const bitcts_plugin_host *host)
{
    return host->table_size;
}

uint32_t bitcts_plugin_host_abi_version(const bitcts_plugin_host *host)
{
    return host->abi_version;
}

const char *bitcts_plugin_host_path(const bitcts_plugin_host *host)
{
    return host->path;
}

const char *bitcts_plugin_host_name(const bitcts_plugin_host *host)
{
    return host_text(host->table.name);
}

const char *bitcts_plugin_host_vendor(const bitcts_plugin_host *host)
{
    return host_text(host->table.vendor);
}

const char *bitcts_plugin_host_version(const bitcts_plugin_host *host)
{
    return host_text(host->table.version);
}

const char *bitcts_plugin_host_build_id(const bitcts_plugin_host *host)
{
    return host_text(host->table.build_id);
}

const char *bitcts_plugin_host_digest(const bitcts_plugin_host *host)
{
    return host->digest;
}
