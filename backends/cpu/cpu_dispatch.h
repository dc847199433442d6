/* SPDX-License-Identifier: MIT */
/* Variant selection for the CPU backend: the table of compiled-in variants, choice by name or
 * by priority among those whose required features the CPU has, and resolution of NULL slots
 * from the next lower variant. Called at instance creation, never from a constructor.
 * Thread-safety: pure functions over const tables. */
#ifndef BITCTS_CPU_CPU_DISPATCH_H
#define BITCTS_CPU_CPU_DISPATCH_H

#include <stddef.h> /* size_t */
#include <stdint.h> /* uint64_t, int32_t */

#include "cpu_kernels.h" /* bitcts__cpu_variant, bitcts__cpu_kernels */

#ifdef __cplusplus
extern "C" {
#endif

/** Chooses a variant and resolves its kernel table.
 * @param name [in] a variant name, "auto", or NULL (= "auto").
 * @param features [in] the detected BITCTS_CPU_FEAT_* mask.
 * @param out_variant [out] the chosen variant.
 * @param out_kernels [out] its kernels with every NULL slot taken from the next lower
 *        supported variant.
 * @param err [out] on failure, one line naming the problem.
 * @return BITCTS_ABI_OK; BITCTS_ABI_E_NOT_SUPPORTED (unknown name, not built for this
 *         architecture, or a required feature is missing); BITCTS_ABI_E_BACKEND_FAILED (a slot
 *         stayed NULL: a build defect). */
int32_t bitcts__cpu_dispatch_select(const char *name, uint64_t features,
                                    const bitcts__cpu_variant **out_variant,
                                    bitcts__cpu_kernels *out_kernels, char *err, size_t err_cap);

/** Names of the variants this CPU supports, highest priority first, space separated.
 * @return the length the full text needs (as snprintf). */
size_t bitcts__cpu_dispatch_list(uint64_t features, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
