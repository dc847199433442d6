/* SPDX-License-Identifier: MIT */
/* Unit test of backends/plugin/plugin_host.c: each ABI stub gets its exact status and a message
 * naming the problem and the path; the negotiation validator is driven on byte images; the
 * example plugin loads, computes XOR, COUNT, NOT and shifts and refuses invalid descriptions.
 * Usage: plugin_host_test example=PATH stub_<name>=PATH... [broken_<bug>=PATH...] (CMake passes
 * them). Exit 0 on success, 1 on failure. */
#define _XOPEN_SOURCE 700 /* mkstemp, realpath */

#include "plugin_host.h"

#include <stdio.h>  /* printf, fprintf */
#include <stdlib.h> /* mkstemp, realpath */
#include <string.h> /* strcmp, strstr, strncmp */
#include <unistd.h> /* write, close, unlink */

static int test_failures;

static void check_true(int ok, const char *what, int line)
{
    if (!ok) {
        fprintf(stderr, "plugin_host_test.c:%d: FAILED: %s\n", line, what);
        ++test_failures;
    }
}

static void check_int(long long actual, long long expected, const char *what, int line)
{
    if (actual != expected) {
        fprintf(stderr, "plugin_host_test.c:%d: FAILED: %s is %lld, expected %lld\n", line, what,
                actual, expected);
        ++test_failures;
    }
}

static void check_contains(const char *text, const char *needle, const char *what, int line)
{
    if (text == NULL || strstr(text, needle) == NULL) {
        fprintf(stderr, "plugin_host_test.c:%d: FAILED: %s is \"%s\", expected to contain \"%s\"\n",
                line, what, text != NULL ? text : "(null)", needle);
        ++test_failures;
    }
}

