/* SPDX-License-Identifier: MIT */
/* Unit test of the Vulkan backend through its plugin table: operators on small tensors against
 * hand-written expectations (float specials bit for bit), every shader kind (packed, rows,
 * tile, strided) and how the plan picks it, broadcast, in place, padding and oversized buffers, a
 * tensor beyond 128 MiB (past lavapipe's maxStorageBufferRange) with and without pieced staging,
 * descriptor validation, options, missing features, fault injection (hang, oom, lost, validation),
 * instance facts and the device-timing extension; and, without a device, the strided shader's
 * division constants. Exit 0 pass, 1 fail, 77 when no Vulkan device is present. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bitcts/bitcts_plugin.h"
#include "check.h"
#include "vk_backend.h"
#include "vk_internal.h"

static const bitcts_plugin_table *table;
static char host_log[1024];

static void BITCTS_PLUGIN_CALL test_log(void *user, int32_t level, const char *message)
{
    (void)user;
    (void)level;
    snprintf(host_log, sizeof host_log, "%s", message);
}

static const bitcts_abi_host test_host = {.struct_size = sizeof(bitcts_abi_host), .log = test_log};

/* ---- instances and descriptions ---- */

static int32_t instance_with(const char *const *kv, uint32_t pairs, void **out)
{
    const char *keys[8];
    const char *values[8];
    for (uint32_t i = 0; i < pairs; ++i) {
        keys[i] = kv[2 * i];
        values[i] = kv[2 * i + 1];
    }
    const bitcts_abi_create_info info = {sizeof info, pairs, keys, values};
    host_log[0] = '\0';
    return table->instance_create(&info, out);
}

typedef struct tensor {
    bitcts_abi_tensor t;
    uint32_t sizes[8];
    uint32_t strides[8];
} tensor;

/* A tensor of `rank` dims; strides NULL means packed; total 0 means the minimum size. */
static void tensor_set(tensor *x, uint32_t dt, uint32_t rank, const uint32_t *sizes,
                       const uint32_t *strides, uint64_t total)
{
    memset(x, 0, sizeof *x);
    memcpy(x->sizes, sizes, rank * sizeof sizes[0]);
    uint64_t elements = 1;
    uint64_t last = 0;
    for (uint32_t d = 0; d < rank; ++d) {
        elements *= sizes[d];
        if (strides != NULL) {
            x->strides[d] = strides[d];
            last += (uint64_t)(sizes[d] - 1) * strides[d];
        }
    }
    const uint64_t need =
        ((strides != NULL ? last + 1 : elements) * bitcts_dml_type_bytes(dt) + 3) & ~3ull;
    x->t = (bitcts_abi_tensor){.struct_size = sizeof(bitcts_abi_tensor),
                               .data_type = dt,
                               .dimension_count = rank,
                               .sizes = x->sizes,
                               .strides = strides != NULL ? x->strides : NULL,
                               .total_tensor_size_in_bytes = total != 0 ? total : need};
}

/* How run() executes: operator_execute (0), or the batch extension's execute_batch alone (1)
 * or between two other items (2: a NOT of DECOY_BYTES bytes before and a strided one after, whose
 * outputs are checked too), so every layout test also proves the batched path. */
static int batch_mode;
#define DECOY_BYTES 300000u

static const bitcts_abi_batch_ext *batch_ext(void)
{
    const bitcts_abi_batch_ext *ext = table->get_extension(BITCTS_ABI_EXT_BATCH_EXECUTE);
    CHECK(ext != NULL && ext->struct_size >= sizeof *ext && ext->execute_batch != NULL);
    return ext;
}

/* A decoy: BIT_NOT over `n` UINT8 elements, packed (strided == 0) or read backwards through a
 * rank-2 transposed view (the strided or tile shaders, with their own parameters). */
static void *decoy_create(void *inst, uint32_t n, int strided)
{
    tensor in;
    tensor out;
    const uint32_t flat[1] = {n};
    const uint32_t shape[2] = {n / 100, 100};
    const uint32_t rev[2] = {1, n / 100};
    tensor_set(&in, BITCTS_DT_UINT8, strided ? 2 : 1, strided ? shape : flat, strided ? rev : NULL,
               0);
    tensor_set(&out, BITCTS_DT_UINT8, strided ? 2 : 1, strided ? shape : flat, NULL, 0);
    bitcts_abi_tensor ins[1] = {in.t};
    const bitcts_abi_operator_desc desc = {sizeof desc, BITCTS_OP_BIT_NOT, 1u, 0, ins, &out.t};
    void *handle = NULL;
    CHECK_EQ_U64(table->operator_create(inst, &desc, &handle), BITCTS_ABI_OK);
    return handle;
}

static int32_t run_batched(void *inst, void *handle, const void *const *inputs, void *po)
{
    const bitcts_abi_batch_ext *ext = batch_ext();
    if (batch_mode == 1) {
        bitcts_abi_batch_item one = {sizeof one, -1, handle, inputs, po};
        CHECK_EQ_U64(ext->execute_batch(inst, 1, &one), BITCTS_ABI_OK);
        return one.status;
    }
    uint8_t *x = malloc(DECOY_BYTES);
    uint8_t *y = malloc(2 * (size_t)DECOY_BYTES);
    void *decoys[2] = {decoy_create(inst, DECOY_BYTES, 0), decoy_create(inst, DECOY_BYTES, 1)};
    CHECK(x != NULL && y != NULL);
    if (x == NULL || y == NULL || decoys[0] == NULL || decoys[1] == NULL) {
        free(x);
        free(y);
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < DECOY_BYTES; ++i) {
        x[i] = (uint8_t)(i * 7u + 3u);
    }
    memset(y, 0x5A, 2 * (size_t)DECOY_BYTES);
    const void *xin[1] = {x};
    bitcts_abi_batch_item items[3] = {{sizeof items[0], -1, decoys[0], xin, y},
                                      {sizeof items[0], -1, handle, inputs, po},
                                      {sizeof items[0], -1, decoys[1], xin, y + DECOY_BYTES}};
    CHECK_EQ_U64(ext->execute_batch(inst, 3, items), BITCTS_ABI_OK);
    CHECK_EQ_U64(items[0].status, BITCTS_ABI_OK);
    CHECK_EQ_U64(items[2].status, BITCTS_ABI_OK);
    int right = 1;
    for (uint32_t i = 0; i < DECOY_BYTES;
         ++i) { /* NOT: y + x is 255; the view (r, c): x[r + c * rows] */
        const uint32_t rows = DECOY_BYTES / 100;
        right = right && y[i] + x[i] == 255 &&
                y[DECOY_BYTES + i] + x[i / 100 + (i % 100) * rows] == 255;
    }
    CHECK(right);
    table->operator_destroy(inst, decoys[0]);
    table->operator_destroy(inst, decoys[1]);
    free(x);
    free(y);
    return items[1].status;
}

/* Creates and runs one operator; returns the first failing status. */
static int32_t run(void *inst, uint32_t op, const tensor *a, const tensor *b, const tensor *out,
                   const void *pa, const void *pb, void *po)
{
    bitcts_abi_tensor ins[2] = {a->t, b != NULL ? b->t : a->t};
    const bitcts_abi_operator_desc desc = {sizeof desc, op, b != NULL ? 2u : 1u, 0, ins, &out->t};
    void *handle = NULL;
    int32_t rc = table->operator_create(inst, &desc, &handle);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    const void *inputs[2] = {pa, pb};
    rc = batch_mode != 0 ? run_batched(inst, handle, inputs, po)
                         : table->operator_execute(inst, handle, inputs, po);
    table->operator_destroy(inst, handle);
    return rc;
}

static int32_t create_only(void *inst, uint32_t op, const tensor *a, const tensor *b,
                           const tensor *out)
{
    bitcts_abi_tensor ins[2] = {a->t, b != NULL ? b->t : a->t};
    const bitcts_abi_operator_desc desc = {sizeof desc, op, b != NULL ? 2u : 1u, 0, ins, &out->t};
    void *handle = NULL;
    const int32_t rc = table->operator_create(inst, &desc, &handle);
    if (handle != NULL) {
        table->operator_destroy(inst, handle);
    }
    return rc;
}

/* The complement of an element, as a value of its own width. */
static uint8_t flip8(uint8_t v)
{
    return (uint8_t)(0xFFu - v);
}

static uint16_t flip16(uint16_t v)
{
    return (uint16_t)(0xFFFFu - v);
}

static int starts_with(const char *text, const char *prefix)
{
    return text != NULL && strncmp(text, prefix, strlen(prefix)) == 0;
}

static int contains(const char *text, const char *part)
{
    return text != NULL && strstr(text, part) != NULL;
}

/* ---- operators on small tensors ---- */

static void test_documented_examples(void *inst)
{
    const uint32_t n4[1] = {4};
    tensor a;
    tensor o;
    tensor o32;
    tensor a32;
    tensor_set(&a, BITCTS_DT_UINT8, 1, n4, NULL, 0);
    tensor_set(&o, BITCTS_DT_UINT8, 1, n4, NULL, 0);
    const uint8_t x[4] = {0, 128, 42, 255};
    uint8_t y[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &a, NULL, &o, x, NULL, y), BITCTS_ABI_OK);
    CHECK(y[0] == 255 && y[1] == 127 && y[2] == 213 && y[3] == 0);
    /* BIT_COUNT's example, to UINT32 and to UINT8. */
    tensor_set(&a32, BITCTS_DT_UINT32, 1, n4, NULL, 0);
    tensor_set(&o32, BITCTS_DT_UINT32, 1, n4, NULL, 0);
    const uint32_t c[4] = {0, 123, 456, 789};
    uint32_t cy[4] = {9, 9, 9, 9};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &a32, NULL, &o32, c, NULL, cy), BITCTS_ABI_OK);
    CHECK(cy[0] == 0 && cy[1] == 6 && cy[2] == 4 && cy[3] == 5);
    uint8_t cy8[4] = {9, 9, 9, 9};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &a32, NULL, &o, c, NULL, cy8), BITCTS_ABI_OK);
    CHECK(cy8[0] == 0 && cy8[1] == 6 && cy8[2] == 4 && cy8[3] == 5);
    /* UINT8 to UINT8 counts every byte alone (the packed shader's SWAR path). */
    const uint32_t n20[1] = {20};
    tensor b20;
    tensor_set(&b20, BITCTS_DT_UINT8, 1, n20, NULL, 0);
    uint8_t bytes[20];
    uint8_t counts[20];
    for (uint32_t i = 0; i < 20; ++i) {
        bytes[i] = (uint8_t)(i == 0 ? 0xFF : (1u << (i % 8)) | (i > 8 ? 0x80u : 0u));
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &b20, NULL, &b20, bytes, NULL, counts),
                 BITCTS_ABI_OK);
    int counted = counts[0] == 8;
    for (uint32_t i = 1; i < 20; ++i) {
        counted = counted && counts[i] == (i > 8 && i % 8 != 7 ? 2 : 1);
    }
    CHECK(counted);
    /* XOR (the doc's own example is NOT's): 2x2 UINT8. */
    const uint32_t s22[2] = {2, 2};
    tensor_set(&a, BITCTS_DT_UINT8, 2, s22, NULL, 0);
    tensor_set(&o, BITCTS_DT_UINT8, 2, s22, NULL, 0);
    const uint8_t xa[4] = {0x0F, 0xF0, 0xAA, 0x00};
    const uint8_t xb[4] = {0xFF, 0xF0, 0x55, 0x01};
    uint8_t xo[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &a, &a, &o, xa, xb, xo), BITCTS_ABI_OK);
    CHECK(xo[0] == 0xF0 && xo[1] == 0x00 && xo[2] == 0xFF && xo[3] == 0x01);
}

