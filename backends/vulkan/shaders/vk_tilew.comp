// SPDX-License-Identifier: MIT
// The transpose path for 8- and 16-bit elements of one width in and out, a 32-bit word (V
// elements) at a time: the tile shader's scheme (vk_tile.comp) with every load and store a
// word. A workgroup takes tiles of TE x TE elements (TE = 32 V). A transposed input is read
// along R, a word of V rows of one column per invocation, into shared memory; the output is
// written along C, a word of V columns of one row per invocation: an invocation reads the V
// shared words of its V columns at one word row once and transposes that V x V block in
// registers into V output words, one for each of V rows. The shared tile is swizzled (word w of column c lives at [c][w ^ (c / V % 32)]) so
// that both the stores and the gathers of a warp hit 32 different banks. Direct inputs are
// read a word per invocation (those of the rows it writes), into registers before the barrier. The host takes this path
// only when R and C are multiples of V and every row, column and batch start of every operand
// is word-aligned (vk_plan.c), so no word crosses a row's end. As in vk_tile.comp, the
// workgroup's size is the specialization constant TILE_THREADS (tile_threads) and B's shared
// tile is one row unless the specialization constant B_TILED says B is transposed.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "vk_common.glsl"

#if IN_W != OUT_W || IN_W > 2
#error "vk_tilew.comp is built for 8- and 16-bit elements of one width in and out"
#endif

layout(local_size_x = 256, local_size_x_id = BITCTS_VK_SPEC_TILE_THREADS) in;
layout(constant_id = BITCTS_VK_SPEC_B_TILED) const uint B_TILED = 1u;

#define V (4u / IN_W) // elements per word
#define TE (BITCTS_VK_TILE * V) // tile side in elements
const uint ROWS_PER_PASS = gl_WorkGroupSize.x / 32u;
const uint PASSES = TE / ROWS_PER_PASS; // rows (or columns) of the tile each invocation takes

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

shared uint tile_a[TE][32];
shared uint tile_b[1u + (TE - 1u) * B_TILED][32];

// Lane k of a word, and a word of lanes.
uint vk_lane_of(uint w, uint k)
{
    return bitfieldExtract(w, int(k * IN_BITS), int(IN_BITS));
}

// The V words of columns c .. c + V - 1 (tile-relative) at word row rw: V rows of V columns.
void vk_words(bool use_b, uint c, uint rw, out uint w[V])
{
    [[unroll]] for (uint k = 0u; k < V; ++k) {
        const uint cc = c + k;
        const uint s = rw ^ ((cc / V) & 31u);
        w[k] = use_b ? tile_b[cc][s] : tile_a[cc][s];
    }
}

// Lane l of each of V words (columns), as one word: row l of the V x V block, transposed.
uint vk_lanes(const uint w[V], uint l)
{
    uint r = 0u;
    [[unroll]] for (uint k = 0u; k < V; ++k) {
        r |= vk_lane_of(w[k], l) << (k * IN_BITS);
    }
    return r;
}

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
    uint r = 0u;
    [[unroll]] for (uint k = 0u; k < V; ++k) {
        r |= (vk_apply(vk_lane_of(a, k), vk_lane_of(b, k)) & IN_MASK) << (k * IN_BITS);
    }
    return r;
}

void main()
{
    const uint tx = gl_LocalInvocationID.x % 32u;
    const uint ty = gl_LocalInvocationID.x / 32u;
    const bool a_t = (pc.flags & BITCTS_VK_FLAG_A_TRANSPOSED) != 0u;
    const bool b_t =
        vk_is_binary() && B_TILED != 0u && (pc.flags & BITCTS_VK_FLAG_B_TRANSPOSED) != 0u;
    const uint tiles_per_batch = ((pc.rows + TE - 1u) / TE) * pc.tiles_c;
    for (uint t = gl_WorkGroupID.x; t < pc.tiles; t += gl_NumWorkGroups.x) {
        const uint batch = t / tiles_per_batch;
        const uint in_batch = t - batch * tiles_per_batch;
        const uint r0 = (in_batch / pc.tiles_c) * TE;
        const uint c0 = (in_batch % pc.tiles_c) * TE;
        uint da[PASSES];
        uint db[PASSES];
        [[unroll]] for (uint j = 0u; j < PASSES; ++j) {
            // Transposed inputs: column c0 + ty + ROWS_PER_PASS j, rows r0 + V tx .. + V - 1.
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
            // Direct inputs: the rows this invocation writes below (row V (ty + ROWS_PER_PASS
            // q) + k of the tile for j = V q + k), columns c0 + V tx .. + V - 1.
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
        // Output: word row ty + ROWS_PER_PASS q of the tile, V rows; each invocation reads the V
        // shared words of its V columns once and transposes the V x V block in registers.
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
        barrier();
    }
}
