/* SPDX-License-Identifier: MIT */
/* Plugins that misbehave as processes, or with the memory they are lent, rather than compute
 * wrong bits, for the isolation tests of `bitcts sweep` and `bitcts bench`
 * (tests/cli/isolation.sh): a tiny backend that runs BIT_NOT and BIT_XOR on packed tensors byte
 * by byte, built once per misbehaviour chosen by -DMISBEHAVE=<name>
 * (tests/plugins/CMakeLists.txt lists the names). `none` behaves. */
#define _DEFAULT_SOURCE /* nanosleep, fork, mprotect */

#include <signal.h>   /* raise */
#include <stddef.h>   /* offsetof */
#include <stdint.h>   /* fixed-width integers */
#include <stdlib.h>   /* calloc, exit, abort */
#include <string.h>   /* memset, strlen */
#include <sys/mman.h> /* mprotect */
#include <time.h>     /* nanosleep */
#include <unistd.h>   /* fork, write, sysconf */

#include "bitcts/bitcts_backend_kit.h" /* negotiation, capability records; the ABI */

#define MB_none 1
#define MB_exit_load 2       /* exit(0) in bitcts_plugin_negotiate */
#define MB_exit_create 3     /* exit(0) in instance_create */
#define MB_segv_caps 4       /* raise(SIGSEGV) in query_caps */
#define MB_abort_execute 5   /* abort() in operator_execute */
#define MB_sigstop_execute 6 /* raise(SIGSTOP) in operator_execute */
#define MB_loop_execute 7    /* a busy loop in operator_execute, forever */
#define MB_fork_sleeper 8    /* forks a child that sleeps holding stdout and every pipe */
#define MB_garbage 9         /* writes lines to stdout and to every descriptor it finds */
#define MB_hang_destroy 10   /* sleeps forever in instance_destroy */
#define MB_exit_execute 11   /* exit(0) in operator_execute */
#define MB_wrong_byte 12     /* flips the low bit of output byte 200 (a process that behaves) */
/* Misbehaviours with the memory the harness lends, each in operator_execute but the desc ones
 * (in operator_create); the results are right otherwise. */
#define MB_spill_after 13    /* writes 0x5A one byte past the end of its output */
#define MB_spill_before 14   /* writes 0x5A one byte before the start of its output */
#define MB_write_input 15    /* flips the low bit of input A's first byte, after computing */
#define MB_shrink_desc 16    /* writes Output sizes[0] = 1 through a cast of the lent desc */
#define MB_unprotect_desc 17 /* the same after mprotect-ing the lent desc's pages writable */
#define MB_wrong_once 18     /* a wrong output byte in the process's second execute only */
/* skip_elements leaves unwritten the elements whose result is 0xA5 in every byte: a harness that
 * poisons its output with that constant does not see them. */
#define MB_skip_elements 19
#define MB_ID_(name) MB_##name
#define MB_ID(name) MB_ID_(name)
#define MB MB_ID(MISBEHAVE)
#if !defined(MISBEHAVE) || MB < 1 || MB > 19
#error "define MISBEHAVE as one of the MB_<name> names above"
#endif

typedef struct mb_operator {
    uint32_t op;
    uint32_t width; /* bytes of an element */
    uint64_t bytes; /* of the output, packed */
} mb_operator;

static int mb_instance_storage;

#if MB == MB_fork_sleeper || MB == MB_hang_destroy
static void mb_sleep_forever(void)
{
    for (;;) {
        const struct timespec t = {3600, 0};
        nanosleep(&t, NULL);
    }
}
#endif

