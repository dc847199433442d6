/* SPDX-License-Identifier: MIT */
/* XXH3-128 digests of buffers and of a tensor's logical elements (streamed in chunks). */
#include <stdio.h>  /* snprintf */
#include <string.h> /* memcpy */

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "digest.h"
#include "tensor_iter.h"

static void to_hex(XXH128_hash_t h, char out[BITCTS_DIGEST_HEX])
{
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, h);
    for (int i = 0; i < 16; ++i) {
        snprintf(out + 2 * i, 3, "%02x", c.digest[i]);
    }
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
    uint8_t chunk[4096];
    size_t used = 0;
    bitcts_tensor_iter it;
    bitcts_tensor_iter_init(&it, desc);
    while (bitcts_tensor_iter_more(&it)) {
        if (it.stride[0][it.rank - 1] == 1) {
            /* A contiguous row is its elements' bytes in order: hashed where it lies (the
             * streamed digest does not depend on how its input is cut). */
            XXH3_128bits_update(&state, chunk, used);
            used = 0;
            XXH3_128bits_update(&state, buffer + it.offset[0] * esize,
                                (size_t)(bitcts_tensor_iter_row_left(&it) * esize));
            bitcts_tensor_iter_next_row(&it);
            continue;
        }
        memcpy(chunk + used, buffer + it.offset[0] * esize, esize);
        used += esize;
        if (used + 8 > sizeof chunk) {
            XXH3_128bits_update(&state, chunk, used);
            used = 0;
        }
        bitcts_tensor_iter_next(&it);
    }
    XXH3_128bits_update(&state, chunk, used);
    to_hex(XXH3_128bits_digest(&state), out);
}
