/* SPDX-License-Identifier: MIT */
/* How an operator runs: its dimensions reordered by the output's strides (outermost first),
 * size-1 dimensions dropped and neighbours merged wherever every operand allows it, then the
 * shader kind: packed (one contiguous run or a broadcast scalar per operand), rows (rows of
 * packed elements at any row strides, each a whole number of output chunks), tile (a
 * 2-D transpose, with an optional batch dimension; tilew, the same a 32-bit word at a time,
 * for 8- and 16-bit elements where every start is word-aligned) or strided (anything else).
 * The plan is final: fault=hang and the device's shared memory are applied here, and the
 * plan carries the packed shader's shape and the key its pipeline is created from, derived
 * here alone. */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memset */

#include "vk_internal.h"

/* The shaders' operator codes are DirectML's operator numbers (vk_abi.h, bitcts_dml.h): a plan
 * hands its operator to the shader as it is. */
_Static_assert(BITCTS_VK_OP_AND == BITCTS_OP_BIT_AND, "vk_abi.h: AND is not DirectML's");
_Static_assert(BITCTS_VK_OP_OR == BITCTS_OP_BIT_OR, "vk_abi.h: OR is not DirectML's");
_Static_assert(BITCTS_VK_OP_XOR == BITCTS_OP_BIT_XOR, "vk_abi.h: XOR is not DirectML's");
_Static_assert(BITCTS_VK_OP_NOT == BITCTS_OP_BIT_NOT, "vk_abi.h: NOT is not DirectML's");
_Static_assert(BITCTS_VK_OP_COUNT == BITCTS_OP_BIT_COUNT, "vk_abi.h: COUNT is not DirectML's");
_Static_assert(BITCTS_VK_OP_SHL == BITCTS_OP_BIT_SHIFT_LEFT, "vk_abi.h: SHL is not DirectML's");
_Static_assert(BITCTS_VK_OP_SHR == BITCTS_OP_BIT_SHIFT_RIGHT, "vk_abi.h: SHR is not DirectML's");
_Static_assert(BITCTS_VK_OP_COPY == 0u, "vk_abi.h: the copy kernel's code is no DirectML operator");
/* The plan's flags are the shaders' bits: input k (A 1, B 2) is bit k - 1. */
_Static_assert(BITCTS_VK_FLAG_A_SCALAR == 1u << (BITCTS__VK_A - 1) &&
                   BITCTS_VK_FLAG_B_SCALAR == 1u << (BITCTS__VK_B - 1),
               "vk_abi.h: scalar flags are not bits 0 (A) and 1 (B)");
_Static_assert(BITCTS_VK_FLAG_A_TRANSPOSED == 1u << (BITCTS__VK_A - 1) &&
                   BITCTS_VK_FLAG_B_TRANSPOSED == 1u << (BITCTS__VK_B - 1),
               "vk_abi.h: transposed flags are not bits 0 (A) and 1 (B)");

/* Dimensions of size > 1, sorted by output stride, largest first (insertion sort: rank <= 8). */
static uint32_t vk_sorted_dims(const bitcts__vk_desc *desc, uint32_t *order)
{
    uint32_t n = 0;
    for (uint32_t d = 0; d < desc->rank; ++d) {
        if (desc->sizes[d] == 1) {
            continue;
        }
        uint32_t j = n;
        while (j > 0 &&
               desc->strides[BITCTS__VK_OUT][order[j - 1]] < desc->strides[BITCTS__VK_OUT][d]) {
            order[j] = order[j - 1];
            --j;
        }
        order[j] = d;
        ++n;
    }
    return n;
}

/* Merges dimension `outer` into the plan's innermost one when every operand steps through
 * both as through one. */
static int vk_mergeable(const bitcts__vk_plan *p, uint32_t inner, const bitcts__vk_desc *desc,
                        uint32_t outer)
{
    for (uint32_t k = 0; k <= p->input_count; ++k) {
        const uint64_t joined = (uint64_t)p->strides[k][inner] * p->sizes[inner];
        if (desc->strides[k][outer] != joined) {
            return 0;
        }
    }
    return 1;
}

