// SPDX-License-Identifier: MIT
// The general path: any rank, any strides (zero strides on inputs). Dimensions arrive
// coalesced and ordered by the output's strides (host side, vk_plan.c); the innermost two are
// in the push constants, the others (innermost first) in a parameter block read through a
// buffer device address. Coordinates come from divisions by invariant sizes done as a
// multiply-high and shifts (the host's bitcts__vk_divisor). Each invocation takes UNROLL
// elements a pass, a workgroup's stride apart so that neighbouring invocations touch
// neighbouring elements, and issues all their loads before any store (in place, an element is
// read and written by the same invocation, so the order within it holds). UNROLL, the
// specialization constant STRIDED_UNROLL, is the backend option strided_unroll (default 1: 8,
// 4 and 2 elements by width, in an H100 run, gave padded 8-bit rows 603 GB/s against 845,
// docs/gpu/h100.md). The grid covers every element unless the device or the option max_groups
// bounds it; a grid-stride loop covers the rest, up to 2^32-1 elements.
#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "vk_common.glsl"
#include "vk_access.glsl"

layout(local_size_x = BITCTS_VK_STRIDED_THREADS) in;
layout(constant_id = BITCTS_VK_SPEC_FAULT_HANG) const uint FAULT_HANG = 0u;

// Elements per invocation and pass (the host's vk_dispatch_strided reads the same option).
layout(constant_id = BITCTS_VK_SPEC_STRIDED_UNROLL) const uint UNROLL = 1u;

// Per further dimension d (innermost first): dim[2d] = size, output, A and B strides;
// dim[2d + 1] = the size's magic and shifts.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer VkOuterDims
{
    uvec4 dim[];
};

layout(push_constant) uniform VkStridedPush
{
    VK_OUT_REF out_ref;
    VK_IN_REF a_ref;
    VK_IN_REF b_ref;
    VkOuterDims dims;
    VkControl control;
    uint count; // logical elements
    uint inner; // the innermost dimension: size, its divisor constants, strides in elements
    uint inner_magic;
    uint inner_shifts;
    uint stride_out;
    uint stride_a;
    uint stride_b;
    uint outer; // the next dimension (size 1 when there is none)
    uint outer_magic;
    uint outer_shifts;
    uint outer_out;
    uint outer_a;
    uint outer_b;
    uint more_dims; // entries in dims
}
pc;

// Atomic reads each time round: a plain (even volatile) load may be hoisted out of the loop.
// Each round reads 64 times, written out: llvmpipe (lavapipe) ends a shader's loops after
// 65535 rounds in all, which a fast CPU ran in less than the 300 ms of unit.vk_backend's
// deadline, so the spin must outlast any deadline by its rounds' length, not their number.
#define VK_SPIN_READ cancelled |= atomicOr(pc.control.cancel, 0u);
#define VK_SPIN_READ8                                                                         \
    VK_SPIN_READ VK_SPIN_READ VK_SPIN_READ VK_SPIN_READ VK_SPIN_READ VK_SPIN_READ VK_SPIN_READ \
        VK_SPIN_READ
void vk_spin_until_cancelled()
{
    uint spins = 0u;
    uint cancelled = 0u;
    while (cancelled == 0u) {
        VK_SPIN_READ8 VK_SPIN_READ8 VK_SPIN_READ8 VK_SPIN_READ8
        VK_SPIN_READ8 VK_SPIN_READ8 VK_SPIN_READ8 VK_SPIN_READ8
        spins += 1u;
    }
    if (gl_GlobalInvocationID.x == 0u) {
        pc.control.spins = spins;
    }
}

// Element offsets of logical element e: output, A, B.
uvec3 vk_offsets(uint e)
{
    uint row = vk_div(e, pc.inner_magic, pc.inner_shifts);
    uvec3 off = (e - row * pc.inner) * uvec3(pc.stride_out, pc.stride_a, pc.stride_b);
    uint q = vk_div(row, pc.outer_magic, pc.outer_shifts);
    off += (row - q * pc.outer) * uvec3(pc.outer_out, pc.outer_a, pc.outer_b);
    row = q;
    for (uint d = 0u; d < pc.more_dims; ++d) {
        const uvec4 dim = pc.dims.dim[2u * d];
        const uvec4 divisor = pc.dims.dim[2u * d + 1u];
        q = vk_div(row, divisor.x, divisor.y);
        off += (row - q * dim.x) * dim.yzw;
        row = q;
    }
    return off;
}

void main()
{
    if (FAULT_HANG != 0u) {
        vk_spin_until_cancelled();
        return;
    }
    const uint span = gl_WorkGroupSize.x * UNROLL;
    // Saturated: a grid covering 2^32 or more elements takes one pass (left <= step).
    const uint step = gl_NumWorkGroups.x > 0xFFFFFFFFu / span ? 0xFFFFFFFFu
                                                             : gl_NumWorkGroups.x * span;
    const uint lid = gl_LocalInvocationID.x;
    for (uint base = gl_WorkGroupID.x * span; base < pc.count;) {
        const uint left = pc.count - base;
        VIN a[UNROLL];
        VIN b[UNROLL];
        uint dst[UNROLL];
        [[unroll]] for (uint k = 0u; k < UNROLL; ++k) {
            const uint i = k * gl_WorkGroupSize.x + lid;
            a[k] = VIN_ZERO;
            b[k] = VIN_ZERO;
            dst[k] = 0u;
            if (i < left) {
                const uvec3 off = vk_offsets(base + i);
                dst[k] = off.x;
                a[k] = VK_LOAD(pc.a_ref, off.y);
                if (vk_is_binary()) {
                    b[k] = VK_LOAD(pc.b_ref, off.z);
                }
            }
        }
        [[unroll]] for (uint k = 0u; k < UNROLL; ++k) {
            if (k * gl_WorkGroupSize.x + lid < left) {
                VK_STORE(pc.out_ref, dst[k], vk_apply(a[k], b[k]));
            }
        }
        if (left <= step) {
            break;
        }
        base += step;
    }
}
