#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Rebuilds every case of the default tier from the docs alone and compares it, byte for byte,
with `bitcts vectors export`.

Written from docs/case-plan.md, docs/vector-format.md, docs/spec/operators.md and
docs/spec/validation.md, with none of bitcts's code: the plan's enumeration, the case seeds
(XXH3-64, written out below from the published algorithm), the SplitMix64 streams, shapes,
layouts, buffer sizes, every input byte (values, padding, partial slots), the initial output
bytes and the expected outputs. The docs' marked tables (doc_tables.py) are read, not copied:
the value formulas are evaluated as the docs print them. Also checks the docs' coverage promise:
every entry of every value table occurs in an element of the default tier, for every type it
applies to.

Usage: rebuild_from_docs.py BITCTS DOCS_DIR WORK_DIR [EXPORT]
EXPORT: the default tier as `bitcts vectors export --tier default` wrote it (read, not changed);
without it the export is made in WORK_DIR/export.
Exit 0: every case agrees; 1: differences (the first few are printed); 77: NumPy is missing."""
import json
import os
import re
import shutil
import subprocess
import sys
import zlib

try:
    import numpy as np
except ImportError:
    print("rebuild_from_docs: NumPy is not installed for this interpreter; skipped")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_tables  # noqa: E402
from desc_layout import min_bytes  # noqa: E402

M64 = (1 << 64) - 1

# ---- XXH3-64 with a seed, inputs of up to 128 bytes (the published algorithm) ----

XXH3_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")
P64_1, P64_2, P64_3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def _r64(b, o):
    return int.from_bytes(b[o:o + 8], "little")


def _r32(b, o):
    return int.from_bytes(b[o:o + 4], "little")


def _rotl(x, n):
    return ((x << n) | (x >> (64 - n))) & M64


def _fold(a, b):
    p = a * b
    return (p & M64) ^ (p >> 64)


def _avalanche(h):
    h ^= h >> 37
    h = (h * 0x165667919E3779F9) & M64
    return h ^ (h >> 32)


def _xxh64_avalanche(h):
    h ^= h >> 33
    h = (h * P64_2) & M64
    h ^= h >> 29
    h = (h * P64_3) & M64
    return h ^ (h >> 32)


def _mix16(data, o, so, seed):
    lo = _r64(data, o) ^ ((_r64(XXH3_SECRET, so) + seed) & M64)
    hi = _r64(data, o + 8) ^ ((_r64(XXH3_SECRET, so + 8) - seed) & M64)
    return _fold(lo, hi)


def xxh3_64(data, seed):
    n, s = len(data), XXH3_SECRET
    if n == 0:
        return _xxh64_avalanche(seed ^ _r64(s, 56) ^ _r64(s, 64))
    if n <= 3:
        combined = (data[0] << 16) | (data[n >> 1] << 24) | data[n - 1] | (n << 8)
        return _xxh64_avalanche(combined ^ (((_r32(s, 0) ^ _r32(s, 4)) + seed) & M64))
    if n <= 8:
        seed ^= int.from_bytes((seed & 0xFFFFFFFF).to_bytes(4, "little"), "big") << 32
        keyed = (_r32(data, n - 4) + (_r32(data, 0) << 32)) ^ (((_r64(s, 8) ^ _r64(s, 16)) - seed) & M64)
        h = keyed ^ _rotl(keyed, 49) ^ _rotl(keyed, 24)
        h = (h * 0x9FB21C651E98DF25) & M64
        h ^= (h >> 35) + n
        h = (h * 0x9FB21C651E98DF25) & M64
        return h ^ (h >> 28)
    if n <= 16:
        lo = _r64(data, 0) ^ (((_r64(s, 24) ^ _r64(s, 32)) + seed) & M64)
        hi = _r64(data, n - 8) ^ (((_r64(s, 40) ^ _r64(s, 48)) - seed) & M64)
        swapped = int.from_bytes(lo.to_bytes(8, "little"), "big")
        return _avalanche((n + swapped + hi + _fold(lo, hi)) & M64)
    if n > 128:
        raise ValueError("ids and tags are at most 128 bytes")
    acc = (n * P64_1) & M64
    pairs = [(0, 0)]
    if n > 32:
        pairs.append((16, 32))
    if n > 64:
        pairs.append((32, 64))
    if n > 96:
        pairs.append((48, 96))
    for off, so in pairs:
        acc = (acc + _mix16(data, off, so, seed) + _mix16(data, n - 16 - off, so + 16, seed)) & M64
    return _avalanche(acc)


# ---- SplitMix64 streams (docs/case-plan.md, "Determinism") ----

GAMMA = 0x9E3779B97F4A7C15


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Stream:
    """One stream, drawn a word at a time (shapes and layouts)."""

    def __init__(self, case_seed, tag):
        self.state = xxh3_64(tag.encode(), case_seed)

    def next(self):
        self.state = (self.state + GAMMA) & M64
        return _mix(self.state)

    def below(self, n):
        return self.next() % n


def words(case_seed, tag, count):
    """Words 0 .. count-1 of a stream at once: word j mixes state + (j + 1) * GAMMA."""
    state = np.uint64(xxh3_64(tag.encode(), case_seed))
    j = np.arange(1, count + 1, dtype=np.uint64)
    z = state + j * np.uint64(GAMMA)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


# ---- the docs ----

class Docs:
    def __init__(self, docs_dir):
        t = doc_tables.load(docs_dir)
        self.types = {r["Type"].lower(): (int(r["DML_TENSOR_DATA_TYPE"]), int(r["Bits"]), r["Kind"])
                      for r in t["types"]}
        self.type_order = [r["Type"].lower() for r in t["types"]]
        self.ops = [(r["Operator"].lower(), int(r["DML_OPERATOR_TYPE"]),
                     2 if r["Inputs"].startswith("A") else 1) for r in t["operators"]]
        self.patterns = t["patterns"]
        sizes = {r["List"]: r["Values"] for r in t["sizes"]}
        self.inner = doc_tables.int_list(sizes["inner"])
        self.rank1 = doc_tables.int_list(sizes["rank1"])
        self.outer = doc_tables.int_list(sizes["outer"])
        self.budget = int(sizes["budget"])
        self.classes = t["value-classes"]
        self.edge = [self._formula(r["Formula"]) for r in t["edge"]]
        self.special = [self._formula(r["Formula"]) for r in t["special"]]
        counts = {r["Table"]: r["Entries"] for r in t["counts"]}
        self.ecount = [self._formula(e) for e in counts["ECOUNT"].split(", ")]
        self.oob = [self._formula(e) for e in counts["OOB"].split(", ")]
        self.negative = t["negative"]
        self.tiers = {r["Tier"]: int(r["Cases"]) for r in t["tiers"]}
        self.mixed = t["mixed"]

    @staticmethod
    def _formula(text):
        """A table's expression, made to evaluate on unsigned 64-bit NumPy values."""
        return compile(re.sub(r"\b(0x[0-9A-Fa-f]+|\d+)\b", r"U(\1)", text), text, "eval")