#define CHECK(cond) check_true((cond), #cond, __LINE__)
#define CHECK_INT(actual, expected)                                                                \
    check_int((long long)(actual), (long long)(expected), #actual, __LINE__)
#define CHECK_CONTAINS(text, needle) check_contains((text), (needle), #text, __LINE__)

static int test_argc;
static char **test_argv;

/* The path given as NAME=PATH on the command line, or NULL. */
static const char *arg_path(const char *name)
{
    const size_t len = strlen(name);
    for (int i = 1; i < test_argc; ++i) {
        if (strncmp(test_argv[i], name, len) == 0 && test_argv[i][len] == '=') {
            return test_argv[i] + len + 1;
        }
    }
    return NULL;
}

/* ---- the log and allocator the host is given ---- */

typedef struct test_log {
    int calls;
    char last[256];
} test_log;

static void test_log_fn(void *user, int32_t level, const char *message)
{
    test_log *log = user;
    (void)level;
    ++log->calls;
    snprintf(log->last, sizeof log->last, "%s", message);
}

static void *test_failing_alloc(void *user, size_t size)
{
    (void)user;
    (void)size;
    return NULL;
}

static void test_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

/* ---- stubs: exact status and message ---- */

typedef struct stub_expectation {
    const char *name;
    bitcts_status status;
    const char *message;
} stub_expectation;

static const stub_expectation stub_expectations[] = {
    {"stub_wrong_major", BITCTS_E_PLUGIN_INCOMPATIBLE,
     "ABI major 2 not supported (host speaks 1.0-1.0)"},
    {"stub_refuses", BITCTS_E_PLUGIN_INCOMPATIBLE,
     "refused every ABI version the host speaks (1.0-1.0)"},
    {"stub_minor_too_new", BITCTS_E_PLUGIN_INCOMPATIBLE,
     "chose ABI 1.1, outside what the host speaks (1.0-1.0)"},
    {"stub_missing_symbol", BITCTS_E_PLUGIN_SYMBOL, "symbol bitcts_plugin_negotiate not found"},
    {"stub_null_execute", BITCTS_E_PLUGIN_MALFORMED, "table slot operator_execute is NULL"},
    {"stub_null_name", BITCTS_E_PLUGIN_MALFORMED, "table slot name is NULL"},
    {"stub_tiny_table", BITCTS_E_PLUGIN_MALFORMED,
     "table struct_size 88 is smaller than the mandatory part of ABI 1.0 (104 bytes)"},
    {"stub_huge_table", BITCTS_E_PLUGIN_MALFORMED,
     "table struct_size 1048576 exceeds the limit of 65536 bytes"},
    {"stub_null_table", BITCTS_E_PLUGIN_MALFORMED, "function table is NULL"},
    {"stub_fails", BITCTS_E_PLUGIN_LOAD, "bitcts_plugin_negotiate failed with status 2"},
};

static void test_stubs(void)
{
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    for (size_t i = 0; i < sizeof stub_expectations / sizeof stub_expectations[0]; ++i) {
        const stub_expectation *want = &stub_expectations[i];
        const char *path = arg_path(want->name);
        if (path == NULL) {
            fprintf(stderr, "FAILED: no %s=PATH argument\n", want->name);
            ++test_failures;
            continue;
        }
        bitcts_plugin_host *host = (bitcts_plugin_host *)&err; /* must be reset to NULL */
        const bitcts_status status = bitcts_plugin_host_open(path, NULL, &host, err, sizeof err);
        if (status != want->status) {
            fprintf(stderr, "FAILED: %s: status %d, expected %d (%s)\n", want->name, (int)status,
                    (int)want->status, err);
            ++test_failures;
        }
        CHECK(host == NULL);
        CHECK_CONTAINS(err, want->message);
        CHECK_CONTAINS(err, path);
        CHECK(strncmp(err, "plugin ", 7) == 0 && strchr(err, '\n') == NULL);
        bitcts_plugin_host_close(host);
    }
}

/* A newer minor table (one more slot, larger struct_size) must load; the host copies its own
 * size and reads nothing beyond. */
static void test_newer_minor(void)
{
    const char *path = arg_path("stub_newer_minor");
    CHECK(path != NULL);
    if (path == NULL) {
        return;
    }
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    bitcts_plugin_host *host = NULL;
    CHECK_INT(bitcts_plugin_host_open(path, NULL, &host, err, sizeof err), BITCTS_OK);
    CHECK_CONTAINS(err, "");
    if (host == NULL) {
        return;
    }
    CHECK_INT(bitcts_plugin_host_table_size(host), sizeof(bitcts_plugin_table) + sizeof(void *));
    CHECK_INT(bitcts_plugin_host_table(host)->struct_size, sizeof(bitcts_plugin_table));
    CHECK_INT(bitcts_plugin_host_abi_version(host), BITCTS_ABI_VERSION_1_0);
    CHECK(strcmp(bitcts_plugin_host_name(host), "stub_newer_minor") == 0);
    CHECK(bitcts_plugin_host_table(host)->instance_last_error == NULL);
    bitcts_plugin_host_close(host);
}

static void test_bad_paths(void)
{
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    bitcts_plugin_host *host = NULL;
    CHECK_INT(
        bitcts_plugin_host_open("/nonexistent/bitcts_plugin.so", NULL, &host, err, sizeof err),
        BITCTS_E_PLUGIN_LOAD);
    CHECK_CONTAINS(err, "plugin /nonexistent/bitcts_plugin.so: cannot load");
    /* A bare name is not searched for on the library path. */
    CHECK_INT(bitcts_plugin_host_open("libc.so.6", NULL, &host, err, sizeof err),
              BITCTS_E_PLUGIN_LOAD);
    CHECK_CONTAINS(err, "plugin ./libc.so.6: cannot load");
    CHECK_INT(bitcts_plugin_host_open(NULL, NULL, &host, err, sizeof err),
              BITCTS_E_INVALID_ARGUMENT);
    CHECK_INT(bitcts_plugin_host_open("", NULL, &host, NULL, 0), BITCTS_E_INVALID_ARGUMENT);

    const char *example = arg_path("example");
    if (example != NULL) {
        bitcts_plugin_host_config config = {.alloc = test_failing_alloc, .free = test_free};
        CHECK_INT(bitcts_plugin_host_open(example, &config, &host, err, sizeof err),
                  BITCTS_E_OUT_OF_MEMORY);
        CHECK_CONTAINS(err, "out of memory");
        config.free = NULL;
        CHECK_INT(bitcts_plugin_host_open(example, &config, &host, err, sizeof err),
                  BITCTS_E_INVALID_ARGUMENT);
    }
    CHECK(host == NULL);
}

/* ---- the validator on byte images ---- */

static void test_validator(void)
{
    const uint32_t v10 = BITCTS_ABI_VERSION_1_0;
    char why[BITCTS_PLUGIN_HOST_ERROR_CAP];
    unsigned char image[sizeof(bitcts_plugin_table) + 64];
    memset(image, 0, sizeof image);
    uint32_t size = sizeof(bitcts_plugin_table);
    memcpy(image, &size, sizeof size);

    CHECK_INT(
        bitcts_plugin_host_validate_negotiation(0, v10, image, 2, v10, v10, NULL, why, sizeof why),
        BITCTS_E_PLUGIN_MALFORMED);
    CHECK_CONTAINS(why, "truncated at 2 bytes");
    CHECK_INT(bitcts_plugin_host_validate_negotiation(0, v10, image, 100, v10, v10, NULL, why,
                                                      sizeof why),
              BITCTS_E_PLUGIN_MALFORMED);
    CHECK_CONTAINS(why, "exceeds the 100 bytes available");
    CHECK_INT(bitcts_plugin_host_validate_negotiation(0, v10, image, sizeof image, v10, v10, NULL,
                                                      why, sizeof why),
              BITCTS_E_PLUGIN_MALFORMED);
    CHECK_CONTAINS(why, "table slot name is NULL");
    CHECK_INT(bitcts_plugin_host_validate_negotiation(0, 0, image, sizeof image, v10, v10, NULL,
                                                      why, sizeof why),
              BITCTS_E_PLUGIN_INCOMPATIBLE);
    CHECK_CONTAINS(why, "ABI major 0 not supported");

    /* Mandatory slots non-NULL (never dereferenced), struct_size covering instance_info only:
     * the bytes beyond it hold 0xFF and must not reach the copy. */
    memset(image, 0xFF, sizeof image);
    size = (uint32_t)(offsetof(bitcts_plugin_table, instance_info) + sizeof(void *));
    memcpy(image, &size, sizeof size);
    bitcts_plugin_table copy;
    CHECK_INT(bitcts_plugin_host_validate_negotiation(0, v10, image, sizeof image, v10, v10, &copy,
                                                      why, sizeof why),
              BITCTS_OK);
    CHECK_INT(copy.struct_size, size);
    CHECK(copy.instance_info != NULL);
    CHECK(copy.plugin_shutdown == NULL && copy.get_extension == NULL);
    /* A later host speaking 1.0-1.3 accepts a plugin that chose 1.2. */
    CHECK_INT(bitcts_plugin_host_validate_negotiation(0, BITCTS_ABI_VERSION(1, 2), image,
                                                      sizeof image, v10, BITCTS_ABI_VERSION(1, 3),
                                                      NULL, why, sizeof why),
              BITCTS_OK);
    CHECK_INT(bitcts_plugin_host_validate_negotiation(
                  0, v10, image, sizeof image, BITCTS_ABI_VERSION(1, 1), BITCTS_ABI_VERSION(1, 3),
                  NULL, why, sizeof why),
              BITCTS_E_PLUGIN_INCOMPATIBLE);
    CHECK_CONTAINS(why, "chose ABI 1.0, outside what the host speaks (1.1-1.3)");
}

/* ---- built-in backends ---- */

static const bitcts_abi_host *builtin_services;
static int builtin_shutdowns;

static int32_t BITCTS_PLUGIN_CALL builtin_create(const bitcts_abi_create_info *info, void **out)
{
    (void)info;
    *out = NULL;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}
static void BITCTS_PLUGIN_CALL builtin_destroy(void *instance)
{
    (void)instance;
}
static int32_t BITCTS_PLUGIN_CALL builtin_caps(void *instance, bitcts_abi_caps *out)
{
    (void)instance;
    (void)out;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}
static int32_t BITCTS_PLUGIN_CALL builtin_op_caps(void *instance, uint32_t op,
                                                  bitcts_abi_op_caps *out)
{
    (void)instance;
    (void)op;
    (void)out;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}
static int32_t BITCTS_PLUGIN_CALL builtin_op_create(void *instance,
                                                    const bitcts_abi_operator_desc *desc,
                                                    void **out)
{
    (void)instance;
    (void)desc;
    (void)out;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}
static int32_t BITCTS_PLUGIN_CALL builtin_execute(void *instance, void *op,
                                                  const void *const *inputs, void *output)
{
    (void)instance;
    (void)op;
    (void)inputs;
    (void)output;
    return BITCTS_ABI_E_NOT_SUPPORTED;
}
static void BITCTS_PLUGIN_CALL builtin_op_destroy(void *instance, void *op)
{
    (void)instance;
    (void)op;
}
static void BITCTS_PLUGIN_CALL builtin_shutdown(void)
{
    ++builtin_shutdowns;
}

static const bitcts_plugin_table builtin_table = {
    .struct_size = sizeof(bitcts_plugin_table),
    .name = "builtin_test",
    .instance_create = builtin_create,
    .instance_destroy = builtin_destroy,
    .query_caps = builtin_caps,
    .query_op_caps = builtin_op_caps,
    .operator_create = builtin_op_create,
    .operator_execute = builtin_execute,
    .operator_destroy = builtin_op_destroy,
    .plugin_shutdown = builtin_shutdown,
};

static int32_t BITCTS_PLUGIN_CALL builtin_negotiate(bitcts_plugin_negotiation *n)
{
    n->chosen_version = BITCTS_ABI_VERSION_1_0;
    n->table = &builtin_table;
    builtin_services = n->host;
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL builtin_negotiate_bad(bitcts_plugin_negotiation *n)
{
    static bitcts_plugin_table broken;
    broken = builtin_table;
    broken.operator_create = NULL;
    n->chosen_version = BITCTS_ABI_VERSION_1_0;
    n->table = &broken;
    return BITCTS_ABI_OK;
}

static void test_builtin(void)
{
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    test_log log = {0};
    const bitcts_plugin_host_config config = {.log = test_log_fn, .log_user = &log};
    bitcts_plugin_host *host = NULL;
    CHECK_INT(
        bitcts_plugin_host_open_builtin("cpu", builtin_negotiate, &config, &host, err, sizeof err),
        BITCTS_OK);
    if (host == NULL) {
        return;
    }
    CHECK(strcmp(bitcts_plugin_host_path(host), "builtin:cpu") == 0);
    CHECK(strcmp(bitcts_plugin_host_digest(host), "") == 0);
    CHECK(strcmp(bitcts_plugin_host_vendor(host), "") == 0);
    CHECK(strcmp(bitcts_plugin_host_name(host), "builtin_test") == 0);

    /* The services table: a size, a forwarding log and a monotonic clock. */
    CHECK(builtin_services != NULL && builtin_services->struct_size >= sizeof(bitcts_abi_host));
    if (builtin_services != NULL) {
        builtin_services->log(builtin_services->user, BITCTS_ABI_LOG_WARN, "hello from cpu");
        CHECK_INT(log.calls, 1);
        CHECK(strcmp(log.last, "hello from cpu") == 0);
        const uint64_t t0 = builtin_services->now_ns(builtin_services->user);
        const uint64_t t1 = builtin_services->now_ns(builtin_services->user);
        CHECK(t0 > 0 && t1 >= t0);
    }
    bitcts_plugin_host_close(host);
    CHECK_INT(builtin_shutdowns, 1);

    CHECK_INT(
        bitcts_plugin_host_open_builtin("cpu", builtin_negotiate_bad, NULL, &host, err, sizeof err),
        BITCTS_E_PLUGIN_MALFORMED);
    CHECK_CONTAINS(err, "plugin builtin:cpu: table slot operator_create is NULL");
    CHECK_INT(builtin_shutdowns, 1); /* a rejected plugin gets no call */
    CHECK_INT(bitcts_plugin_host_open_builtin("cpu", NULL, NULL, &host, err, sizeof err),
              BITCTS_E_INVALID_ARGUMENT);
}

/* ---- digests ---- */

static void test_hash_file(void)
{
    char path[] = "/tmp/bitcts_plugin_host_test_XXXXXX";
    const int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) {
        return;
    }
    char hex[BITCTS_PLUGIN_HOST_DIGEST_CHARS + 1];
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    CHECK_INT(bitcts_plugin_host_hash_file(path, hex, err, sizeof err), BITCTS_OK);
    CHECK(strcmp(hex, "99aa06d3014798d86001c324468d497f") == 0); /* XXH3-128 of nothing */
    CHECK(write(fd, "abc", 3) == 3);
    CHECK_INT(bitcts_plugin_host_hash_file(path, hex, err, sizeof err), BITCTS_OK);
    CHECK(strcmp(hex, "06b05ab6733a618578af5f94892f3950") == 0);
    /* 40000 bytes span several read chunks. */
    static unsigned char pattern[40000];
    for (size_t i = 0; i < sizeof pattern; ++i) {
        pattern[i] = (unsigned char)(i * 7u + 3u);
    }
    CHECK(ftruncate(fd, 0) == 0 && lseek(fd, 0, SEEK_SET) == 0);
    CHECK(write(fd, pattern, sizeof pattern) == (ssize_t)sizeof pattern);
    CHECK_INT(bitcts_plugin_host_hash_file(path, hex, err, sizeof err), BITCTS_OK);
    CHECK(strcmp(hex, "fa4a1ec53bffdf380d48c10eb937856d") == 0);
    close(fd);
    unlink(path);
    CHECK_INT(bitcts_plugin_host_hash_file(path, hex, err, sizeof err), BITCTS_E_IO);
    CHECK_CONTAINS(err, path);
}

/* ---- the example plugin ---- */

/* An operator description with its arrays held inline; tensors[0..1] are the inputs (adjacent,
 * as desc.inputs requires) and tensors[2] the output. Not to be copied after init. */
typedef struct test_desc {
    uint32_t sizes[3][8];
    uint32_t strides[3][8];
    bitcts_abi_tensor tensors[3];
    bitcts_abi_operator_desc desc;
} test_desc;

/* Every tensor packed, of one type and one shape, with the given TotalTensorSizeInBytes. */
static void test_desc_init(test_desc *c, uint32_t op, uint32_t input_count, uint32_t type,
                           uint32_t rank, const uint32_t *sizes, uint64_t total)
{
    memset(c, 0, sizeof *c);
    for (uint32_t t = 0; t < 3; ++t) {
        memcpy(c->sizes[t], sizes, rank * sizeof sizes[0]);
        c->tensors[t].struct_size = sizeof(bitcts_abi_tensor);
        c->tensors[t].data_type = type;
        c->tensors[t].dimension_count = rank;
        c->tensors[t].sizes = c->sizes[t];
        c->tensors[t].total_tensor_size_in_bytes = total;
    }
    c->desc.struct_size = sizeof c->desc;
    c->desc.operator_type = op;
    c->desc.input_count = input_count;
    c->desc.inputs = c->tensors;
    c->desc.output = &c->tensors[2];
}

/* Gives tensor t explicit strides. */
static void test_desc_strides(test_desc *c, uint32_t t, const uint32_t *strides, uint64_t total)
{
    memcpy(c->strides[t], strides, c->tensors[t].dimension_count * sizeof strides[0]);
    c->tensors[t].strides = c->strides[t];
    c->tensors[t].total_tensor_size_in_bytes = total;
}

typedef struct test_plugin {
    const bitcts_plugin_table *table;
    void *instance;
} test_plugin;

/* Creates, runs and destroys one operator. */
static int32_t test_run(const test_plugin *p, const test_desc *c, const void *a, const void *b,
                        void *out)
{
    void *op = NULL;
    int32_t status = p->table->operator_create(p->instance, &c->desc, &op);
    if (status != BITCTS_ABI_OK) {
        return status;
    }
    const void *inputs[2] = {a, b};
    status = p->table->operator_execute(p->instance, op, inputs, out);
    p->table->operator_destroy(p->instance, op);
    return status;
}

static void test_expect_refused(const test_plugin *p, const test_desc *c, int32_t status,
                                const char *rule, int line)
{
    void *op = (void *)&op;
    const int32_t got = p->table->operator_create(p->instance, &c->desc, &op);
    check_int(got, status, rule, line);
    check_true(op == NULL, "no operator on refusal", line);
    if (got == BITCTS_ABI_OK) {
        p->table->operator_destroy(p->instance, op);
    }
    check_contains(p->table->instance_last_error(p->instance), rule, "instance_last_error", line);
}

static void test_example_bits(const test_plugin *p)
{
    /* XOR UINT8 [5]: the buffer is 8 bytes (rounded to 4); padding must stay untouched. */
    test_desc c;
    const uint32_t five[1] = {5};
    test_desc_init(&c, 123, 2, 5, 1, five, 8);
    uint8_t a[8] = {0x00, 0x0F, 0xF0, 0xAA, 0xFF, 1, 2, 3};
    const uint8_t b[8] = {0xFF, 0x0F, 0x0F, 0x55, 0x00, 4, 5, 6};
    uint8_t out[8];
    memset(out, 0xCD, sizeof out);
    CHECK_INT(test_run(p, &c, a, b, out), BITCTS_ABI_OK);
    const uint8_t want_xor[8] = {0xFF, 0x00, 0xFF, 0xFF, 0xFF, 0xCD, 0xCD, 0xCD};
    CHECK(memcmp(out, want_xor, sizeof out) == 0);
    /* The same in place: the output is input A. */
    CHECK_INT(test_run(p, &c, a, b, a), BITCTS_ABI_OK);
    const uint8_t want_in_place[8] = {0xFF, 0x00, 0xFF, 0xFF, 0xFF, 1, 2, 3};
    CHECK(memcmp(a, want_in_place, sizeof a) == 0);

    /* XOR UINT16 [2,3] with B broadcast along rows (stride 0) and a padded output. */
    const uint32_t two_three[2] = {2, 3};
    test_desc_init(&c, 123, 2, 4, 2, two_three, 12);
    const uint32_t row_broadcast[2] = {0, 1};
    const uint32_t padded_rows[2] = {4, 1};
    test_desc_strides(&c, 1, row_broadcast, 8);
    test_desc_strides(&c, 2, padded_rows, 16); /* last element at 4 + 2: 7 elements, 14 B */
    const uint16_t a16[6] = {1, 2, 3, 4, 5, 6};
    const uint16_t b16[4] = {0x100, 0x200, 0x300, 0xEEEE};
    uint16_t out16[8];
    memset(out16, 0xCD, sizeof out16);
    CHECK_INT(test_run(p, &c, a16, b16, out16), BITCTS_ABI_OK);
    const uint16_t want16[8] = {0x101, 0x202, 0x303, 0xCDCD, 0x104, 0x205, 0x306, 0xCDCD};
    CHECK(memcmp(out16, want16, sizeof out16) == 0);
}

static void test_example_count_not_shift(const test_plugin *p)
{
    test_desc c;
    const uint32_t two[1] = {2};
    const uint32_t five[1] = {5};
    /* COUNT UINT64 -> UINT8, raw bits. */
    const uint32_t four[1] = {4};
    test_desc_init(&c, 125, 1, 10, 1, four, 32);
    c.tensors[2].data_type = 5;
    c.tensors[2].total_tensor_size_in_bytes = 4;
    const uint64_t a64[4] = {0, 1, UINT64_MAX, 0x8000000000000001ull};
    uint8_t counts[4];
    CHECK_INT(test_run(p, &c, a64, NULL, counts), BITCTS_ABI_OK);
    const uint8_t want_counts[4] = {0, 1, 64, 2};
    CHECK(memcmp(counts, want_counts, sizeof counts) == 0);

    /* COUNT INT8 -> UINT32: -1 has eight bits set. */
    const uint32_t three[1] = {3};
    test_desc_init(&c, 125, 1, 8, 1, three, 4);
    c.tensors[2].data_type = 3;
    c.tensors[2].total_tensor_size_in_bytes = 12;
    const uint8_t a8[4] = {0xFF, 0x80, 0x00, 0x77};
    uint32_t counts32[3];
    CHECK_INT(test_run(p, &c, a8, NULL, counts32), BITCTS_ABI_OK);
    CHECK(counts32[0] == 8 && counts32[1] == 1 && counts32[2] == 0);

    /* NOT FLOAT32 keeps NaN payloads and signed zeros as bits. */
    test_desc_init(&c, 124, 1, 1, 1, two, 8);
    const uint32_t nan_bits[2] = {0x7F800001u, 0x80000000u};
    uint32_t not_bits[2];
    CHECK_INT(test_run(p, &c, nan_bits, NULL, not_bits), BITCTS_ABI_OK);
    CHECK(not_bits[0] == 0x807FFFFEu && not_bits[1] == 0x7FFFFFFFu);

    /* Shifts: B holds the counts; counts >= the width give 0 (the example's choice). */
    test_desc_init(&c, 97, 2, 5, 1, five, 8);
    const uint8_t values[8] = {0x81, 0x81, 0x81, 0x81, 0x81};
    const uint8_t shifts[8] = {0, 1, 7, 8, 200};
    uint8_t shifted[8];
    CHECK_INT(test_run(p, &c, values, shifts, shifted), BITCTS_ABI_OK);
    CHECK(shifted[0] == 0x81 && shifted[1] == 0x02 && shifted[2] == 0x80 && shifted[3] == 0 &&
          shifted[4] == 0);
    test_desc_init(&c, 98, 2, 10, 1, two, 16);
    const uint64_t big[2] = {0x8000000000000000ull, 0xFF};
    const uint64_t big_shifts[2] = {63, 64};
    uint64_t big_out[2];
    CHECK_INT(test_run(p, &c, big, big_shifts, big_out), BITCTS_ABI_OK);
    CHECK(big_out[0] == 1 && big_out[1] == 0);
}

static void test_example_layouts(const test_plugin *p)
{
    test_desc c;
    /* Rank 8 with a transposed (interleaved but non-overlapping) output. */
    const uint32_t rank8[8] = {1, 1, 1, 1, 1, 1, 3, 2};
    test_desc_init(&c, 122, 2, 5, 8, rank8, 8);
    const uint32_t interleaved[8] = {6, 6, 6, 6, 6, 6, 2, 3};
    test_desc_strides(&c, 2, interleaved, 8); /* offsets 0 3 2 5 4 7 */
    const uint8_t or_a[8] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20};
    const uint8_t or_b[8] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80};
    uint8_t or_out[8];
    memset(or_out, 0xCD, sizeof or_out);
    CHECK_INT(test_run(p, &c, or_a, or_b, or_out), BITCTS_ABI_OK);
    const uint8_t want_or[8] = {0x81, 0xCD, 0x84, 0x82, 0x90, 0x88, 0xCD, 0xA0};
    CHECK(memcmp(or_out, want_or, sizeof or_out) == 0);
}

