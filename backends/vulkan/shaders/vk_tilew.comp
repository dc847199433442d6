// SPDX-License-Identifier: MIT
// The transpose path for 8- and 16-bit elements of one width in and out, and for BIT_COUNT of
// 8-, 16- and 32-bit elements to another width (UINT8 or UINT32), a 32-bit word at a time: the
// tile shader's scheme (vk_tile.comp) with every load and store a word. An input word holds V
// elements, an output word VO. A workgroup takes tiles of TR x TC elements (TR = 32 V rows,
// TC = 32 VO columns). A transposed input is read along R, a word of V rows of one column per
// invocation, into shared memory; the output is written along C, a word of VO columns of one
// row per invocation: an invocation reads the VO shared words of its VO columns at one word
// row once and transposes that block in registers into V output words, one for each of V
// rows (for a count, each lane counted on the way). The shared tile is swizzled (word w of
// column c lives at [c][w ^ (c / VO % 32)]) so that both the stores and the gathers of a warp
// hit 32 different banks. Direct inputs (same width only: a count has one input, transposed)
// are read a word per invocation (those of the rows it writes), into registers before the
// barrier. The host takes this path only when R is a multiple of V, C of VO, and every row,
// column and batch start of every operand is word-aligned (vk_plan.c), so no word crosses a
// row's end. As in vk_tile.comp, the workgroup's size is the specialization constant
// TILE_THREADS (tile_threads) and B's shared tile is one row unless the specialization
// constant B_TILED says B is transposed.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "vk_common.glsl"

#if IN_W > 4 || (IN_W == OUT_W && IN_W > 2) || (IN_W != OUT_W && OUT_W != 1 && OUT_W != 4)
#error "vk_tilew.comp is built for 8/16-bit elements of one width, and counts of 8/16/32-bit ones"
#endif

layout(local_size_x = 256, local_size_x_id = BITCTS_VK_SPEC_TILE_THREADS) in;
layout(constant_id = BITCTS_VK_SPEC_B_TILED) const uint B_TILED = 1u;

#define V (4u / IN_W) // input elements per word
#define VO (4u / OUT_W) // output elements per word
#define TR (BITCTS_VK_TILE * V) // tile rows in elements
#define TC (BITCTS_VK_TILE * VO) // tile columns in elements
#define OUT_BITS (OUT_W * 8u)
const uint ROWS_PER_PASS = gl_WorkGroupSize.x / 32u;
const uint PASSES = TC / ROWS_PER_PASS; // columns of the tile each invocation reads
const uint OUT_PASSES = BITCTS_VK_TILE / ROWS_PER_PASS; // word rows each invocation writes

layout(buffer_reference, std430, buffer_reference_align = 4) buffer VkWords { uint v[]; };

layout(push_constant) uniform VkTilePush
{
    VkWords out_ref;
    VkWords a_ref;
    VkWords b_ref;
    uint rows;    // R
    uint cols;    // C
    uint tiles_c; // tiles along C
    uint tiles;   // batch * tiles along R * tiles_c
    uint out_row; // output strides in elements (column stride is 1)
    uint out_batch;
    uint a_row; // input strides in elements along R, C and the batch
    uint a_col;
    uint a_batch;
    uint b_row;
    uint b_col;
    uint b_batch;
    uint flags; // BITCTS_VK_FLAG_*
}
pc;

shared uint tile_a[TC][32];
shared uint tile_b[1u + (TC - 1u) * B_TILED][32];

// Lane k of a word, and a word of lanes.
uint vk_lane_of(uint w, uint k)
{
    return bitfieldExtract(w, int(k * IN_BITS), int(IN_BITS));
}

// The VO words of columns c .. c + VO - 1 (tile-relative) at word row rw: V rows of VO
// columns.
void vk_words(bool use_b, uint c, uint rw, out uint w[VO])
{
    [[unroll]] for (uint k = 0u; k < VO; ++k) {
        const uint cc = c + k;
        const uint s = rw ^ ((cc / VO) & 31u);
        w[k] = use_b ? tile_b[cc][s] : tile_a[cc][s];
    }
}

