// SPDX-License-Identifier: MIT
// Shared by the compute shaders of the Vulkan backend: the operator arithmetic on raw bits.
// IN_W and OUT_W (element bytes: 1, 2, 4 or 8) come from the build (glslc -D), so each
// binary declares only the storage capabilities its widths need; the operator is the
// specialization constant OP. A 64-bit element is a uvec2 (x low word, y high word), so no
// binary needs shaderInt64; narrower elements are zero-extended into a uint.

#extension GL_EXT_buffer_reference : require

// Operator codes, specialization constant ids, flag bits and tile sides: the host's own
// (backends/vulkan/vk_abi.h).
#include "vk_abi.h"

layout(constant_id = BITCTS_VK_SPEC_OP) const uint OP = BITCTS_VK_OP_COPY;

// Whether the operator reads a second input (B).
bool vk_is_binary()
{
    return OP == BITCTS_VK_OP_AND || OP == BITCTS_VK_OP_OR || OP == BITCTS_VK_OP_XOR ||
           OP == BITCTS_VK_OP_SHL || OP == BITCTS_VK_OP_SHR;
}

// n / d by a multiply-high and shifts, for the d whose constants these are (the host's
// bitcts__vk_divisor).
uint vk_div(uint n, uint magic, uint shifts)
{
    uint hi;
    uint lo;
    umulExtended(n, magic, hi, lo);
    return (hi + ((n - hi) >> (shifts >> 8u))) >> (shifts & 0xFFu);
}

#if IN_W == 8
#define VIN uvec2
#define VIN_ZERO uvec2(0u)
#else
#define VIN uint
#define VIN_ZERO 0u
#endif
#if OUT_W == 8
#define VOUT uvec2
#else
#define VOUT uint
#endif

#define IN_BITS (IN_W * 8u)
#if IN_W == 1
#define IN_MASK 0xFFu
#elif IN_W == 2
#define IN_MASK 0xFFFFu
#else
#define IN_MASK 0xFFFFFFFFu
#endif

#if IN_W == 8
// x shifted by s bits in the shift's direction (toward the high bits for a left shift), or the
// other way.
uint vk_toward(uint x, uint s, bool left)
{
    return left ? x << s : x >> s;
}

uint vk_away(uint x, uint s, bool left)
{
    return left ? x >> s : x << s;
}

// Shifts of a 64-bit value held as (low, high); a count of 64 or more gives 0 (saturate). The
// words are taken as (the one the bits leave, the one they enter): (low, high) for a left
// shift, (high, low) for a right one.
uvec2 vk_shift64(uvec2 a, uvec2 b, bool left)
{
    if (b.y != 0u || b.x >= 64u) {
        return uvec2(0u);
    }
    const uint s = b.x;
    if (s == 0u) {
        return a;
    }
    const uvec2 w = left ? a : a.yx;
    uvec2 r;
    if (s >= 32u) {
        r = uvec2(0u, vk_toward(w.x, s - 32u, left));
    } else {
        r = uvec2(vk_toward(w.x, s, left), vk_toward(w.y, s, left) | vk_away(w.x, 32u - s, left));
    }
    return left ? r : r.yx;
}

uvec2 vk_shl(uvec2 a, uvec2 b)
{
    return vk_shift64(a, b, true);
}

uvec2 vk_shr(uvec2 a, uvec2 b)
{
    return vk_shift64(a, b, false);
}

uint vk_popcount(uvec2 a)
{
    return uint(bitCount(a.x) + bitCount(a.y));
}
#else
// Shifts of a zero-extended element; a count of the width or more gives 0 (saturate).
uint vk_shl(uint a, uint b)
{
    return b >= IN_BITS ? 0u : (a << b) & IN_MASK;
}

uint vk_shr(uint a, uint b)
{
    return b >= IN_BITS ? 0u : a >> b;
}

uint vk_popcount(uint a)
{
    return uint(bitCount(a));
}
#endif

// Whole 32-bit words of byte lanes (the packed and word-tile shaders): per-byte population
// counts of four bytes at once, and, for UINT8 shifts, four byte lanes shifted each by its own
// count.
uint vk_popcount_bytes(uint x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    return (x + (x >> 4)) & 0x0F0F0F0Fu;
}

#if IN_W == 1 && OUT_W == 1
// Four byte lanes shifted at once, each by its own count: bits 0-2 of the count pick shifts by
// 1, 2 and 4 (masked to stay in the lane); a count of 8 or more (any of bits 3-7) gives 0.
uint vk_shift_bytes(uint a, uint s)
{
    const bool left = OP == BITCTS_VK_OP_SHL;
    uint m = (s & 0x01010101u) * 0xFFu;
    a = (a & ~m) | ((left ? (a << 1) & 0xFEFEFEFEu : (a >> 1) & 0x7F7F7F7Fu) & m);
    m = ((s >> 1) & 0x01010101u) * 0xFFu;
    a = (a & ~m) | ((left ? (a << 2) & 0xFCFCFCFCu : (a >> 2) & 0x3F3F3F3Fu) & m);
    m = ((s >> 2) & 0x01010101u) * 0xFFu;
    a = (a & ~m) | ((left ? (a << 4) & 0xF0F0F0F0u : (a >> 4) & 0x0F0F0F0Fu) & m);
    // Bit 7 of each lane of ((s & 0x78) + 0x78) | s: set when the count is 8 or more.
    const uint big = (((s & 0x78787878u) + 0x78787878u) | s) & 0x80808080u;
    return a & ~((big >> 7) * 0xFFu);
}
#endif

// One element of the operator: raw bits in, raw bits out; the float types never become floats.
VOUT vk_apply(VIN a, VIN b)
{
#if IN_W == OUT_W
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
        return ~a & IN_MASK;
    }
    if (OP == BITCTS_VK_OP_SHL) {
        return vk_shl(a, b);
    }
    if (OP == BITCTS_VK_OP_SHR) {
        return vk_shr(a, b);
    }
    if (OP == BITCTS_VK_OP_COUNT) {
#if OUT_W == 8
        return uvec2(vk_popcount(a), 0u);
#else
        return vk_popcount(a);
#endif
    }
    return a; // BITCTS_VK_OP_COPY
#else
    return vk_popcount(a); // only BIT_COUNT changes the width
#endif
}