static void test_shifts(void *inst)
{
    const uint32_t n5[1] = {5};
    tensor t8;
    tensor_set(&t8, BITCTS_DT_UINT8, 1, n5, NULL, 0);
    const uint8_t a8[5] = {1, 0x80, 0xFF, 3, 0x81};
    const uint8_t b8[5] = {1, 1, 8, 200, 7};
    uint8_t l8[5] = {0};
    uint8_t r8[5] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_LEFT, &t8, &t8, &t8, a8, b8, l8), BITCTS_ABI_OK);
    CHECK(l8[0] == 2 && l8[1] == 0 && l8[2] == 0 && l8[3] == 0 && l8[4] == 0x80);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_RIGHT, &t8, &t8, &t8, a8, b8, r8), BITCTS_ABI_OK);
    CHECK(r8[0] == 0 && r8[1] == 0x40 && r8[2] == 0 && r8[3] == 0 && r8[4] == 1);
    const uint32_t n4[1] = {4};
    tensor t64;
    tensor_set(&t64, BITCTS_DT_UINT64, 1, n4, NULL, 0);
    const uint64_t a64[4] = {1, 0x8000000000000001ull, 0xFFFFFFFFFFFFFFFFull, 5};
    const uint64_t b64[4] = {63, 1, 64, 1ull << 32}; /* 64 and 2^32 saturate to 0 */
    uint64_t l64[4] = {0};
    uint64_t r64[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_LEFT, &t64, &t64, &t64, a64, b64, l64),
                 BITCTS_ABI_OK);
    CHECK_EQ_U64(l64[0], 0x8000000000000000ull);
    CHECK_EQ_U64(l64[1], 2);
    CHECK_EQ_U64(l64[2], 0);
    CHECK_EQ_U64(l64[3], 0);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_RIGHT, &t64, &t64, &t64, a64, b64, r64),
                 BITCTS_ABI_OK);
    CHECK_EQ_U64(r64[0], 0);
    CHECK_EQ_U64(r64[1], 0x4000000000000000ull);
    CHECK_EQ_U64(r64[2], 0);
    CHECK_EQ_U64(r64[3], 0);
    tensor t32;
    tensor_set(&t32, BITCTS_DT_UINT32, 1, n4, NULL, 0);
    const uint32_t a32[4] = {1, 0x80000001u, 7, 0xFFFFFFFFu};
    const uint32_t b32[4] = {31, 33, 32, 4};
    uint32_t l32[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_LEFT, &t32, &t32, &t32, a32, b32, l32),
                 BITCTS_ABI_OK);
    CHECK(l32[0] == 0x80000000u && l32[1] == 0 && l32[2] == 0 && l32[3] == 0xFFFFFFF0u);
    const uint32_t n3[1] = {3};
    tensor t16;
    tensor_set(&t16, BITCTS_DT_UINT16, 1, n3, NULL, 0);
    const uint16_t a16[3] = {0x8001, 0xFFFF, 0x1234};
    const uint16_t b16[3] = {15, 16, 4};
    uint16_t r16[3] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_RIGHT, &t16, &t16, &t16, a16, b16, r16),
                 BITCTS_ABI_OK);
    CHECK(r16[0] == 1 && r16[1] == 0 && r16[2] == 0x123);
}

/* NaN payloads, signalling NaNs, -0 and denormals through NOT, AND and COUNT: raw bits. */
static void test_float_specials(void *inst)
{
    const uint32_t n4[1] = {4};
    tensor f32;
    tensor_set(&f32, BITCTS_DT_FLOAT32, 1, n4, NULL, 0);
    const uint32_t x32[4] = {0x7FA12345u, 0x80000000u, 0x00000001u, 0xFF800001u};
    uint32_t n32[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &f32, NULL, &f32, x32, NULL, n32), BITCTS_ABI_OK);
    CHECK_EQ_U64(n32[0], 0x805EDCBAu);
    CHECK_EQ_U64(n32[1], 0x7FFFFFFFu);
    CHECK_EQ_U64(n32[2], 0xFFFFFFFEu);
    CHECK_EQ_U64(n32[3], 0x007FFFFEu);
    const uint32_t ones[4] = {~0u, ~0u, ~0u, ~0u};
    uint32_t and32[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_AND, &f32, &f32, &f32, x32, ones, and32), BITCTS_ABI_OK);
    CHECK(memcmp(and32, x32, sizeof x32) == 0);
    tensor f16;
    tensor_set(&f16, BITCTS_DT_FLOAT16, 1, n4, NULL, 0);
    const uint16_t x16[4] = {0x0001, 0x8000, 0x7C01, 0x7E55}; /* denormal, -0, sNaN, qNaN */
    uint16_t n16[4] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &f16, NULL, &f16, x16, NULL, n16), BITCTS_ABI_OK);
    CHECK(n16[0] == 0xFFFE && n16[1] == 0x7FFF && n16[2] == 0x83FE && n16[3] == 0x81AA);
    const uint32_t n2[1] = {2};
    tensor f64;
    tensor u8;
    tensor_set(&f64, BITCTS_DT_FLOAT64, 1, n2, NULL, 0);
    tensor_set(&u8, BITCTS_DT_UINT8, 1, n2, NULL, 0);
    const uint64_t x64[2] = {0x7FF0000000000001ull, 0x8000000000000000ull};
    const uint64_t m64[2] = {0xFFFFFFFFFFFFFFFFull, 1};
    uint64_t o64[2] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &f64, &f64, &f64, x64, m64, o64), BITCTS_ABI_OK);
    CHECK_EQ_U64(o64[0], 0x800FFFFFFFFFFFFEull);
    CHECK_EQ_U64(o64[1], 0x8000000000000001ull);
    uint8_t c8[2] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &f64, NULL, &u8, x64, NULL, c8), BITCTS_ABI_OK);
    CHECK(c8[0] == 12 && c8[1] == 1);
    tensor i8;
    tensor o32;
    tensor_set(&i8, BITCTS_DT_INT8, 1, n2, NULL, 0);
    tensor_set(&o32, BITCTS_DT_UINT32, 1, n2, NULL, 0);
    const int8_t m1[2] = {-1, -128};
    uint32_t c32[2] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &i8, NULL, &o32, m1, NULL, c32), BITCTS_ABI_OK);
    CHECK(c32[0] == 8 && c32[1] == 1);
}

/* ---- layouts: broadcast, transposed (tile), general strides, in place, padding ---- */

static void test_broadcast(void *inst)
{
    const uint32_t s[2] = {3, 5};
    const uint32_t zero[2] = {0, 0};
    const uint32_t row[2] = {0, 1}; /* one row repeated */
    tensor scalar;
    tensor rows;
    tensor full;
    tensor_set(&scalar, BITCTS_DT_UINT16, 2, s, zero, 0);
    tensor_set(&rows, BITCTS_DT_UINT16, 2, s, row, 0);
    tensor_set(&full, BITCTS_DT_UINT16, 2, s, NULL, 0);
    const uint16_t k[2] = {0x00FF, 0};
    uint16_t b[15];
    uint16_t r[5];
    uint16_t o[15];
    for (uint32_t i = 0; i < 15; ++i) {
        b[i] = (uint16_t)(0x1111u * (i % 7) + i);
    }
    for (uint32_t i = 0; i < 5; ++i) {
        r[i] = (uint16_t)(1u << (3 * i));
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_AND, &scalar, &full, &full, k, b, o), BITCTS_ABI_OK);
    int ok = 1;
    for (uint32_t i = 0; i < 15; ++i) {
        ok = ok && o[i] == (b[i] & 0x00FF);
    }
    CHECK(ok);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_OR, &full, &rows, &full, b, r, o), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t i = 0; i < 15; ++i) {
        ok = ok && o[i] == (uint16_t)(b[i] | r[i % 5]);
    }
    CHECK(ok);
    /* Unary on a broadcast scalar: every element is the count of the one value. */
    const uint32_t n9[1] = {9};
    const uint32_t z1[1] = {0};
    tensor one;
    tensor out8;
    tensor_set(&one, BITCTS_DT_UINT64, 1, n9, z1, 0);
    tensor_set(&out8, BITCTS_DT_UINT8, 1, n9, NULL, 0);
    const uint64_t v = 0xF0F0F0F0F0F0F0F1ull;
    uint8_t c[9] = {0};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &one, NULL, &out8, &v, NULL, c), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t i = 0; i < 9; ++i) {
        ok = ok && c[i] == 33;
    }
    CHECK(ok);
}

/* out[r][c] = ~in[c][r] for a 37 x 70 matrix stored transposed (the tile shader), and the
 * same through the strided shader (a third dimension of size 2 with a padded stride). */
static void test_transposed(void *inst)
{
    enum { R = 37, C = 70 };
    const uint32_t s[2] = {R, C};
    const uint32_t tr[2] = {1, R};
    tensor in;
    tensor out;
    tensor_set(&in, BITCTS_DT_INT16, 2, s, tr, 0);
    tensor_set(&out, BITCTS_DT_INT16, 2, s, NULL, 0);
    static uint16_t x[R * C];
    static uint16_t y[R * C];
    for (uint32_t i = 0; i < R * C; ++i) {
        x[i] = (uint16_t)(i * 2654435761u >> 7);
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &in, NULL, &out, x, NULL, y), BITCTS_ABI_OK);
    int ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < C; ++c) {
            ok = ok && y[r * C + c] == flip16(x[c * R + r]);
        }
    }
    CHECK(ok);
    /* Rank 3, batch of 2 with a gap between the halves: A transposed, B packed. */
    const uint32_t s3[3] = {2, 5, 33};
    const uint32_t a3[3] = {200, 1, 5};
    tensor a;
    tensor b;
    tensor o;
    tensor_set(&a, BITCTS_DT_UINT32, 3, s3, a3, 0);
    tensor_set(&b, BITCTS_DT_UINT32, 3, s3, NULL, 0);
    tensor_set(&o, BITCTS_DT_UINT32, 3, s3, NULL, 0);
    static uint32_t xa[400];
    static uint32_t xb[330];
    static uint32_t xo[330];
    for (uint32_t i = 0; i < 400; ++i) {
        xa[i] = i * 0x9E3779B9u;
    }
    for (uint32_t i = 0; i < 330; ++i) {
        xb[i] = ~i;
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &a, &b, &o, xa, xb, xo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t n = 0; n < 2; ++n) {
        for (uint32_t r = 0; r < 5; ++r) {
            for (uint32_t c = 0; c < 33; ++c) {
                const uint32_t i = n * 165 + r * 33 + c;
                ok = ok && xo[i] == (xa[n * 200 + r + c * 5] ^ xb[i]);
            }
        }
    }
    CHECK(ok);
}

/* UINT8 shifts of a transposed A (columns r apart) by a packed B, r x c, a word at a time (four
 * byte lanes shifted at once): counts 0-9 and 250-255 in xb (8 or more give 0). */
static void check_byte_shifts(void *inst, const tensor *a, const tensor *b, const tensor *o,
                              const uint8_t *xa, uint8_t *xb, uint8_t *xo, uint32_t r, uint32_t c)
{
    for (uint32_t i = 0; i < r * c; ++i) {
        xb[i] = (uint8_t)(i % 16 < 10 ? i % 16 : 240 + i % 16);
    }
    for (int left = 0; left <= 1; ++left) {
        const uint32_t op = left ? BITCTS_OP_BIT_SHIFT_LEFT : BITCTS_OP_BIT_SHIFT_RIGHT;
        CHECK_EQ_U64(run(inst, op, a, b, o, xa, xb, xo), BITCTS_ABI_OK);
        uint32_t bad = 0;
        for (uint32_t y = 0; y < r; ++y) {
            for (uint32_t x = 0; x < c; ++x) {
                const uint32_t v = xa[x * r + y];
                const uint32_t k = xb[y * c + x];
                bad += xo[y * c + x] != (k >= 8 ? 0u : (uint8_t)(left ? v << k : v >> k));
            }
        }
        CHECK_EQ_U64(bad, 0);
    }
}

/* Transposes of 8- and 16-bit elements a word at a time (the tilew kind): UINT8 XOR of a
 * transposed A and a packed B over 132 x 136 (partial 128 x 128 tiles), UINT8 shifts of the
 * same layout, UINT16 shifts of a packed A by a transposed B in a batch of 2 with padded
 * strides, and UINT8 BIT_COUNT of a transposed A whose columns start 4 bytes apart beyond
 * their length. */
static void test_transposed_words(void *inst)
{
    enum { R = 132, C = 136 };
    const uint32_t s[2] = {R, C};
    const uint32_t tr[2] = {1, R};
    tensor a;
    tensor b;
    tensor o;
    tensor_set(&a, BITCTS_DT_UINT8, 2, s, tr, 0);
    tensor_set(&b, BITCTS_DT_UINT8, 2, s, NULL, 0);
    tensor_set(&o, BITCTS_DT_UINT8, 2, s, NULL, 0);
    static uint8_t xa[R * C];
    static uint8_t xb[R * C];
    static uint8_t xo[R * C];
    for (uint32_t i = 0; i < R * C; ++i) {
        xa[i] = (uint8_t)(i * 2654435761u >> 11);
        xb[i] = (uint8_t)(i * 40503u >> 3);
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &a, &b, &o, xa, xb, xo), BITCTS_ABI_OK);
    int ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < C; ++c) {
            ok = ok && xo[r * C + c] == (uint8_t)(xa[c * R + r] ^ xb[r * C + c]);
        }
    }
    CHECK(ok);
    check_byte_shifts(inst, &a, &b, &o, xa, xb, xo, R, C);
    /* Counts: column starts 136 bytes apart (132 used). */
    const uint32_t tr136[2] = {1, 136};
    const uint32_t s2[2] = {R, 128};
    tensor a2;
    tensor o2;
    tensor_set(&a2, BITCTS_DT_UINT8, 2, s2, tr136, 0);
    tensor_set(&o2, BITCTS_DT_UINT8, 2, s2, NULL, 0);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &a2, NULL, &o2, xa, NULL, xo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < 128; ++c) {
            uint32_t n = 0;
            for (uint32_t v = xa[c * 136 + r]; v != 0; v &= v - 1) {
                ++n;
            }
            ok = ok && xo[r * 128 + c] == n;
        }
    }
    CHECK(ok);
    /* UINT16, batch 2 x 66 x 70: A packed with a row stride of 72, B transposed with a column
     * stride of 68; the batches 5000 elements apart. */
    const uint32_t s3[3] = {2, 66, 70};
    const uint32_t a3[3] = {5000, 72, 1};
    const uint32_t b3[3] = {5000, 1, 68};
    tensor a16;
    tensor b16;
    tensor o16;
    tensor_set(&a16, BITCTS_DT_UINT16, 3, s3, a3, 0);
    tensor_set(&b16, BITCTS_DT_UINT16, 3, s3, b3, 0);
    tensor_set(&o16, BITCTS_DT_UINT16, 3, s3, NULL, 0);
    static uint16_t ya[10000];
    static uint16_t yb[10000];
    static uint16_t yo[2 * 66 * 70];
    for (uint32_t i = 0; i < 10000; ++i) {
        ya[i] = (uint16_t)(i * 2654435761u >> 9);
        yb[i] = (uint16_t)(i % 19); /* counts 16-18 give 0 */
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_RIGHT, &a16, &b16, &o16, ya, yb, yo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t n = 0; n < 2; ++n) {
        for (uint32_t r = 0; r < 66; ++r) {
            for (uint32_t c = 0; c < 70; ++c) {
                const uint32_t k = yb[n * 5000 + r + c * 68];
                const uint32_t x = ya[n * 5000 + r * 72 + c];
                ok = ok && yo[(n * 66 + r) * 70 + c] == (k >= 16 ? 0u : x >> k);
            }
        }
    }
    CHECK(ok);
}