// The V x VO block of the VO words w (columns) transposed into V words (rows): row l is lane l
// of each word; for a count to another width, each lane's count in a lane of the output's
// width. Same-width blocks by masks and shifts (a 4 x 4 byte block in two rounds: bytes within
// 16-bit halves, then halves), not lane by lane. (16-bit elements of one width: vk_tile_same16.)
#if !(IN_W == 2 && OUT_W == 2)
void vk_block(const uint w[VO], out uint o[V])
{
#if IN_W == 1 && OUT_W == 1
    const uint t0 = (w[0] & 0x00FF00FFu) | ((w[1] << 8u) & 0xFF00FF00u);
    const uint t1 = ((w[0] >> 8u) & 0x00FF00FFu) | (w[1] & 0xFF00FF00u);
    const uint t2 = (w[2] & 0x00FF00FFu) | ((w[3] << 8u) & 0xFF00FF00u);
    const uint t3 = ((w[2] >> 8u) & 0x00FF00FFu) | (w[3] & 0xFF00FF00u);
    o[0] = (t0 & 0xFFFFu) | (t2 << 16u);
    o[1] = (t1 & 0xFFFFu) | (t3 << 16u);
    o[2] = (t0 >> 16u) | (t2 & 0xFFFF0000u);
    o[3] = (t1 >> 16u) | (t3 & 0xFFFF0000u);
#else
    [[unroll]] for (uint l = 0u; l < V; ++l) {
        uint r = 0u;
        [[unroll]] for (uint k = 0u; k < VO; ++k) {
            r |= uint(bitCount(vk_lane_of(w[k], l))) << (k * OUT_BITS);
        }
        o[l] = r;
    }
#endif
}
#endif

#if IN_W == OUT_W
// The operator on a word of V lanes.
uint vk_apply_word(uint a, uint b)
{
    if (OP == BITCTS_VK_OP_AND) {
        return a & b;
    }
    if (OP == BITCTS_VK_OP_OR) {
        return a | b;
    }
    if (OP == BITCTS_VK_OP_XOR) {
        return a ^ b;
    }
    if (OP == BITCTS_VK_OP_NOT) {
        return ~a;
    }
    if (OP == BITCTS_VK_OP_COPY) {
        return a;
    }
#if IN_W == 1
    if (OP == BITCTS_VK_OP_COUNT) {
        return vk_popcount_bytes(a);
    }
    return vk_shift_bytes(a, b);
#else
    uint r = 0u;
    [[unroll]] for (uint k = 0u; k < V; ++k) {
        r |= (vk_apply(vk_lane_of(a, k), vk_lane_of(b, k)) & IN_MASK) << (k * IN_BITS);
    }
    return r;
#endif
}

// Direct inputs (packed along C): the words this invocation writes in vk_store_tile (row
// V (ty + ROWS_PER_PASS q) + k of the tile for j = V q + k), columns c0 + V tx .. + V - 1.
void vk_load_direct(uint batch, uint r0, uint c0, uint tx, uint ty, bool a_t, bool b_t,
                    out uint da[PASSES], out uint db[PASSES])
{
    [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
        const uint orow = r0 + V * (ty + ROWS_PER_PASS * (j / V)) + j % V;
        const uint ocol = c0 + V * tx;
        da[j] = 0u;
        db[j] = 0u;
        if (orow < pc.rows && ocol < pc.cols) {
            if (!a_t) {
                da[j] = pc.a_ref.v[(batch * pc.a_batch + orow * pc.a_row + ocol) / V];
            }
            if (vk_is_binary() && !b_t) {
                db[j] = pc.b_ref.v[(batch * pc.b_batch + orow * pc.b_row + ocol) / V];
            }
        }
    }
}
#endif

// Transposed inputs' words into registers: column c0 + ty + ROWS_PER_PASS j, rows r0 + V tx ..
// + V - 1, one word each (zero outside R x C: never read back, as R and C are multiples of V
// and VO).
void vk_fetch_tile(uint batch, uint r0, uint c0, uint tx, uint ty, bool a_t, bool b_t,
                   out uint la[PASSES], out uint lb[PASSES])
{
    [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
        const uint c = c0 + ty + ROWS_PER_PASS * j;
        const uint r = r0 + V * tx;
        la[j] = 0u;
        lb[j] = 0u;
        if (r < pc.rows && c < pc.cols) {
            if (a_t) {
                la[j] = pc.a_ref.v[(batch * pc.a_batch + r + c * pc.a_col) / V];
            }
            if (b_t) {
                lb[j] = pc.b_ref.v[(batch * pc.b_batch + r + c * pc.b_col) / V];
            }
        }
    }
}

