/* SPDX-License-Identifier: MIT */
/* XXH3-128 digests of buffers and of a tensor's logical elements (streamed in chunks). */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memcpy */

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "digest.h"

static void to_hex(XXH128_hash_t h, char out[BITCTS_DIGEST_HEX])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, h);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
}

void bitcts_digest_bytes(const void *data, size_t size, char out[BITCTS_DIGEST_HEX])
{
    to_hex(XXH3_128bits(data, size), out);
}

void bitcts_digest_logical(const bitcts_tensor_desc *desc, const uint8_t *buffer,
                           char out[BITCTS_DIGEST_HEX])
{
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    const uint32_t esize = bitcts_dtype_size(desc->data_type);
    const uint32_t rank = desc->dimension_count;
    uint64_t stride[BITCTS_MAX_DIMS];
    for (uint32_t k = 0; k < rank; k++)
        stride[k] = bitcts_tensor_stride(desc, k);
    uint32_t coord[BITCTS_MAX_DIMS] = {0};
    uint8_t chunk[4096];
    size_t used = 0;
    uint64_t offset = 0;
    for (uint64_t e = bitcts_tensor_element_count(desc); e > 0; e--) {
        memcpy(chunk + used, buffer + offset * esize, esize);
        used += esize;
        if (used + 8 > sizeof chunk) {
            XXH3_128bits_update(&state, chunk, used);
            used = 0;
        }
        for (int k = (int)rank - 1; k >= 0; k--) { /* odometer */
            offset += stride[k];
            if (++coord[k] < desc->sizes[k])
                break;
            offset -= (uint64_t)coord[k] * stride[k];
            coord[k] = 0;
        }
    }
    XXH3_128bits_update(&state, chunk, used);
    to_hex(XXH3_128bits_digest(&state), out);
}
