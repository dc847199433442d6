/* SPDX-License-Identifier: MIT */
/* Backend resolution and the parent's one look at an instance (docs/harness.md). */
#include <stdio.h>  /* snprintf */
#include <string.h> /* strchr */

#include "backend.h"
#include "bitcts/bitcts_status.h"
#include "builtin.h"
#include "tensor_model.h"

int bitcts_backend_options_add(bitcts_backend_options *o, char key_store[][64], const char *text)
{
    const char *eq = text != NULL ? strchr(text, '=') : NULL;
    if (eq == NULL || eq == text || eq - text >= 64 || o->count >= BITCTS_MAX_OPTIONS) {
        return -1;
    }
    snprintf(key_store[o->count], 64, "%.*s", (int)(eq - text), text);
    o->keys[o->count] = key_store[o->count];
    o->values[o->count++] = eq + 1;
    return 0;
}

const char *bitcts_backend_builtin_names(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const bitcts_builtin_backend *b = bitcts_builtin_backends(); b->name != NULL; ++b) {
        used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s, %s:<variant>",
                                 used ? ", " : "", b->name, b->name);
    }
    if (used == 0) {
        snprintf(buf, cap, "none in this build");
    }
    return buf;
}

/* Keeps the backend's last error or warning: instance_create has no instance to report on. */
static void keep_log(void *user, int32_t level, const char *message)
{
    bitcts_backend *b = user;
    if (level <= BITCTS_ABI_LOG_WARN && message != NULL) {
        snprintf(b->last_log, sizeof b->last_log, "%s", message);
    }
}

static int is_path(const char *spec)
{
    const size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 3 && strcmp(spec + n - 3, ".so") == 0);
}

static void read_info(bitcts_backend *b, void *instance)
{
    if (b->table->instance_info == NULL) {
        return;
    }
    const char *v = b->table->instance_info(instance, "variant");
    snprintf(b->info_variant, sizeof b->info_variant, "%s", v != NULL ? v : "");
    v = b->table->instance_info(instance, "features");
    snprintf(b->info_features, sizeof b->info_features, "%s", v != NULL ? v : "");
    static const char *const extra[] = {"threads", "device", "variants"};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i) {
        v = b->table->instance_info(instance, extra[i]);
        if (v != NULL && *v) {
            const size_t used = strlen(b->info_extra);
            snprintf(b->info_extra + used, sizeof b->info_extra - used, "%s%s=%s", used ? "; " : "",
                     extra[i], v);
        }
    }
}

static int read_caps(bitcts_backend *b, void *instance, char *err, size_t cap)
{
    bitcts_abi_caps caps = {.struct_size = sizeof caps};
    int32_t st = b->table->query_caps(instance, &caps);
    if (st != BITCTS_ABI_OK) {
        snprintf(err, cap, "backend %s: query_caps failed with status %d",
                 bitcts_plugin_host_path(b->host), st);
        return BITCTS_E_BACKEND_FAILED;
    }
    b->caps.feature_level = caps.feature_level;
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        bitcts_abi_op_caps *oc = &b->caps.ops[i];
        memset(oc, 0, sizeof *oc);
        oc->struct_size = sizeof *oc;
        st = b->table->query_op_caps(instance, bitcts_op_all[i], oc);
        b->caps.has_op[i] = st == BITCTS_ABI_OK;
    }
    return BITCTS_OK;
}

int bitcts_backend_instance_with(const bitcts_backend *b, const bitcts_backend_options *extra,
                                 void **instance, char *err, size_t cap)
{
    bitcts_backend_options all = b->options;
    for (uint32_t i = 0; extra != NULL && i < extra->count; ++i) {
        uint32_t k = 0;
        while (k < all.count && strcmp(all.keys[k], extra->keys[i]) != 0) {
            ++k;
        }
        if (k == BITCTS_MAX_OPTIONS) {
            snprintf(err, cap, "more than %d backend options", BITCTS_MAX_OPTIONS);
            return BITCTS_E_INVALID_ARGUMENT;
        }
        all.keys[k] = extra->keys[i]; /* an extra option replaces the run's option of that key */
        all.values[k] = extra->values[i];
        all.count = k == all.count ? all.count + 1 : all.count;
    }
    bitcts_abi_create_info info = {.struct_size = sizeof info,
                                   .option_count = all.count,
                                   .option_keys = all.keys,
                                   .option_values = all.values};
    *instance = NULL;
    const int32_t st = b->table->instance_create(&info, instance);
    if (st != BITCTS_ABI_OK || *instance == NULL) {
        snprintf(err, cap, "backend %s: instance_create failed with status %d (%s)%s%s",
                 bitcts_plugin_host_path(b->host), st, bitcts_status_message(st),
                 b->last_log[0] ? ": " : "", b->last_log);
        return st != BITCTS_ABI_OK ? BITCTS_E_BACKEND_FAILED : BITCTS_E_PLUGIN_MALFORMED;
    }
    return BITCTS_OK;
}

int bitcts_backend_instance(const bitcts_backend *b, void **instance, char *err, size_t cap)
{
    return bitcts_backend_instance_with(b, NULL, instance, err, cap);
}

int bitcts_backend_open(const char *spec, const bitcts_backend_options *options,
                        bitcts_backend *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    if (options != NULL) {
        out->options = *options;
    }
    int st;
    const bitcts_plugin_host_config config = {.log = keep_log, .log_user = out};
    if (is_path(spec)) {
        st = bitcts_plugin_host_open(spec, &config, &out->host, err, cap);
    } else {
        char name[64];
        snprintf(name, sizeof name, "%s", spec);
        char *colon = strchr(name, ':');
        if (colon != NULL) {
            *colon = '\0';
            snprintf(out->variant_option, sizeof out->variant_option, "%s", colon + 1);
            if (out->options.count >= BITCTS_MAX_OPTIONS || !out->variant_option[0]) {
                snprintf(err, cap, "--backend %s: malformed variant", spec);
                return BITCTS_E_USAGE;
            }
            out->options.keys[out->options.count] = "variant";
            out->options.values[out->options.count++] = out->variant_option;
        }
        const bitcts_builtin_backend *b = bitcts_builtin_find(name);
        if (b == NULL) {
            char names[256];
            snprintf(err, cap, "unknown backend '%s' (built-in: %s; or a path to a plugin library)",
                     spec, bitcts_backend_builtin_names(names, sizeof names));
            return BITCTS_E_NOT_FOUND;
        }
        st = bitcts_plugin_host_open_builtin(b->name, b->negotiate, &config, &out->host, err, cap);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    out->table = bitcts_plugin_host_table(out->host);
    void *instance = NULL;
    st = bitcts_backend_instance(out, &instance, err, cap);
    if (st == BITCTS_OK) {
        st = read_caps(out, instance, err, cap);
        read_info(out, instance);
        out->table->instance_destroy(instance);
    }
    if (st != BITCTS_OK) {
        bitcts_plugin_host_close(out->host);
        out->host = NULL;
    }
    return st;
}

void bitcts_backend_close(bitcts_backend *b)
{
    if (b != NULL && b->host != NULL) {
        bitcts_plugin_host_close(b->host);
    }
    if (b != NULL) {
        b->host = NULL;
    }
}

const bitcts_abi_op_caps *bitcts_backend_op_caps(const bitcts_backend *b, uint32_t op)
{
    const int i = bitcts_op_index(op);
    return i >= 0 && b->caps.has_op[i] ? &b->caps.ops[i] : NULL;
}