// Those words into the shared tiles (swizzled).
void vk_put_tile(uint tx, uint ty, bool a_t, bool b_t, const uint la[PASSES],
                 const uint lb[PASSES])
{
    [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
        const uint tc = ty + ROWS_PER_PASS * j;
        const uint s = tx ^ ((tc / VO) & 31u);
        if (a_t) {
            tile_a[tc][s] = la[j];
        }
        if (b_t) {
            tile_b[tc][s] = lb[j];
        }
    }
}

#if IN_W == 2 && OUT_W == 2
// Lane l of each of V words (columns), as one word: row l of the V x V block, transposed.
uint vk_lanes(const uint w[V], uint l)
{
    uint r = 0u;
    [[unroll]] for (uint k = 0u; k < V; ++k) {
        r |= vk_lane_of(w[k], l) << (k * IN_BITS);
    }
    return r;
}

// One tile of 16-bit elements of one width, as the word tile did before the counts' word tile
// and the blocks by masks and shifts: loads of the transposed and direct inputs interleaved,
// each output word's row checked on its own, the block's rows taken lane by lane. The H100
// measured NOT UINT16 transposed at 0.91 of the copy kernel this way and 0.79-0.80 with the
// shared code below (the other 16-bit rows within the noise either way).
void vk_tile_same16(uint batch, uint r0, uint c0, uint tx, uint ty, bool a_t, bool b_t)
{
    uint da[PASSES];
    uint db[PASSES];
    [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
        const uint tc = ty + ROWS_PER_PASS * j;
        const uint c = c0 + tc;
        const uint r = r0 + V * tx;
        if (r < pc.rows && c < pc.cols) {
            const uint s = tx ^ ((tc / V) & 31u);
            if (a_t) {
                tile_a[tc][s] = pc.a_ref.v[(batch * pc.a_batch + r + c * pc.a_col) / V];
            }
            if (b_t) {
                tile_b[tc][s] = pc.b_ref.v[(batch * pc.b_batch + r + c * pc.b_col) / V];
            }
        }
        const uint orow = r0 + V * (ty + ROWS_PER_PASS * (j / V)) + j % V;
        const uint ocol = c0 + V * tx;
        da[j] = 0u;
        db[j] = 0u;
        if (orow < pc.rows && ocol < pc.cols) {
            if (!a_t) {
                da[j] = pc.a_ref.v[(batch * pc.a_batch + orow * pc.a_row + ocol) / V];
            }
            if (vk_is_binary() && !b_t) {
                db[j] = pc.b_ref.v[(batch * pc.b_batch + orow * pc.b_row + ocol) / V];
            }
        }
    }
    barrier();
    [[unroll]] for (uint q = 0u; q < PASSES / V; ++q) {
        const uint rw = ty + ROWS_PER_PASS * q;
        const uint c = c0 + V * tx;
        uint wa[V];
        uint wb[V];
        if (a_t) {
            vk_words(false, V * tx, rw, wa);
        }
        if (b_t) {
            vk_words(true, V * tx, rw, wb);
        }
        [[unroll]] for (uint k = 0u; k < V; ++k) {
            const uint r = r0 + V * rw + k;
            if (r < pc.rows && c < pc.cols) {
                const uint a = a_t ? vk_lanes(wa, k) : da[V * q + k];
                const uint b = b_t ? vk_lanes(wb, k) : db[V * q + k];
                pc.out_ref.v[(batch * pc.out_batch + r * pc.out_row + c) / V] =
                    vk_apply_word(a, b);
            }
        }
    }
}
#endif

// Tile t's first row, column and batch.
void vk_tile_at(uint t, uint tiles_per_batch, out uint batch, out uint r0, out uint c0)
{
    batch = t / tiles_per_batch;
    const uint in_batch = t - batch * tiles_per_batch;
    r0 = (in_batch / pc.tiles_c) * TR;
    c0 = (in_batch % pc.tiles_c) * TC;
}

#if !(IN_W == 2 && OUT_W == 2)
// Transposed inputs into the shared tiles: column c0 + ty + ROWS_PER_PASS j, rows r0 + V tx ..
// + V - 1, one word each.
void vk_load_tile(uint batch, uint r0, uint c0, uint tx, uint ty, bool a_t, bool b_t)
{
    [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
        const uint tc = ty + ROWS_PER_PASS * j;
        const uint c = c0 + tc;
        const uint r = r0 + V * tx;
        if (r < pc.rows && c < pc.cols) {
            const uint s = tx ^ ((tc / VO) & 31u);
            if (a_t) {
                tile_a[tc][s] = pc.a_ref.v[(batch * pc.a_batch + r + c * pc.a_col) / V];
            }
            if (b_t) {
                tile_b[tc][s] = pc.b_ref.v[(batch * pc.b_batch + r + c * pc.b_col) / V];
            }
        }
    }
}

