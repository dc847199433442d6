// SPDX-License-Identifier: MIT
// The general path: any rank, any strides (zero strides on inputs), one element per
// invocation step. Dimensions arrive coalesced and ordered by the output's strides (host side,
// vk_plan.c); the innermost one is in the push constants, the others (innermost first) in a
// parameter block read once per element through a buffer device address. A grid-stride loop
// over a bounded number of workgroups covers up to 2^32-1 elements.
#version 460
#extension GL_GOOGLE_include_directive : require

#include "vk_common.glsl"
#include "vk_access.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const uint FAULT_HANG = 0u;

// Per outer dimension d (innermost first): size, output stride, A stride, B stride.
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
    uint count;      // logical elements
    uint inner;      // size of the innermost dimension
    uint outer_rank; // entries in dims
    uint stride_out; // innermost strides, in elements
    uint stride_a;
    uint stride_b;
}
pc;

// An atomic read each time round: a plain (even volatile) load may be hoisted out of the loop.
void vk_spin_until_cancelled()
{
    uint spins = 0u;
    while (atomicOr(pc.control.cancel, 0u) == 0u) {
        spins += 1u;
    }
    if (gl_GlobalInvocationID.x == 0u) {
        pc.control.spins = spins;
    }
}

void main()
{
    if (FAULT_HANG != 0u) {
        vk_spin_until_cancelled();
        return;
    }
    const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint e = gl_GlobalInvocationID.x; e < pc.count;) {
        uint row = e / pc.inner;
        const uint col = e - row * pc.inner;
        uint off_out = col * pc.stride_out;
        uint off_a = col * pc.stride_a;
        uint off_b = col * pc.stride_b;
        for (uint d = 0u; d < pc.outer_rank; ++d) {
            const uvec4 dim = pc.dims.dim[d];
            const uint q = row / dim.x;
            const uint c = row - q * dim.x;
            row = q;
            off_out += c * dim.y;
            off_a += c * dim.z;
            off_b += c * dim.w;
        }
        const VIN a = VK_LOAD(pc.a_ref, off_a);
        VIN b = VIN_ZERO;
        if (OP == VK_OP_AND || OP == VK_OP_OR || OP == VK_OP_XOR || OP == VK_OP_SHL ||
            OP == VK_OP_SHR) {
            b = VK_LOAD(pc.b_ref, off_b);
        }
        VK_STORE(pc.out_ref, off_out, vk_apply(a, b));
        if (pc.count - e <= step) {
            break;
        }
        e += step;
    }
}
