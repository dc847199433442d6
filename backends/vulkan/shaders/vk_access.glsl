// SPDX-License-Identifier: MIT
// Element access through buffer device addresses for the element-by-element shaders: typed
// references for the input and output widths (IN_W, OUT_W), and loads and stores that widen
// to the VIN/VOUT values of vk_common.glsl. 8- and 16-bit elements need the device's
// storageBuffer8BitAccess / storageBuffer16BitAccess (loads, stores and conversions only).

#if IN_W == 1 || OUT_W == 1
#extension GL_EXT_shader_8bit_storage : require
#endif
#if IN_W == 2 || OUT_W == 2
#extension GL_EXT_shader_16bit_storage : require
#endif

#if IN_W == 1 || OUT_W == 1
layout(buffer_reference, std430, buffer_reference_align = 1) buffer VkElems1 { uint8_t v[]; };
#endif
#if IN_W == 2 || OUT_W == 2
layout(buffer_reference, std430, buffer_reference_align = 2) buffer VkElems2 { uint16_t v[]; };
#endif
layout(buffer_reference, std430, buffer_reference_align = 4) buffer VkElems4 { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer VkElems8 { uvec2 v[]; };

#if IN_W == 1
#define VK_IN_REF VkElems1
#define VK_LOAD(ref, i) uint((ref).v[i])
#elif IN_W == 2
#define VK_IN_REF VkElems2
#define VK_LOAD(ref, i) uint((ref).v[i])
#elif IN_W == 4
#define VK_IN_REF VkElems4
#define VK_LOAD(ref, i) ((ref).v[i])
#else
#define VK_IN_REF VkElems8
#define VK_LOAD(ref, i) ((ref).v[i])
#endif

#if OUT_W == 1
#define VK_OUT_REF VkElems1
#define VK_STORE(ref, i, x) (ref).v[i] = uint8_t(x)
#elif OUT_W == 2
#define VK_OUT_REF VkElems2
#define VK_STORE(ref, i, x) (ref).v[i] = uint16_t(x)
#elif OUT_W == 4
#define VK_OUT_REF VkElems4
#define VK_STORE(ref, i, x) (ref).v[i] = (x)
#else
#define VK_OUT_REF VkElems8
#define VK_STORE(ref, i, x) (ref).v[i] = (x)
#endif

// Host-visible control word: the host sets `cancel` to stop an injected hang (fault=hang).
layout(buffer_reference, std430, buffer_reference_align = 4) volatile coherent buffer VkControl
{
    uint cancel;
    uint spins;
};
