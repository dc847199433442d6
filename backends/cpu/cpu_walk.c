/* SPDX-License-Identifier: MIT */
/* The strided walk: reorder, coalesce, block, then an odometer over the outer dims that calls
 * the contiguous inner kernels row by row (see cpu_walk.h for the model). It never divides per
 * element: divisions happen once per plan and once per thread's unit range. */
#include "cpu_walk.h"

#include <string.h> /* memcpy, memset */

/* Scratch layout: one buffer per operand, then the single element of an all-scalar row. */
#define WALK_BUFFER_BYTES 32768u
/* Tiles of a transposed pair: each tile reads up to WALK_TILE_RUN_BYTES contiguous bytes of
 * every column of the transposed input (several whole lines, so prefetchers and DRAM pages see
 * sequential runs; 64x64 tiles of single lines ran at half the speed on power-of-two shapes).
 * Rows of 64 elements are whole blocks for every kernel: no masked tail per row. */
#define WALK_TILE_RUN_BYTES 512u
#define WALK_TILE_COLS 64u
/* Where input and output elements are of one width of 1 or 4 bytes, tiles are twice as wide:
 * the direct operands' rows of 64 elements were one cache line (UINT8) of a different page each.
 * On a 2-core AVX-512 host (256 MiB inputs, `bitcts bench --layouts transposed --threads 1,2
 * --reps 3 --no-peers --check cpu`, two runs alternating the builds) the UINT8 rows rose from
 * 0.27-0.34 to 0.32-0.39 of the limit at 1 thread, SHIFT_LEFT/RIGHT UINT32 from 0.37-0.45 to
 * 0.45-0.47; UINT16 rows ran 0.01-0.04 slower so (kept at 64), 64-bit rows and counts to
 * another width slower still (docs/cpu-backend.md). */
#define WALK_TILE_COLS_NARROW 128u
#define WALK_CHUNK 4096u /* 1-D gather chunk: 4096 x 8 = 32 KiB */

_Static_assert(BITCTS__CPU_WALK_SCRATCH_BYTES >= 3u * WALK_BUFFER_BYTES + 64u,
               "scratch holds three operand buffers and one element");

typedef struct walk_dim {
    size_t size;
    size_t stride[BITCTS__CPU_WALK_MAX_OPERANDS]; /* elements */
} walk_dim;