static void vk_coalesce(const bitcts__vk_desc *desc, bitcts__vk_plan *p)
{
    uint32_t order[BITCTS_MAX_DIMS];
    const uint32_t n = vk_sorted_dims(desc, order);
    uint32_t r = 0; /* dimensions so far, innermost first */
    for (uint32_t i = n; i > 0; --i) {
        const uint32_t d = order[i - 1];
        if (r > 0 && vk_mergeable(p, r - 1, desc, d)) {
            p->sizes[r - 1] *= desc->sizes[d];
            continue;
        }
        p->sizes[r] = desc->sizes[d];
        for (uint32_t k = 0; k <= p->input_count; ++k) {
            p->strides[k][r] = desc->strides[k][d];
        }
        ++r;
    }
    if (r == 0) { /* a single element */
        p->sizes[0] = 1;
        for (uint32_t k = 0; k <= p->input_count; ++k) {
            p->strides[k][0] = 1;
        }
        r = 1;
    }
    /* Built innermost first: reverse to outermost first. */
    for (uint32_t i = 0; i < r / 2; ++i) {
        const uint32_t j = r - 1 - i;
        const uint32_t s = p->sizes[i];
        p->sizes[i] = p->sizes[j];
        p->sizes[j] = s;
        for (uint32_t k = 0; k <= p->input_count; ++k) {
            const uint32_t t = p->strides[k][i];
            p->strides[k][i] = p->strides[k][j];
            p->strides[k][j] = t;
        }
    }
    p->rank = r;
}

bitcts__vk_packed_shape bitcts__vk_packed_shape_of(const bitcts__vk_options *opt,
                                                   uint32_t max_threads, uint32_t in_w,
                                                   uint32_t out_w, int two_streams)
{
    /* By default, what an H100 measured fastest (docs/gpu/h100.md): an operator that reads two
     * inputs takes 8-byte chunks in workgroups of 512 (16 input bytes an invocation: 3065-3084
     * GB/s, against 3047-3076 in workgroups of 128, 2510-2514 in workgroups of 64 and 3015-3046
     * with 16-byte chunks in workgroups of 1024); one input of the output's width, 16-byte
     * chunks in workgroups of 1024 (8-byte chunks ran at 0.8 of that); a count to another
     * width, workgroups of 128 and 16-byte chunks where those hold 32 input bytes or fewer,
     * else 8-byte ones: enough loads in flight for an H200 too (UINT16 -> UINT8 and UINT64 ->
     * UINT32 at 1.03 of its copy kernel instead of 0.88, 1.00 instead of 1.01 on an H100),
     * fewer registers than 64 or 128 input bytes an invocation (UINT64 -> UINT8: 0.61-0.88). */
    bitcts__vk_packed_shape s = {16u, 128u};
    if (two_streams) {
        s.chunk = 8u;
        s.threads = 512u;
    } else if (in_w == out_w) {
        s.threads = 1024u;
    } else if (bitcts__vk_packed_chunk_made(in_w, out_w, 8u) && 16u / out_w * in_w > 32u) {
        s.chunk = 8u;
    }
    if (bitcts__vk_packed_chunk_made(in_w, out_w, opt->packed_chunk)) { /* 0 (auto): none */
        s.chunk = opt->packed_chunk;
    }
    if (opt->packed_threads != 0) {
        s.threads = opt->packed_threads;
    }
    if (s.threads > max_threads) {
        s.threads = 256u;
    }
    return s;
}

/* The packed shader's shape for a packed or rows plan whose scalar inputs are flags. */
static bitcts__vk_packed_shape vk_shape(const bitcts__vk_plan *p, const bitcts__vk_options *opt,
                                        const bitcts__vk_limits *lim, uint32_t flags)
{
    const int two = p->input_count == 2 && flags == 0;
    return bitcts__vk_packed_shape_of(opt, lim->max_threads, p->width[BITCTS__VK_A],
                                      p->width[BITCTS__VK_OUT], two);
}

/* Makes p a packed-shader plan (kind packed or rows) with the scalar inputs in flags. */
static void vk_set_packed(bitcts__vk_plan *p, uint32_t kind, bitcts__vk_packed_shape shape,
                          uint32_t flags)
{
    p->kind = kind;
    p->flags = flags;
    p->chunk = shape.chunk;
    p->threads = shape.threads;
}

