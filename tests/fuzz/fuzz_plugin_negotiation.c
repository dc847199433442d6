/* SPDX-License-Identifier: MIT */
/* Fuzz target: the plugin host's checks of a negotiation and of a function table
 * (backends/plugin/plugin_host.c, PLG-1..PLG-5). The input is what a plugin controls: the
 * status its negotiate returns, the version it chooses, and the bytes of its table, plus a host
 * version range and a few switches.
 *
 * The pure validator (bitcts_plugin_host_validate_negotiation) accepts only a table whose
 * struct_size covers the mandatory part and fits what is readable, with every mandatory slot
 * set, and a version inside the host's range; its copy is the plugin's bytes of the fields
 * wholly inside struct_size, then zeros; a refusal is one line and leaves the output alone. The
 * loader path (bitcts_plugin_host_open_builtin with a negotiate function that plays the plugin, its
 * table in a buffer of exactly struct_size bytes so that any read past it is caught) must decide as
 * the validator does, keep the plugin's identity, and call plugin_shutdown at close exactly
 * when the table provides it. */
#include <string.h> /* memcpy, memset, strncmp */

#include "bitcts/bitcts_plugin.h"
#include "bitcts/bitcts_status.h"
#include "fuzz_check.h"
#include "plugin_host.h"

/* Input layout: the plugin's status, its chosen version, the host's range, switches, then the
 * table's bytes (the first four are its struct_size). */
enum { FUZZ_HEADER = 17 };
#define FUZZ_SWITCH_NULL_TABLE 1u
#define FUZZ_SWITCH_SCRIBBLE 2u /* the plugin overwrites the host's fields of the record */

/* The pointer slots of ABI 1.0, in table order. */
static const size_t fuzz_slots[] = {
    offsetof(bitcts_plugin_table, name),
    offsetof(bitcts_plugin_table, vendor),
    offsetof(bitcts_plugin_table, version),
    offsetof(bitcts_plugin_table, build_id),
    offsetof(bitcts_plugin_table, instance_create),
    offsetof(bitcts_plugin_table, instance_destroy),
    offsetof(bitcts_plugin_table, instance_last_error),
    offsetof(bitcts_plugin_table, query_caps),
    offsetof(bitcts_plugin_table, query_op_caps),
    offsetof(bitcts_plugin_table, operator_create),
    offsetof(bitcts_plugin_table, operator_execute),
    offsetof(bitcts_plugin_table, operator_destroy),
    offsetof(bitcts_plugin_table, instance_info),
    offsetof(bitcts_plugin_table, plugin_shutdown),
    offsetof(bitcts_plugin_table, get_extension),
};

/* What the played plugin hands over. */
static struct {
    int32_t status;
    uint32_t chosen;
    unsigned switches;
    const void *table;
    unsigned shutdowns;
} fuzz_plugin;

static const char fuzz_name[] = "fuzzed";

static void BITCTS_PLUGIN_CALL fuzz_shutdown(void)
{
    ++fuzz_plugin.shutdowns;
}

/* Any function pointer will do for the slots the host never calls. */
static void BITCTS_PLUGIN_CALL fuzz_never_called(void)
{
    FUZZ_CHECK(!"the host called a plugin function while loading");
}

static int32_t BITCTS_PLUGIN_CALL fuzz_negotiate(bitcts_plugin_negotiation *record)
{
    FUZZ_CHECK(record->struct_size == sizeof *record && record->host != NULL);
    record->chosen_version = fuzz_plugin.chosen;
    record->table = fuzz_plugin.table;
    if (fuzz_plugin.switches & FUZZ_SWITCH_SCRIBBLE) {
        record->host_min_version = 0;
        record->host_max_version = 0xFFFFFFFFu;
        record->struct_size = 0;
    }
    return fuzz_plugin.status;
}

static uint32_t read_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void check_validator(int32_t status, uint32_t chosen, const uint8_t *table, size_t size,
                            uint32_t lo, uint32_t hi)
{
    bitcts_plugin_table out;
    memset(&out, 0x5A, sizeof out);
    char why[BITCTS_PLUGIN_HOST_ERROR_CAP];
    const bitcts_status st = bitcts_plugin_host_validate_negotiation(status, chosen, table, size,
                                                                     lo, hi, &out, why, sizeof why);
    if (st != BITCTS_OK) {
        FUZZ_CHECK(st == BITCTS_E_PLUGIN_LOAD || st == BITCTS_E_PLUGIN_INCOMPATIBLE ||
                   st == BITCTS_E_PLUGIN_MALFORMED);
        FUZZ_CHECK(why[0] != '\0' && fuzz_no_controls(why, strlen(why), NULL));
        for (size_t i = 0; i < sizeof out; ++i) {
            FUZZ_CHECK(((const unsigned char *)&out)[i] == 0x5A);
        }
        return;
    }
    FUZZ_CHECK(status == BITCTS_ABI_OK && why[0] == '\0');
    FUZZ_CHECK(chosen >= lo && chosen <= hi);
    FUZZ_CHECK(BITCTS_ABI_MAJOR(chosen) >= BITCTS_ABI_MAJOR(lo) &&
               BITCTS_ABI_MAJOR(chosen) <= BITCTS_ABI_MAJOR(hi));
    FUZZ_CHECK(table != NULL && size >= BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE);
    const uint32_t struct_size = read_u32(table);
    FUZZ_CHECK(struct_size >= BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE && struct_size <= size &&
               struct_size <= BITCTS_PLUGIN_HOST_TABLE_MAX_SIZE);
    /* PLG-3: the fields wholly inside struct_size; past the mandatory part, pointer slots. */
    size_t copied = struct_size < sizeof out ? struct_size : sizeof out;
    copied -= (copied - BITCTS_PLUGIN_HOST_TABLE_MIN_SIZE) % sizeof(void *);
    FUZZ_CHECK(out.struct_size == copied);
    FUZZ_CHECK(memcmp((const uint8_t *)&out + 4, table + 4, copied - 4) == 0);
    for (size_t i = copied; i < sizeof out; ++i) {
        FUZZ_CHECK(((const unsigned char *)&out)[i] == 0);
    }
    FUZZ_CHECK(out.name != NULL && out.instance_create != NULL && out.operator_execute != NULL &&
               out.operator_destroy != NULL);
}

