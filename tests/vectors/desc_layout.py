# SPDX-License-Identifier: MIT
"""Layout arithmetic on tensor descriptions, as docs/spec/validation.md and docs/case-plan.md
state it: packed strides and DMLCalcBufferTensorSize. Used by the scripts of tests/vectors; it
knows nothing of bitcts's code."""

ELEMENT_BYTES = {"UINT8": 1, "INT8": 1, "UINT16": 2, "INT16": 2, "FLOAT16": 2, "UINT32": 4,
                 "INT32": 4, "FLOAT32": 4, "UINT64": 8, "INT64": 8, "FLOAT64": 8}


def packed(sizes):
    """Packed strides: the last dimension varies fastest."""
    out, s = [0] * len(sizes), 1
    for k in range(len(sizes) - 1, -1, -1):
        out[k] = s
        s *= sizes[k]
    return out


def min_bytes(sizes, strides, element_bytes):
    """DMLCalcBufferTensorSize: strides None means packed."""
    if strides is None:
        n = 1
        for s in sizes:
            n *= s
    else:
        n = 1 + sum((s - 1) * st for s, st in zip(sizes, strides))
    return (n * element_bytes + 3) // 4 * 4


def strides(t):
    """A description's (bitcts list --json) strides, packed ones when Strides is null."""
    return t["Strides"] if t["Strides"] is not None else packed(t["Sizes"])


def desc_min_bytes(t):
    return min_bytes(t["Sizes"], t["Strides"], ELEMENT_BYTES[t["DataType"]])
