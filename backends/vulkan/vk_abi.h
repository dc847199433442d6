/* SPDX-License-Identifier: MIT */
/* The numbers the Vulkan backend's host code and its compute shaders must agree on, written
 * once in the subset of C and GLSL both read: an include guard, block comments and #define of
 * integer literals, nothing else. The vk_*.c files include it, and so does every shader
 * (through shaders/vk_common.glsl; glslc -I names this folder). The operator codes are
 * DirectML's operator numbers, statically asserted equal to bitcts_dml.h's in vk_plan.c; the
 * build fails where a shader writes a literal specialization id instead of these names
 * (vk_abi_check.cmake). Thread-safety: constants only. */
#ifndef BITCTS_VULKAN_VK_ABI_H
#define BITCTS_VULKAN_VK_ABI_H

/* Operator codes, the value of the specialization constant OP: DirectML's operator numbers
 * (bitcts_dml.h), and 0 for the copy kernel of the timing extension. */
#define BITCTS_VK_OP_COPY 0u
#define BITCTS_VK_OP_SHL 97u
#define BITCTS_VK_OP_SHR 98u
#define BITCTS_VK_OP_AND 121u
#define BITCTS_VK_OP_OR 122u
#define BITCTS_VK_OP_XOR 123u
#define BITCTS_VK_OP_NOT 124u
#define BITCTS_VK_OP_COUNT 125u

/* Specialization constant ids. A shader declares the ones it reads; the host passes all. */
#define BITCTS_VK_SPEC_OP 0             /* every shader: the operator code */
#define BITCTS_VK_SPEC_FAULT_HANG 1     /* strided: spin until cancelled (fault=hang) */
#define BITCTS_VK_SPEC_STRIDED_UNROLL 2 /* strided: elements per invocation and pass */
#define BITCTS_VK_SPEC_ROWS 3           /* packed: the rows kind */
#define BITCTS_VK_SPEC_PACKED_UNROLL 4  /* packed: chunks per invocation and pass */
#define BITCTS_VK_SPEC_B_TILED 5        /* tile kinds: B is transposed and has a shared tile */
#define BITCTS_VK_SPEC_TILE_THREADS 6   /* tile kinds: the workgroup size */
#define BITCTS_VK_SPEC_PACKED_THREADS 7 /* packed: the workgroup size */
#define BITCTS_VK_SPEC_COUNT 8

/* Bits of the push constant `flags`: packed and rows, inputs that are broadcast scalars. */
#define BITCTS_VK_FLAG_A_SCALAR 1u
#define BITCTS_VK_FLAG_B_SCALAR 2u
/* Tile kinds: inputs read transposed (unit stride along the rows). */
#define BITCTS_VK_FLAG_A_TRANSPOSED 1u
#define BITCTS_VK_FLAG_B_TRANSPOSED 2u

/* The tile shader's tile side in elements; the word-wide tile shader's in 32-bit words. */
#define BITCTS_VK_TILE 32u
/* The strided shader's workgroup size. */
#define BITCTS_VK_STRIDED_THREADS 256
/* uint32 words per dimension in the strided shader's parameter block (two uvec4). */
#define BITCTS_VK_OUTER_DIM_WORDS 8u

#endif