static size_t walk_min(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Collects the dims of size > 1 with every operand's element stride. */
static uint32_t walk_collect(walk_dim *dims, uint32_t rank, const uint32_t *sizes,
                             uint32_t operands, const uint32_t *const *strides)
{
    size_t packed[BITCTS__CPU_WALK_MAX_OPERANDS][BITCTS__CPU_WALK_MAX_DIMS];
    for (uint32_t k = 0; k < operands; ++k) {
        size_t s = 1;
        for (uint32_t d = rank; d-- > 0;) {
            packed[k][d] = s;
            s *= sizes[d];
        }
    }
    uint32_t nd = 0;
    for (uint32_t d = 0; d < rank; ++d) {
        if (sizes[d] <= 1) {
            continue;
        }
        dims[nd].size = sizes[d];
        for (uint32_t k = 0; k < operands; ++k) {
            dims[nd].stride[k] = strides[k] != NULL ? strides[k][d] : packed[k][d];
        }
        ++nd;
    }
    return nd;
}

/* Orders dims innermost first by output stride (stable), then merges each dim into the one
 * inside it when that is contiguous for every operand (zero strides included). */
static uint32_t walk_sort_coalesce(walk_dim *dims, uint32_t nd, uint32_t operands)
{
    for (uint32_t i = 1; i < nd; ++i) {
        const walk_dim d = dims[i];
        uint32_t j = i;
        while (j > 0 && dims[j - 1].stride[0] > d.stride[0]) {
            dims[j] = dims[j - 1];
            --j;
        }
        dims[j] = d;
    }
    uint32_t cur = 0;
    for (uint32_t i = 1; i < nd; ++i) {
        int mergeable = 1;
        for (uint32_t k = 0; k < operands; ++k) {
            mergeable &= dims[i].stride[k] == dims[cur].stride[k] * dims[cur].size;
        }
        if (mergeable) {
            dims[cur].size *= dims[i].size;
        } else {
            dims[++cur] = dims[i];
        }
    }
    return nd == 0 ? 0 : cur + 1;
}

/* The dim to use as rows when an input must be gathered: the dim with that input's smallest
 * non-zero stride, if it is smaller than the input's innermost stride (a transposed pair). */
static uint32_t walk_find_partner(const bitcts__cpu_plan *p, const walk_dim *dims, uint32_t nd)
{
    for (uint32_t k = 1; k < p->operands; ++k) {
        if (p->kind[k] != BITCTS__CPU_WALK_BUFFER) {
            continue;
        }
        uint32_t best = 0;
        for (uint32_t d = 1; d < nd; ++d) {
            const size_t s = dims[d].stride[k];
            if (s != 0 && s < dims[0].stride[k] && (best == 0 || s < dims[best].stride[k])) {
                best = d;
            }
        }
        if (best != 0) {
            return best;
        }
    }
    return 0;
}

static void walk_classify(bitcts__cpu_plan *p, const walk_dim *inner)
{
    p->all_scalar = 1;
    for (uint32_t k = 0; k < p->operands; ++k) {
        const size_t s = inner->stride[k];
        if (s == 1) {
            p->kind[k] = BITCTS__CPU_WALK_DIRECT;
        } else if (s == 0 && k > 0) {
            p->kind[k] = BITCTS__CPU_WALK_SCALAR;
        } else {
            p->kind[k] = BITCTS__CPU_WALK_BUFFER;
        }
        if (k > 0 && p->kind[k] != BITCTS__CPU_WALK_SCALAR) {
            p->all_scalar = 0;
        }
    }
    p->scalar_flags = 0;
    if (p->kind[1] == BITCTS__CPU_WALK_SCALAR && !p->all_scalar) {
        p->scalar_flags |= BITCTS__CPU_F_A_SCALAR;
    }
    if (p->operands == 3 && p->kind[2] == BITCTS__CPU_WALK_SCALAR && !p->all_scalar) {
        p->scalar_flags |= BITCTS__CPU_F_B_SCALAR;
    }
}

static void walk_blocks(bitcts__cpu_plan *p)
{
    uint32_t max_width = 0;
    int buffered = 0;
    for (uint32_t k = 0; k < p->operands; ++k) {
        max_width = p->width[k] > max_width ? p->width[k] : max_width;
        buffered |= p->kind[k] == BITCTS__CPU_WALK_BUFFER;
    }
    if (p->tiled) {
        const int narrow = (max_width == 1 || max_width == 4) && p->width[0] == p->width[1];
        p->col_block = narrow ? WALK_TILE_COLS_NARROW : WALK_TILE_COLS;
        p->row_block = WALK_TILE_RUN_BYTES / p->width[1];
        while (p->row_block * p->col_block * max_width > WALK_BUFFER_BYTES) {
            p->row_block /= 2;
        }
    } else if (buffered) {
        p->row_block = 1;
        p->col_block = WALK_CHUNK;
    } else if (p->cols >= BITCTS__CPU_WALK_UNIT_ELEMENTS) {
        p->row_block = 1;
        p->col_block = BITCTS__CPU_WALK_UNIT_ELEMENTS;
    } else {
        p->row_block = BITCTS__CPU_WALK_UNIT_ELEMENTS / p->cols;
        p->col_block = p->cols;
    }
    p->row_block = walk_min(p->row_block, p->rows);
    p->col_block = walk_min(p->col_block, p->cols);
    p->row_blocks = (p->rows + p->row_block - 1) / p->row_block;
    p->col_blocks = (p->cols + p->col_block - 1) / p->col_block;
    size_t outer = 1;
    for (uint32_t d = 0; d < p->outer_rank; ++d) {
        outer *= p->outer_size[d];
    }
    p->units = outer * p->row_blocks * p->col_blocks;
}

void bitcts__cpu_plan_build(bitcts__cpu_plan *plan, uint32_t rank, const uint32_t *sizes,
                            uint32_t operands, const uint32_t *const *strides,
                            const uint32_t *widths)
{
    bitcts__cpu_plan *p = plan;
    memset(p, 0, sizeof *p);
    p->operands = operands;
    p->elements = 1;
    for (uint32_t d = 0; d < rank; ++d) {
        p->elements *= sizes[d];
    }
    for (uint32_t k = 0; k < operands; ++k) {
        p->width[k] = widths[k];
    }
    p->output_bytes = p->elements * widths[0];
    p->moved_bytes = 0;
    for (uint32_t k = 0; k < operands; ++k) {
        p->moved_bytes += p->elements * widths[k];
    }
    walk_dim dims[BITCTS__CPU_WALK_MAX_DIMS];
    uint32_t nd =
        walk_sort_coalesce(dims, walk_collect(dims, rank, sizes, operands, strides), operands);
    if (nd == 0) { /* a single element: one contiguous span of length 1 */
        nd = 1;
        dims[0].size = 1;
        for (uint32_t k = 0; k < operands; ++k) {
            dims[0].stride[k] = 1;
        }
    }
    walk_classify(p, &dims[0]);
    const uint32_t partner = walk_find_partner(p, dims, nd);
    p->tiled = partner != 0;
    const uint32_t row_dim = partner != 0 ? partner : (nd > 1 ? 1 : 0);
    p->cols = dims[0].size;
    p->rows = row_dim != 0 ? dims[row_dim].size : 1;
    for (uint32_t k = 0; k < operands; ++k) {
        p->col_stride[k] = dims[0].stride[k] * widths[k];
        p->row_stride[k] = row_dim != 0 ? dims[row_dim].stride[k] * widths[k] : 0;
    }
    for (uint32_t d = 1; d < nd; ++d) {
        if (d == row_dim) {
            continue;
        }
        p->outer_size[p->outer_rank] = dims[d].size;
        for (uint32_t k = 0; k < operands; ++k) {
            p->outer_stride[k][p->outer_rank] = dims[d].stride[k] * widths[k];
        }
        ++p->outer_rank;
    }
    walk_blocks(p);
}

/* n elements of w bytes from src (step sstep bytes) to dst (step dstep bytes). */
static void walk_copy_strided(unsigned char *dst, size_t dstep, const unsigned char *src,
                              size_t sstep, size_t n, uint32_t w)
{
    switch (w) {
    case 1:
        for (size_t i = 0; i < n; ++i, dst += dstep, src += sstep) {
            *dst = *src;
        }
        break;
    case 2:
        for (size_t i = 0; i < n; ++i, dst += dstep, src += sstep) {
            memcpy(dst, src, 2);
        }
        break;
    case 4:
        for (size_t i = 0; i < n; ++i, dst += dstep, src += sstep) {
            memcpy(dst, src, 4);
        }
        break;
    default:
        for (size_t i = 0; i < n; ++i, dst += dstep, src += sstep) {
            memcpy(dst, src, 8);
        }
        break;
    }
}

/* Trades the odd `bits`-wide elements of *lo with the even ones of *hi. */
static inline void walk_swap(uint64_t *lo, uint64_t *hi, uint32_t bits, uint64_t mask)
{
    const uint64_t t = ((*lo >> bits) ^ *hi) & mask;
    *hi ^= t;
    *lo ^= t << bits;
}

/* Transposes a square block of n = 8 / w elements of w bytes held in n words, element i of
 * word k being bits [8w*i, 8w*(i+1)): afterwards element k of word i holds the old element i of
 * word k. Rounds of half-block swaps, spelled out so the words stay in registers. */
static inline void walk_transpose_words(uint64_t *x, uint32_t w)
{
    const uint64_t m8 = 0x00FF00FF00FF00FFull;
    const uint64_t m16 = 0x0000FFFF0000FFFFull;
    const uint64_t m32 = 0x00000000FFFFFFFFull;
    if (w == 1) {
        walk_swap(&x[0], &x[1], 8, m8);
        walk_swap(&x[2], &x[3], 8, m8);
        walk_swap(&x[4], &x[5], 8, m8);
        walk_swap(&x[6], &x[7], 8, m8);
        walk_swap(&x[0], &x[2], 16, m16);
        walk_swap(&x[1], &x[3], 16, m16);
        walk_swap(&x[4], &x[6], 16, m16);
        walk_swap(&x[5], &x[7], 16, m16);
        walk_swap(&x[0], &x[4], 32, m32);
        walk_swap(&x[1], &x[5], 32, m32);
        walk_swap(&x[2], &x[6], 32, m32);
        walk_swap(&x[3], &x[7], 32, m32);
    } else if (w == 2) {
        walk_swap(&x[0], &x[1], 16, m16);
        walk_swap(&x[2], &x[3], 16, m16);
        walk_swap(&x[0], &x[2], 32, m32);
        walk_swap(&x[1], &x[3], 32, m32);
    } else {
        walk_swap(&x[0], &x[1], 32, m32);
    }
}

/* The words of walk_transpose_words are read and written with memcpy, so their element order
 * is the memory order only on little-endian hosts; others take the element loop. */
static int walk_little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

/* Column-wise gather of a tile whose rows are contiguous in the source (rs == w < 8): blocks of
 * n x n elements (n = 8 / w) are loaded as n words down n columns, transposed in registers and
 * stored as n words along n rows. Returns the columns done (a multiple of n). */
static inline size_t walk_gather_blocks(unsigned char *buf, const unsigned char *src, size_t nr,
                                        size_t nc, size_t cs, uint32_t w)
{
    const size_t n = 8 / w;
    const size_t rows = nr - nr % n;
    const size_t cols = nc - nc % n;
    for (size_t c = 0; c < cols; c += n) {
        for (size_t r = 0; r < rows; r += n) {
            uint64_t x[8];
            for (size_t k = 0; k < n; ++k) {
                memcpy(&x[k], src + (c + k) * cs + r * w, 8);
            }
            walk_transpose_words(x, w);
            for (size_t i = 0; i < n; ++i) {
                memcpy(buf + ((r + i) * nc + c) * w, &x[i], 8);
            }
        }
        for (size_t r = rows; r < nr; ++r) { /* the rows left below the last block */
            walk_copy_strided(buf + (r * nc + c) * w, w, src + c * cs + r * w, cs, n, w);
        }
    }
    return cols;
}

static uint32_t walk_log2(uint32_t w)
{
    return w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3;
}

/* Gathers an nr x nc block (row stride rs, col stride cs, in bytes) into a packed buffer,
 * walking the operand's more contiguous direction innermost, so each of its cache lines is
 * used up at once. (Crossing lines innermost would keep all of a tile's lines live together,
 * which power-of-two strides map onto a few cache sets that then thrash.) A transposed tile
 * (rs == w) goes through the variant's transpose `tr` when it has one, for the columns it
 * takes; the rest by 64-bit word blocks, then element by element. */
static void walk_gather(unsigned char *buf, const unsigned char *src, size_t nr, size_t nc,
                        size_t rs, size_t cs, uint32_t w, bitcts__cpu_transpose_fn *tr)
{
    if (nr > 1 && rs < cs) {
        size_t c = 0;
        if (rs == w && tr != NULL) {
            c = tr(buf, nc * w, src, cs, nc, nr);
        }
        if (c == 0 && rs == w && w < 8 && walk_little_endian()) {
            c = w == 1   ? walk_gather_blocks(buf, src, nr, nc, cs, 1)
                : w == 2 ? walk_gather_blocks(buf, src, nr, nc, cs, 2)
                         : walk_gather_blocks(buf, src, nr, nc, cs, 4);
        }
        for (; c < nc; ++c) {
            walk_copy_strided(buf + c * w, nc * w, src + c * cs, rs, nr, w);
        }
    } else {
        for (size_t r = 0; r < nr; ++r) {
            walk_copy_strided(buf + r * nc * w, w, src + r * rs, cs, nc, w);
        }
    }
}

/* The inverse of walk_gather for the output. Dims are ordered by output stride, so the
 * output's column stride is its smallest and rows are always the outer loop. */
static void walk_scatter(unsigned char *dst, const unsigned char *buf, size_t nr, size_t nc,
                         size_t rs, size_t cs, uint32_t w)
{
    for (size_t r = 0; r < nr; ++r) {
        walk_copy_strided(dst + r * rs, cs, buf + r * nc * w, w, nc, w);
    }
}

/* n copies of one w-byte element, by doubling. */
static void walk_fill(unsigned char *dst, const unsigned char *value, size_t n, uint32_t w)
{
    const size_t total = n * w;
    size_t done = w;
    memcpy(dst, value, w);
    while (done < total) {
        const size_t chunk = walk_min(done, total - done);
        memcpy(dst + done, dst, chunk);
        done += chunk;
    }
}

/* Software prefetch of the next tile of a transposed pair. Its inputs are read in short runs
 * (the direct operands 64 output columns of every tile row, the transposed one a few lines
 * of every column) that no hardware prefetcher follows, so while one tile is computed the
 * lines of the next are requested, a few per row. Operands of 1-4 byte elements are requested
 * into L2 only (locality 1, prefetcht2 on x86): their tiles are 128-512 rows of 64 columns, up to
 * 1024 lines, more than L1 holds, and at the power-of-two strides of a transposed operand they
 * fall into a few L1 sets; prefetched into L1 they evicted each other and the tile being
 * computed. 8-byte operands (64 x 64 tiles, 512-byte row pieces) measured no better so, and
 * keep L1 (docs/cpu-backend.md, "Measured"). */
#if defined(__GNUC__) || defined(__clang__)
#define WALK_PREFETCH_L1(addr) __builtin_prefetch((addr), 0, 3)
#define WALK_PREFETCH_L2(addr) __builtin_prefetch((addr), 0, 1)
#else
#define WALK_PREFETCH_L1(addr) ((void)(addr))
#define WALK_PREFETCH_L2(addr) ((void)(addr))
#endif

/* The lines of one operand's part of the next tile: `spans` runs of `bytes` bytes, `stride`
 * apart, visited `per_row` lines at a time through a cursor. */
typedef struct walk_pf {
    const unsigned char *base;
    size_t stride, bytes, spans, per_row;
    size_t span, at; /* cursor: run, byte offset in it */
    int l1;          /* into L1 as well (8-byte elements), else into L2 only */
} walk_pf;

static void walk_pf_row(walk_pf *f)
{
    for (size_t i = 0; i < f->per_row && f->span < f->spans; ++i) {
        if (f->l1) {
            WALK_PREFETCH_L1(f->base + f->span * f->stride + f->at);
        } else {
            WALK_PREFETCH_L2(f->base + f->span * f->stride + f->at);
        }
        f->at += 64;
        if (f->at >= f->bytes) {
            f->at = 0;
            ++f->span;
        }
    }
}

/* Sets up pf[1..2] for the tile after (rb, cb) in the same outer position; returns 0 when
 * there is none (the last tile of its outer position) or the plan is not tiled. */
static int walk_pf_setup(const bitcts__cpu_plan *p, const bitcts__cpu_call *c, const size_t *off,
                         size_t rb, size_t cb, size_t nr_now, walk_pf *pf)
{
    if (!p->tiled) {
        return 0;
    }
    if (cb + 1 < p->col_blocks) {
        ++cb;
    } else if (rb + 1 < p->row_blocks) {
        ++rb;
        cb = 0;
    } else {
        return 0;
    }
    const size_t r0 = rb * p->row_block;
    const size_t c0 = cb * p->col_block;
    const size_t nr = walk_min(p->row_block, p->rows - r0);
    const size_t nc = walk_min(p->col_block, p->cols - c0);
    for (uint32_t k = 1; k < p->operands; ++k) {
        walk_pf *f = &pf[k];
        memset(f, 0, sizeof *f);
        f->base = c->in[k - 1] + off[k] + r0 * p->row_stride[k] + c0 * p->col_stride[k];
        if (p->kind[k] == BITCTS__CPU_WALK_DIRECT) {
            f->stride = p->row_stride[k];
            f->bytes = nc * p->width[k];
            f->spans = nr;
        } else if (p->kind[k] == BITCTS__CPU_WALK_BUFFER && p->row_stride[k] == p->width[k]) {
            f->stride = p->col_stride[k];
            f->bytes = nr * p->width[k];
            f->spans = nc;
        }
        f->l1 = p->width[k] == 8;
        const size_t lines = f->spans * ((f->bytes + 63) / 64);
        f->per_row = (lines + nr_now - 1) / nr_now;
    }
    return 1;
}

static void walk_block(const bitcts__cpu_plan *p, const bitcts__cpu_call *c, const size_t *off,
                       size_t rb, size_t cb, unsigned char *scratch)
{
    const size_t r0 = rb * p->row_block;
    const size_t c0 = cb * p->col_block;
    const size_t nr = walk_min(p->row_block, p->rows - r0);
    const size_t nc = walk_min(p->col_block, p->cols - c0);
    const unsigned char *row[BITCTS__CPU_WALK_MAX_OPERANDS] = {NULL, NULL, NULL};
    size_t step[BITCTS__CPU_WALK_MAX_OPERANDS] = {0, 0, 0};
    for (uint32_t k = 1; k < p->operands; ++k) {
        const unsigned char *base =
            c->in[k - 1] + off[k] + r0 * p->row_stride[k] + c0 * p->col_stride[k];
        row[k] = base;
        step[k] = p->row_stride[k];
        if (p->kind[k] == BITCTS__CPU_WALK_BUFFER) {
            unsigned char *buf = scratch + k * WALK_BUFFER_BYTES;
            bitcts__cpu_transpose_fn *tr =
                c->transpose != NULL ? c->transpose[walk_log2(p->width[k])] : NULL;
            walk_gather(buf, base, nr, nc, p->row_stride[k], p->col_stride[k], p->width[k], tr);
            row[k] = buf;
            step[k] = nc * p->width[k];
        }
    }
    unsigned char *obase = c->out + off[0] + r0 * p->row_stride[0] + c0 * p->col_stride[0];
    const int direct = p->kind[0] == BITCTS__CPU_WALK_DIRECT;
    unsigned char *orow = direct ? obase : scratch;
    const size_t ostep = direct ? p->row_stride[0] : nc * p->width[0];
    const uint32_t flags = (c->flags | p->scalar_flags) & (direct ? ~0u : ~BITCTS__CPU_F_NT);
    unsigned char *one = scratch + 3 * WALK_BUFFER_BYTES;
    walk_pf pf[BITCTS__CPU_WALK_MAX_OPERANDS];
    const int prefetch = walk_pf_setup(p, c, off, rb, cb, nr, pf);
    for (size_t r = 0; r < nr; ++r) {
        if (prefetch) {
            for (uint32_t k = 1; k < p->operands; ++k) {
                walk_pf_row(&pf[k]);
            }
        }
        const unsigned char *a = row[1] + r * step[1];
        const unsigned char *b = p->operands == 3 ? row[2] + r * step[2] : NULL;
        if (p->all_scalar) {
            c->kernel(one, a, b, 1, c->flags & ~BITCTS__CPU_F_NT);
            walk_fill(orow + r * ostep, one, nc, p->width[0]);
        } else {
            c->kernel(orow + r * ostep, a, b, nc, flags);
        }
    }
    if (!direct) {
        walk_scatter(obase, scratch, nr, nc, p->row_stride[0], p->col_stride[0], p->width[0]);
    }
}

/* Odometer step over the outer dims, carrying offsets along. */
static void walk_advance(const bitcts__cpu_plan *p, size_t *idx, size_t *off)
{
    for (uint32_t d = 0; d < p->outer_rank; ++d) {
        for (uint32_t k = 0; k < p->operands; ++k) {
            off[k] += p->outer_stride[k][d];
        }
        if (++idx[d] < p->outer_size[d]) {
            return;
        }
        idx[d] = 0;
        for (uint32_t k = 0; k < p->operands; ++k) {
            off[k] -= p->outer_size[d] * p->outer_stride[k][d];
        }
    }
}

void bitcts__cpu_plan_run(const bitcts__cpu_plan *plan, const bitcts__cpu_call *call, size_t begin,
                          size_t end, unsigned char *scratch)
{
    const bitcts__cpu_plan *p = plan;
    if (begin >= end) {
        return;
    }
    /* Position of the first unit: the only divisions of a run. */
    size_t cb = begin % p->col_blocks;
    size_t rest = begin / p->col_blocks;
    size_t rb = rest % p->row_blocks;
    rest /= p->row_blocks;
    size_t idx[BITCTS__CPU_WALK_MAX_DIMS] = {0};
    size_t off[BITCTS__CPU_WALK_MAX_OPERANDS] = {0, 0, 0};
    for (uint32_t d = 0; d < p->outer_rank; ++d) {
        idx[d] = rest % p->outer_size[d];
        rest /= p->outer_size[d];
        for (uint32_t k = 0; k < p->operands; ++k) {
            off[k] += idx[d] * p->outer_stride[k][d];
        }
    }
    for (size_t u = begin; u < end; ++u) {
        walk_block(p, call, off, rb, cb, scratch);
        if (++cb < p->col_blocks) {
            continue;
        }
        cb = 0;
        if (++rb < p->row_blocks) {
            continue;
        }
        rb = 0;
        walk_advance(p, idx, off);
    }
    if (call->flags & BITCTS__CPU_F_NT) {
        call->fence();
    }
}