static void test_example_refusals(const test_plugin *p)
{
    const uint32_t four[1] = {4};
    test_desc c;
#define TEST_REFUSED(status, rule) test_expect_refused(p, &c, (status), (rule), __LINE__)
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.sizes[1][0] = 0;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "size_zero");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[0].dimension_count = 9;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "dimension_count");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[2].dimension_count = 0;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "dimension_count");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[1].total_tensor_size_in_bytes = 3;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "buffer_too_small");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[1].data_type = 8;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "type_mismatch");
    test_desc_init(&c, 123, 2, 5, 1, four, 8);
    c.sizes[2][0] = 5;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "sizes_mismatch");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[1].dimension_count = 2;
    c.sizes[1][1] = 1;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "dims_mismatch");
    test_desc_init(&c, 123, 2, 12, 1, four, 4);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "unknown_type");
    test_desc_init(&c, 97, 2, 6, 1, four, 16);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "type_not_allowed");
    test_desc_init(&c, 125, 1, 5, 1, four, 8);
    c.tensors[2].data_type = 4;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_type_not_allowed");
    test_desc_init(&c, 124, 2, 5, 1, four, 4);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "input_count");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[0].flags = 0x2;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "unknown_flags");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.tensors[2].flags = 0x1;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_flags");
    test_desc_init(&c, 123, 2, 3, 1, four, 16);
    c.tensors[0].guaranteed_base_offset_alignment = 2;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "alignment");
    const uint32_t huge[2] = {65536, 65536};
    test_desc_init(&c, 123, 2, 5, 2, huge, UINT64_MAX);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "too_many_elements");
    const uint32_t widest[1] = {0xFFFFFFFFu};
    test_desc_init(&c, 123, 2, 10, 1, widest, UINT64_MAX);
    test_desc_strides(&c, 0, widest, UINT64_MAX);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "size_overflow");
    const uint32_t two_two[2] = {2, 2};
    const uint32_t zero_row[2] = {0, 1};
    const uint32_t same[2] = {1, 1};
    test_desc_init(&c, 123, 2, 5, 2, two_two, 4);
    test_desc_strides(&c, 2, zero_row, 4);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_zero_stride");
    test_desc_init(&c, 123, 2, 5, 2, two_two, 4);
    test_desc_strides(&c, 2, same, 4);
    TEST_REFUSED(BITCTS_ABI_E_INVALID_DESCRIPTOR, "output_overlap");
    test_desc_init(&c, 1, 2, 5, 1, four, 4);
    TEST_REFUSED(BITCTS_ABI_E_NOT_SUPPORTED, "unknown_operator");
    test_desc_init(&c, 123, 2, 5, 1, four, 4);
    c.desc.struct_size = 8;
    TEST_REFUSED(BITCTS_ABI_E_INVALID_ARGUMENT, "struct");