/* Rows for the packed shader's ROWS mode: two dimensions, every operand packed along the
 * inner one (or a broadcast scalar), each output row a whole number of chunks and
 * every row stride a whole number of the operand's chunks (an input chunk holds the input
 * elements of one output chunk), so each chunk lies inside one row of every operand and is
 * aligned as the shader's vector loads need. Sets the scalar flags. */
static int vk_rows_fit(bitcts__vk_plan *p, const bitcts__vk_options *opt,
                       const bitcts__vk_limits *lim)
{
    if (p->rank != 2 || p->strides[BITCTS__VK_OUT][1] != 1) {
        return 0;
    }
    uint32_t flags = 0;
    for (uint32_t k = 1; k <= p->input_count; ++k) {
        flags |= p->strides[k][0] == 0 && p->strides[k][1] == 0 ? 1u << (k - 1) : 0u;
    }
    const uint64_t ow = p->width[BITCTS__VK_OUT];
    const bitcts__vk_packed_shape shape = vk_shape(p, opt, lim, flags);
    const uint64_t chunk = shape.chunk;
    const uint64_t in_chunk = chunk / ow * p->width[BITCTS__VK_A];
    if ((p->sizes[1] * ow) % chunk != 0 || (p->strides[BITCTS__VK_OUT][0] * ow) % chunk != 0) {
        return 0;
    }
    for (uint32_t k = 1; k <= p->input_count; ++k) {
        if ((flags & (1u << (k - 1))) == 0 &&
            (p->strides[k][1] != 1 || ((uint64_t)p->strides[k][0] * p->width[k]) % in_chunk != 0)) {
            return 0;
        }
    }
    vk_set_packed(p, BITCTS__VK_KIND_ROWS, shape, flags);
    return 1;
}

/* Whether a tile-kind plan (flags: its transposed inputs) fits the word-wide tile shader:
 * widths it was built for (8/16-bit of one width, BIT_COUNT of 8/16/32-bit elements to
 * another width), R a multiple of the input word's elements and C of the output word's, every
 * operand's row, column and batch starts aligned to its own words, direct inputs packed along
 * C. */
static int vk_tilew_fit(const bitcts__vk_plan *p)
{
    const uint32_t in_w = p->width[BITCTS__VK_A];
    const uint32_t out_w = p->width[BITCTS__VK_OUT];
    if (bitcts__vk_binary_find(BITCTS__VK_KIND_TILEW, in_w, out_w, 0) < 0) {
        return 0;
    }
    const uint32_t c = p->rank - 1;
    const uint32_t r = p->rank - 2;
    if (p->sizes[r] % (4 / in_w) != 0 || p->sizes[c] % (4 / out_w) != 0) {
        return 0;
    }
    for (uint32_t k = 0; k <= p->input_count; ++k) {
        const uint32_t v = 4 / p->width[k];
        const int transposed = k > 0 && (p->flags & (1u << (k - 1))) != 0;
        /* A transposed input steps 1 along R, the others 1 along C. */
        const uint32_t across = transposed ? p->strides[k][c] : p->strides[k][r];
        const uint32_t along = transposed ? p->strides[k][r] : p->strides[k][c];
        if (along != 1 || across % v != 0 || (p->rank == 3 && p->strides[k][0] % v != 0)) {
            return 0;
        }
    }
    return 1;
}

