// SPDX-License-Identifier: MIT
// The contiguous path: every operand is packed in the output's order or a broadcast scalar.
// Each invocation step produces one chunk of output (CHUNK bytes) from its elements, with
// vector loads and stores only (no 8- or 16-bit storage needed), in a grid-stride loop (the
// grid covers every chunk unless the device or the option max_groups bounds it). Same-width AND/OR/XOR/NOT/copy work on whole words; the
// other operators take the lanes apart. The host sizes every device region to a multiple of
// 256 bytes, so the last chunk may read and write past the elements: those bytes are never
// copied back.
// With the specialization constant ROWS (the host's rows kind) the operands are rows of
// packed elements at any row strides (padded rows, or an input row broadcast with stride 0):
// chunk c is chunk c % row_chunks of row c / row_chunks, and the host takes this path only
// when every row is a whole number of chunks and starts on a chunk of every operand, so no
// chunk reaches into a row's padding.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "vk_common.glsl"

// The workgroup size: the host's shape for the operator (bitcts__vk_packed_shape_of).
layout(local_size_x_id = BITCTS_VK_SPEC_PACKED_THREADS) in;

// Output bytes per chunk (CHUNK, given by the build): 4, 8 or 16, a binary each where a chunk
// holds at least one output element and one input word; the host picks one per operator
// (bitcts__vk_packed_shape_of: 8-byte chunks where a binary operator reads two inputs, 16 for
// one input of the output's width).
#ifndef CHUNK
#error "CHUNK (output bytes per chunk) must be defined"
#endif
#define LANES (CHUNK / OUT_W)          // elements per output chunk
#define IN_WORDS (LANES * IN_W / 4)    // input words per output chunk: 1, 2, 4, 8, 16 or 32
#if LANES < 1 || IN_WORDS < 1
#error "CHUNK holds no output element or no input word"
#endif