#undef TEST_REFUSED

    /* Valid corner cases: inputs may broadcast and carry OWNED_BY_DML; alignment 16 is fine. */
    test_desc_init(&c, 123, 2, 5, 2, two_two, 4);
    test_desc_strides(&c, 0, same, 4);
    c.tensors[1].flags = 0x1;
    c.tensors[2].guaranteed_base_offset_alignment = 16;
    void *op = NULL;
    CHECK_INT(p->table->operator_create(p->instance, &c.desc, &op), BITCTS_ABI_OK);
    p->table->operator_destroy(p->instance, op);
}

/* The digest: 32 lowercase hex digits, the file's own, and refused a second concurrent load. */
static void test_example_digest(const bitcts_plugin_host *host, const char *path)
{
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    const char *digest = bitcts_plugin_host_digest(host);
    CHECK_INT(strlen(digest), BITCTS_PLUGIN_HOST_DIGEST_CHARS);
    CHECK(strspn(digest, "0123456789abcdef") == BITCTS_PLUGIN_HOST_DIGEST_CHARS);
    char direct[BITCTS_PLUGIN_HOST_DIGEST_CHARS + 1];
    CHECK_INT(bitcts_plugin_host_hash_file(bitcts_plugin_host_path(host), direct, err, sizeof err),
              BITCTS_OK);
    CHECK(strcmp(direct, digest) == 0);
    /* A second load while the first is open is refused, whatever the path spelling. */
    bitcts_plugin_host *again = NULL;
    CHECK_INT(bitcts_plugin_host_open(path, NULL, &again, err, sizeof err), BITCTS_E_PLUGIN_LOAD);
    CHECK_CONTAINS(err, "already loaded in this process");
    char absolute[4096];
    if (realpath(path, absolute) != NULL) {
        CHECK_INT(bitcts_plugin_host_open(absolute, NULL, &again, err, sizeof err),
                  BITCTS_E_PLUGIN_LOAD);
    }
    CHECK(again == NULL);
}