/* The table the played plugin gives: the fuzzed bytes in a buffer of exactly struct_size
 * bytes (at least the struct_size field; a size beyond the limit gets a whole table, which the
 * host must refuse before reading it), every pointer slot the bytes set made a real one. */
static uint8_t *live_table(const uint8_t *bytes, size_t n, size_t *alloc)
{
    uint8_t image[sizeof(bitcts_plugin_table)];
    memset(image, 0, sizeof image);
    memcpy(image, bytes, n < sizeof image ? n : sizeof image);
    const uint32_t struct_size = read_u32(image);
    *alloc = struct_size > BITCTS_PLUGIN_HOST_TABLE_MAX_SIZE ? sizeof image
             : struct_size < 4                               ? 4
                                                             : struct_size;
    uint8_t *table = calloc(1, *alloc);
    FUZZ_CHECK(table != NULL);
    memcpy(table, bytes, n < *alloc ? n : *alloc);
    for (size_t i = 0; i < sizeof fuzz_slots / sizeof fuzz_slots[0]; ++i) {
        const size_t at = fuzz_slots[i];
        if (at + sizeof(void *) > *alloc) {
            break;
        }
        void *zero = NULL;
        if (memcmp(table + at, &zero, sizeof zero) == 0) {
            continue;
        }
        if (i < 4) {
            const char *text = fuzz_name;
            memcpy(table + at, &text, sizeof text);
        } else {
            void (*fn)(void) = at == offsetof(bitcts_plugin_table, plugin_shutdown)
                                   ? fuzz_shutdown
                                   : fuzz_never_called;
            memcpy(table + at, &fn, sizeof fn);
        }
    }
    return table;
}

static void check_loader(int32_t status, uint32_t chosen, unsigned switches, const uint8_t *bytes,
                         size_t n)
{
    size_t alloc = 0;
    uint8_t *table = live_table(bytes, n, &alloc);
    fuzz_plugin.status = status;
    fuzz_plugin.chosen = chosen;
    fuzz_plugin.switches = switches;
    fuzz_plugin.table = (switches & FUZZ_SWITCH_NULL_TABLE) != 0 ? NULL : table;
    fuzz_plugin.shutdowns = 0;

    char why[BITCTS_PLUGIN_HOST_ERROR_CAP];
    const bitcts_status want = bitcts_plugin_host_validate_negotiation(
        status, chosen, fuzz_plugin.table, alloc, BITCTS_PLUGIN_HOST_MIN_VERSION,
        BITCTS_PLUGIN_HOST_MAX_VERSION, NULL, why, sizeof why);
    bitcts_plugin_host *host = NULL;
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP + 64];
    const bitcts_status st =
        bitcts_plugin_host_open_builtin("fuzz", fuzz_negotiate, NULL, &host, err, sizeof err);
    FUZZ_CHECK(st == want);
    if (st != BITCTS_OK) {
        FUZZ_CHECK(host == NULL && strncmp(err, "plugin builtin:fuzz: ", 21) == 0);
        FUZZ_CHECK(strcmp(err + 21, why) == 0);
        free(table);
        return;
    }
    const uint32_t struct_size = read_u32(table);
    FUZZ_CHECK(bitcts_plugin_host_table_size(host) == struct_size);
    FUZZ_CHECK(bitcts_plugin_host_abi_version(host) == chosen);
    FUZZ_CHECK(strcmp(bitcts_plugin_host_name(host), fuzz_name) == 0);
    FUZZ_CHECK(strcmp(bitcts_plugin_host_path(host), "builtin:fuzz") == 0);
    FUZZ_CHECK(strcmp(bitcts_plugin_host_digest(host), "") == 0);
    const bitcts_plugin_table *copy = bitcts_plugin_host_table(host);
    const int has_shutdown = copy->plugin_shutdown != NULL;
    FUZZ_CHECK(!has_shutdown ||
               struct_size >= offsetof(bitcts_plugin_table, plugin_shutdown) + sizeof(void *));
    bitcts_plugin_host_close(host);
    FUZZ_CHECK(fuzz_plugin.shutdowns == (unsigned)has_shutdown);
    free(table);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < FUZZ_HEADER) {
        return 0;
    }
    const int32_t status = (int32_t)read_u32(data);
    const uint32_t chosen = read_u32(data + 4);
    const uint32_t lo = read_u32(data + 8);
    const uint32_t hi = read_u32(data + 12);
    const unsigned switches = data[16];
    const uint8_t *table = data + FUZZ_HEADER;
    const size_t n = size - FUZZ_HEADER;
    const int null_table = (switches & FUZZ_SWITCH_NULL_TABLE) != 0;

    /* The fuzzed range, and the range of this host. */
    check_validator(status, chosen, null_table ? NULL : table, n, lo, hi);
    check_validator(status, chosen, null_table ? NULL : table, n, BITCTS_PLUGIN_HOST_MIN_VERSION,
                    BITCTS_PLUGIN_HOST_MAX_VERSION);
    check_loader(status, chosen, switches, table, n);
    return 0;
}
