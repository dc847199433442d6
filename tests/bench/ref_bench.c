/* SPDX-License-Identifier: MIT */
/* Benchmark (not a test) of the scalar reference: elements per second on packed and on permuted
 * (transposed) tensors, median of repetitions, beside a memcpy of the same bytes measured in the
 * same run. Usage: bitcts_ref_bench [elements_log2 (default 24)] [reps (default 7)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "ref_ops.h"

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

static void bench(const char *name, uint32_t op, uint32_t type, uint32_t out_type, int permuted,
                  uint32_t side, int reps, uint8_t *a, uint8_t *b, uint8_t *o)
{
    bitcts_op_desc d;
    memset(&d, 0, sizeof d);
    d.op = op;
    d.input_count = bitcts_op_input_count(op);
    const uint32_t sizes[2] = {side, side};
    bitcts_tensor_make_packed(type, 2, sizes, &d.inputs[0]);
    bitcts_tensor_make_packed(type, 2, sizes, &d.inputs[1]);
    bitcts_tensor_make_packed(out_type, 2, sizes, &d.output);
    if (permuted) { /* A transposed: column-major storage */
        d.inputs[0].has_strides = 1;
        d.inputs[0].strides[0] = 1;
        d.inputs[0].strides[1] = side;
    }
    const void *in[2] = {a, b};
    double t[32];
    for (int r = 0; r < reps; ++r) {
        const double t0 = bitcts_clock_now();
        bitcts_ref_execute(&d, in, o, BITCTS_SHIFT_POLICY_SATURATE);
        t[r] = bitcts_clock_now() - t0;
    }
    const double s = median(t, reps);
    printf("%-28s %-8s %9.1f M elements/s  (%.3f s for %u elements)\n", name,
           permuted ? "permuted" : "packed", (double)side * side / s / 1e6, s, side * side);
}

int main(int argc, char **argv)
{
    const int lg = argc > 1 ? atoi(argv[1]) : 24;
    const int reps = argc > 2 ? atoi(argv[2]) : 7;
    const uint32_t side = 1u << (lg / 2);
    const size_t bytes = (size_t)side * side * 8;
    uint8_t *a = malloc(bytes), *b = malloc(bytes), *o = malloc(bytes);
    if (a == NULL || b == NULL || o == NULL || reps < 1 || reps > 32) {
        return 2;
    }
    for (size_t i = 0; i < bytes; ++i) {
        a[i] = (uint8_t)(i * 131), b[i] = (uint8_t)(i * 7 + 3) & 7, o[i] = 0;
    }
    double t[32];
    for (int r = 0; r < reps; ++r) {
        const double t0 = bitcts_clock_now();
        memcpy(o, a, (size_t)side * side * 4);
        t[r] = bitcts_clock_now() - t0;
    }
    printf("memcpy of the uint32 tensor: %.1f GB/s (read+write)\n",
           2.0 * side * side * 4 / median(t, reps) / 1e9);
    for (int p = 0; p < 2; ++p) {
        bench("bit_xor uint8", BITCTS_OP_BIT_XOR, BITCTS_DT_UINT8, BITCTS_DT_UINT8, p, side, reps,
              a, b, o);
        bench("bit_xor uint32", BITCTS_OP_BIT_XOR, BITCTS_DT_UINT32, BITCTS_DT_UINT32, p, side,
              reps, a, b, o);
        bench("bit_not float64", BITCTS_OP_BIT_NOT, BITCTS_DT_FLOAT64, BITCTS_DT_FLOAT64, p, side,
              reps, a, b, o);
        bench("bit_shift_left uint16", BITCTS_OP_BIT_SHIFT_LEFT, BITCTS_DT_UINT16, BITCTS_DT_UINT16,
              p, side, reps, a, b, o);
        bench("bit_count uint32->uint8", BITCTS_OP_BIT_COUNT, BITCTS_DT_UINT32, BITCTS_DT_UINT8, p,
              side, reps, a, b, o);
    }
    free(a);
    free(b);
    free(o);
    return 0;
}