/* The unsigned type of w bytes. */
static uint32_t uint_type_of(uint32_t w)
{
    return w == 1 ? BITCTS_DT_UINT8 : w == 2 ? BITCTS_DT_UINT16 : BITCTS_DT_UINT32;
}

/* Element i of a buffer of w-byte (1, 2 or 4) little-endian elements. */
static uint32_t element_at(const uint8_t *buf, uint32_t w, uint64_t i)
{
    uint32_t v = 0;
    for (uint32_t b = 0; b < w; ++b) {
        v |= (uint32_t)buf[i * w + b] << (8 * b);
    }
    return v;
}

/* Mismatches of a BIT_COUNT of a transposed input (transposed_counts' layout); padding
 * elements of the output (columns C and beyond) must keep their 0xA5 bytes. */
static uint32_t transposed_count_errors(const uint8_t *xa, uint32_t in_w, const uint8_t *xo,
                                        uint32_t out_w, const uint32_t sizes[3],
                                        const uint32_t sa[3], const uint32_t so[3])
{
    uint32_t bad = 0;
    for (uint32_t n = 0; n < sizes[0]; ++n) {
        for (uint32_t r = 0; r < sizes[1]; ++r) {
            for (uint32_t c = 0; c < so[1]; ++c) {
                const uint64_t o = (uint64_t)n * so[0] + (uint64_t)r * so[1] + c;
                const uint32_t got = element_at(xo, out_w, o);
                if (c >= sizes[2]) {
                    const int last = n + 1 == sizes[0] && r + 1 == sizes[1];
                    bad += !last && got != (out_w == 1 ? 0xA5u : 0xA5A5A5A5u);
                    continue;
                }
                const uint64_t i = (uint64_t)n * sa[0] + r * sa[1] + (uint64_t)c * sa[2];
                uint32_t want = 0;
                for (uint32_t v = element_at(xa, in_w, i); v != 0; v &= v - 1) {
                    ++want;
                }
                if (got != want && bad++ < 3) {
                    printf("count %u -> %u bytes at [%u][%u][%u]: %u, expected %u\n", in_w, out_w,
                           n, r, c, got, want);
                }
            }
        }
    }
    return bad;
}

/* BIT_COUNT of a transposed input to another width a word at a time (the tilew kind for 8 ->
 * 32, 16 -> 8 and 16 -> 32 bits; 8 -> 8 too): a batch of 2 x 136 x 140, partial tiles along
 * both dimensions for every width, the input's columns 140 elements apart and its batches
 * 19608, the output's rows 144 apart (its padding kept); then 32 -> 8 and 32 -> 32 bits (the
 * element tile) on the same layout. */
static void test_transposed_counts(void *inst)
{
    enum { N = 2, R = 136, C = 140, A_COL = 140, A_BATCH = 19608, O_ROW = 144 };
    static const uint32_t pairs[][2] = {{1, 4}, {2, 1}, {2, 4}, {4, 1}, {1, 1}, {4, 4}};
    static uint8_t xa[N * A_BATCH * 4];
    static uint8_t xo[N * R * O_ROW * 4];
    const uint32_t s3[3] = {N, R, C};
    const uint32_t sa[3] = {A_BATCH, 1, A_COL};
    const uint32_t so[3] = {R * O_ROW, O_ROW, 1};
    for (uint32_t i = 0; i < sizeof xa; ++i) {
        xa[i] = (uint8_t)(i * 2654435761u >> 13);
    }
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; ++k) {
        const uint32_t in_w = pairs[k][0];
        const uint32_t out_w = pairs[k][1];
        tensor a;
        tensor o;
        tensor_set(&a, uint_type_of(in_w), 3, s3, sa, 0);
        tensor_set(&o, uint_type_of(out_w), 3, s3, so, 0);
        memset(xo, 0xA5, sizeof xo);
        CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &a, NULL, &o, xa, NULL, xo), BITCTS_ABI_OK);
        CHECK_EQ_U64(transposed_count_errors(xa, in_w, xo, out_w, s3, sa, so), 0);
    }
}

/* Padded rows (the rows kind where rows are whole 16-byte chunks, the strided shader where
 * not): AND of UINT8 rows with three different row strides, OR with a row broadcast to every
 * row, BIT_COUNT of UINT32 rows to UINT8, SHL of UINT8 rows (the four-lanes-a-word path) and
 * a row of 33 bytes; the output's padding keeps its bytes. */
static void test_padded_rows(void *inst)
{
    enum { R = 5, C = 32 };
    const uint32_t s[2] = {R, C};
    const uint32_t sa[2] = {48, 1};
    const uint32_t sb[2] = {64, 1};
    const uint32_t so[2] = {80, 1};
    const uint32_t bcast[2] = {0, 1};
    tensor a;
    tensor b;
    tensor rowv;
    tensor o;
    tensor_set(&a, BITCTS_DT_UINT8, 2, s, sa, 0);
    tensor_set(&b, BITCTS_DT_UINT8, 2, s, sb, 0);
    tensor_set(&rowv, BITCTS_DT_UINT8, 2, s, bcast, 0);
    tensor_set(&o, BITCTS_DT_UINT8, 2, s, so, 0);
    static uint8_t xa[R * 48];
    static uint8_t xb[R * 64];
    static uint8_t xo[R * 80];
    for (uint32_t i = 0; i < sizeof xa; ++i) {
        xa[i] = (uint8_t)(i * 37u + 11u);
    }
    for (uint32_t i = 0; i < sizeof xb; ++i) {
        xb[i] = (uint8_t)(i * 101u ^ 0x5Au);
    }
    memset(xo, 0xEE, sizeof xo);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_AND, &a, &b, &o, xa, xb, xo), BITCTS_ABI_OK);
    int ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < 80 && r * 80 + c < sizeof xo; ++c) {
            const uint8_t want = c < C ? (uint8_t)(xa[r * 48 + c] & xb[r * 64 + c]) : (uint8_t)0xEE;
            ok = ok && xo[r * 80 + c] == want;
        }
    }
    CHECK(ok);
    memset(xo, 0xEE, sizeof xo);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_OR, &a, &rowv, &o, xa, xb, xo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < 80 && r * 80 + c < sizeof xo; ++c) {
            const uint8_t want = c < C ? (uint8_t)(xa[r * 48 + c] | xb[c]) : (uint8_t)0xEE;
            ok = ok && xo[r * 80 + c] == want;
        }
    }
    CHECK(ok);
    /* Counts: 16 UINT32 in (64 bytes) to 16 UINT8 out (one chunk) a row. */
    const uint32_t s16[2] = {R, 16};
    const uint32_t s_in[2] = {32, 1};
    const uint32_t s_out[2] = {48, 1};
    tensor w;
    tensor c8;
    tensor_set(&w, BITCTS_DT_UINT32, 2, s16, s_in, 0);
    tensor_set(&c8, BITCTS_DT_UINT8, 2, s16, s_out, 0);
    static uint32_t x32[R * 32];
    for (uint32_t i = 0; i < R * 32; ++i) {
        x32[i] = i * 0x9E3779B9u;
    }
    memset(xo, 0xEE, sizeof xo);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &w, NULL, &c8, x32, NULL, xo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < 48; ++c) {
            uint32_t n = 0;
            for (uint32_t v = c < 16 ? x32[r * 32 + c] : 0; v != 0; v &= v - 1) {
                ++n;
            }
            ok = ok && xo[r * 48 + c] == (c < 16 ? n : 0xEEu);
        }
    }
    CHECK(ok);
    /* Shifts of UINT8 rows by counts 0-15 (8 and more give 0). */
    memset(xo, 0xEE, sizeof xo);
    for (uint32_t i = 0; i < sizeof xb; ++i) {
        xb[i] = (uint8_t)(i % 16);
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_SHIFT_LEFT, &a, &b, &o, xa, xb, xo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < C; ++c) {
            const uint32_t k = xb[r * 64 + c];
            const uint8_t want = k >= 8 ? 0 : (uint8_t)(xa[r * 48 + c] << k);
            ok = ok && xo[r * 80 + c] == want && xo[r * 80 + C + c] == 0xEE;
        }
    }
    CHECK(ok);
    /* Rows of 33 bytes: not whole chunks, so the strided shader. */
    const uint32_t s33[2] = {R, 33};
    tensor a33;
    tensor o33;
    tensor_set(&a33, BITCTS_DT_UINT8, 2, s33, sa, 0);
    tensor_set(&o33, BITCTS_DT_UINT8, 2, s33, so, 0);
    memset(xo, 0xEE, sizeof xo);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &a33, NULL, &o33, xa, NULL, xo), BITCTS_ABI_OK);
    ok = 1;
    for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < 80 && r * 80 + c < sizeof xo; ++c) {
            ok = ok && xo[r * 80 + c] == (c < 33 ? (uint8_t)~xa[r * 48 + c] : 0xEE);
        }
    }
    CHECK(ok);
}

/* In place, and an output with padding and an oversized buffer whose spare bytes must stay. */
static void test_in_place_and_padding(void *inst)
{
    const uint32_t n6[1] = {6};
    tensor t;
    tensor_set(&t, BITCTS_DT_UINT32, 1, n6, NULL, 0);
    uint32_t buf[6] = {0, 1, 2, 0xFFFFFFFFu, 0x80000000u, 12345};
    const uint32_t mask[6] = {1, 1, 1, 1, 1, 1};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &t, &t, &t, buf, mask, buf), BITCTS_ABI_OK);
    CHECK(buf[0] == 1 && buf[1] == 0 && buf[2] == 3 && buf[3] == 0xFFFFFFFEu &&
          buf[4] == 0x80000001u && buf[5] == 12344);
    const uint32_t s[2] = {2, 3};
    const uint32_t padded[2] = {5, 1};
    tensor in;
    tensor out;
    tensor_set(&in, BITCTS_DT_UINT8, 2, s, NULL, 0);
    tensor_set(&out, BITCTS_DT_UINT8, 2, s, padded, 64); /* oversized: 64 bytes */
    const uint8_t x[6] = {1, 2, 3, 4, 5, 6};
    uint8_t y[64];
    memset(y, 0xEE, sizeof y);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &in, NULL, &out, x, NULL, y), BITCTS_ABI_OK);
    const uint8_t want[10] = {0xFE, 0xFD, 0xFC, 0xEE, 0xEE, 0xFB, 0xFA, 0xF9, 0xEE, 0xEE};
    CHECK(memcmp(y, want, sizeof want) == 0);
    int spare = 1;
    for (uint32_t i = 10; i < 64; ++i) {
        spare = spare && y[i] == 0xEE;
    }
    CHECK(spare);
}

/* Tensors of thousands of chunks, elements and tiles, for the grid-stride loops under bounded
 * grids (max_groups): a packed UINT8 XOR of 100003 elements, the same in place, BIT_COUNT of
 * 50001 UINT32 values and of 20001 UINT64 values (and of padded rows) to UINT8, and a UINT16 NOT of
 * a rank-4 tensor stored in reversed dimension order (the general shader). Every element is
 * compared with its own computation. */