def evaluate(code, n, **variables):
    env = {"U": np.uint64}
    env.update({k: (np.uint64(v) if isinstance(v, int) else v) for k, v in variables.items()})
    with np.errstate(over="ignore"):
        v = eval(code, env)  # noqa: S307 - the docs' own formulas
    return np.broadcast_to(np.asarray(v, dtype=np.uint64), (n,))


def table_values(codes, n, **variables):
    return np.stack([evaluate(c, n, **variables) for c in codes])


def choose(index, table):
    """table[index[k], k] for every slot k."""
    return np.choose(index.astype(np.intp), table)


# ---- cases ----

def dml_size(t):
    """DMLCalcBufferTensorSize (docs/spec/validation.md)."""
    return min_bytes(t["sizes"], t["strides"], t["bits"] // 8)


def packed_in_order(t, order, zero):
    strides = [0] * len(t["sizes"])
    s = 1
    for d in reversed(order):
        if d in zero:
            strides[d] = 0
        else:
            strides[d] = s
            s *= t["sizes"][d]
    t["strides"] = strides


def random_order(rng, r):
    order = list(range(r))
    for k in range(r - 1, 0, -1):
        j = rng.below(k + 1)
        order[k], order[j] = order[j], order[k]
    if order == list(range(r)):
        order[-1], order[-2] = order[-2], order[-1]
    return order


def padded_inner(rng, t):
    r, sz = len(t["sizes"]), t["sizes"]
    if r == 1:
        t["strides"] = [2 + rng.below(3)]
        return
    st = [0] * r
    st[r - 1] = 1
    st[r - 2] = sz[r - 1] + 1 + rng.below(9)
    for k in range(r - 3, -1, -1):
        st[k] = st[k + 1] * sz[k + 1]
    t["strides"] = st


class Case:
    def __init__(self, docs, op, in_type, out_type, rank, pattern, n, tiers, seed):
        self.docs, self.op, self.in_type, self.out_type = docs, op, in_type, out_type
        self.rank, self.pattern, self.n, self.tiers = rank, pattern, n, tiers
        self.op_value, self.inputs = next((v, i) for name, v, i in docs.ops if name == op)
        self.shift = op.startswith("bit_shift")
        types = f"{in_type}.{out_type}" if op == "bit_count" else in_type
        self.id = f"{op}.{types}.r{rank}.{pattern}.{n}"
        self.seed = xxh3_64(self.id.encode(), seed)
        self.rule = pattern[len("invalid_"):] if pattern.startswith("invalid_") else None
        self.alias = None
        self.cls = n  # the value class: n, except in the mixed family (its table's Values)
        self.layouts = None  # mixed: the layouts of A (or the Input), B, Output

    def roles(self, count=None):
        count = self.inputs if count is None else count
        return (["A", "B"] if count == 2 else ["Input"] * count)[:count] + ["Output"]

    def tensor(self, type_name, sizes):
        value, bits, kind = self.docs.types[type_name]
        return {"type": type_name, "value": value, "bits": bits, "float": kind == "float",
                "sizes": list(sizes), "strides": None, "total": 0, "align": 0, "flags": 0,
                "dims": len(sizes)}

    # -- shapes and layouts (docs/case-plan.md, "Shapes", "Layouts") --
    def shape(self):
        d, rng, r = self.docs, Stream(self.seed, "shape"), self.rank
        if r == 1:
            return [d.rank1[rng.below(len(d.rank1))]]
        sizes = [0] * r
        sizes[r - 1] = d.inner[rng.below(len(d.inner))]
        for k in range(r - 1):
            sizes[k] = d.outer[rng.below(len(d.outer))]
        while True:
            total = 1
            for s in sizes:
                total *= s
            largest = max(range(r - 1), key=lambda k: (sizes[k], -k))
            if total <= d.budget or sizes[largest] == 1:
                return sizes
            sizes[largest] = (sizes[largest] + 1) // 2

    def raise_dim(self, k):
        for t in self.tensors:
            t["sizes"][k] = 3

    def raise_mask(self, mask):
        dims = [k for k in range(self.rank) if mask >> k & 1]
        if all(self.tensors[0]["sizes"][k] == 1 for k in dims):
            self.raise_dim(dims[0])

    def layout(self):
        rng, r, p, t = Stream(self.seed, "layout"), self.rank, self.pattern, self.tensors
        ins = t[:-1]
        if p == "padded_inner":
            for x in t:
                padded_inner(rng, x)
        elif p == "padded_outer":
            for x in t:
                packed_in_order(x, range(r), ())
                x["strides"][0] += 1 + rng.below(17)
        elif p in ("broadcast_a", "broadcast_b", "broadcast"):
            mask = 1 + rng.below((1 << r) - 2)
            self.raise_mask(mask)
            target = ins[0] if p == "broadcast_a" else ins[-1]
            packed_in_order(target, range(r), [k for k in range(r) if mask >> k & 1])
        elif p == "broadcast_both":
            mask_a = 1 + rng.below((1 << r) - 2)
            free = [k for k in range(r) if not mask_a >> k & 1]
            x = 1 + rng.below((1 << len(free)) - 1)
            mask_b = sum(1 << k for j, k in enumerate(free) if x >> j & 1)
            self.raise_mask(mask_a)
            self.raise_mask(mask_b)
            packed_in_order(ins[0], range(r), [k for k in range(r) if mask_a >> k & 1])
            packed_in_order(ins[1], range(r), [k for k in range(r) if mask_b >> k & 1])
        elif p.startswith("scalar"):
            target = ins[0] if p == "scalar_a" else ins[-1]
            packed_in_order(target, range(r), range(r))
        elif p == "permuted":
            order = self.permuted_order(rng)
            packed_in_order(ins[0], order, ())
            for x in t[1:]:
                if rng.below(2) == 1:
                    packed_in_order(x, random_order(rng, r), ())
        elif p.startswith("inplace"):
            self.alias = 1 if p == "inplace_b" else 0
            choice = rng.below(3 if r >= 2 else 2)
            if choice == 1:
                padded_inner(rng, ins[self.alias])
            elif choice == 2:
                packed_in_order(ins[self.alias], random_order(rng, r), ())
        extra = self.mixed(rng) if p == "mixed" else [0] * len(t)
        if p == "oversized":
            for i, x in enumerate(t):
                if rng.below(2) == 1:
                    packed_in_order(x, range(r), ())
                extra[i] = 4 * (1 + rng.below(64))
                x["align"] = 16
        for i, x in enumerate(t):
            x["total"] = dml_size(x) + extra[i]
        if self.alias is not None:
            t[-1] = dict(t[self.alias], sizes=list(t[self.alias]["sizes"]),
                         strides=None if t[self.alias]["strides"] is None else list(t[self.alias]["strides"]))

    def permuted_order(self, rng):
        """A random order that really transposes, raising sizes first if need be."""
        r = self.rank
        order = random_order(rng, r)
        sizes = self.tensors[0]["sizes"]
        for k in range(r - 1, -1, -1):
            if sum(s > 1 for s in sizes) >= 2:
                break
            if sizes[k] == 1:
                self.raise_dim(k)
        big = [i for i in range(r) if sizes[order[i]] > 1]
        if [order[i] for i in big] == sorted(order[i] for i in big):
            a, b = big[-2], big[-1]
            order[a], order[b] = order[b], order[a]
        return order

    def mixed(self, rng):
        """docs/case-plan.md, "Mixed layouts", "Bytes": two passes; returns the extra bytes."""
        r, t = self.rank, self.tensors
        lays = [x for x in self.layouts if x != "-"]
        masks, orders, extra = {}, {}, [0] * len(t)
        for i, lay in enumerate(lays):
            if lay == "broadcast":
                masks[i] = 1 + rng.below((1 << r) - 2)
                self.raise_mask(masks[i])
            elif lay == "permuted":
                orders[i] = self.permuted_order(rng)
        for i, (x, lay) in enumerate(zip(t, lays)):
            if lay == "padded_inner":
                padded_inner(rng, x)
            elif lay == "padded_outer":
                packed_in_order(x, range(r), ())
                x["strides"][0] += 1 + rng.below(17)
            elif lay == "permuted":
                packed_in_order(x, orders[i], ())
            elif lay == "broadcast":
                packed_in_order(x, range(r), [k for k in range(r) if masks[i] >> k & 1])
            elif lay == "scalar":
                packed_in_order(x, range(r), range(r))
            elif lay == "oversized":
                if rng.below(2) == 1:
                    packed_in_order(x, range(r), ())
                extra[i] = 4 * (1 + rng.below(64))
                x["align"] = 16
        self.alias = {"inplace_a": 0, "inplace": 0, "inplace_b": 1}.get(lays[-1])
        return extra

    def build(self):
        if self.rule is not None:
            self.negative()
            return
        sizes = self.shape()
        self.tensors = [self.tensor(self.in_type, sizes) for _ in range(self.inputs)]
        self.tensors.append(self.tensor(self.out_type, sizes))
        self.layout()

    # -- negative cases (docs/case-plan.md, "Negative cases") --
    def negative(self):
        rule, n = self.rule, self.n
        count = self.inputs
        self.op_value_desc = self.op_value
        if rule == "input_count":
            count = (3 - self.inputs) if n == 0 else 0
        if rule == "unknown_operator":
            self.op_value_desc = 0 if n == 0 else 2147483647
        t = [self.tensor("uint8", [2, 3, 4, 5]) for _ in range(count + 1)]
        for x in t:
            x["total"] = 120
        self.desc_roles = self.roles(count)
        last = t[1] if count == 2 else t[-1]
        a, out = t[0], t[-1]

        def retype(x, name):
            value, bits, kind = self.docs.types[name]
            x.update(type=name, value=value, bits=bits)

        def repack(x):
            x["total"] = dml_size(x)

        if rule == "size_zero":
            for x in t:
                x["sizes"][2] = 0
        elif rule == "dimension_count":
            for x in t:
                x["dims"] = 0 if n == 0 else 9
                x["sizes"] = [] if n == 0 else [2, 3, 4, 5, 1, 1, 1, 1, 1]
        elif rule == "dims_mismatch":
            last["dims"], last["sizes"] = 3, [2, 3, 4]
            repack(last)
        elif rule == "sizes_mismatch":
            last["sizes"][3] = 6
            repack(last)
        elif rule == "type_mismatch":
            retype(last, "uint16")
            repack(last)
        elif rule == "unknown_type":
            for x in (t if n == 0 else t[:1]):
                x["value"], x["type"] = (0 if n == 0 else 200), None
        elif rule == "type_not_allowed":
            for x in t:
                retype(x, "int32" if n == 0 else "float32")
                repack(x)
        elif rule == "output_type_not_allowed":
            retype(out, ["uint16", "int32", "uint64"][n])
            repack(out)
        elif rule == "too_many_elements":
            for x in t:
                x["sizes"] = [65536, 65537, 1, 1]
                if x is not out:
                    x["strides"] = [0, 0, 0, 0]
                repack(x)
        elif rule == "buffer_too_small":
            (a if n == 0 else out)["total"] = 116
        elif rule in ("output_zero_stride", "output_overlap"):
            out["strides"] = [0, 20, 5, 1] if rule == "output_zero_stride" else [1, 1, 1, 1]
            repack(out)
        elif rule == "alignment":
            (a if n == 0 else out)["align"] = 3 if n == 0 else 24
        elif rule == "output_flags":
            out["flags"] = 1
        elif rule == "unknown_flags":
            a["flags"] = 4
        elif rule == "size_overflow":
            for x in t:
                retype(x, "uint16")
                x["sizes"] = [4294967295, 1, 1, 1]
            a["strides"], a["total"] = [4294967295, 0, 0, 0], 9223372036854775804
            for x in t[1:-1]:
                x["strides"] = [0, 0, 0, 0]
                repack(x)
            if self.op == "bit_count":
                retype(out, "uint8")
            repack(out)
        self.tensors = t

    # -- the manifest entry's description --
    def tensors_json(self):
        roles = self.desc_roles if self.rule is not None else self.roles()
        out = []
        for role, x in zip(roles, self.tensors):
            name = x["type"].upper() if x["type"] is not None else "UNKNOWN"
            out.append({"role": role, "DataType": name, "DataTypeValue": x["value"],
                        "Flags": x["flags"], "DimensionCount": x["dims"], "Sizes": x["sizes"],
                        "Strides": x["strides"], "TotalTensorSizeInBytes": x["total"],
                        "GuaranteedBaseOffsetAlignment": x["align"]})
        return out

    def feature_level(self):
        small = self.in_type in ("uint8", "uint16", "uint32")
        if self.rule is not None:
            return "2_1" if self.shift else "3_0"
        if self.shift and small:
            return "2_1" if self.rank == 4 else "3_0"
        return "3_0" if small else "4_1"

    def values_name(self):
        if self.rule is not None:
            return "none"
        return {0: "random", 1: "edge", 2: "shift_oob"}[self.cls]

    def expect(self):
        if self.rule is not None:
            return "reject"
        return "recorded" if self.shift and self.cls == 2 else "pass"

    def entry(self):
        """The manifest entry's description (docs/vector-format.md, "Case entries"): a
        negative case's says nothing of what it is (no pattern, values, expect or rule)."""
        fl = self.feature_level()
        e = {"id": self.id, "operator": self.op,
             "operator_type": self.op_value_desc if self.rule is not None else self.op_value,
             "input_type": self.in_type, "output_type": self.out_type, "rank": self.rank,
             "feature_level": fl, "feature_level_value": int(fl[0]) << 12 | int(fl[2]) << 8,
             "tiers": self.tiers, "pattern": self.pattern, "values": self.values_name(),
             "case_seed": f"0x{self.seed:016x}", "expect": self.expect(),
             "tensors": self.tensors_json(),
             "output_aliases": None if self.alias is None else self.roles()[self.alias]}
        if self.rule is not None:
            for key in ("pattern", "values", "expect"):
                del e[key]
        return e

    # -- bytes (docs/case-plan.md, "Input bytes", "Output bytes") --
    def input_bytes(self, i, tally):
        x = self.tensors[i]
        es, w = x["bits"] // 8, x["bits"]
        m = (1 << w) - 1
        slots = x["total"] // es
        count = self.shift and i == 1
        row = next(r for r in self.docs.classes
                   if r["n"] == str(self.cls) and (r["Slot"] == "count") == count
                   and (count or not r["Slot"].startswith("value, ")
                        or r["Slot"] == ("value, float type" if x["float"] else "value, integer type")))
        nw = int(row["Words"])
        ws = words(self.seed, self.roles()[i], nw * slots + 1)
        w0, w1 = ws[0:nw * slots:nw], ws[1:nw * slots:nw] if nw == 2 else None
        d = self.docs
        sel = None
        if self.cls == 0 or (self.cls == 2 and not count):
            v = w0 % np.uint64(w) if count else w0 & np.uint64(m)
        elif self.cls == 1 and count:
            idx = w0 % np.uint64(len(d.ecount))
            v = choose(idx, table_values(d.ecount, slots, W=w, M=m, r=w1))
            sel = [("ECOUNT", idx)]
        elif self.cls == 1 and not x["float"]:
            idx = w0 % np.uint64(len(d.edge))
            v = choose(idx, table_values(d.edge, slots, W=w, M=m, r=w1))
            sel = [("EDGE", idx)]
        elif self.cls == 1:
            f = {16: 10, 32: 23, 64: 52}[w]
            q = 1 << (f - 1)
            fv = dict(W=w, M=m, r=w1, F=f, S=1 << (w - 1), X=((1 << (w - 1 - f)) - 1) << f, Q=q,
                      ONE=((1 << (w - f - 2)) - 1) << f)
            fv["P"] = (w1 % np.uint64(q)) | np.uint64(1)
            special = (w0 % np.uint64(2)) == 0
            i_sp = (w0 >> np.uint64(1)) % np.uint64(len(d.special))
            i_ed = (w0 >> np.uint64(1)) % np.uint64(len(d.edge))
            v = np.where(special, choose(i_sp, table_values(d.special, slots, **fv)),
                         choose(i_ed, table_values(d.edge, slots, W=w, M=m, r=w1)))
            sel = [("SPECIAL", np.where(special, i_sp, 99)), ("EDGE", np.where(special, 99, i_ed))]
        else:  # shift_oob counts
            oob = (w0 % np.uint64(2)) == 1
            i_oob = (w0 >> np.uint64(1)) % np.uint64(len(d.oob))
            v = np.where(oob, choose(i_oob, table_values(d.oob, slots, W=w, M=m, r=w1)),
                         w1 % np.uint64(w))
            v[0] = w
            keep = np.where(oob, i_oob, 99)
            keep[0] = 99
            sel = [("OOB", keep)]
        v = np.asarray(v, dtype=np.uint64)
        buf = bytearray(v.astype(f"<u{es}").tobytes())
        if len(buf) < x["total"]:  # the partial slot: the next word, low bytes first
            buf += int(ws[nw * slots]).to_bytes(8, "little")[:x["total"] - len(buf)]
        if sel is not None:
            elems = np.unique(offsets(x))
            for name, idx in sel:
                for k in np.unique(idx[elems]):
                    if k != 99:
                        tally.add((name, int(k), self.in_type))
        return bytes(buf)

    def output_bytes(self):
        total = self.tensors[-1]["total"]
        ws = words(self.seed, "Output", (total + 7) // 8)
        return ws.astype("<u8").tobytes()[:total]


def offsets(t):
    """Element offsets of a tensor's logical elements, row-major (last dimension fastest)."""
    off = np.zeros(1, dtype=np.int64)
    strides = t["strides"]
    if strides is None:
        strides, s = [0] * len(t["sizes"]), 1
        for k in range(len(t["sizes"]) - 1, -1, -1):
            strides[k], s = s, s * t["sizes"][k]
    for size, stride in zip(t["sizes"], strides):
        off = (off[:, None] + np.arange(size, dtype=np.int64) * stride).ravel()
    return off


def elements(buf, t):
    es = t["bits"] // 8
    arr = np.frombuffer(buf[:len(buf) // es * es], dtype=f"<u{es}")
    return arr[offsets(t)].astype(np.uint64)


POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint64)


def compute(op, w, a, b, policy):
    m = np.uint64((1 << w) - 1)
    if op == "bit_and":
        return a & b
    if op == "bit_or":
        return a | b
    if op == "bit_xor":
        return a ^ b
    if op == "bit_not":
        return ~a & m
    if op == "bit_count":
        return POP8[a.astype("<u8").view(np.uint8).reshape(-1, 8)].sum(axis=1).astype(np.uint64)
    big = b >= np.uint64(w)
    count = np.where(big, b & np.uint64(w - 1), b)
    r = (a << count) & m if op == "bit_shift_left" else a >> count
    return np.where(big & (policy == "saturate"), np.uint64(0), r)


def expected_bytes(case, inputs, initial, policy):
    t = case.tensors
    out = t[-1]
    base = bytearray(inputs[case.alias] if case.alias is not None else initial)
    args = [elements(inputs[i], t[i]) for i in range(case.inputs)]
    r = compute(case.op, t[0]["bits"], args[0], args[1] if len(args) > 1 else None, policy)
    es = out["bits"] // 8
    arr = np.frombuffer(base[:len(base) // es * es], dtype=f"<u{es}").copy()
    arr[offsets(out)] = r.astype(f"<u{es}")
    base[:arr.nbytes] = arr.tobytes()
    return bytes(base)


def initial_bytes(case, expected, mask):
    """The initial output buffer (docs/vector-format.md, "Results"): the expected buffer (the
    saturate policy's for recorded cases) with every logical element complemented, or, where
    that equals the mask policy's value, the complement with bit 0 flipped."""
    out = case.tensors[-1]
    es = out["bits"] // 8
    arr = np.frombuffer(expected[:len(expected) // es * es], dtype=f"<u{es}").copy()
    off = offsets(out)
    poison = ~arr[off]
    if mask is not None:
        m = np.frombuffer(mask[:len(mask) // es * es], dtype=f"<u{es}")[off]
        poison = np.where(poison == m, poison ^ np.array(1, dtype=f"<u{es}"), poison)
    arr[off] = poison
    base = bytearray(expected)
    base[:arr.nbytes] = arr.tobytes()
    return bytes(base)


class Blobs:
    """The export's blobs: {path, offset, bytes, xxh3_128, crc32} records read from their data
    files (each file read once), their CRC-32 (zlib.crc32) checked."""

    def __init__(self, root):
        self.root, self.files = root, {}

    def read(self, rec, problems, what):
        path = rec["path"]
        if path not in self.files:
            with open(os.path.join(self.root, path), "rb") as f:
                self.files[path] = f.read()
        data = self.files[path][rec["offset"]:rec["offset"] + rec["bytes"]]
        if len(data) != rec["bytes"] or "%08x" % zlib.crc32(data) != rec["crc32"]:
            problems.append(f"{what}: {len(data)} bytes at {path}:{rec['offset']}, crc32 "
                            f"{zlib.crc32(data):08x}, the manifest says {rec['bytes']} and "
                            f"{rec['crc32']}")
        return data


def case_blobs(case, entry, blobs, inputs, initial, problems):
    """Compares one valid case's blobs, and the CRC-32 of an expected buffer given only by its
    digests, with the bytes rebuilt from the docs. @return the number of buffers compared."""
    produced, digests_only = {}, {}
    for i in range(case.inputs):
        produced[case.roles()[i]] = (entry["files"][case.roles()[i]], inputs[i])
    if case.expect() == "recorded":
        mask = expected_bytes(case, inputs, initial, "mask")
        sat = expected_bytes(case, inputs, initial, "saturate")
        produced["expected_mask"] = (entry["expected_by_policy"]["mask"], mask)
        produced["expected_saturate"] = (entry["expected_by_policy"]["saturate"], sat)
        exp_for_initial, mask_for_initial = sat, mask
    else:
        exp = expected_bytes(case, inputs, initial, "mask")
        rec = entry["expected"]
        (produced if "path" in rec else digests_only)["expected"] = (rec, exp)
        exp_for_initial, mask_for_initial = exp, None
    if case.alias is None:
        produced["initial"] = (entry["initial"], initial_bytes(case, exp_for_initial,
                                                               mask_for_initial))
    for name, (rec, data) in produced.items():
        disk = blobs.read(rec, problems, f"{case.id}/{name}")
        if disk != data:
            diff = next((k for k in range(min(len(disk), len(data))) if disk[k] != data[k]),
                        min(len(disk), len(data)))
            problems.append(f"{case.id}/{name}: {len(disk)} bytes exported, {len(data)} "
                            f"rebuilt, first difference at byte {diff}")
    for name, (rec, data) in digests_only.items():  # the initial buffer, complemented
        if rec["bytes"] != len(data) or rec["crc32"] != "%08x" % zlib.crc32(data):
            problems.append(f"{case.id}/{name}: the manifest says {rec['bytes']} bytes, crc32 "
                            f"{rec['crc32']}; rebuilt {len(data)}, {zlib.crc32(data):08x}")
    return len(produced) + len(digests_only)


# ---- the plan (docs/case-plan.md, "Tiers") ----

SMOKE = ("packed", "scalar_b", "broadcast", "permuted", "inplace_a", "inplace")


def pattern_applies(row, op, arity, rank, tier):
    if row["Tier"] != tier or rank not in doc_tables.ranks(row["Ranks"]):
        return False
    who = row["Operators"]
    return (who == "all" or (who == "binary" and arity == 2) or (who == "unary" and arity == 1)
            or op in [o.strip() for o in who.split(",")])


def class_ns(docs, op):
    shift = op.startswith("bit_shift")
    return sorted({int(r["n"]) for r in docs.classes if r["n"] != "-"
                   and (r["Operators"] == "all" or (r["Operators"] == "shifts" and shift))})


def default_tier(docs, seed):
    cases = []
    for op, _, arity in docs.ops:
        shift = op.startswith("bit_shift")
        for in_type in docs.type_order:
            if shift and docs.types[in_type][2] != "unsigned":
                continue
            for out_type in (["uint8", "uint32"] if op == "bit_count" else [in_type]):
                for rank in range(1, 9):
                    for row in docs.patterns:
                        if not pattern_applies(row, op, arity, rank, "default"):
                            continue
                        p = row["Pattern"]
                        for n in class_ns(docs, op):
                            smoke = n == 0 and rank in (1, 4) and p in SMOKE
                            cases.append(Case(docs, op, in_type, out_type, rank, p, n,
                                              ["smoke", "default"] if smoke else ["default"], seed))
    for op, _, arity in docs.ops:
        for row in docs.negative:
            who = row["Operators"]
            applies = (who == "all" or (who == "shifts" and op.startswith("bit_shift"))
                       or (who == "all but bit_count" and op != "bit_count") or who == op)
            if applies:
                rule, n = row["Rule"], int(row["n"])
                smoke = rule == "size_zero" and n == 0
                cases.append(Case(docs, op, "uint8", "uint8", 4, f"invalid_{rule}", n,
                                  ["smoke", "default"] if smoke else ["default"], seed))
    for row in docs.mixed:  # docs/case-plan.md, "Mixed layouts": the covering array's table
        p = row["Id"].split(".")
        if p[0] != "bit_count":
            p.insert(2, p[1])
        c = Case(docs, p[0], p[1], p[2], int(p[3][1:]), "mixed", int(p[5]), ["default"], seed)
        c.cls = {"random": 0, "edge": 1}[row["Values"]]
        c.layouts = [row["A or Input"], row["B"], row["Output"]]
        cases.append(c)
    return cases


# ---- the comparison ----

def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    bitcts, docs_dir, work = sys.argv[1:4]
    docs = Docs(docs_dir)
    seed = 0x0062697463747331
    os.makedirs(work, exist_ok=True)
    if len(sys.argv) == 5:
        out = sys.argv[4]
    else:
        out = os.path.join(work, "export")
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([bitcts, "vectors", "export", "--out", out, "--tier", "default"],
                       check=True, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    problems = []
    cases = default_tier(docs, seed)
    got_ids = [c["id"] for c in manifest["cases"]]
    want_ids = [c.id for c in cases]
    if got_ids != want_ids:
        missing = sorted(set(want_ids) - set(got_ids))[:3]
        extra = sorted(set(got_ids) - set(want_ids))[:3]
        problems.append(f"the plan differs: {len(got_ids)} exported, {len(want_ids)} rebuilt; "
                        f"only rebuilt {missing}, only exported {extra}")
    if docs.tiers["default"] != len(got_ids):
        problems.append(f"the tiers table says {docs.tiers['default']} default cases, "
                        f"the export has {len(got_ids)}")
    exported = {c["id"]: c for c in manifest["cases"]}
    tally = set()
    compared = files = 0
    blobs = Blobs(out)
    for case in cases:
        entry = exported.get(case.id)
        if entry is None:
            continue
        case.build()
        want = case.entry()
        for key, value in want.items():
            if entry.get(key) != value:
                problems.append(f"{case.id}: {key}: exported {json.dumps(entry.get(key))}, "
                                f"rebuilt {json.dumps(value)}")
                break
        compared += 1
        if case.rule is not None:
            continue
        inputs = [case.input_bytes(i, tally) for i in range(case.inputs)]
        initial = case.output_bytes() if case.alias is None else None
        files += case_blobs(case, entry, blobs, inputs, initial, problems)
        if len(problems) > 20:
            break
    # Coverage: every table entry in an element, for every type it applies to.
    ints = [t for t in docs.type_order if docs.types[t][2] != "float"]
    floats = [t for t in docs.type_order if docs.types[t][2] == "float"]
    shifts = [t for t in docs.type_order if docs.types[t][2] == "unsigned"]
    need = ([("EDGE", i, t) for i in range(len(docs.edge)) for t in ints + floats]
            + [("SPECIAL", i, t) for i in range(len(docs.special)) for t in floats]
            + [("ECOUNT", i, t) for i in range(len(docs.ecount)) for t in shifts]
            + [("OOB", i, t) for i in range(len(docs.oob)) for t in shifts])
    absent = [n for n in need if n not in tally]
    if absent and compared == len(cases):
        problems.append(f"{len(absent)} value-table entries never occur in an element, e.g. {absent[:5]}")
    print(f"rebuilt {compared} cases from the docs; compared {files} buffers with the export; "
          f"{len(need) - len(absent)} of {len(need)} (table, entry, type) combinations occur")
    if problems:
        print("\n".join("FAIL: " + p for p in problems[:20]))
        sys.exit(1)
    if len(sys.argv) == 4:
        shutil.rmtree(out, ignore_errors=True)
    print("every byte of the default tier follows from the docs")


if __name__ == "__main__":
    main()