static void vk_choose_kind(bitcts__vk_plan *p, const bitcts__vk_options *opt,
                           const bitcts__vk_limits *lim)
{
    const uint32_t inner = p->rank - 1;
    const uint32_t last_in = p->input_count;
    if (p->rank == 1 && p->strides[BITCTS__VK_OUT][0] == 1) {
        uint32_t flags = 0;
        int packed = 1;
        for (uint32_t k = 1; k <= last_in; ++k) {
            const uint32_t s = p->strides[k][0];
            packed = packed && (s == 0 || s == 1 || p->sizes[0] == 1);
            flags |= s == 0 ? 1u << (k - 1) : 0u;
        }
        if (packed) {
            vk_set_packed(p, BITCTS__VK_KIND_PACKED, vk_shape(p, opt, lim, flags), flags);
            return;
        }
    }
    if (vk_rows_fit(p, opt, lim)) {
        return;
    }
    if ((p->rank == 2 || p->rank == 3) && p->strides[BITCTS__VK_OUT][inner] == 1) {
        uint32_t flags = 0;
        for (uint32_t k = 1; k <= last_in; ++k) {
            if (p->strides[k][inner - 1] == 1 && p->strides[k][inner] != 1) {
                flags |= 1u << (k - 1);
            }
        }
        if (flags != 0) {
            p->flags = flags;
            p->kind = vk_tilew_fit(p) ? BITCTS__VK_KIND_TILEW : BITCTS__VK_KIND_TILE;
            return;
        }
    }
    p->kind = BITCTS__VK_KIND_STRIDED;
    p->flags = 0;
}

/* Shared memory a tile-kind plan needs: the tile of A and, when B is transposed, B's (else
 * one row), as vk_tile.comp and vk_tilew.comp declare them. */
static uint64_t vk_tile_shared(const bitcts__vk_plan *p, int b_tiled)
{
    if (p->kind == BITCTS__VK_KIND_TILEW) { /* a row of 32 words a column of the tile */
        const uint64_t side = bitcts__vk_tilew_side(p->width[BITCTS__VK_OUT]);
        return (side + (b_tiled ? side : 1u)) * BITCTS_VK_TILE * 4u;
    }
    const uint64_t elem = p->width[BITCTS__VK_A] == 8 ? 8u : 4u;
    return (BITCTS_VK_TILE + (b_tiled ? BITCTS_VK_TILE : 1u)) * (BITCTS_VK_TILE + 1u) * elem;
}

/* Whether B of a tile-kind plan is transposed, so that it gets a shared tile of its own. */
static int vk_b_tiled(const bitcts__vk_plan *p)
{
    const int tile = p->kind == BITCTS__VK_KIND_TILE || p->kind == BITCTS__VK_KIND_TILEW;
    return tile && p->input_count == 2 && (p->flags & BITCTS_VK_FLAG_B_TRANSPOSED) != 0;
}

/* The strided shader in place of the kind chosen: under fault=hang (the strided shader is the
 * one that spins), and for tile-kind plans whose tiles do not fit the device's shared
 * memory. */
static void vk_apply_device(bitcts__vk_plan *p, const bitcts__vk_options *opt,
                            const bitcts__vk_limits *lim)
{
    const int tile = p->kind == BITCTS__VK_KIND_TILE || p->kind == BITCTS__VK_KIND_TILEW;
    if (opt->fault == BITCTS__VK_FAULT_HANG ||
        (tile && vk_tile_shared(p, vk_b_tiled(p)) > lim->max_shared)) {
        p->kind = BITCTS__VK_KIND_STRIDED;
        p->flags = 0;
        p->chunk = 0;
        p->threads = 0;
    }
}

/* Whether the word tile is software-pipelined: a unary operator to an output no wider than its
 * input, but 16-bit elements of one width (vk_tilew.comp issues a tile's loads while the
 * previous tile's output is stored; the shader decides the same from its constants). */
static int vk_tilew_pipelined(const bitcts__vk_plan *p)
{
    const uint32_t wi = p->width[BITCTS__VK_A];
    const uint32_t wo = p->width[BITCTS__VK_OUT];
    return p->kind == BITCTS__VK_KIND_TILEW && p->input_count == 1 && wo <= wi &&
           !(wi == 2 && wo == 2);
}

/* The tile shaders' workgroup: tile_threads, or by default (auto) 256 for 32 x 32 element
 * tiles and for the word-wide ones eight invocations per element of the tile's shorter side
 * (1024 for 8-bit elements, 512 for 16-bit ones and counts of 16 to 8 bits, 256 for counts to
 * UINT32), but 256 where the word tile of 8-bit elements is pipelined (NOT and BIT_COUNT of
 * UINT8: 0.87-0.88 of the copy kernel against 0.84-0.87 at 1024 on an H100), what H100 runs
 * measured fastest (docs/gpu/h100.md); 256 where the device allows no more. */
