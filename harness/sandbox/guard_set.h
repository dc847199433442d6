/* SPDX-License-Identifier: MIT */
/* The guard bytes of the buffers one backend call is handed (harness/sandbox/guard_mem.h): drawn
 * from a seed, written around the buffers before a call in one of two complementary patterns, and
 * checked after it, in O(guard bytes). Whatever byte a stray write stores, it differs from one
 * of the two patterns; a stray read of an element meets two values that differ in every bit, and
 * (pattern 0 never holding an element-wide window with half its bits set) in popcount too, so an
 * output computed from it changes between the two calls. bitcts run's cases
 * (harness/sandbox/case_buffers.c), bitcts sweep's chunks and bitcts bench's rows share it.
 * Thread-safety: one thread. */
#ifndef BITCTS_HARNESS_GUARD_SET_H
#define BITCTS_HARNESS_GUARD_SET_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint8_t, uint32_t, uint64_t */

#include "compare.h"      /* bitcts_compare_guard */
#include "guard_mem.h"    /* bitcts_guard_buf */
#include "tensor_model.h" /* bitcts_op_desc */

#define BITCTS_GUARD_SET_BUFS 3 /* A (or Input), B, Output */
#define BITCTS_GUARD_SET_NEAR                                                                      \
    64u /* the guard bytes after a buffer where pattern 0 has no                                   \
         * element-wide window half set (all 64 before it have none) */

/** The guarded buffers of a call and the bytes their guards hold in pattern 0. */
typedef struct bitcts_guard_set {
    bitcts_guard_buf *bufs[BITCTS_GUARD_SET_BUFS]; /* NULL: unused (B of a unary operator, or
                                                    * the output of an operator in place) */
    uint8_t *expect; /* pattern 0 of every guard, back to back: bitcts_guard_set_bytes() bytes */
    uint32_t width[BITCTS_GUARD_SET_BUFS]; /* element width of each buffer in bytes (0: 1): the
                                            * windows whose popcount pattern 0 keeps off half */
} bitcts_guard_set;

/** How many guard bytes the set's buffers have as they are placed now (before and after each). */
uint64_t bitcts_guard_set_bytes(const bitcts_guard_set *s);

/** The most guard bytes a set can have, whatever the sizes of its buffers: for storage sized
 * once by a caller that places its buffers again and again. */
uint64_t bitcts_guard_set_max_bytes(void);

/** The complement of n bytes of src into dst, eight at a time (the second of the patterns'
 * passes, and the bench's poison of an output). */
void bitcts_guard_complement(uint8_t *dst, const uint8_t *src, size_t n);

/** Draws pattern 0 (bitcts_guard_set_bytes() bytes) into s->expect from the stream "guard" of
 * `seed` (the generators' RNG): deterministic, and unknown to a backend. Each window of
 * s->width[t] bytes (aligned on buffer t's data, as its elements are) whose bits are half set
 * gets one bit flipped, drawn from the stream "guard.half", so that no element read from a guard
 * has the same popcount in both patterns (the popcount of a complement is the rest of the
 * width): every window before the data, and those that begin in the BITCTS_GUARD_SET_NEAR
 * bytes after it (the rest of the page is left as drawn: the cost grows with the guard bytes,
 * and a stray read rarely lands that far). */
void bitcts_guard_set_draw(const bitcts_guard_set *s, uint64_t seed);

/** Writes pattern `pass` (0: s->expect, 1: its complement) into every guard. */
void bitcts_guard_set_arm(const bitcts_guard_set *s, uint32_t pass);

/** The comparison's view of the guards after a call made with pattern `pass`: `scratch`
 * (bitcts_guard_set_bytes() bytes) receives the pattern, guards[] the tensors' guards (input t
 * at t, the output at input_count; a buffer that is NULL has none). */
void bitcts_guard_set_expect(const bitcts_guard_set *s, uint32_t pass, uint32_t input_count,
                             uint8_t *scratch, bitcts_compare_guard guards[3]);

/** After a call made with pattern `pass`: 0 when every guard holds it, else 1 with `why`
 * naming the buffer and the bytes written ("wrote 1 bytes past the end of the Output buffer
 * (bytes 256 to 256; TotalTensorSizeInBytes 256)"). `d` gives the roles and sizes; scratch as
 * for bitcts_guard_set_expect. */
int bitcts_guard_set_check(const bitcts_guard_set *s, uint32_t pass, const bitcts_op_desc *d,
                           uint8_t *scratch, char *why, size_t cap);

#endif