static int32_t BITCTS_PLUGIN_CALL mb_instance_create(const bitcts_abi_create_info *info,
                                                     void **out_instance)
{
    if (info == NULL || out_instance == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < info->option_count; ++i) {
        /* No options (PLG-9) but, for `none`, the threads a bench gives a backend that streams
         * (taken, and run on one). */
        if (MB != MB_none || strcmp(info->option_keys[i], "threads") != 0) {
            return BITCTS_ABI_E_INVALID_ARGUMENT;
        }
    }
#if MB == MB_exit_create
    exit(0);
#endif
    *out_instance = &mb_instance_storage;
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL mb_instance_destroy(void *instance)
{
    (void)instance;
#if MB == MB_hang_destroy
    mb_sleep_forever();
#endif
}

static int32_t BITCTS_PLUGIN_CALL mb_query_caps(void *instance, bitcts_abi_caps *out)
{
    (void)instance;
#if MB == MB_segv_caps
    raise(SIGSEGV);
#endif
    return bitcts_kit_caps_fill(out, 0); /* claims nothing: nothing is required of it */
}

static const uint32_t mb_types = (1u << BITCTS_DT_UINT8) | (1u << BITCTS_DT_UINT16) |
                                 (1u << BITCTS_DT_UINT32) | (1u << BITCTS_DT_UINT64);

static int32_t BITCTS_PLUGIN_CALL mb_query_op_caps(void *instance, uint32_t operator_type,
                                                   bitcts_abi_op_caps *out)
{
    (void)instance;
    if (out == NULL || out->struct_size < sizeof *out) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    if (operator_type != BITCTS_OP_BIT_NOT && operator_type != BITCTS_OP_BIT_XOR) {
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    out->operator_type = operator_type;
    out->input_types = mb_types;
    out->output_types = mb_types;
    out->dimension_counts = 0x1FEu; /* 1 to 8 */
    out->flags = 0;
    return BITCTS_ABI_OK;
}

static uint32_t mb_width(uint32_t type)
{
    switch (type) {
    case BITCTS_DT_UINT8: return 1;
    case BITCTS_DT_UINT16: return 2;
    case BITCTS_DT_UINT32: return 4;
    case BITCTS_DT_UINT64: return 8;
    default: return 0;
    }
}

/* Packed tensors of one unsigned type only; everything else is NOT_SUPPORTED. */
static int32_t BITCTS_PLUGIN_CALL mb_operator_create(void *instance,
                                                     const bitcts_abi_operator_desc *desc,
                                                     void **out_operator)
{
    (void)instance;
    if (desc == NULL || out_operator == NULL || desc->output == NULL || desc->inputs == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
    const bitcts_abi_tensor *out = desc->output;
    const uint32_t w = mb_width(out->data_type);
    if ((desc->operator_type != BITCTS_OP_BIT_NOT && desc->operator_type != BITCTS_OP_BIT_XOR) ||
        w == 0 || out->strides != NULL) {
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    uint64_t elements = 1;
    for (uint32_t d = 0; d < out->dimension_count && d < BITCTS_MAX_DIMS; ++d) {
        elements *= out->sizes[d];
    }
    for (uint32_t i = 0; i < desc->input_count; ++i) {
        const bitcts_abi_tensor *in = &desc->inputs[i];
        if (in->data_type != out->data_type || in->strides != NULL ||
            in->total_tensor_size_in_bytes < elements * w) {
            return BITCTS_ABI_E_NOT_SUPPORTED;
        }
    }
    mb_operator *op = calloc(1, sizeof *op);
    if (op == NULL) {
        return BITCTS_ABI_E_OUT_OF_MEMORY;
    }
    op->op = desc->operator_type;
    op->width = w;
    op->bytes = elements * w;
    *out_operator = op;
#if MB == MB_shrink_desc || MB == MB_unprotect_desc
    uint32_t *sizes = (uint32_t *)(uintptr_t)out->sizes;
#if MB == MB_unprotect_desc
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t lo = (uintptr_t)sizes & ~(page - 1);
    mprotect((void *)lo, ((uintptr_t)(sizes + 1) - lo + page - 1) & ~(page - 1),
             PROT_READ | PROT_WRITE);
#endif
    sizes[0] = 1;
#endif
    return BITCTS_ABI_OK;
}

#if MB == MB_garbage
/* Lines that look like the harness's, written where the harness's pipes might be. */
static void mb_write_garbage(void)
{
    static const char junk[] = "R 1 1 0 0 0 0 0 0 -1 0 0 00000000000000000000000000000000\n"
                               "W 0 9999 1 1 ok\nZ\nnot a line of the harness\n";
    for (int fd = 1; fd < 64; ++fd) {
        if (write(fd, junk, strlen(junk)) < 0) {
            continue;
        }
    }
}
#endif

static int32_t BITCTS_PLUGIN_CALL mb_operator_execute(void *instance, void *op,
                                                      const void *const *inputs, void *output)
{
    (void)instance;
    const mb_operator *o = op;
    if (o == NULL || inputs == NULL || output == NULL || inputs[0] == NULL) {
        return BITCTS_ABI_E_INVALID_ARGUMENT;
    }
#if MB == MB_abort_execute
    abort();
#elif MB == MB_sigstop_execute
    raise(SIGSTOP);
#elif MB == MB_loop_execute
    for (volatile uint64_t spin = 0;; ++spin) {
    }
#elif MB == MB_exit_execute
    exit(0);
#elif MB == MB_fork_sleeper
    static int forked;
    if (!forked && fork() == 0) {
        mb_sleep_forever(); /* holds stdout, stderr and whatever pipes the process had */
    }
    forked = 1;
#elif MB == MB_garbage
    static int written;
    if (!written) {
        mb_write_garbage();
    }
    written = 1;
#endif
    const uint8_t *a = inputs[0];
    const uint8_t *b = inputs[1];
    uint8_t *out = output;
    for (uint64_t e = 0; e < o->bytes; e += o->width) {
        uint8_t r[8];
        int all_a5 = 1;
        for (uint32_t k = 0; k < o->width; ++k) {
            const uint64_t i = e + k;
            r[k] = o->op == BITCTS_OP_BIT_NOT ? (uint8_t)~a[i] : (uint8_t)(a[i] ^ b[i]);
            all_a5 &= r[k] == 0xA5;
        }
        for (uint32_t k = 0; k < o->width && (MB != MB_skip_elements || !all_a5); ++k) {
            out[e + k] = r[k];
        }
    }
#if MB == MB_wrong_byte
    if (o->bytes > 200) {
        out[200] ^= 1u;
    }
#elif MB == MB_spill_after
    out[o->bytes] = 0x5A;
#elif MB == MB_spill_before
    out[-1] = 0x5A;
#elif MB == MB_write_input
    ((uint8_t *)(uintptr_t)a)[0] ^= 1u;
#elif MB == MB_wrong_once
    static int calls;
    if (++calls == 2) {
        out[0] ^= 1u;
    }
#endif
    return BITCTS_ABI_OK;
}

static void BITCTS_PLUGIN_CALL mb_operator_destroy(void *instance, void *op)
{
    (void)instance;
    free(op);
}

static void BITCTS_PLUGIN_CALL mb_plugin_shutdown(void) {}

#if MB == MB_none
/* A stream extension of the size the first SDKs gave it (copy and triad, no `shaped`): the bench
 * measures this plugin's rows against its copy (tests/cli/isolation.sh). */
static int32_t BITCTS_PLUGIN_CALL mb_copy(void *instance, void *dst, const void *src,
                                          uint64_t bytes)
{
    (void)instance;
    memcpy(dst, src, (size_t)bytes);
    return BITCTS_ABI_OK;
}

static int32_t BITCTS_PLUGIN_CALL mb_triad(void *instance, void *dst, const void *a, const void *b,
                                           uint64_t words)
{
    (void)instance;
    for (uint64_t i = 0; i < words; ++i) {
        uint64_t x, y;
        memcpy(&x, (const unsigned char *)a + 8 * i, 8);
        memcpy(&y, (const unsigned char *)b + 8 * i, 8);
        x += 3 * y;
        memcpy((unsigned char *)dst + 8 * i, &x, 8);
    }
    return BITCTS_ABI_OK;
}

static const bitcts_abi_stream_ext mb_stream = {
    .struct_size = (uint32_t)offsetof(bitcts_abi_stream_ext, shaped),
    .copy = mb_copy,
    .triad = mb_triad,
};

static const void *BITCTS_PLUGIN_CALL mb_get_extension(const char *name)
{
    return name != NULL && strcmp(name, BITCTS_ABI_EXT_STREAM) == 0 ? &mb_stream : NULL;
}
#endif

#define MB_STR_(name) #name
#define MB_STR(name) MB_STR_(name)

static const bitcts_plugin_table mb_table = {
    .struct_size = sizeof(bitcts_plugin_table),
    .name = "misbehave_" MB_STR(MISBEHAVE),
    .vendor = "bitcts tests",
    .version = "1",
    .build_id = "test",
    .instance_create = mb_instance_create,
    .instance_destroy = mb_instance_destroy,
    .query_caps = mb_query_caps,
    .query_op_caps = mb_query_op_caps,
    .operator_create = mb_operator_create,
    .operator_execute = mb_operator_execute,
    .operator_destroy = mb_operator_destroy,
    .plugin_shutdown = mb_plugin_shutdown,
#if MB == MB_none
    .get_extension = mb_get_extension,
#endif
};

BITCTS_PLUGIN_EXPORT int32_t BITCTS_PLUGIN_CALL
bitcts_plugin_negotiate(bitcts_plugin_negotiation *n);

int32_t BITCTS_PLUGIN_CALL bitcts_plugin_negotiate(bitcts_plugin_negotiation *n)
{
#if MB == MB_exit_load
    if (n != NULL) {
        exit(0);
    }
#endif
    return bitcts_kit_negotiate(n, &mb_table, NULL);
}