static uint32_t vk_tile_threads(const bitcts__vk_plan *p, const bitcts__vk_options *opt,
                                const bitcts__vk_limits *lim)
{
    uint32_t threads = opt->tile_threads;
    if (threads == 0) {
        const uint32_t wide = p->width[BITCTS__VK_A] > p->width[BITCTS__VK_OUT]
                                  ? p->width[BITCTS__VK_A]
                                  : p->width[BITCTS__VK_OUT];
        threads = p->kind != BITCTS__VK_KIND_TILEW     ? 256u
                  : wide == 1 && vk_tilew_pipelined(p) ? 256u
                                                       : 8u * bitcts__vk_tilew_side(wide);
    }
    return threads > lim->max_threads ? 256u : threads;
}

/* Tiles a workgroup of the tile shaders takes: tile_span, or by default (auto) 4 where the word
 * tile is software-pipelined (NOT UINT8 transposed 0.77 of the copy kernel on an H100 at a tile
 * a workgroup, 0.82 at 2, 0.87 at 4 and 8) and for every word tile of 8-bit elements in and out
 * (AND, OR, XOR of UINT8: 0.86-0.87 at 1, 0.91-0.92 at 4; the UINT8 shifts 0.83-0.84 at 1,
 * 0.84-0.86 at 4), and 1 elsewhere (wider elements: 0.96-1.02 at 1, 0.96-1.01 at 4). */
static uint32_t vk_tiles_per_group(const bitcts__vk_plan *p, const bitcts__vk_options *opt)
{
    if (opt->tile_span != 0) {
        return opt->tile_span;
    }
    const int bytes = p->kind == BITCTS__VK_KIND_TILEW && p->width[BITCTS__VK_A] == 1 &&
                      p->width[BITCTS__VK_OUT] == 1;
    return vk_tilew_pipelined(p) || bytes ? 4u : 1u;
}

/* The key of the plan's pipeline: the binary of its shader (the rows kind is the packed
 * shader with ROWS set; only the packed shader has chunks) and every specialization
 * constant, whether the shader declares it or not. */
static int32_t vk_plan_key(bitcts__vk_plan *p, const bitcts__vk_options *opt,
                           const bitcts__vk_limits *lim, char *err, size_t cap)
{
    const uint32_t in_w = p->width[BITCTS__VK_A];
    const uint32_t out_w = p->width[BITCTS__VK_OUT];
    const int packed = p->kind == BITCTS__VK_KIND_PACKED || p->kind == BITCTS__VK_KIND_ROWS;
    const int index =
        bitcts__vk_binary_find(packed ? BITCTS__VK_KIND_PACKED : p->kind, in_w, out_w, p->chunk);
    if (index < 0) {
        snprintf(err, cap, "no shader for kind %u with %u-byte input and %u-byte output", p->kind,
                 in_w, out_w);
        return BITCTS_ABI_E_NOT_SUPPORTED;
    }
    bitcts__vk_pipeline_key *key = &p->key;
    key->binary = (uint32_t)index;
    key->spec[BITCTS_VK_SPEC_OP] = p->shader_op;
    key->spec[BITCTS_VK_SPEC_FAULT_HANG] =
        p->kind == BITCTS__VK_KIND_STRIDED && opt->fault == BITCTS__VK_FAULT_HANG;
    key->spec[BITCTS_VK_SPEC_STRIDED_UNROLL] = opt->unroll;
    key->spec[BITCTS_VK_SPEC_ROWS] = p->kind == BITCTS__VK_KIND_ROWS;
    key->spec[BITCTS_VK_SPEC_PACKED_UNROLL] = opt->packed_unroll;
    key->spec[BITCTS_VK_SPEC_B_TILED] = (uint32_t)vk_b_tiled(p);
    key->spec[BITCTS_VK_SPEC_TILE_THREADS] = vk_tile_threads(p, opt, lim);
    key->spec[BITCTS_VK_SPEC_PACKED_THREADS] = packed ? p->threads : 1024u; /* unused else */
    return BITCTS_ABI_OK;
}

/* Logical elements and, per operand, its span and widths; an element offset the shaders
 * cannot index is NOT_SUPPORTED. */
