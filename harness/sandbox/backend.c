/* SPDX-License-Identifier: MIT */
/* Backend resolution (parent), loading and queries (child) (docs/harness.md). */
#include <stdio.h>    /* snprintf */
#include <string.h>   /* strchr */
#include <sys/stat.h> /* stat */
#include <unistd.h>   /* access */

#include "backend.h"
#include "bitcts/bitcts_status.h"
#include "builtin.h"
#include "sanitize.h"
#include "tensor_model.h"

#define BACKEND_STRING_MAX 4096 /* bytes read of a string a backend returns */

const char *bitcts_backend_builtin_names(char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const bitcts_builtin_backend *b = bitcts_builtin_backends(); b->name != NULL; ++b) {
        used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%s", used ? ", " : "",
                                 b->name);
    }
    if (used == 0) {
        snprintf(buf, cap, "none in this build");
    }
    return buf;
}

static int is_path(const char *spec)
{
    const size_t n = strlen(spec);
    return strchr(spec, '/') != NULL || (n > 3 && strcmp(spec + n - 3, ".so") == 0);
}

int bitcts_backend_resolve(const char *spec, const bitcts_backend_options *options,
                           bitcts_backend_spec *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->spec = spec;
    if (options != NULL) {
        out->options = *options;
    }
    char shown[300];
    bitcts_sanitize_string(spec, 4096, shown, sizeof shown);
    if (is_path(spec)) {
        if (access(spec, R_OK) != 0) {
            snprintf(err, cap, "plugin %s: cannot load: no readable file there", shown);
            return BITCTS_E_NOT_FOUND;
        }
        return BITCTS_OK;
    }
    snprintf(out->name, sizeof out->name, "%s", spec);
    char *colon = strchr(out->name, ':');
    if (colon != NULL) {
        *colon = '\0';
        snprintf(out->variant, sizeof out->variant, "%s", colon + 1);
        if (out->options.count >= BITCTS_MAX_OPTIONS || out->variant[0] == '\0') {
            snprintf(err, cap, "--backend %s: malformed variant", shown);
            return BITCTS_E_USAGE;
        }
    }
    if (bitcts_builtin_find(out->name) == NULL) {
        char names[256];
        snprintf(err, cap,
                 "unknown backend '%s' (built-in: %s, each also as NAME:VARIANT; or a path to "
                 "a plugin library)",
                 shown, bitcts_backend_builtin_names(names, sizeof names));
        return BITCTS_E_NOT_FOUND;
    }
    out->builtin = 1;
    if (out->variant[0] != '\0') {
        out->options.keys[out->options.count] = "variant";
        out->options.values[out->options.count++] = out->variant;
    }
    return BITCTS_OK;
}

/* Keeps the backend's last error or warning: instance_create has no instance to report on. */
static void keep_log(void *user, int32_t level, const char *message)
{
    bitcts_backend *b = user;
    if (level <= BITCTS_ABI_LOG_WARN && message != NULL) {
        bitcts_sanitize_string(message, BACKEND_STRING_MAX, b->last_log, sizeof b->last_log);
    }
}

int bitcts_backend_load(const bitcts_backend_spec *spec, bitcts_backend *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->spec = *spec;
    if (out->spec.variant[0] != '\0') { /* the option points into the copy */
        out->spec.options.values[out->spec.options.count - 1] = out->spec.variant;
    }
    const bitcts_plugin_host_config config = {.log = keep_log, .log_user = out};
    int st;
    if (spec->builtin) {
        const bitcts_builtin_backend *b = bitcts_builtin_find(spec->name);
        st = bitcts_plugin_host_open_builtin(b->name, b->negotiate, &config, &out->host, err, cap);
    } else {
        st = bitcts_plugin_host_open(spec->spec, &config, &out->host, err, cap);
    }
    if (st == BITCTS_OK) {
        out->table = bitcts_plugin_host_table(out->host);
    }
    return st;
}

static void read_info(bitcts_backend *b, void *instance)
{
    if (b->table->instance_info == NULL) {
        return;
    }
    const char *v = b->table->instance_info(instance, "variant");
    bitcts_sanitize_string(v, BACKEND_STRING_MAX, b->info_variant, sizeof b->info_variant);
    v = b->table->instance_info(instance, "features");
    bitcts_sanitize_string(v, BACKEND_STRING_MAX, b->info_features, sizeof b->info_features);
    static const char *const extra[] = {"threads", "device", "driver", "api_version", "variants"};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; ++i) {
        v = b->table->instance_info(instance, extra[i]);
        if (v != NULL && *v != '\0') {
            char clean[BITCTS_BACKEND_TEXT];
            bitcts_sanitize_string(v, BACKEND_STRING_MAX, clean, sizeof clean);
            const size_t used = strlen(b->info_extra);
            snprintf(b->info_extra + used, sizeof b->info_extra - used, "%s%s=%s", used ? "; " : "",
                     extra[i], clean);
        }
    }
}

