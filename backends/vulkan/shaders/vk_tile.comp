// SPDX-License-Identifier: MIT
// The transpose path: the operands coalesce to at most three dimensions (batch, rows R,
// columns C), the output has unit stride along C and at least one input has unit stride along
// R instead. A workgroup takes 32x32 tiles: a transposed input is read along R (coalesced)
// into shared memory and read back along C, so both its reads and the output's writes are
// coalesced; other inputs are read directly, into registers before the barrier, so that every
// load of a tile is issued before its first store (loads do not queue behind stores they might
// alias; in place, an element is read and written by the same invocation). The passes over a
// tile are unrolled, so the direct operands stay in registers. Tiles are shared out in a
// grid-stride loop. The workgroup's size is the specialization constant TILE_THREADS (the
// backend option tile_threads: 256, 512 or 1024 invocations, 8, 16 or 32 rows a pass); B's
// shared tile is one row unless the specialization constant B_TILED says B is transposed
// (shared memory is what bounds how many workgroups an SM holds).
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "vk_common.glsl"
#include "vk_access.glsl"

layout(local_size_x = 256, local_size_x_id = BITCTS_VK_SPEC_TILE_THREADS) in;
layout(constant_id = BITCTS_VK_SPEC_B_TILED) const uint B_TILED = 1u;

#define TILE BITCTS_VK_TILE
const uint ROWS_PER_PASS = gl_WorkGroupSize.x / TILE;
const uint PASSES = TILE / ROWS_PER_PASS;

layout(push_constant) uniform VkTilePush
{
    VK_OUT_REF out_ref;
    VK_IN_REF a_ref;
    VK_IN_REF b_ref;
    uint rows;    // R
    uint cols;    // C
    uint tiles_c; // tiles along C
    uint tiles;   // batch * tiles along R * tiles_c
    uint out_row; // output strides (column stride is 1)
    uint out_batch;
    uint a_row; // input strides along R, C and the batch
    uint a_col;
    uint a_batch;
    uint b_row;
    uint b_col;
    uint b_batch;
    uint flags; // BITCTS_VK_FLAG_*
}
pc;

shared VIN tile_a[TILE][TILE + 1u];
shared VIN tile_b[1u + (TILE - 1u) * B_TILED][TILE + 1u];

void main()
{
    const uint tx = gl_LocalInvocationID.x % TILE;
    const uint ty = gl_LocalInvocationID.x / TILE;
    const bool a_t = (pc.flags & BITCTS_VK_FLAG_A_TRANSPOSED) != 0u;
    const bool b_t =
        vk_is_binary() && B_TILED != 0u && (pc.flags & BITCTS_VK_FLAG_B_TRANSPOSED) != 0u;
    const uint tiles_per_batch = ((pc.rows + TILE - 1u) / TILE) * pc.tiles_c;
    for (uint t = gl_WorkGroupID.x; t < pc.tiles; t += gl_NumWorkGroups.x) {
        const uint batch = t / tiles_per_batch;
        const uint in_batch = t - batch * tiles_per_batch;
        const uint r0 = (in_batch / pc.tiles_c) * TILE;
        const uint c0 = (in_batch % pc.tiles_c) * TILE;
        // Transposed inputs: consecutive invocations read consecutive rows. Direct inputs:
        // the elements this invocation writes below, consecutive columns.
        VIN da[PASSES];
        VIN db[PASSES];
        [[unroll]] for (uint j = 0u; j < TILE; j += ROWS_PER_PASS) {
            const uint r = r0 + tx;
            const uint c = c0 + ty + j;
            if (r < pc.rows && c < pc.cols) {
                if (a_t) {
                    tile_a[ty + j][tx] = VK_LOAD(pc.a_ref, batch * pc.a_batch + r + c * pc.a_col);
                }
                if (b_t) {
                    tile_b[ty + j][tx] = VK_LOAD(pc.b_ref, batch * pc.b_batch + r + c * pc.b_col);
                }
            }
            const uint n = j / ROWS_PER_PASS;
            const uint orow = r0 + ty + j;
            const uint ocol = c0 + tx;
            da[n] = VIN_ZERO;
            db[n] = VIN_ZERO;
            if (orow < pc.rows && ocol < pc.cols) {
                if (!a_t) {
                    da[n] = VK_LOAD(pc.a_ref,
                                    batch * pc.a_batch + orow * pc.a_row + ocol * pc.a_col);
                }
                if (vk_is_binary() && !b_t) {
                    db[n] = VK_LOAD(pc.b_ref,
                                    batch * pc.b_batch + orow * pc.b_row + ocol * pc.b_col);
                }
            }
        }
        barrier();
        // Output: consecutive invocations write consecutive columns.
        [[unroll]] for (uint j = 0u; j < TILE; j += ROWS_PER_PASS) {
            const uint r = r0 + ty + j;
            const uint c = c0 + tx;
            if (r < pc.rows && c < pc.cols) {
                const uint n = j / ROWS_PER_PASS;
                const VIN a = a_t ? tile_a[tx][ty + j] : da[n];
                const VIN b = b_t ? tile_b[tx][ty + j] : db[n];
                VK_STORE(pc.out_ref, batch * pc.out_batch + r * pc.out_row + c,
                         vk_apply(a, b));
            }
        }
        barrier();
    }
}