static void test_grid_loops(void *inst)
{
    enum { N = 100003, M = 50001 };
    uint8_t *x = malloc(N);
    uint8_t *k = malloc(N);
    uint8_t *y = malloc(N);
    uint32_t *w = malloc(M * sizeof *w);
    CHECK(x != NULL && k != NULL && y != NULL && w != NULL);
    if (x == NULL || k == NULL || y == NULL || w == NULL) {
        free(x);
        free(k);
        free(y);
        free(w);
        return;
    }
    for (uint32_t i = 0; i < N; ++i) {
        x[i] = (uint8_t)(i * 2654435761u >> 24);
        k[i] = (uint8_t)(i * 40503u >> 3);
    }
    const uint32_t n[1] = {N};
    tensor t;
    tensor_set(&t, BITCTS_DT_UINT8, 1, n, NULL, 0);
    memset(y, 0, N);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &t, &t, &t, x, k, y), BITCTS_ABI_OK);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < N; ++i) {
        bad += y[i] != (uint8_t)(x[i] ^ k[i]);
    }
    CHECK_EQ_U64(bad, 0);
    memcpy(y, x, N); /* in place: a chunk computed twice would undo its XOR */
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_XOR, &t, &t, &t, y, k, y), BITCTS_ABI_OK);
    bad = 0;
    for (uint32_t i = 0; i < N; ++i) {
        bad += y[i] != (uint8_t)(x[i] ^ k[i]);
    }
    CHECK_EQ_U64(bad, 0);
    for (uint32_t i = 0; i < M; ++i) {
        w[i] = i * 2654435761u ^ (i << 7);
    }
    const uint32_t m[1] = {M};
    tensor wt;
    tensor ct;
    tensor_set(&wt, BITCTS_DT_UINT32, 1, m, NULL, 0);
    tensor_set(&ct, BITCTS_DT_UINT8, 1, m, NULL, 0);
    memset(y, 0xEE, M);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &wt, NULL, &ct, w, NULL, y), BITCTS_ABI_OK);
    bad = 0;
    for (uint32_t i = 0; i < M; ++i) {
        uint32_t c = 0;
        for (uint32_t v = w[i]; v != 0; v &= v - 1) {
            ++c;
        }
        bad += y[i] != c;
    }
    CHECK_EQ_U64(bad, 0);
    /* UINT64 to UINT8 (8-byte output chunks): packed, and 37 rows of 24 counts 40 bytes apart
     * from rows of 32 values, the padding left as it was. */
    const uint64_t *v64 = (const uint64_t *)(const void *)w; /* 25000 values */
    const uint32_t q_n[1] = {20001};
    tensor qt;
    tensor_set(&qt, BITCTS_DT_UINT64, 1, q_n, NULL, 0);
    tensor_set(&ct, BITCTS_DT_UINT8, 1, q_n, NULL, 0);
    memset(y, 0xEE, 20001);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &qt, NULL, &ct, v64, NULL, y), BITCTS_ABI_OK);
    bad = 0;
    for (uint32_t i = 0; i < 20001; ++i) {
        uint32_t c = 0;
        for (uint64_t v = v64[i]; v != 0; v &= v - 1) {
            ++c;
        }
        bad += y[i] != c;
    }
    CHECK_EQ_U64(bad, 0);
    const uint32_t rs[2] = {37, 24};
    const uint32_t in_rows[2] = {32, 1};
    const uint32_t out_rows[2] = {40, 1};
    tensor_set(&qt, BITCTS_DT_UINT64, 2, rs, in_rows, 0);
    tensor_set(&ct, BITCTS_DT_UINT8, 2, rs, out_rows, 0);
    memset(y, 0xEE, 37 * 40);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_COUNT, &qt, NULL, &ct, v64, NULL, y), BITCTS_ABI_OK);
    bad = 0;
    for (uint32_t r = 0; r < 37; ++r) {
        for (uint32_t col = 0; col < 40 && r * 40 + col < 36 * 40 + 24; ++col) {
            uint32_t c = 0xEE;
            if (col < 24) {
                c = 0;
                for (uint64_t v = v64[r * 32 + col]; v != 0; v &= v - 1) {
                    ++c;
                }
            }
            bad += y[r * 40 + col] != c;
        }
    }
    CHECK_EQ_U64(bad, 0);
    const uint32_t s4[4] = {4, 6, 8, 10};
    const uint32_t reversed[4] = {1, 4, 24, 192}; /* A's dimensions stored last to first */
    tensor a4;
    tensor o4;
    tensor_set(&a4, BITCTS_DT_UINT16, 4, s4, reversed, 0);
    tensor_set(&o4, BITCTS_DT_UINT16, 4, s4, NULL, 0);
    uint16_t *h = (uint16_t *)(void *)w; /* 1920 values in, 1920 out */
    uint16_t *g = h + 1920;
    for (uint32_t i = 0; i < 1920; ++i) {
        h[i] = (uint16_t)(i * 40503u);
    }
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &a4, NULL, &o4, h, NULL, g), BITCTS_ABI_OK);
    bad = 0;
    for (uint32_t i = 0; i < 4; ++i) {
        for (uint32_t j = 0; j < 6; ++j) {
            for (uint32_t l = 0; l < 8; ++l) {
                for (uint32_t q = 0; q < 10; ++q) {
                    const uint32_t src = i + 4 * j + 24 * l + 192 * q;
                    bad += g[((i * 6 + j) * 8 + l) * 10 + q] != flip16(h[src]);
                }
            }
        }
    }
    CHECK_EQ_U64(bad, 0);
    free(x);
    free(k);
    free(y);
    free(w);
}

/* Beyond maxStorageBufferRange (128 MiB on lavapipe): a packed 136 MiB NOT, and a strided
 * tensor whose second row starts 150 MiB in. Buffer device addresses reach all of it. */
static void test_huge(void *inst)
{
    const uint64_t n = 136ull << 20;
    const uint32_t sizes[1] = {(uint32_t)n};
    tensor t;
    tensor_set(&t, BITCTS_DT_UINT8, 1, sizes, NULL, 0);
    const uint64_t y_bytes = 151ull << 20; /* also holds the strided output below */
    uint8_t *x = malloc(n);
    uint8_t *y = malloc(y_bytes);
    CHECK(x != NULL && y != NULL);
    if (x == NULL || y == NULL) {
        free(x);
        free(y);
        return;
    }
    for (uint64_t i = 0; i < n; i += 4093) {
        x[i] = (uint8_t)(i >> 12);
    }
    memset(y, 0, n);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &t, NULL, &t, x, NULL, y), BITCTS_ABI_OK);
    int ok = y[n - 1] == flip8(x[n - 1]);
    for (uint64_t i = 0; i < n; i += 4093) {
        ok = ok && y[i] == flip8(x[i]);
    }
    CHECK(ok);
    const uint32_t s2[2] = {2, 16};
    const uint32_t far[2] = {150u << 20, 1};
    tensor a;
    tensor o;
    tensor_set(&a, BITCTS_DT_UINT8, 2, s2, NULL, 0);
    tensor_set(&o, BITCTS_DT_UINT8, 2, s2, far, 0);
    const uint8_t in[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    memset(y, 0x33, y_bytes);
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &a, NULL, &o, in, NULL, y), BITCTS_ABI_OK);
    ok = y[16] == 0x33 && y[(150u << 20) - 1] == 0x33;
    for (uint32_t i = 0; i < 16; ++i) {
        ok = ok && y[i] == flip8(in[i]) && y[(150u << 20) + i] == flip8(in[16 + i]);
    }
    CHECK(ok);
    free(x);
    free(y);
}

/* ---- descriptions DirectML rejects ---- */

static void expect_invalid(void *inst, uint32_t op, const tensor *a, const tensor *b,
                           const tensor *out, const char *rule)
{
    const int32_t rc = create_only(inst, op, a, b, out);
    const char *err = table->instance_last_error(inst);
    CHECK_EQ_U64(rc, BITCTS_ABI_E_INVALID_DESCRIPTOR);
    if (!starts_with(err, rule)) {
        fprintf(stderr, "expected rule %s, got \"%s\"\n", rule, err != NULL ? err : "(null)");
    }
    CHECK(starts_with(err, rule));
}

static void test_validation(void *inst)
{
    const uint32_t s4[4] = {2, 3, 4, 5};
    const uint32_t s0[4] = {2, 0, 4, 5};
    const uint32_t s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2};
    tensor a;
    tensor b;
    tensor o;
    tensor_set(&a, BITCTS_DT_UINT8, 4, s4, NULL, 0);
    tensor_set(&o, BITCTS_DT_UINT8, 4, s4, NULL, 0);
    CHECK_EQ_U64(create_only(inst, BITCTS_OP_BIT_AND, &a, &a, &o), BITCTS_ABI_OK);
    tensor_set(&b, BITCTS_DT_UINT8, 4, s0, NULL, 4);
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "size_zero");
    tensor_set(&b, BITCTS_DT_UINT8, 9, s9, NULL, 0);
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "dimension_count");
    tensor_set(&b, BITCTS_DT_UINT16, 4, s4, NULL, 0);
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "type_mismatch");
    tensor_set(&b, BITCTS_DT_UINT8, 4, s4, NULL, 100);
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "buffer_too_small");
    tensor_set(&b, BITCTS_DT_UINT8, 3, s4, NULL, 0);
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "dims_mismatch");
    tensor_set(&b, BITCTS_DT_UINT16, 4, s4, NULL, 0);
    expect_invalid(inst, BITCTS_OP_BIT_COUNT, &a, NULL, &b, "output_type_not_allowed");
    tensor_set(&b, BITCTS_DT_INT32, 4, s4, NULL, 0);
    /* Rule 12 (BIT_COUNT's output type) does not apply to a shift: its input type is refused. */
    expect_invalid(inst, BITCTS_OP_BIT_SHIFT_LEFT, &b, &b, &b, "type_not_allowed");
    const uint32_t zero_out[4] = {60, 20, 0, 1};
    tensor_set(&b, BITCTS_DT_UINT8, 4, s4, zero_out, 0);
    expect_invalid(inst, BITCTS_OP_BIT_NOT, &a, NULL, &b, "output_zero_stride");
    const uint32_t overlap[4] = {20, 5, 2, 1};
    tensor_set(&b, BITCTS_DT_UINT8, 4, s4, overlap, 0);
    expect_invalid(inst, BITCTS_OP_BIT_NOT, &a, NULL, &b, "output_overlap");
    tensor_set(&b, BITCTS_DT_UINT8, 4, s4, NULL, 0);
    b.t.flags = 0x4;
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "unknown_flags");
    b.t.flags = BITCTS_TENSOR_FLAG_OWNED_BY_DML;
    expect_invalid(inst, BITCTS_OP_BIT_NOT, &a, NULL, &b, "output_flags");
    b.t.flags = 0;
    b.t.guaranteed_base_offset_alignment = 3;
    expect_invalid(inst, BITCTS_OP_BIT_AND, &a, &b, &o, "alignment");
    b.t.guaranteed_base_offset_alignment = 64;
    CHECK_EQ_U64(create_only(inst, BITCTS_OP_BIT_AND, &a, &b, &o), BITCTS_ABI_OK);
    bitcts_abi_tensor ins[2] = {a.t, a.t};
    const bitcts_abi_operator_desc wrong = {sizeof wrong, BITCTS_OP_BIT_NOT, 2, 0, ins, &o.t};
    void *h = NULL;
    CHECK_EQ_U64(table->operator_create(inst, &wrong, &h), BITCTS_ABI_E_INVALID_DESCRIPTOR);
    const bitcts_abi_operator_desc other = {sizeof other, 99, 2, 0, ins, &o.t};
    CHECK_EQ_U64(table->operator_create(inst, &other, &h), BITCTS_ABI_E_NOT_SUPPORTED);
}

/* ---- options, features, facts ---- */