static void test_example(void)
{
    const char *path = arg_path("example");
    CHECK(path != NULL);
    if (path == NULL) {
        return;
    }
    char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
    test_log log = {0};
    const bitcts_plugin_host_config config = {.log = test_log_fn, .log_user = &log};
    bitcts_plugin_host *host = NULL;
    CHECK_INT(bitcts_plugin_host_open(path, &config, &host, err, sizeof err), BITCTS_OK);
    if (host == NULL) {
        fprintf(stderr, "cannot open the example: %s\n", err);
        return;
    }
    CHECK(strcmp(bitcts_plugin_host_name(host), "example") == 0);
    CHECK(strcmp(bitcts_plugin_host_vendor(host), "bitcts project") == 0);
    CHECK(bitcts_plugin_host_version(host)[0] != '\0');
    CHECK(bitcts_plugin_host_build_id(host)[0] != '\0');
    CHECK_INT(bitcts_plugin_host_abi_version(host), BITCTS_ABI_VERSION_1_0);
    CHECK(strcmp(bitcts_plugin_host_path(host), path) == 0 ||
          strcmp(bitcts_plugin_host_path(host) + 2, path) == 0);

    char digest[BITCTS_PLUGIN_HOST_DIGEST_CHARS + 1];
    snprintf(digest, sizeof digest, "%s", bitcts_plugin_host_digest(host));
    test_example_digest(host, path);

    const bitcts_plugin_table *table = bitcts_plugin_host_table(host);
    /* Options: the known one works, an unknown key fails and says so through the host log. */
    const char *keys[1] = {"variant"};
    const char *values[1] = {"scalar"};
    bitcts_abi_create_info info = {sizeof info, 1, keys, values};
    void *instance = NULL;
    CHECK_INT(table->instance_create(&info, &instance), BITCTS_ABI_OK);
    table->instance_destroy(instance);
    keys[0] = "no_such_option";
    instance = NULL;
    CHECK_INT(table->instance_create(&info, &instance), BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(instance == NULL && log.calls == 1);
    CHECK_CONTAINS(log.last, "no_such_option");

    CHECK_INT(table->instance_create(NULL, &instance), BITCTS_ABI_OK);
    bitcts_abi_caps caps = {sizeof caps, 0};
    CHECK_INT(table->query_caps(instance, &caps), BITCTS_ABI_OK);
    CHECK_INT(caps.feature_level, 0x4100);
    bitcts_abi_op_caps op_caps;
    memset(&op_caps, 0, sizeof op_caps);
    op_caps.struct_size = sizeof op_caps;
    CHECK_INT(table->query_op_caps(instance, 125, &op_caps), BITCTS_ABI_OK);
    CHECK_INT(op_caps.input_types, 0x0FFE);
    CHECK_INT(op_caps.output_types, (1u << 5) | (1u << 3));
    CHECK_INT(op_caps.dimension_counts, 0x01FE);
    CHECK_INT(table->query_op_caps(instance, 97, &op_caps), BITCTS_ABI_OK);
    CHECK_INT(op_caps.input_types, (1u << 3) | (1u << 4) | (1u << 5) | (1u << 10));
    CHECK_INT(op_caps.flags, BITCTS_ABI_CAP_IN_PLACE);
    CHECK_INT(table->query_op_caps(instance, 1, &op_caps), BITCTS_ABI_E_NOT_SUPPORTED);
    CHECK(strcmp(table->instance_info(instance, "variant"), "scalar") == 0);
    CHECK(table->instance_info(instance, "no_such_key") == NULL);

    const test_plugin plugin = {table, instance};
    test_example_bits(&plugin);
    test_example_count_not_shift(&plugin);
    test_example_layouts(&plugin);
    test_example_refusals(&plugin);
    table->instance_destroy(instance);
    bitcts_plugin_host_close(host);

    /* Closed and opened again: the same digest. */
    bitcts_plugin_host *again = NULL;
    CHECK_INT(bitcts_plugin_host_open(path, NULL, &again, err, sizeof err), BITCTS_OK);
    CHECK(again != NULL && strcmp(bitcts_plugin_host_digest(again), digest) == 0);
    bitcts_plugin_host_close(again);
}

/* Every broken plugin given on the command line loads and names its bug. */
static void test_broken_plugins_load(void)
{
    for (int i = 1; i < test_argc; ++i) {
        if (strncmp(test_argv[i], "broken_", 7) != 0 || strchr(test_argv[i], '=') == NULL) {
            continue;
        }
        const char *eq = strchr(test_argv[i], '=');
        char err[BITCTS_PLUGIN_HOST_ERROR_CAP];
        bitcts_plugin_host *host = NULL;
        CHECK_INT(bitcts_plugin_host_open(eq + 1, NULL, &host, err, sizeof err), BITCTS_OK);
        if (host != NULL) {
            const char *name = bitcts_plugin_host_name(host);
            check_true(strlen(name) == (size_t)(eq - test_argv[i]) &&
                           strncmp(name, test_argv[i], strlen(name)) == 0,
                       test_argv[i], __LINE__);
        }
        bitcts_plugin_host_close(host);
    }
}

int main(int argc, char **argv)
{
    test_argc = argc;
    test_argv = argv;
    test_stubs();
    test_newer_minor();
    test_bad_paths();
    test_validator();
    test_builtin();
    test_hash_file();
    test_example();
    test_broken_plugins_load();
    if (test_failures != 0) {
        fprintf(stderr, "plugin_host_test: %d check(s) failed\n", test_failures);
        return 1;
    }
    printf("plugin_host_test: all checks passed\n");
    return 0;
}
