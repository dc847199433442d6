/* SPDX-License-Identifier: MIT */
/* XXH3-128 digests as bitcts reports them (docs/vector-format.md, "Digests"): 32 lower-case hex
 * digits of the canonical (big-endian) form. Thread-safety: reentrant. */
#ifndef BITCTS_GENERATORS_DIGEST_H
#define BITCTS_GENERATORS_DIGEST_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t */

#include "tensor_model.h"

#define BITCTS_DIGEST_HEX 33 /* 32 digits and the terminator */

/** Digest of a byte range. */
void bitcts_digest_bytes(const void *data, size_t size, char out[BITCTS_DIGEST_HEX]);
/** Digest of a tensor's logical elements: in row-major logical order, each element as its
 * little-endian bytes, concatenated. Padding and broadcast duplicates are seen as the
 * elements they are. */
void bitcts_digest_logical(const bitcts_tensor_desc *desc, const uint8_t *buffer,
                           char out[BITCTS_DIGEST_HEX]);

#endif