static void test_options(void)
{
    void *inst = NULL;
    const char *unknown[2] = {"colour", "blue"};
    CHECK_EQ_U64(instance_with(unknown, 1, &inst), BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(contains(host_log, "unknown option 'colour'"));
    /* A bad value of every checked option: refused, and the log names the key and value. */
    static const struct {
        const char *key, *value;
    } bad[] = {
        {"device", "200"},      {"timeout_ms", "0"},     {"strided_unroll", "9"},
        {"packed_unroll", "5"}, {"tile_threads", "384"}, {"packed_threads", "96"},
        {"max_groups", "0"},    {"timing_rounds", "65"}, {"validation", "2"},
        {"staging_mib", "0"},   {"path", "fast"},        {"packed_chunk", "12"},
        {"tile_span", "65"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        const char *kv[2] = {bad[i].key, bad[i].value};
        char want[64];
        snprintf(want, sizeof want, "%s=%s", bad[i].key, bad[i].value);
        CHECK_EQ_U64(instance_with(kv, 1, &inst), BITCTS_ABI_E_INVALID_ARGUMENT);
        if (!contains(host_log, want)) {
            printf("option %s: the log does not name it: %s\n", want, host_log);
        }
        CHECK(contains(host_log, want));
    }
    const char *bad_fault[2] = {"fault", "fire"};
    CHECK_EQ_U64(instance_with(bad_fault, 1, &inst), BITCTS_ABI_E_INVALID_ARGUMENT);
    const char *lonely[2] = {"fault", "validation"};
    CHECK_EQ_U64(instance_with(lonely, 1, &inst), BITCTS_ABI_E_INVALID_ARGUMENT);
    CHECK(contains(host_log, "needs validation=1"));
    const char *no_loader[2] = {"loader", "/nonexistent/libvulkan.so.1"};
    CHECK_EQ_U64(instance_with(no_loader, 1, &inst), BITCTS_ABI_E_NOT_SUPPORTED);
    CHECK(contains(host_log, "no Vulkan loader"));
    CHECK(inst == NULL);
    const char *first[2] = {"device", "0"};
    CHECK_EQ_U64(instance_with(first, 1, &inst), BITCTS_ABI_OK);
    table->instance_destroy(inst);
}

static void test_info_and_caps(void *inst)
{
    CHECK(strlen(table->instance_info(inst, "device")) > 0);
    CHECK(strlen(table->instance_info(inst, "driver")) > 0);
    CHECK(starts_with(table->instance_info(inst, "api_version"), "1."));
    CHECK(starts_with(table->instance_info(inst, "features"), "bufferDeviceAddress"));
    CHECK_EQ_STR(table->instance_info(inst, "variant"), "packed+rows+tile+tilew+strided");
    CHECK_EQ_STR(table->instance_info(inst, "validation_messages"), "0");
    CHECK(table->instance_info(inst, "no such key") == NULL);
    bitcts_abi_caps caps = {.struct_size = sizeof caps};
    CHECK_EQ_U64(table->query_caps(inst, &caps), BITCTS_ABI_OK);
    bitcts_abi_op_caps oc = {.struct_size = sizeof oc};
    CHECK_EQ_U64(table->query_op_caps(inst, BITCTS_OP_BIT_COUNT, &oc), BITCTS_ABI_OK);
    CHECK_EQ_U64(oc.output_types, BITCTS_DT_MASK_COUNT_OUTPUT);
    CHECK_EQ_U64(oc.flags, 0);
    CHECK_EQ_U64(table->query_op_caps(inst, BITCTS_OP_BIT_SHIFT_LEFT, &oc), BITCTS_ABI_OK);
    CHECK_EQ_U64(oc.input_types, BITCTS_DT_MASK_UNSIGNED);
    CHECK_EQ_U64(oc.flags, BITCTS_ABI_CAP_IN_PLACE);
    CHECK_EQ_U64(table->query_op_caps(inst, 1, &oc), BITCTS_ABI_E_NOT_SUPPORTED);
}

/* Without 8-bit storage, packed UINT8 still runs (16-byte words); a strided one is refused
 * naming the feature, and the instance claims no feature level. */
static void test_disabled_storage(void)
{
    void *inst = NULL;
    const char *opt[2] = {"disable", "storage8"};
    CHECK_EQ_U64(instance_with(opt, 1, &inst), BITCTS_ABI_OK);
    if (inst == NULL) {
        return;
    }
    CHECK(contains(table->instance_info(inst, "features"), "storageBuffer8BitAccess=disabled"));
    bitcts_abi_caps caps = {.struct_size = sizeof caps};
    CHECK_EQ_U64(table->query_caps(inst, &caps), BITCTS_ABI_OK);
    CHECK_EQ_U64(caps.feature_level, BITCTS_FL_1_0);
    const uint32_t n5[1] = {5};
    tensor t;
    tensor_set(&t, BITCTS_DT_UINT8, 1, n5, NULL, 0);
    const uint8_t x[5] = {1, 2, 3, 4, 5};
    uint8_t y[8] = {0, 0, 0, 0, 0, 0x77, 0x77, 0x77};
    CHECK_EQ_U64(run(inst, BITCTS_OP_BIT_NOT, &t, NULL, &t, x, NULL, y), BITCTS_ABI_OK);
    CHECK(y[0] == 0xFE && y[4] == 0xFA && y[5] == 0x77);
    const uint32_t st[1] = {2};
    tensor padded;
    tensor_set(&padded, BITCTS_DT_UINT8, 1, n5, st, 0);
    CHECK_EQ_U64(create_only(inst, BITCTS_OP_BIT_NOT, &padded, NULL, &t),
                 BITCTS_ABI_E_NOT_SUPPORTED);
    CHECK(contains(table->instance_last_error(inst), "storageBuffer8BitAccess"));
    tensor t16;
    tensor_set(&t16, BITCTS_DT_UINT16, 1, n5, st, 0);
    CHECK_EQ_U64(create_only(inst, BITCTS_OP_BIT_NOT, &t16, NULL, &t16), BITCTS_ABI_OK);
    table->instance_destroy(inst);
}

/* ---- faults: each becomes a status for the call, never a hang ---- */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int32_t run_not_u32(void *inst, uint32_t *y)
{
    const uint32_t n4[1] = {4};
    tensor t;
    tensor_set(&t, BITCTS_DT_UINT32, 1, n4, NULL, 0);
    const uint32_t x[4] = {0, 1, 2, 3};
    return run(inst, BITCTS_OP_BIT_NOT, &t, NULL, &t, x, NULL, y);
}

static void test_faults(void)
{
    uint32_t y[4] = {0};
    void *inst = NULL;
    const char *hang[4] = {"fault", "hang", "timeout_ms", "300"};
    CHECK_EQ_U64(instance_with(hang, 2, &inst), BITCTS_ABI_OK);
    if (inst != NULL) {
        const double t0 = seconds_now();
        CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_E_DEVICE);
        const double took = seconds_now() - t0;
        /* It waited its 300 ms and then gave up: not a hang. The upper bound is far above what
         * a loaded machine takes, so that only a wait that never ends fails it. */
        CHECK(took >= 0.25 && took < 120.0);
        CHECK(contains(table->instance_last_error(inst), "timeout_ms=300"));
        table->instance_destroy(inst);
    }
    const char *oom[2] = {"fault", "oom"};
    CHECK_EQ_U64(instance_with(oom, 1, &inst), BITCTS_ABI_OK);
    if (inst != NULL) {
        CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_E_OUT_OF_MEMORY);
        CHECK(contains(table->instance_last_error(inst), "VK_ERROR_OUT_OF_DEVICE_MEMORY"));
        table->instance_destroy(inst);
    }
    const char *lost[2] = {"fault", "lost"};
    CHECK_EQ_U64(instance_with(lost, 1, &inst), BITCTS_ABI_OK);
    if (inst != NULL) {
        CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_E_DEVICE);
        CHECK(contains(table->instance_last_error(inst), "VK_ERROR_DEVICE_LOST"));
        CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_E_DEVICE);
        CHECK(contains(table->instance_last_error(inst), "lost"));
        table->instance_destroy(inst);
    }
}

/* validation=1: clean runs report no message; an invalid command fails its call. Skipped
 * where the layer is not installed. */
static void test_validation_layer(void)
{
    void *inst = NULL;
    const char *on[2] = {"validation", "1"};
    const int32_t rc = instance_with(on, 1, &inst);
    if (rc == BITCTS_ABI_E_NOT_SUPPORTED && contains(host_log, "not installed")) {
        printf("validation layer not installed: validation checks skipped\n");
        return;
    }
    CHECK_EQ_U64(rc, BITCTS_ABI_OK);
    if (inst == NULL) {
        return;
    }
    uint32_t y[4] = {0};
    CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_OK);
    CHECK(y[3] == 0xFFFFFFFCu);
    test_transposed(inst);
    CHECK_EQ_STR(table->instance_info(inst, "validation_messages"), "0");
    table->instance_destroy(inst);
    const char *broken[4] = {"validation", "1", "fault", "validation"};
    CHECK_EQ_U64(instance_with(broken, 2, &inst), BITCTS_ABI_OK);
    if (inst != NULL) {
        CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_E_BACKEND_FAILED);
        CHECK(starts_with(table->instance_last_error(inst), "validation:"));
        CHECK(strcmp(table->instance_info(inst, "validation_messages"), "0") != 0);
        CHECK_EQ_U64(run_not_u32(inst, y), BITCTS_ABI_OK); /* reported once */
        table->instance_destroy(inst);
    }
}

/* ---- bitcts_device_timing_v1 ---- */

static void test_timing(void *inst)
{
    const bitcts_abi_device_timing_ext *ext = table->get_extension(BITCTS_ABI_EXT_DEVICE_TIMING);
    CHECK(ext != NULL);
    CHECK(table->get_extension("bitcts_no_such_ext") == NULL);
    if (ext == NULL) {
        return;
    }
    uint64_t ns[3] = {0, 0, 0};
    CHECK_EQ_U64(ext->time_copy(inst, 1u << 20, BITCTS_ABI_COPY_API, 3, ns), BITCTS_ABI_OK);
    CHECK(ns[0] > 0 && ns[2] > 0);
    ns[0] = ns[2] = 0;
    CHECK_EQ_U64(ext->time_copy(inst, 1u << 20, BITCTS_ABI_COPY_KERNEL, 3, ns), BITCTS_ABI_OK);
    CHECK(ns[0] > 0 && ns[2] > 0);
    CHECK_EQ_U64(ext->time_copy(inst, 1024, 7, 1, ns), BITCTS_ABI_E_NOT_SUPPORTED);
    /* In place three times: the input is restored before each run, so the output is one NOT. */
    const uint32_t n4[1] = {4};
    tensor t;
    tensor_set(&t, BITCTS_DT_UINT32, 1, n4, NULL, 0);
    bitcts_abi_tensor ins[1] = {t.t};
    const bitcts_abi_operator_desc desc = {sizeof desc, BITCTS_OP_BIT_NOT, 1, 0, ins, &t.t};
    void *op = NULL;
    CHECK_EQ_U64(table->operator_create(inst, &desc, &op), BITCTS_ABI_OK);
    uint32_t buf[4] = {0, 1, 2, 3};
    const void *inputs[1] = {buf};
    ns[0] = ns[2] = 0;
    CHECK_EQ_U64(ext->time_execute(inst, op, inputs, buf, 3, ns), BITCTS_ABI_OK);
    CHECK(buf[0] == 0xFFFFFFFFu && buf[3] == 0xFFFFFFFCu);
    CHECK(ns[0] > 0 && ns[2] > 0);
    table->operator_destroy(inst, op);
}

/* The strided shader's n / d (vk_strided.comp's vk_div, the same arithmetic) with the host's
 * constants, for divisors and numerators at the edges (1, powers of two and their
 * neighbours, 2^32 - 1) and pseudo-random ones: exact for every pair. */
static uint32_t shader_div(uint32_t n, uint32_t magic, uint32_t shifts)
{
    const uint32_t hi = (uint32_t)(((uint64_t)n * magic) >> 32);
    return (hi + ((n - hi) >> (shifts >> 8))) >> (shifts & 0xFFu);
}

static void test_divisor(void)
{
    uint32_t edges[100];
    uint32_t n_edges = 0;
    edges[n_edges++] = 1;
    edges[n_edges++] = 3;
    for (uint32_t k = 1; k < 32; ++k) {
        edges[n_edges++] = (1u << k) - 1;
        edges[n_edges++] = 1u << k;
        edges[n_edges++] = (1u << k) + 1;
    }
    edges[n_edges++] = UINT32_MAX;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    uint64_t wrong = 0;
    for (uint32_t i = 0; i < n_edges + 20000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t d = i < n_edges ? edges[i] : (uint32_t)(x >> (32 + (x & 31)));
        d = d == 0 ? 1 : d;
        uint32_t magic = 0;
        uint32_t shifts = 0;
        bitcts__vk_divisor(d, &magic, &shifts);
        for (uint32_t j = 0; j < n_edges + 64; ++j) {
            const uint32_t n = j < n_edges ? edges[j] : (uint32_t)(x * (j + 1) >> 32);
            const uint32_t near[3] = {n, d * (n / d), d * (n / d) - 1};
            for (int k = 0; k < 3; ++k) {
                wrong += shader_div(near[k], magic, shifts) != near[k] / d;
            }
        }
    }
    CHECK_EQ_U64(wrong, 0);
}

/* A device's limits as planning sees them: room enough for every tile (no device needed). */
static const bitcts__vk_limits roomy = {.max_threads = 1024, .max_shared = 65536};

/* The plan of a two-dimensional operator under the options and limits (no device needed). */
static bitcts__vk_plan plan_of(const bitcts__vk_options *opt, const bitcts__vk_limits *lim,
                               uint32_t op, uint32_t in_w, uint32_t out_w, uint32_t rows,
                               uint32_t cols, const uint32_t *so, const uint32_t *sa,
                               const uint32_t *sb)
{
    bitcts__vk_desc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.input_count = sb != NULL ? 2 : 1;
    d.rank = 2;
    d.sizes[0] = rows;
    d.sizes[1] = cols;
    const uint32_t *st[3] = {so, sa, sb};
    for (uint32_t k = 0; k <= d.input_count; ++k) {
        d.width[k] = k == 0 ? out_w : in_w;
        d.strides[k][0] = st[k][0];
        d.strides[k][1] = st[k][1];
    }
    bitcts__vk_plan p;
    char err[128];
    CHECK_EQ_U64(bitcts__vk_plan_build(&d, opt, lim, &p, err, sizeof err), BITCTS_ABI_OK);
    return p;
}

/* The plan's shader kind for a two-dimensional operator under the options. */
static uint32_t plan_kind(const bitcts__vk_options *opt, uint32_t op, uint32_t in_w, uint32_t out_w,
                          uint32_t rows, uint32_t cols, const uint32_t *so, const uint32_t *sa,
                          const uint32_t *sb)
{
    return plan_of(opt, &roomy, op, in_w, out_w, rows, cols, so, sa, sb).kind;
}