// One tile, its loads straight into shared memory and registers, then the barrier, then its
// output (binary operators, and counts to a wider type: the H100 measured them slower
// software-pipelined, AND UINT8 0.87 -> 0.70-0.79 of the copy kernel).
void vk_tile_direct(uint batch, uint r0, uint c0, uint tx, uint ty, bool a_t, bool b_t)
{
    // Direct inputs first: their loads wait on nothing.
#if IN_W == OUT_W
    uint da[PASSES];
    uint db[PASSES];
    vk_load_direct(batch, r0, c0, tx, ty, a_t, b_t, da, db);
#endif
    vk_load_tile(batch, r0, c0, tx, ty, a_t, b_t);
    barrier();
    // Output: word row ty + ROWS_PER_PASS q of the tile, V rows (all inside R, a multiple
    // of V); each invocation reads the VO shared words of its VO columns once and
    // transposes the block in registers.
    [[unroll]] for (uint q = 0u; q < OUT_PASSES; ++q) {
        const uint rw = ty + ROWS_PER_PASS * q;
        const uint r = r0 + V * rw;
        const uint c = c0 + VO * tx;
        const bool inside = r < pc.rows && c < pc.cols;
        const bool read = inside;
        uint wa[VO];
        uint ta[V];
        if (read && a_t) {
            vk_words(false, VO * tx, rw, wa);
            vk_block(wa, ta);
        }
#if IN_W == OUT_W
        uint wb[VO];
        uint tb[V];
        if (read && b_t) {
            vk_words(true, VO * tx, rw, wb);
            vk_block(wb, tb);
        }
#endif
        if (inside) {
            // Output words: the first row's, then a row (out_row / VO words) apart.
            const uint o = batch * (pc.out_batch / VO) + r * (pc.out_row / VO) + c / VO;
            [[unroll]] for (uint k = 0u; k < V; ++k) {
#if IN_W == OUT_W
                const uint a = a_t ? ta[k] : da[V * q + k];
                const uint b = b_t ? tb[k] : db[V * q + k];
                const uint word = vk_apply_word(a, b);
#else
                const uint word = ta[k]; // a count: A is the transposed input
#endif
                pc.out_ref.v[o + k * (pc.out_row / VO)] = word;
            }
        }
    }
}
#endif

#if !(IN_W == 2 && OUT_W == 2) && OUT_W <= IN_W
// Every load of tile t, into registers: the transposed input's words and (same width) the
// direct input's words this invocation writes (a unary operator's: none).
void vk_fetch(uint t, uint tiles_per_batch, uint tx, uint ty, bool a_t, bool b_t,
              out uint la[PASSES], out uint lb[PASSES], out uint da[PASSES], out uint db[PASSES])
{
    uint batch, r0, c0;
    vk_tile_at(t, tiles_per_batch, batch, r0, c0);
#if IN_W == OUT_W
    vk_load_direct(batch, r0, c0, tx, ty, a_t, b_t, da, db);
#else
    [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
        da[j] = 0u;
        db[j] = 0u;
    }
#endif
    vk_fetch_tile(batch, r0, c0, tx, ty, a_t, b_t, la, lb);
}