layout(buffer_reference, std430, buffer_reference_align = 16) buffer VkVec4 { uvec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer VkVec2 { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer VkVec1 { uint v[]; };

#if CHUNK == 16
#define VK_OUT_VEC VkVec4
#define VK_OUT_BITS(r) (r)
#elif CHUNK == 8
#define VK_OUT_VEC VkVec2
#define VK_OUT_BITS(r) ((r).xy)
#else
#define VK_OUT_VEC VkVec1
#define VK_OUT_BITS(r) ((r).x)
#endif

#if IN_WORDS >= 4
#define VK_IN_VEC VkVec4
#elif IN_WORDS == 2
#define VK_IN_VEC VkVec2
#else
#define VK_IN_VEC VkVec1
#endif

layout(constant_id = BITCTS_VK_SPEC_ROWS) const uint ROWS = 0u;
// Chunks per invocation and pass: the backend option packed_unroll.
layout(constant_id = BITCTS_VK_SPEC_PACKED_UNROLL) const uint UNROLL = 1u;

layout(push_constant) uniform VkPackedPush
{
    VK_OUT_VEC out_ref;
    VK_IN_VEC a_ref;
    VK_IN_VEC b_ref;
    uint chunks; // output chunks of CHUNK bytes
    uint flags;  // BITCTS_VK_FLAG_*
    // ROWS only: output chunks per row, its divisor constants (vk_div), and the row strides
    // in chunks of each operand (an input chunk is the input bytes of one output chunk).
    uint row_chunks;
    uint row_magic;
    uint row_shifts;
    uint out_row;
    uint a_row;
    uint b_row;
}
pc;

// The first input words of an operand (for a broadcast scalar: its only element).
uvec4 vk_head(VK_IN_VEC ref)
{
#if IN_WORDS >= 4
    return ref.v[0];
#elif IN_WORDS == 2
    return uvec4(ref.v[0], 0u, 0u);
#else
    return uvec4(ref.v[0], 0u, 0u, 0u);
#endif
}

VIN vk_scalar(uvec4 head)
{
#if IN_W == 8
    return head.xy;
#else
    return head.x & IN_MASK;
#endif
}

// A 16-byte pattern repeating one element, for the whole-word operators.
uvec4 vk_splat(VIN x)
{
#if IN_W == 8
    return uvec4(x, x);
#elif IN_W == 4
    return uvec4(x);
#elif IN_W == 2
    return uvec4(x | (x << 16));
#else
    return uvec4(x * 0x01010101u);
#endif
}

void vk_load_words(VK_IN_VEC ref, uint chunk, out uint w[IN_WORDS])
{
#if IN_WORDS >= 4
    for (uint j = 0u; j < IN_WORDS / 4; ++j) {
        const uvec4 t = ref.v[chunk * (IN_WORDS / 4) + j];
        w[4 * j] = t.x;
        w[4 * j + 1] = t.y;
        w[4 * j + 2] = t.z;
        w[4 * j + 3] = t.w;
    }
#elif IN_WORDS == 2
    const uvec2 t = ref.v[chunk];
    w[0] = t.x;
    w[1] = t.y;
#else
    w[0] = ref.v[chunk];
#endif
}

VIN vk_lane(uint w[IN_WORDS], uint k)
{
#if IN_W == 8
    return uvec2(w[2 * k], w[2 * k + 1]);
#elif IN_W == 4
    return w[k];
#else
    return bitfieldExtract(w[k * IN_W / 4], int((k * IN_W % 4) * 8), IN_W * 8);
#endif
}

// One chunk, lane by lane: input chunks ca of A and cb of B.
uvec4 vk_chunk_lanes(uint ca, uint cb, bool a_scalar, bool b_scalar, VIN sa, VIN sb)
{
    uint wa[IN_WORDS];
    uint wb[IN_WORDS];
    if (!a_scalar) {
        vk_load_words(pc.a_ref, ca, wa);
    }
    if (vk_is_binary() && !b_scalar) {
        vk_load_words(pc.b_ref, cb, wb);
    }
    uint wo[4] = uint[4](0u, 0u, 0u, 0u);
    for (uint k = 0u; k < LANES; ++k) {
        const VIN a = a_scalar ? sa : vk_lane(wa, k);
        const VIN b = !vk_is_binary() ? VIN_ZERO : b_scalar ? sb : vk_lane(wb, k);
        const VOUT r = vk_apply(a, b);
#if OUT_W == 8
        wo[2 * k] = r.x;
        wo[2 * k + 1] = r.y;
#elif OUT_W == 4
        wo[k] = r;
#else
        wo[k * OUT_W / 4] |= r << ((k * OUT_W % 4) * 8);
#endif
    }
    return uvec4(wo[0], wo[1], wo[2], wo[3]);
}

// Input chunk c of an operand of at most four words, as the first words of a uvec4.
uvec4 vk_words(VK_IN_VEC ref, uint c)
{
#if IN_WORDS == 4
    return ref.v[c];
#elif IN_WORDS == 2
    return uvec4(ref.v[c], 0u, 0u);
#elif IN_WORDS == 1
    return uvec4(ref.v[c], 0u, 0u, 0u);
#else
    return uvec4(0u); // not called: the whole-word paths have at most four input words
#endif
}

// One chunk of a same-width bitwise operator (or copy), whole words at a time.
uvec4 vk_chunk_words(uint ca, uint cb, bool a_scalar, bool b_scalar, uvec4 pa, uvec4 pb)
{
    const uvec4 a = a_scalar ? pa : vk_words(pc.a_ref, ca);
    if (OP == BITCTS_VK_OP_NOT) {
        return ~a;
    }
    if (OP == BITCTS_VK_OP_COPY) {
        return a;
    }
    const uvec4 b = b_scalar ? pb : vk_words(pc.b_ref, cb);
    if (OP == BITCTS_VK_OP_AND) {
        return a & b;
    }
    if (OP == BITCTS_VK_OP_OR) {
        return a | b;
    }
    return a ^ b;
}

bool vk_whole_words()
{
    return IN_W == OUT_W &&
           (OP == BITCTS_VK_OP_AND || OP == BITCTS_VK_OP_OR || OP == BITCTS_VK_OP_XOR ||
            OP == BITCTS_VK_OP_NOT || OP == BITCTS_VK_OP_COPY ||
            (OP == BITCTS_VK_OP_COUNT && IN_W == 1));
}

// Output chunk c: its value, and where it goes (in output chunks).
uvec4 vk_chunk(uint c, bool a_scalar, bool b_scalar, VIN sa, VIN sb, uvec4 pa, uvec4 pb,
               out uint co)
{
    co = c; // the chunks of the output, A and B
    uint ca = c;
    uint cb = c;
    if (ROWS != 0u) {
        const uint row = vk_div(c, pc.row_magic, pc.row_shifts);
        const uint j = c - row * pc.row_chunks;
        co = row * pc.out_row + j;
        ca = row * pc.a_row + j;
        cb = row * pc.b_row + j;
    }
    uvec4 r = uvec4(0u);
    if (OP == BITCTS_VK_OP_COUNT && IN_W == 1 && OUT_W == 1) {
        const uvec4 a = a_scalar ? pa : vk_words(pc.a_ref, ca);
        r = uvec4(vk_popcount_bytes(a.x), vk_popcount_bytes(a.y), vk_popcount_bytes(a.z),
                  vk_popcount_bytes(a.w));
    } else if ((OP == BITCTS_VK_OP_SHL || OP == BITCTS_VK_OP_SHR) && IN_W == 1 && OUT_W == 1) {
#if IN_W == 1 && OUT_W == 1
        const uvec4 a = a_scalar ? pa : vk_words(pc.a_ref, ca);
        const uvec4 b = b_scalar ? pb : vk_words(pc.b_ref, cb);
        r = uvec4(vk_shift_bytes(a.x, b.x), vk_shift_bytes(a.y, b.y), vk_shift_bytes(a.z, b.z),
                  vk_shift_bytes(a.w, b.w));
#endif
    } else if (vk_whole_words()) {
        r = vk_chunk_words(ca, cb, a_scalar, b_scalar, pa, pb);
    } else {
        r = vk_chunk_lanes(ca, cb, a_scalar, b_scalar, sa, sb);
    }
    return r;
}

void main()
{
    const bool a_scalar = (pc.flags & BITCTS_VK_FLAG_A_SCALAR) != 0u;
    const bool b_scalar = (pc.flags & BITCTS_VK_FLAG_B_SCALAR) != 0u;
    VIN sa = VIN_ZERO;
    VIN sb = VIN_ZERO;
    if (a_scalar) {
        sa = vk_scalar(vk_head(pc.a_ref));
    }
    if (vk_is_binary() && b_scalar) {
        sb = vk_scalar(vk_head(pc.b_ref));
    }
    const uvec4 pa = vk_splat(sa);
    const uvec4 pb = vk_splat(sb);
    // A workgroup takes UNROLL * its size consecutive chunks a pass, an invocation every
    // workgroup-size-th of them (the loads of a warp stay contiguous), all computed before any
    // is stored (in place, a chunk is read and written by the same invocation). The step is
    // saturated: a grid covering 2^32 or more chunks takes one pass.
    const uint span = gl_WorkGroupSize.x * UNROLL;
    const uint step = gl_NumWorkGroups.x > 0xFFFFFFFFu / span ? 0xFFFFFFFFu
                                                             : gl_NumWorkGroups.x * span;
    const uint lid = gl_LocalInvocationID.x;
    for (uint base = gl_WorkGroupID.x * span; base < pc.chunks;) {
        const uint left = pc.chunks - base;
        uvec4 r[UNROLL];
        uint co[UNROLL];
        [[unroll]] for (uint k = 0u; k < UNROLL; ++k) {
            const uint i = k * gl_WorkGroupSize.x + lid;
            co[k] = 0u;
            r[k] = uvec4(0u);
            if (i < left) {
                r[k] = vk_chunk(base + i, a_scalar, b_scalar, sa, sb, pa, pb, co[k]);
            }
        }
        [[unroll]] for (uint k = 0u; k < UNROLL; ++k) {
            if (k * gl_WorkGroupSize.x + lid < left) {
                pc.out_ref.v[co[k]] = VK_OUT_BITS(r[k]);
            }
        }
        if (left <= step) {
            break;
        }
        base += step;
    }
}