/* Options from key=value pairs, as the backend parses them. */
static bitcts__vk_options options_of(const char *const *kv, uint32_t pairs)
{
    const char *keys[4] = {NULL, NULL, NULL, NULL};
    const char *values[4] = {NULL, NULL, NULL, NULL};
    for (uint32_t i = 0; i < pairs && i < 4; ++i) {
        keys[i] = kv[2 * i];
        values[i] = kv[2 * i + 1];
    }
    const bitcts_abi_create_info info = {.struct_size = sizeof info,
                                         .option_count = pairs,
                                         .option_keys = keys,
                                         .option_values = values};
    bitcts__vk_options o;
    char err[256];
    CHECK_EQ_U64(bitcts__vk_options_parse(&info, &o, err, sizeof err), BITCTS_ABI_OK);
    return o;
}

/* The packed shader's shape: by default 8-byte chunks in workgroups of 512 where two inputs are
 * read, 16-byte chunks in workgroups of 1024 for one input of the output's width, workgroups of
 * 128 for counts to another width with 8-byte chunks where 16-byte ones would hold more than
 * 32 input bytes; the
 * options override either, a chunk only where the build made it; the device bounds the
 * workgroup. */
static void test_packed_shape(void)
{
    const bitcts__vk_options dflt = options_of(NULL, 0);
    static const struct {
        uint32_t in_w, out_w, two, chunk, threads;
    } want[] = {
        {1, 1, 1, 8, 512},   {2, 2, 1, 8, 512},   {4, 4, 1, 8, 512},   {8, 8, 1, 8, 512},
        {1, 1, 0, 16, 1024}, {2, 2, 0, 16, 1024}, {4, 4, 0, 16, 1024}, {8, 8, 0, 16, 1024},
        {1, 4, 0, 16, 128},  {2, 4, 0, 16, 128},  {2, 1, 0, 16, 128},  {4, 1, 0, 8, 128},
        {8, 1, 0, 8, 128},   {8, 4, 0, 16, 128},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        const bitcts__vk_packed_shape s =
            bitcts__vk_packed_shape_of(&dflt, 1024, want[i].in_w, want[i].out_w, (int)want[i].two);
        if (s.chunk != want[i].chunk || s.threads != want[i].threads) {
            printf("packed shape %u -> %u, %s: chunk %u, %u threads\n", want[i].in_w, want[i].out_w,
                   want[i].two ? "two inputs" : "one input", s.chunk, s.threads);
        }
        CHECK_EQ_U64(s.chunk, want[i].chunk);
        CHECK_EQ_U64(s.threads, want[i].threads);
    }
    /* A device of 512 invocations at most: 256 for what would take 1024. */
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&dflt, 512, 4, 4, 0).threads, 256);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&dflt, 512, 4, 4, 1).threads, 512);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&dflt, 256, 4, 4, 1).threads, 256);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&dflt, 256, 4, 1, 0).threads, 128);
    const char *kv[4] = {"packed_chunk", "4", "packed_threads", "256"};
    const bitcts__vk_options o = options_of(kv, 2);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&o, 1024, 1, 1, 1).chunk, 4);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&o, 1024, 1, 1, 0).threads, 256);
    /* No 4-byte chunk of 64-bit elements, or of bytes counted to 32 bits: the shape's own. */
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&o, 1024, 8, 8, 1).chunk, 8);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&o, 1024, 8, 8, 0).chunk, 16);
    CHECK_EQ_U64(bitcts__vk_packed_shape_of(&o, 1024, 1, 4, 0).chunk, 16);
}

/* Strides of two-dimensional operands (rows, columns), in elements. */
static const uint32_t st_dense[2] = {64, 1};
static const uint32_t st_pad80[2] = {80, 1};
static const uint32_t st_pad72[2] = {72, 1};
static const uint32_t st_pad68[2] = {68, 1};
static const uint32_t st_pad66[2] = {66, 1};
static const uint32_t st_pad65[2] = {65, 1};
static const uint32_t st_bcast[2] = {0, 1}; /* one row, repeated */
static const uint32_t st_scalar[2] = {0, 0};
static const uint32_t st_column[2] = {1, 0}; /* one column, repeated */
static const uint32_t st_t9[2] = {1, 9};     /* transposed, columns 9 apart */
static const uint32_t st_t64[2] = {1, 64};
static const uint32_t st_t65[2] = {1, 65};
static const uint32_t st_t66[2] = {1, 66};

typedef struct plan_case {
    const char *why;
    uint32_t op, in_w, out_w, rows, cols;
    const uint32_t *so, *sa, *sb; /* sb NULL: unary */
    uint32_t kind;
} plan_case;

static void test_plan_kinds(void)
{
    const uint32_t and_op = BITCTS_OP_BIT_AND;
    const uint32_t xor_op = BITCTS_OP_BIT_XOR;
    const uint32_t not_op = BITCTS_OP_BIT_NOT;
    const uint32_t count_op = BITCTS_OP_BIT_COUNT;
    const plan_case cases[] = {
        {"dense", and_op, 1, 1, 9, 64, st_dense, st_dense, st_dense, BITCTS__VK_KIND_PACKED},
        {"padded rows", and_op, 1, 1, 9, 64, st_pad80, st_dense, st_pad80, BITCTS__VK_KIND_ROWS},
        {"row broadcast and scalar", and_op, 1, 1, 9, 64, st_pad80, st_bcast, st_scalar,
         BITCTS__VK_KIND_ROWS},
        /* Two inputs read: 8-byte chunks, so rows 72 bytes apart fit and 68 do not. */
        {"output rows 72 bytes apart", and_op, 1, 1, 9, 64, st_pad72, st_dense, st_dense,
         BITCTS__VK_KIND_ROWS},
        {"input rows 72 bytes apart", and_op, 1, 1, 9, 64, st_pad80, st_pad72, st_dense,
         BITCTS__VK_KIND_ROWS},
        {"output rows 68 bytes apart", and_op, 1, 1, 9, 64, st_pad68, st_dense, st_dense,
         BITCTS__VK_KIND_STRIDED},
        {"input rows 68 bytes apart", and_op, 1, 1, 9, 64, st_pad80, st_dense, st_pad68,
         BITCTS__VK_KIND_STRIDED},
        /* One input read and a scalar: 16-byte chunks, and 72 bytes is not a whole number. */
        {"one input, rows 72 bytes apart", and_op, 1, 1, 9, 64, st_pad72, st_pad72, st_scalar,
         BITCTS__VK_KIND_STRIDED},
        {"NOT, rows 72 bytes apart", not_op, 1, 1, 9, 64, st_pad72, st_dense, NULL,
         BITCTS__VK_KIND_STRIDED},
        /* 8-byte elements: 72 elements are 576 bytes, whole chunks. */
        {"64-bit rows 576 bytes apart", and_op, 8, 8, 9, 64, st_pad72, st_pad72, st_bcast,
         BITCTS__VK_KIND_ROWS},
        {"rows of 60 bytes", and_op, 1, 1, 9, 60, st_pad80, st_dense, st_dense,
         BITCTS__VK_KIND_STRIDED},
        /* A column broadcast is not packed along rows: the tile shader reads it along R. */
        {"column broadcast", and_op, 4, 4, 9, 64, st_pad80, st_dense, st_column,
         BITCTS__VK_KIND_TILE},
        {"16-bit 9 x 9 transpose", not_op, 2, 2, 9, 9, st_dense, st_t9, NULL, BITCTS__VK_KIND_TILE},
        /* Transposes a word at a time: 8/16-bit, sizes and starts multiples of a word's
         * elements. */
        {"8-bit A transposed", xor_op, 1, 1, 64, 64, st_dense, st_t64, st_dense,
         BITCTS__VK_KIND_TILEW},
        {"8-bit B transposed", xor_op, 1, 1, 64, 64, st_dense, st_dense, st_t64,
         BITCTS__VK_KIND_TILEW},
        {"8-bit columns 66 apart", xor_op, 1, 1, 64, 64, st_dense, st_t66, st_dense,
         BITCTS__VK_KIND_TILE},
        {"8-bit, 62 columns", xor_op, 1, 1, 64, 62, st_dense, st_t64, st_dense,
         BITCTS__VK_KIND_TILE},
        {"8-bit, B a row broadcast", xor_op, 1, 1, 64, 64, st_dense, st_t64, st_bcast,
         BITCTS__VK_KIND_TILEW},
        {"8-bit, B a scalar", xor_op, 1, 1, 64, 64, st_dense, st_t64, st_scalar,
         BITCTS__VK_KIND_TILE},
        {"16-bit columns 66 apart", xor_op, 2, 2, 64, 64, st_dense, st_t66, st_dense,
         BITCTS__VK_KIND_TILEW},
        {"16-bit columns 65 apart", xor_op, 2, 2, 64, 64, st_dense, st_t65, st_dense,
         BITCTS__VK_KIND_TILE},
        {"32-bit transpose", xor_op, 4, 4, 64, 64, st_dense, st_t64, st_dense,
         BITCTS__VK_KIND_TILE},
        {"BIT_COUNT 16 to 8 bits transposed", count_op, 2, 1, 64, 64, st_dense, st_t64, NULL,
         BITCTS__VK_KIND_TILEW},
        /* BIT_COUNT UINT32 to UINT8: 8-byte output chunks, so an input chunk is 32 bytes and
         * the input's row stride must be a multiple of 8 elements. */
        {"BIT_COUNT 32 to 8 bits, input rows 72 apart", count_op, 4, 1, 9, 64, st_pad80, st_pad72,
         NULL, BITCTS__VK_KIND_ROWS},
        {"BIT_COUNT 32 to 8 bits, input rows 68 apart", count_op, 4, 1, 9, 64, st_pad80, st_pad68,
         NULL, BITCTS__VK_KIND_STRIDED},
        {"BIT_COUNT 32 to 8 bits, output rows 68 apart", count_op, 4, 1, 9, 64, st_pad68, st_pad80,
         NULL, BITCTS__VK_KIND_STRIDED},
        /* BIT_COUNT UINT64 to UINT8: 8-byte output chunks, so output rows 72 bytes apart fit. */
        {"BIT_COUNT 64 to 8 bits, rows 72 apart", count_op, 8, 1, 9, 64, st_pad72, st_pad72, NULL,
         BITCTS__VK_KIND_ROWS},
        {"BIT_COUNT 64 to 8 bits, rows of 60 bytes", count_op, 8, 1, 9, 60, st_pad72, st_pad72,
         NULL, BITCTS__VK_KIND_STRIDED},
    };
    const bitcts__vk_options dflt = options_of(NULL, 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const plan_case *c = &cases[i];
        const uint32_t kind =
            plan_kind(&dflt, c->op, c->in_w, c->out_w, c->rows, c->cols, c->so, c->sa, c->sb);
        if (kind != c->kind) {
            printf("plan kind of %s: %u, expected %u\n", c->why, kind, c->kind);
        }
        CHECK_EQ_U64(kind, c->kind);
    }
    /* BIT_COUNT of a transposed input to another width a word at a time: R a multiple of the
     * input word's elements, C of the output word's, each operand aligned to its own words
     * (input width, output width, rows, columns, output strides, input strides, kind). */
    const struct {
        uint32_t in_w, out_w, rows, cols;
        const uint32_t *so, *sa;
        uint32_t kind;
    } counts[] = {
        {1, 4, 64, 64, st_dense, st_t64, BITCTS__VK_KIND_TILEW},
        {2, 4, 64, 64, st_dense, st_t64, BITCTS__VK_KIND_TILEW},
        {4, 1, 64, 64, st_dense, st_t64, BITCTS__VK_KIND_TILE},
        {2, 1, 64, 64, st_dense, st_t66, BITCTS__VK_KIND_TILEW},
        {2, 1, 64, 64, st_dense, st_t65, BITCTS__VK_KIND_TILE},
        {2, 1, 64, 64, st_pad66, st_t64, BITCTS__VK_KIND_TILE},
        {2, 1, 64, 62, st_dense, st_t64, BITCTS__VK_KIND_TILE},
        {1, 4, 64, 64, st_pad65, st_t64, BITCTS__VK_KIND_TILEW},
        {1, 4, 64, 64, st_dense, st_t66, BITCTS__VK_KIND_TILE},
        {1, 4, 62, 64, st_dense, st_t64, BITCTS__VK_KIND_TILE},
        {2, 1, 62, 64, st_dense, st_t64, BITCTS__VK_KIND_TILEW},
        {2, 1, 63, 64, st_dense, st_t64, BITCTS__VK_KIND_TILE},
        {4, 4, 64, 64, st_dense, st_t64, BITCTS__VK_KIND_TILE},
        {8, 1, 64, 64, st_dense, st_t64, BITCTS__VK_KIND_TILE},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        const uint32_t kind =
            plan_kind(&dflt, count_op, counts[i].in_w, counts[i].out_w, counts[i].rows,
                      counts[i].cols, counts[i].so, counts[i].sa, NULL);
        if (kind != counts[i].kind) {
            printf("plan kind of count case %zu: %u, expected %u\n", i, kind, counts[i].kind);
        }
        CHECK_EQ_U64(kind, counts[i].kind);
    }
    /* The rows follow the chunk the options give: 16 bytes, and rows 72 bytes apart no longer
     * fit; 4 bytes, and 68 do. */
    const char *c16[2] = {"packed_chunk", "16"};
    const bitcts__vk_options o16 = options_of(c16, 1);
    CHECK_EQ_U64(plan_kind(&o16, and_op, 1, 1, 9, 64, st_pad72, st_dense, st_dense),
                 BITCTS__VK_KIND_STRIDED);
    const char *c4[2] = {"packed_chunk", "4"};
    const bitcts__vk_options o4 = options_of(c4, 1);
    CHECK_EQ_U64(plan_kind(&o4, and_op, 1, 1, 9, 64, st_pad68, st_dense, st_dense),
                 BITCTS__VK_KIND_ROWS);
    CHECK_EQ_U64(plan_kind(&o4, not_op, 1, 1, 9, 64, st_pad68, st_pad68, NULL),
                 BITCTS__VK_KIND_ROWS);
}