// The output of the tile at (batch, r0, c0) from the shared tiles and the direct words ca, cb:
// word row ty + ROWS_PER_PASS q of the tile, V rows (all inside R, a multiple of V); each
// invocation reads the VO shared words of its VO columns once and transposes the block in
// registers.
void vk_store_tile(uint batch, uint r0, uint c0, uint tx, uint ty, bool a_t, bool b_t,
                   const uint ca[PASSES], const uint cb[PASSES])
{
    [[unroll]] for (uint q = 0u; q < OUT_PASSES; ++q) {
        const uint rw = ty + ROWS_PER_PASS * q;
        const uint r = r0 + V * rw;
        const uint c = c0 + VO * tx;
        if (r < pc.rows && c < pc.cols) {
            uint wa[VO];
            uint ta[V];
            if (a_t) {
                vk_words(false, VO * tx, rw, wa);
                vk_block(wa, ta);
            }
#if IN_W == OUT_W
            uint wb[VO];
            uint tb[V];
            if (b_t) {
                vk_words(true, VO * tx, rw, wb);
                vk_block(wb, tb);
            }
#endif
            // Output words: the first row's, then a row (out_row / VO words) apart.
            const uint o = batch * (pc.out_batch / VO) + r * (pc.out_row / VO) + c / VO;
            [[unroll]] for (uint k = 0u; k < V; ++k) {
#if IN_W == OUT_W
                const uint a = a_t ? ta[k] : ca[V * q + k];
                const uint b = b_t ? tb[k] : cb[V * q + k];
                const uint word = vk_apply_word(a, b);
#else
                const uint word = ta[k]; // a count: A is the transposed input
#endif
                pc.out_ref.v[o + k * (pc.out_row / VO)] = word;
            }
        }
    }
}

// A unary operator's tiles (NOT UINT8, BIT_COUNT to UINT8 from 8 and 16 bits), software-
// pipelined: the next tile's loads are issued into registers right after the barrier that
// publishes this tile's shared words, so they are in flight while this tile's output is
// written. A workgroup takes tile_span tiles (by default 4, vk_exec.c): the H100 measured NOT
// UINT8 0.75 -> 0.87 of the copy kernel, BIT_COUNT UINT8 -> UINT8 0.73 -> 0.85 and UINT16 ->
// UINT8 0.84 -> 0.93.
void vk_tiles_pipelined(uint tiles_per_batch, uint tx, uint ty, bool a_t, bool b_t)
{
    uint la[PASSES];
    uint lb[PASSES];
    uint da[PASSES];
    uint db[PASSES];
    uint t = gl_WorkGroupID.x;
    if (t < pc.tiles) {
        vk_fetch(t, tiles_per_batch, tx, ty, a_t, b_t, la, lb, da, db);
    }
    for (; t < pc.tiles; t += gl_NumWorkGroups.x) {
        uint batch, r0, c0;
        vk_tile_at(t, tiles_per_batch, batch, r0, c0);
        vk_put_tile(tx, ty, a_t, b_t, la, lb);
        uint ca[PASSES]; // this tile's direct words: da and db take the next tile's
        uint cb[PASSES];
        [[unroll]] for (uint n = 0u; n < PASSES; ++n) {
            ca[n] = da[n];
            cb[n] = db[n];
        }
        barrier();
        const uint next = t + gl_NumWorkGroups.x;
        if (next < pc.tiles) {
            vk_fetch(next, tiles_per_batch, tx, ty, a_t, b_t, la, lb, da, db);
        }
        vk_store_tile(batch, r0, c0, tx, ty, a_t, b_t, ca, cb);
        barrier();
    }
}
#endif

// Tiles in a grid-stride loop: 16-bit elements of one width by vk_tile_same16, binary
// operators and counts to a wider type a tile at a time (vk_tile_direct), unary operators
// otherwise software-pipelined (vk_tiles_pipelined).
void main()
{
    const uint tx = gl_LocalInvocationID.x % 32u;
    const uint ty = gl_LocalInvocationID.x / 32u;
    const bool a_t = (pc.flags & BITCTS_VK_FLAG_A_TRANSPOSED) != 0u;
    const bool b_t =
        vk_is_binary() && B_TILED != 0u && (pc.flags & BITCTS_VK_FLAG_B_TRANSPOSED) != 0u;
    const uint tiles_per_batch = ((pc.rows + TR - 1u) / TR) * pc.tiles_c;
#if OUT_W <= IN_W && !(IN_W == 2 && OUT_W == 2)
    if (!vk_is_binary()) {
        vk_tiles_pipelined(tiles_per_batch, tx, ty, a_t, b_t);
        return;
    }
#endif
    for (uint t = gl_WorkGroupID.x; t < pc.tiles; t += gl_NumWorkGroups.x) {
        uint batch, r0, c0;
        vk_tile_at(t, tiles_per_batch, batch, r0, c0);
#if IN_W == 2 && OUT_W == 2
        vk_tile_same16(batch, r0, c0, tx, ty, a_t, b_t);
#else
        vk_tile_direct(batch, r0, c0, tx, ty, a_t, b_t);
#endif
        barrier();
    }
}