static int32_t vk_plan_spans(const bitcts__vk_desc *desc, bitcts__vk_plan *p, char *err, size_t cap)
{
    uint64_t count = 1;
    for (uint32_t d = 0; d < desc->rank; ++d) {
        count *= desc->sizes[d];
    }
    p->count = (uint32_t)count; /* validation keeps it below 2^32 */
    for (uint32_t k = 0; k <= p->input_count; ++k) {
        p->width[k] = desc->width[k];
        uint64_t last = 0;
        for (uint32_t d = 0; d < desc->rank; ++d) {
            last += (uint64_t)(desc->sizes[d] - 1) * desc->strides[k][d];
        }
        if (last > UINT32_MAX - 1u) {
            snprintf(err, cap,
                     "operand %u reaches element offset %llu: the shaders index elements with "
                     "32 bits",
                     k, (unsigned long long)last);
            return BITCTS_ABI_E_NOT_SUPPORTED;
        }
        p->span[k] = (last + 1) * desc->width[k];
        if (k == BITCTS__VK_OUT) {
            p->out_dense = last + 1 == count;
        }
    }
    return BITCTS_ABI_OK;
}

int32_t bitcts__vk_plan_build(const bitcts__vk_desc *desc, const bitcts__vk_options *opt,
                              const bitcts__vk_limits *lim, bitcts__vk_plan *p, char *err,
                              size_t cap)
{
    memset(p, 0, sizeof *p);
    p->operator_type = desc->op;
    p->shader_op = desc->op;
    p->input_count = desc->input_count;
    const int32_t rc = vk_plan_spans(desc, p, err, cap);
    if (rc != BITCTS_ABI_OK) {
        return rc;
    }
    vk_coalesce(desc, p);
    if (opt->path == BITCTS__VK_PATH_STRIDED) {
        p->kind = BITCTS__VK_KIND_STRIDED;
    } else {
        vk_choose_kind(p, opt, lim);
    }
    vk_apply_device(p, opt, lim);
    p->tiles_per_group = vk_tiles_per_group(p, opt);
    return vk_plan_key(p, opt, lim, err, cap);
}

int32_t bitcts__vk_plan_copy(uint64_t bytes, const bitcts__vk_options *opt,
                             const bitcts__vk_limits *lim, bitcts__vk_plan *p, char *err,
                             size_t cap)
{
    memset(p, 0, sizeof *p);
    p->shader_op = BITCTS_VK_OP_COPY;
    p->input_count = 1;
    p->width[BITCTS__VK_OUT] = 4;
    p->width[BITCTS__VK_A] = 4;
    p->count = (uint32_t)((bytes + 3) / 4);
    p->rank = 1;
    p->sizes[0] = p->count;
    p->strides[BITCTS__VK_OUT][0] = 1;
    p->strides[BITCTS__VK_A][0] = 1;
    vk_set_packed(p, BITCTS__VK_KIND_PACKED, vk_shape(p, opt, lim, 0), 0);
    return vk_plan_key(p, opt, lim, err, cap);
}

void bitcts__vk_divisor(uint32_t d, uint32_t *magic, uint32_t *shifts)
{
    uint32_t l = 0; /* ceil(log2(d)) */
    while (l < 32 && ((uint64_t)1 << l) < d) {
        ++l;
    }
    *magic = (uint32_t)(((((uint64_t)1 << l) - d) << 32) / d + 1);
    const uint32_t pre = l < 1 ? l : 1;
    const uint32_t post = l > 0 ? l - 1 : 0;
    *shifts = post | pre << 8;
}

uint32_t bitcts__vk_plan_outer_dims(const bitcts__vk_plan *p, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t d = p->rank >= 2 ? p->rank - 2 : 0; d > 0; --d) {
        out[n++] = p->sizes[d - 1];
        out[n++] = p->strides[BITCTS__VK_OUT][d - 1];
        out[n++] = p->strides[BITCTS__VK_A][d - 1];
        out[n++] = p->input_count == 2 ? p->strides[BITCTS__VK_B][d - 1] : 0u;
        bitcts__vk_divisor(p->sizes[d - 1], &out[n], &out[n + 1]);
        out[n + 2] = 0;
        out[n + 3] = 0;
        n += 4;
    }
    return n;
}