/* A plan's pipeline key is what its shape says: the binary of its shader, widths and chunk,
 * and the specialization constants of its operator, flavor and workgroup. */
static void check_key(const char *why, const bitcts__vk_plan *p, const bitcts__vk_options *opt,
                      const bitcts__vk_limits *lim)
{
    const int packed = p->kind == BITCTS__VK_KIND_PACKED || p->kind == BITCTS__VK_KIND_ROWS;
    const bitcts__vk_spirv *bin = bitcts__vk_binary(p->key.binary);
    const uint32_t in_w = p->width[BITCTS__VK_A];
    const uint32_t out_w = p->width[BITCTS__VK_OUT];
    const uint32_t *spec = p->key.spec;
    if (packed) {
        const int two = p->input_count == 2 && p->flags == 0;
        const bitcts__vk_packed_shape s =
            bitcts__vk_packed_shape_of(opt, lim->max_threads, in_w, out_w, two);
        CHECK_EQ_U64(bin->chunk, s.chunk);
        CHECK_EQ_U64(p->chunk, s.chunk);
        CHECK_EQ_U64(p->threads, s.threads);
        CHECK_EQ_U64(spec[BITCTS_VK_SPEC_PACKED_THREADS], s.threads);
    } else {
        CHECK_EQ_U64(bin->chunk, 0);
    }
    if (bin->kind != (packed ? BITCTS__VK_KIND_PACKED : p->kind)) {
        printf("pipeline key of %s: binary of kind %u for a plan of kind %u\n", why, bin->kind,
               p->kind);
    }
    CHECK_EQ_U64(bin->kind, packed ? BITCTS__VK_KIND_PACKED : p->kind);
    CHECK_EQ_U64(bin->in_w, in_w);
    CHECK_EQ_U64(bin->out_w, out_w);
    CHECK_EQ_U64(spec[BITCTS_VK_SPEC_OP], p->shader_op);
    CHECK_EQ_U64(spec[BITCTS_VK_SPEC_ROWS], p->kind == BITCTS__VK_KIND_ROWS);
    CHECK_EQ_U64(spec[BITCTS_VK_SPEC_STRIDED_UNROLL], opt->unroll);
    CHECK_EQ_U64(spec[BITCTS_VK_SPEC_PACKED_UNROLL], opt->packed_unroll);
    CHECK_EQ_U64(spec[BITCTS_VK_SPEC_FAULT_HANG],
                 p->kind == BITCTS__VK_KIND_STRIDED && opt->fault == BITCTS__VK_FAULT_HANG);
}

/* Plans carry the key of their pipeline, derived once: the shape table's chunk and workgroup,
 * B's shared tile, the device's bounds (workgroup size, shared memory) and fault=hang. */
static void test_plan_keys(void)
{
    const uint32_t and_op = BITCTS_OP_BIT_AND;
    const uint32_t xor_op = BITCTS_OP_BIT_XOR;
    const uint32_t not_op = BITCTS_OP_BIT_NOT;
    const uint32_t count_op = BITCTS_OP_BIT_COUNT;
    const bitcts__vk_options dflt = options_of(NULL, 0);
    const struct {
        const char *why;
        uint32_t op, in_w, out_w, rows, cols;
        const uint32_t *so, *sa, *sb;
        uint32_t b_tiled;
    } cases[] = {
        {"AND, dense", and_op, 1, 1, 9, 64, st_dense, st_dense, st_dense, 0},
        {"AND with a scalar", and_op, 4, 4, 9, 64, st_dense, st_dense, st_scalar, 0},
        {"NOT, padded rows", not_op, 2, 2, 9, 64, st_pad80, st_pad80, NULL, 0},
        {"BIT_COUNT 64 to 8 bits", count_op, 8, 1, 9, 64, st_dense, st_dense, NULL, 0},
        {"BIT_COUNT 8 to 32 bits", count_op, 1, 4, 9, 64, st_dense, st_dense, NULL, 0},
        {"32-bit A transposed", xor_op, 4, 4, 64, 64, st_dense, st_t64, st_dense, 0},
        {"32-bit B transposed", xor_op, 4, 4, 64, 64, st_dense, st_dense, st_t64, 1},
        {"8-bit B transposed, word-wide", xor_op, 1, 1, 64, 64, st_dense, st_dense, st_t64, 1},
        {"BIT_COUNT 8 to 32 bits transposed, word-wide", count_op, 1, 4, 64, 64, st_dense, st_t64,
         NULL, 0},
        {"BIT_COUNT 16 to 8 bits transposed, word-wide", count_op, 2, 1, 64, 64, st_dense, st_t64,
         NULL, 0},
        {"output rows 68 bytes apart, strided", and_op, 1, 1, 9, 64, st_pad68, st_dense, st_dense,
         0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const bitcts__vk_plan p =
            plan_of(&dflt, &roomy, cases[i].op, cases[i].in_w, cases[i].out_w, cases[i].rows,
                    cases[i].cols, cases[i].so, cases[i].sa, cases[i].sb);
        check_key(cases[i].why, &p, &dflt, &roomy);
        CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_B_TILED], cases[i].b_tiled);
    }
    /* A device of 512 invocations: the packed workgroup of 1024 becomes 256, in the plan and
     * in its key; the tile shaders' too. */
    const bitcts__vk_limits small = {.max_threads = 512, .max_shared = 65536};
    bitcts__vk_plan p = plan_of(&dflt, &small, not_op, 4, 4, 9, 64, st_dense, st_dense, NULL);
    check_key("NOT on 512 invocations", &p, &dflt, &small);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_PACKED_THREADS], 256);
    p = plan_of(&dflt, &small, xor_op, 1, 1, 64, 64, st_dense, st_t64, st_dense);
    CHECK_EQ_U64(p.kind, BITCTS__VK_KIND_TILEW);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_TILE_THREADS], 256);
    /* The word tile's workgroup by default: eight invocations per element of the tile's
     * shorter side (32 words of the wider of the input and output elements). */
    p = plan_of(&dflt, &roomy, count_op, 1, 4, 64, 64, st_dense, st_t64, NULL);
    CHECK_EQ_U64(p.kind, BITCTS__VK_KIND_TILEW);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_TILE_THREADS], 256);
    p = plan_of(&dflt, &roomy, count_op, 2, 1, 64, 64, st_dense, st_t64, NULL);
    CHECK_EQ_U64(p.kind, BITCTS__VK_KIND_TILEW);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_TILE_THREADS], 512);
    p = plan_of(&dflt, &roomy, xor_op, 1, 1, 64, 64, st_dense, st_t64, st_dense);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_TILE_THREADS], 1024);
    p = plan_of(&dflt, &roomy, not_op, 2, 2, 64, 64, st_dense, st_t64, NULL);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_TILE_THREADS], 512);
    /* But 256 where the word tile of 8-bit elements is pipelined (a unary operator, UINT8 to
     * UINT8). Tiles a workgroup: 4 where the word tile is pipelined or its elements are 8-bit
     * in and out, 1 elsewhere. */
    p = plan_of(&dflt, &roomy, not_op, 1, 1, 64, 64, st_dense, st_t64, NULL);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_TILE_THREADS], 256);
    CHECK_EQ_U64(p.tiles_per_group, 4);
    p = plan_of(&dflt, &roomy, count_op, 2, 1, 64, 64, st_dense, st_t64, NULL);
    CHECK_EQ_U64(p.tiles_per_group, 4);
    p = plan_of(&dflt, &roomy, xor_op, 1, 1, 64, 64, st_dense, st_t64, st_dense);
    CHECK_EQ_U64(p.tiles_per_group, 4);
    p = plan_of(&dflt, &roomy, xor_op, 2, 2, 64, 64, st_dense, st_t64, st_dense);
    CHECK_EQ_U64(p.tiles_per_group, 1);
    p = plan_of(&dflt, &roomy, count_op, 1, 4, 64, 64, st_dense, st_t64, NULL);
    CHECK_EQ_U64(p.tiles_per_group, 1);
    /* Shared memory for the word tile of A (16.1 KiB) but not for A's and B's (32 KiB): the
     * second plan runs on the strided shader, without B's tile. */
    const bitcts__vk_limits little = {.max_threads = 1024, .max_shared = 20000};
    p = plan_of(&dflt, &little, xor_op, 1, 1, 64, 64, st_dense, st_t64, st_dense);
    CHECK_EQ_U64(p.kind, BITCTS__VK_KIND_TILEW);
    p = plan_of(&dflt, &little, xor_op, 1, 1, 64, 64, st_dense, st_t64, st_t64);
    CHECK_EQ_U64(p.kind, BITCTS__VK_KIND_STRIDED);
    check_key("both transposed, little shared memory", &p, &dflt, &little);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_B_TILED], 0);
    /* fault=hang: every plan on the strided shader, which spins. */
    const char *hang[2] = {"fault", "hang"};
    const bitcts__vk_options spin = options_of(hang, 1);
    p = plan_of(&spin, &roomy, and_op, 1, 1, 9, 64, st_dense, st_dense, st_dense);
    CHECK_EQ_U64(p.kind, BITCTS__VK_KIND_STRIDED);
    check_key("AND under fault=hang", &p, &spin, &roomy);
    /* The timing extension's copy kernel: the packed copy of 32-bit words, one input. */
    char err[128];
    CHECK_EQ_U64(bitcts__vk_plan_copy(1000, &dflt, &roomy, &p, err, sizeof err), BITCTS_ABI_OK);
    check_key("the copy kernel", &p, &dflt, &roomy);
    CHECK_EQ_U64(p.count, 250);
    CHECK_EQ_U64(p.key.spec[BITCTS_VK_SPEC_PACKED_THREADS], 1024);
    /* Equal keys where only the sizes differ; another operator, another key. */
    const bitcts__vk_plan a =
        plan_of(&dflt, &roomy, and_op, 4, 4, 9, 64, st_dense, st_dense, st_dense);
    const bitcts__vk_plan b =
        plan_of(&dflt, &roomy, and_op, 4, 4, 3, 64, st_dense, st_dense, st_dense);
    const bitcts__vk_plan c =
        plan_of(&dflt, &roomy, xor_op, 4, 4, 9, 64, st_dense, st_dense, st_dense);
    CHECK_EQ_U64(memcmp(&a.key, &b.key, sizeof a.key), 0);
    CHECK(memcmp(&a.key, &c.key, sizeof a.key) != 0);
    /* The shaders' operator code is DirectML's number (vk_abi.h). */
    CHECK_EQ_U64(a.key.spec[BITCTS_VK_SPEC_OP], BITCTS_OP_BIT_AND);
    CHECK_EQ_U64(c.key.spec[BITCTS_VK_SPEC_OP], BITCTS_OP_BIT_XOR);
}

/* An operator of 32-bit elements, one dimension of n, created and returned (NULL on failure). */
static bitcts__vk_operator *operator_1d(void *inst, uint32_t op, uint32_t n)
{
    tensor x;
    tensor_set(&x, BITCTS_DT_UINT32, 1, &n, NULL, 0);
    bitcts_abi_tensor ins[2] = {x.t, x.t};
    const uint32_t inputs = op == BITCTS_OP_BIT_NOT ? 1u : 2u;
    const bitcts_abi_operator_desc desc = {sizeof desc, op, inputs, 0, ins, &x.t};
    void *handle = NULL;
    CHECK_EQ_U64(table->operator_create(inst, &desc, &handle), BITCTS_ABI_OK);
    bitcts__vk_operator *oper = handle;
    if (oper != NULL) {
        /* The plan it runs is the plan planning built: nothing rewrote it. */
        bitcts__vk_desc d;
        bitcts__vk_plan p;
        char err[128];
        const bitcts__vk_instance *vk = inst;
        CHECK_EQ_U64(bitcts__vk_validate(&desc, &d, err, sizeof err), BITCTS_ABI_OK);
        CHECK_EQ_U64(bitcts__vk_plan_build(&d, &vk->opt, &vk->limits, &p, err, sizeof err),
                     BITCTS_ABI_OK);
        CHECK_EQ_U64(memcmp(&p, &oper->plan, sizeof p), 0);
    }
    return oper;
}