int bitcts_backend_query(bitcts_backend *b, void *instance, char *err, size_t cap)
{
    bitcts_abi_caps caps = {.struct_size = sizeof caps};
    int32_t st = b->table->query_caps(instance, &caps);
    if (st != BITCTS_ABI_OK) {
        snprintf(err, cap, "query_caps failed with status %d (%s)", st, bitcts_status_name(st));
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
    read_info(b, instance);
    return BITCTS_OK;
}

int bitcts_backend_instance_with(const bitcts_backend *b, const bitcts_backend_options *extra,
                                 void **instance, char *err, size_t cap)
{
    bitcts_backend_options all = b->spec.options;
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
        char path[BITCTS_BACKEND_TEXT];
        bitcts_sanitize_string(bitcts_plugin_host_path(b->host), 4096, path, sizeof path);
        snprintf(err, cap, "backend %s: instance_create failed with status %d (%s)%s%s", path, st,
                 bitcts_status_message(st), b->last_log[0] != '\0' ? ": " : "", b->last_log);
        if (st == BITCTS_ABI_OK) {
            return BITCTS_E_PLUGIN_MALFORMED; /* OK and no instance */
        }
        /* A refused option is the command line's fault; the rest, the environment's. */
        return st == BITCTS_E_INVALID_ARGUMENT ? BITCTS_E_INVALID_ARGUMENT : BITCTS_E_DEVICE;
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
    bitcts_backend_spec resolved;
    memset(out, 0, sizeof *out);
    int st = bitcts_backend_resolve(spec, options, &resolved, err, cap);
    if (st == BITCTS_OK) {
        st = bitcts_backend_load(&resolved, out, err, cap);
    }
    if (st != BITCTS_OK) {
        return st;
    }
    void *instance = NULL;
    st = bitcts_backend_instance(out, &instance, err, cap);
    if (st == BITCTS_OK) {
        st = bitcts_backend_query(out, instance, err, cap);
        out->table->instance_destroy(instance);
    }
    if (st != BITCTS_OK) {
        bitcts_backend_close(out);
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

void bitcts_backend_shutdown(bitcts_backend *b)
{
    if (b != NULL && b->host != NULL) {
        bitcts_plugin_host_shutdown(b->host);
    }
    if (b != NULL) {
        b->host = NULL;
    }
}

void bitcts_backend_claims_text(const bitcts_backend *b, char *out, size_t cap)
{
    size_t used = 0;
    int n = snprintf(out, cap, "feature_level=0x%x", b->caps.feature_level);
    for (int i = 0; n >= 0 && (size_t)n < cap - used && i < (int)BITCTS_OP_COUNT; ++i) {
        used += (size_t)n;
        const bitcts_abi_op_caps *c = &b->caps.ops[i];
        const char *name = bitcts_op_name(bitcts_op_all[i]);
        n = b->caps.has_op[i]
                ? snprintf(out + used, cap - used, " %s=in:0x%x,out:0x%x,dims:0x%x,flags:0x%x",
                           name, c->input_types, c->output_types, c->dimension_counts, c->flags)
                : snprintf(out + used, cap - used, " %s=none", name);
    }
}

int bitcts_backend_claims_parse(const char *text, bitcts_backend_caps *out)
{
    memset(out, 0, sizeof *out);
    unsigned fl = 0;
    int used = 0;
    if (sscanf(text, "feature_level=0x%x%n", &fl, &used) != 1) {
        return -1;
    }
    out->feature_level = fl;
    const char *p = text + used;
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        char none[8] = "";
        const char *name = bitcts_op_name(bitcts_op_all[i]);
        const size_t len = strlen(name);
        if (p[0] != ' ' || strncmp(p + 1, name, len) != 0 || p[1 + len] != '=') {
            return -1;
        }
        p += len + 2;
        bitcts_abi_op_caps *c = &out->ops[i];
        c->struct_size = sizeof *c;
        c->operator_type = bitcts_op_all[i];
        if (sscanf(p, "in:0x%x,out:0x%x,dims:0x%x,flags:0x%x%n", &c->input_types, &c->output_types,
                   &c->dimension_counts, &c->flags, &used) == 4) {
            out->has_op[i] = 1;
        } else if (sscanf(p, "%4[a-z]%n", none, &used) != 1 || strcmp(none, "none") != 0) {
            return -1;
        }
        p += used;
    }
    return *p == '\0' ? 0 : -1;
}

/* The next space-separated word of *text, as a length; advances *text past it. */
static size_t next_word(const char **text, const char **word)
{
    while (**text == ' ') {
        ++*text;
    }
    *word = *text;
    while (**text != ' ' && **text != '\0') {
        ++*text;
    }
    return (size_t)(*text - *word);
}

void bitcts_backend_claims_diff(const char *probe, const char *mine, char *out, size_t cap)
{
    const char *a = probe;
    const char *b = mine;
    for (;;) {
        const char *wa = NULL;
        const char *wb = NULL;
        const size_t la = next_word(&a, &wa);
        const size_t lb = next_word(&b, &wb);
        if (la == 0 && lb == 0) {
            snprintf(out, cap, "the backend's claims differ from the probe instance's");
            return;
        }
        if (la != lb || memcmp(wa, wb, la) != 0) {
            snprintf(out, cap,
                     "the backend's claims differ from the probe instance's: it was told "
                     "'%.*s', this worker's instance says '%.*s' (claims may not change from "
                     "instance to instance: PLG-14)",
                     (int)la, wa, (int)lb, wb);
            return;
        }
    }
}

const bitcts_abi_op_caps *bitcts_backend_op_caps(const bitcts_backend *b, uint32_t op)
{
    const int i = bitcts_op_index(op);
    return i >= 0 && b->caps.has_op[i] ? &b->caps.ops[i] : NULL;
}

const char *bitcts_backend_last_error(const bitcts_backend *b, void *instance, char *buf,
                                      size_t cap)
{
    const char *e = b->table->instance_last_error != NULL && instance != NULL
                        ? b->table->instance_last_error(instance)
                        : NULL;
    if (e == NULL || *e == '\0') {
        e = b->last_log;
    }
    if (*e == '\0') {
        snprintf(buf, cap, "no detail");
        return buf;
    }
    return bitcts_sanitize_string(e, BACKEND_STRING_MAX, buf, cap);
}

/* ---- identity ---- */

static json_t *types_json(uint32_t mask)
{
    json_t *a = json_array();
    for (uint32_t t = 1; t < BITCTS_DT_COUNT; ++t) {
        if ((mask & (1u << t)) != 0) {
            json_array_append_new(a, json_string(bitcts_dtype_name(t)));
        }
    }
    return a;
}

static json_t *caps_json(const bitcts_backend *b)
{
    json_t *caps = json_object();
    for (int i = 0; i < (int)BITCTS_OP_COUNT; ++i) {
        if (!b->caps.has_op[i]) {
            continue;
        }
        const bitcts_abi_op_caps *c = &b->caps.ops[i];
        json_t *dims = json_array();
        for (uint32_t n = 1; n <= BITCTS_MAX_DIMS; ++n) {
            if ((c->dimension_counts & (1u << n)) != 0) {
                json_array_append_new(dims, json_integer(n));
            }
        }
        json_object_set_new(caps, bitcts_op_name(bitcts_op_all[i]),
                            json_pack("{s:o, s:o, s:o, s:b}", "input_types",
                                      types_json(c->input_types), "output_types",
                                      types_json(c->output_types), "dimension_counts", dims,
                                      "in_place", (c->flags & BITCTS_ABI_CAP_IN_PLACE) != 0));
    }
    return caps;
}

json_t *bitcts_backend_identity_json(const bitcts_backend *b)
{
    char fl[8], abi[16];
    bitcts_fl_format(b->caps.feature_level, fl, sizeof fl);
    const uint32_t v = bitcts_plugin_host_abi_version(b->host);
    snprintf(abi, sizeof abi, "%u.%u", BITCTS_ABI_MAJOR(v), BITCTS_ABI_MINOR(v));
    char text[5][BITCTS_BACKEND_TEXT];
    bitcts_sanitize_string(bitcts_plugin_host_path(b->host), 4096, text[0], sizeof text[0]);
    bitcts_sanitize_string(bitcts_plugin_host_name(b->host), BACKEND_STRING_MAX, text[1],
                           sizeof text[1]);
    bitcts_sanitize_string(bitcts_plugin_host_vendor(b->host), BACKEND_STRING_MAX, text[2],
                           sizeof text[2]);
    bitcts_sanitize_string(bitcts_plugin_host_version(b->host), BACKEND_STRING_MAX, text[3],
                           sizeof text[3]);
    bitcts_sanitize_string(bitcts_plugin_host_build_id(b->host), BACKEND_STRING_MAX, text[4],
                           sizeof text[4]);
    json_t *info = json_pack("{s:s, s:s, s:s}", "variant", b->info_variant, "features",
                             b->info_features, "other", b->info_extra);
    const char *digest = bitcts_plugin_host_digest(b->host);
    struct stat file;
    const json_int_t size = digest[0] != '\0' && stat(bitcts_plugin_host_path(b->host), &file) == 0
                                ? (json_int_t)file.st_size
                                : 0; /* a built-in has no file */
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:o, s:o}", "path", text[0],
                     "name", text[1], "vendor", text[2], "version", text[3], "build_id", text[4],
                     "abi_version", abi, "library_xxh3_128", digest, "library_size", size,
                     "feature_level", fl, "capabilities", caps_json(b), "info", info);
}

json_t *bitcts_backend_device_json(const bitcts_backend *b, void *instance)
{
    static const char *const keys[] = {"device", "driver", "api_version", "device_memory_mib"};
    json_t *o = json_object();
    for (size_t i = 0;
         o != NULL && b->table->instance_info != NULL && i < sizeof keys / sizeof keys[0]; ++i) {
        const char *v = b->table->instance_info(instance, keys[i]);
        if (v != NULL && *v != '\0') {
            char clean[BITCTS_BACKEND_TEXT];
            bitcts_sanitize_string(v, BACKEND_STRING_MAX, clean, sizeof clean);
            json_object_set_new(o, keys[i], json_string(clean));
        }
    }
    return o;
}