/* Operators whose plans have equal keys share one pipeline, the one the key gives; another key
 * gets another pipeline. On an instance of its own, so that the cache starts empty. */
static void test_pipeline_sharing(void)
{
    void *inst = NULL;
    CHECK_EQ_U64(instance_with(NULL, 0, &inst), BITCTS_ABI_OK);
    bitcts__vk_instance *vk = inst;
    if (vk == NULL) {
        return;
    }
    bitcts__vk_operator *a = operator_1d(inst, BITCTS_OP_BIT_AND, 100);
    CHECK_EQ_U64(vk->pipeline_count, 1);
    bitcts__vk_operator *b = operator_1d(inst, BITCTS_OP_BIT_AND, 1000);
    CHECK_EQ_U64(vk->pipeline_count, 1);
    bitcts__vk_operator *c = operator_1d(inst, BITCTS_OP_BIT_XOR, 100);
    CHECK_EQ_U64(vk->pipeline_count, 2);
    if (a != NULL && b != NULL && c != NULL) {
        CHECK_EQ_U64(memcmp(&a->plan.key, &b->plan.key, sizeof a->plan.key), 0);
        CHECK(a->pipeline == b->pipeline);
        CHECK(a->pipeline != c->pipeline);
        VkPipeline again = VK_NULL_HANDLE;
        CHECK_EQ_U64(bitcts__vk_pipeline_get(vk, &a->plan.key, &again), BITCTS_ABI_OK);
        CHECK(again == a->pipeline);
        CHECK(vk->pipelines[0].pipeline == a->pipeline);
        CHECK_EQ_U64(memcmp(&vk->pipelines[0].key, &a->plan.key, sizeof a->plan.key), 0);
        CHECK_EQ_U64(vk->pipeline_count, 2);
    }
    table->operator_destroy(inst, a);
    table->operator_destroy(inst, b);
    table->operator_destroy(inst, c);
    table->instance_destroy(inst);
}

/* FNV-1a, 64 bits, as vk_pcache.c hashes its file's data. */
static uint64_t fnv1a64(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

/* The pipeline cache's file (vk_pcache.c) as it stands: 1 when it is whole (our header, its
 * size and its hash agree with the data). */
static int pcache_file_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return 0;
    }
    static uint8_t buf[1 << 20];
    const size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint64_t size = 0;
    uint64_t hash = 0;
    if (n < 32) {
        return 0;
    }
    memcpy(&size, buf + 16, 8);
    memcpy(&hash, buf + 24, 8);
    return memcmp(buf, "BITCTSPC", 8) == 0 && size == n - 32 && fnv1a64(buf + 32, n - 32) == hash;
}

/* An instance with pipeline_cache=dir that compiles a pipeline; its file's path into `path`.
 * @return the bytes it loaded from the file. */
static size_t pcache_instance(const char *dir, char *path, size_t cap)
{
    const char *kv[2] = {"pipeline_cache", dir};
    void *inst = NULL;
    CHECK_EQ_U64(instance_with(kv, 1, &inst), BITCTS_ABI_OK);
    bitcts__vk_instance *vk = inst;
    if (vk == NULL) {
        return 0;
    }
    CHECK(vk->pcache != VK_NULL_HANDLE);
    CHECK_EQ_U64(strncmp(vk->pcache_path, dir, strlen(dir)), 0);
    snprintf(path, cap, "%s", vk->pcache_path);
    const size_t loaded = vk->pcache_loaded;
    table->operator_destroy(inst, operator_1d(inst, BITCTS_OP_BIT_AND, 100));
    table->instance_destroy(inst);
    return loaded;
}

/* Rewrites the file at path: its first `keep` bytes, the byte at `flip` (if < keep) inverted. */
static void pcache_damage(const char *path, size_t keep, size_t flip)
{
    static uint8_t buf[1 << 20];
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    const size_t n = f != NULL ? fread(buf, 1, sizeof buf, f) : 0;
    if (f != NULL) {
        fclose(f);
    }
    if (flip < n) {
        buf[flip] ^= 0xFF;
    }
    f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f != NULL) {
        fwrite(buf, 1, keep < n ? keep : n, f);
        fclose(f);
    }
}

/* pipeline_cache: the file written when the instance ends, loaded by the next; a file cut
 * short, altered or not ours is never handed to the driver (nothing loaded) and is written
 * whole again; a FIFO is never waited on, a link never followed; off keeps none; a directory that
 * cannot be written costs the file, not the instance; a relative directory is refused. */
static void test_pipeline_cache_file(void)
{
    char dir[] = "/tmp/bitcts-pcache-XXXXXX";
    char path[400] = "";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_EQ_U64(pcache_instance(dir, path, sizeof path), 0); /* no file yet */
    CHECK(pcache_file_whole(path));
    CHECK(pcache_instance(dir, path, sizeof path) > 0); /* loaded */
    CHECK(pcache_file_whole(path));
    pcache_damage(path, SIZE_MAX, 40); /* a data byte */
    CHECK(!pcache_file_whole(path));
    CHECK_EQ_U64(pcache_instance(dir, path, sizeof path), 0);
    CHECK(pcache_file_whole(path));
    pcache_damage(path, 37, SIZE_MAX); /* cut short */
    CHECK_EQ_U64(pcache_instance(dir, path, sizeof path), 0);
    CHECK(pcache_file_whole(path));
    pcache_damage(path, SIZE_MAX, 0); /* not our magic */
    CHECK_EQ_U64(pcache_instance(dir, path, sizeof path), 0);
    CHECK(pcache_file_whole(path));
    CHECK(pcache_instance(dir, path, sizeof path) > 0);
    remove(path); /* a FIFO in its place: never opened to wait, replaced by a file */
    CHECK_EQ_U64(mkfifo(path, 0600), 0);
    CHECK_EQ_U64(pcache_instance(dir, path, sizeof path), 0);
    CHECK(pcache_file_whole(path));
    char link[sizeof path + 8]; /* a link in its place, to a whole file: not followed */
    snprintf(link, sizeof link, "%s.real", path);
    CHECK_EQ_U64(rename(path, link), 0);
    CHECK_EQ_U64(symlink(link, path), 0);
    CHECK_EQ_U64(pcache_instance(dir, path, sizeof path), 0);
    remove(link);
    remove(path);
    rmdir(dir);
    char none[sizeof dir + 16];
    snprintf(none, sizeof none, "%s/absent", dir); /* cannot be created: its parent is gone */
    CHECK_EQ_U64(pcache_instance(none, path, sizeof path), 0);
    CHECK(!pcache_file_whole(path));
    const char *off[2] = {"pipeline_cache", "off"};
    void *inst = NULL;
    CHECK_EQ_U64(instance_with(off, 1, &inst), BITCTS_ABI_OK);
    CHECK(inst != NULL && ((bitcts__vk_instance *)inst)->pcache == VK_NULL_HANDLE);
    table->instance_destroy(inst);
    const char *relative[2] = {"pipeline_cache", "cache"};
    CHECK_EQ_U64(instance_with(relative, 1, &inst), BITCTS_ABI_E_INVALID_ARGUMENT);
}

/* The tests of results, every layout and shader kind. */
static void test_layouts(void *inst)
{
    test_documented_examples(inst);
    test_shifts(inst);
    test_float_specials(inst);
    test_broadcast(inst);
    test_transposed(inst);
    test_transposed_words(inst);
    test_transposed_counts(inst);
    test_padded_rows(inst);
    test_in_place_and_padding(inst);
    test_grid_loops(inst);
}

/* The batch extension: every layout test through execute_batch, alone and between two decoys
 * (one submission; with staging_mib=1, sub-batches of what fits and the tensor beyond 128 MiB
 * alone, in pieces), and the faults with the statuses operator_execute gives. */
static void test_batches(void)
{
    void *inst = NULL;
    const char *small[2] = {"staging_mib", "1"};
    for (int mode = 1; mode <= 2; ++mode) {
        batch_mode = mode;
        for (uint32_t pairs = 0; pairs <= 1; ++pairs) {
            CHECK_EQ_U64(instance_with(small, pairs, &inst), BITCTS_ABI_OK);
            if (inst != NULL) {
                test_layouts(inst);
                if (pairs == 1 && mode == 2) {
                    test_huge(inst);
                }
                table->instance_destroy(inst);
            }
        }
    }
    batch_mode = 1;
    test_faults();
    batch_mode = 0;
}

int main(void)
{
    test_divisor();
    test_packed_shape();
    test_plan_kinds();
    test_plan_keys();
    bitcts_plugin_negotiation n = {.struct_size = sizeof n,
                                   .host_min_version = BITCTS_ABI_VERSION_1_0,
                                   .host_max_version = BITCTS_ABI_VERSION_1_0,
                                   .host = &test_host};
    CHECK_EQ_U64(bitcts_vulkan_negotiate(&n), BITCTS_ABI_OK);
    table = n.table;
    void *inst = NULL;
    const int32_t rc = instance_with(NULL, 0, &inst);
    if (rc == BITCTS_ABI_E_NOT_SUPPORTED) {
        printf("skipped: %s\n", host_log);
        return 77;
    }
    CHECK_EQ_U64(rc, BITCTS_ABI_OK);
    if (inst == NULL) {
        return check_exit();
    }
    printf("device: %s\n", table->instance_info(inst, "device"));
    test_layouts(inst);
    test_validation(inst);
    test_info_and_caps(inst);
    test_pipeline_sharing();
    test_pipeline_cache_file();
    test_timing(inst);
    test_huge(inst);
    table->instance_destroy(inst);
    /* Every layout test again under other options. */
    static const struct {
        const char *why;
        uint32_t pairs;
        const char *kv[8];
    } configs[] = {
        {"the general shader alone, on the layouts the others would take", 1, {"path", "strided"}},
        {"the general shader with 3 elements per invocation and pass: passes that end inside an "
         "invocation's elements",
         2,
         {"path", "strided", "strided_unroll", "3"}},
        {"the packed shader 3 chunks a pass (passes that end inside an invocation's chunks) and "
         "the tile shaders with 1024-invocation workgroups (one or four passes a tile)",
         2,
         {"packed_unroll", "3", "tile_threads", "1024"}},
        {"the tile shaders' other workgroup sizes (auto gives the word-wide one 1024 for 8-bit and "
         "512 for 16-bit elements)",
         1,
         {"tile_threads", "256"}},
        {"(the same)", 1, {"tile_threads", "512"}},
        {"the packed shader's 4-byte chunks (one input word for 8-bit counts to 32 bits: the "
         "16-byte default there)",
         1,
         {"packed_chunk", "4"}},
        {"8-byte chunks (the default for 64-bit counts to 8 bits)", 1, {"packed_chunk", "8"}},
        {"16-byte chunks (128 input bytes an invocation for 64-bit counts to 8 bits)",
         1,
         {"packed_chunk", "16"}},
        {"4-byte chunks, 64 invocations in three workgroups, two chunks a pass",
         4,
         {"packed_chunk", "4", "max_groups", "3", "packed_threads", "64", "packed_unroll", "2"}},
        /* Bounded grids, so that every shader's grid-stride loop runs. */
        {"one workgroup of 64 invocations loops over every chunk and tile",
         3,
         {"max_groups", "1", "packed_threads", "64", "tile_threads", "256"}},
        {"three workgroups, two chunks a pass, end passes inside the grid",
         3,
         {"max_groups", "3", "packed_threads", "64", "packed_unroll", "2"}},
        {"the general shader with two workgroups, three elements a pass",
         3,
         {"max_groups", "2", "path", "strided", "strided_unroll", "3"}},
        {"three tiles a workgroup (the word tile's unary operators software-pipelined: the next "
         "tile's loads during this one's stores; the others a tile at a time), 1024 "
         "invocations (one or four passes a tile)",
         2,
         {"tile_span", "3", "tile_threads", "1024"}},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; ++i) {
        const int32_t made = instance_with(configs[i].kv, configs[i].pairs, &inst);
        if (made != BITCTS_ABI_OK) {
            printf("options for %s: %s\n", configs[i].why, host_log);
        }
        CHECK_EQ_U64(made, BITCTS_ABI_OK);
        if (inst != NULL) {
            test_layouts(inst);
            table->instance_destroy(inst);
        }
    }
    /* Timing in rounds until the clocks settle (one round on lavapipe by default): at least
     * two, so in place the input saved by the first is restored by the later ones. */
    const char *rounds[2] = {"timing_rounds", "8"};
    CHECK_EQ_U64(instance_with(rounds, 1, &inst), BITCTS_ABI_OK);
    if (inst != NULL) {
        test_timing(inst);
        table->instance_destroy(inst);
    }
    /* Pieced staging: every transfer larger than 1 MiB goes through in pieces. */
    const char *small[2] = {"staging_mib", "1"};
    CHECK_EQ_U64(instance_with(small, 1, &inst), BITCTS_ABI_OK);
    if (inst != NULL) {
        test_huge(inst);
        table->instance_destroy(inst);
    }
    test_batches();
    test_options();
    test_disabled_storage();
    test_faults();
    test_validation_layer();
    table->plugin_shutdown();
    return check_exit();
}
