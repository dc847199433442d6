#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proves the `mixed` family covers every required pair (docs/case-plan.md, "Mixed layouts"),
computed from the cases' descriptions alone.

Each tensor of every `mixed` case of `bitcts list --json --tier default` is classified from its
Sizes, Strides, TotalTensorSizeInBytes, alignment and `output_aliases` (not from any table the
generator used). The required pairs are enumerated here from the rules the docs state: roles
per operator kind, layouts per role, the smallest rank of a layout, in place only where allowed
and never over a broadcast or scalar input; the operators' input types are those the default
tier's other cases use. Every required pair must occur in a case; `bitcts list --coverage
--json` must name exactly these pairs, and every case it names for a pair must have it.

Usage: layout_pairs.py BITCTS. Exit 0: every pair covered and list agrees; 1 otherwise."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from desc_layout import desc_min_bytes, packed  # noqa: E402

LAYOUTS = ["packed", "padded_inner", "padded_outer", "permuted", "oversized", "broadcast",
           "scalar", "inplace_a", "inplace_b", "inplace"]
MIN_RANK = {"padded_outer": 3, "permuted": 2, "broadcast": 2}
IN_PLACE_OPS = {"bit_and", "bit_or", "bit_xor", "bit_not", "bit_shift_left", "bit_shift_right"}
BINARY = {"bit_and", "bit_or", "bit_xor", "bit_shift_left", "bit_shift_right"}
def classify(t):
    """The layout of one input, or of an output that aliases nothing."""
    sizes, st = t["Sizes"], t["Strides"]
    if t["GuaranteedBaseOffsetAlignment"] == 16 and t["TotalTensorSizeInBytes"] > desc_min_bytes(t):
        if st is None or st == packed(sizes):
            return "oversized"
        return "?"
    if st is None:
        return "packed"
    if all(s == 0 for s in st):
        return "scalar"
    if any(s == 0 for s in st):
        return "broadcast" if [k for k in range(len(st)) if st[k] == 0] else "?"
    big = [k for k in range(len(sizes)) if sizes[k] > 1]
    if any(st[a] < st[b] for a, b in zip(big, big[1:])):
        return "permuted"
    r = len(sizes)
    if r == 1:
        return "padded_inner" if st[0] >= 2 else "?"
    p = packed(sizes)
    if r >= 3 and st[1:] == p[1:] and st[0] > p[0]:
        return "padded_outer"
    inner = st[r - 1] == 1 and st[r - 2] > sizes[r - 1]
    if inner and all(st[k] == st[k + 1] * sizes[k + 1] for k in range(r - 2)):
        return "padded_inner"
    return "?"


def case_values(c):
    """{factor: value} of a mixed case, from its description."""
    op = c["operator"]
    roles = {t["role"]: t for t in c["tensors"]}
    v = {"operator": op, "type": c["input_type"], "rank": c["rank"]}
    for role in ("A", "B", "Input"):
        if role in roles:
            v[role] = classify(roles[role])
    alias = c["output_aliases"]
    if alias is None:
        v["Output"] = classify(roles["Output"])
    else:
        v["Output"] = "inplace" if alias == "Input" else "inplace_" + alias.lower()
    return v


def role_fits(op, role, layout, rank):
    binary = op in BINARY
    if role in ("A", "B") and not binary or role == "Input" and binary:
        return False
    if rank < MIN_RANK.get(layout, 1):
        return False
    if role == "Output":
        if layout in ("broadcast", "scalar"):
            return False
        if layout in ("inplace_a", "inplace_b"):
            return binary and op in IN_PLACE_OPS
        if layout == "inplace":
            return not binary and op in IN_PLACE_OPS
        return True
    return not layout.startswith("inplace")


def feasible(fa, la, fb, vb, types):
    """Some case (operator, type, rank, layouts) holds tensor fa at la and fb at vb."""
    for op, op_types in types.items():
        for rank in range(1, 9):
            if fb == "operator" and op != vb or fb == "type" and vb not in op_types:
                continue
            if fb == "rank" and rank != vb or not role_fits(op, fa, la, rank):
                continue
            if fb in ("operator", "type", "rank"):
                return True
            if not role_fits(op, fb, vb, rank):
                continue
            pair = {fa: la, fb: vb}
            alias = {"inplace_a": "A", "inplace_b": "B", "inplace": "Input"}.get(pair.get("Output"))
            if alias in pair and pair[alias] in ("broadcast", "scalar"):
                continue
            return True
    return False


def required(types):
    all_types = sorted({t for ts in types.values() for t in ts})
    out = set()
    for fa, fb in (("A", "B"), ("A", "Output"), ("B", "Output"), ("Input", "Output")):
        out |= {(fa, x, fb, y) for x in LAYOUTS for y in LAYOUTS if feasible(fa, x, fb, y, types)}
    others = {"operator": list(types), "type": all_types, "rank": list(range(1, 9))}
    for fb, values in others.items():
        for fa in ("A", "B", "Input", "Output"):
            out |= {(fa, x, fb, v) for x in LAYOUTS for v in values if feasible(fa, x, fb, v, types)}
    return out


def main():
    bitcts = sys.argv[1]
    lines = subprocess.run([bitcts, "list", "--json", "--tier", "default"], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    cases = [json.loads(line) for line in lines]
    types = {}
    for c in cases:
        if c["pattern"] != "mixed" and c["pattern"] != "invalid" and "tensors" in c:
            types.setdefault(c["operator"], set()).add(c["input_type"])
    mixed = {c["id"]: case_values(c) for c in cases if c["pattern"] == "mixed"}
    fail = 0
    for cid, v in mixed.items():
        if "?" in v.values():
            print(f"FAIL: {cid}: a tensor fits no layout: {v}")
            fail = 1
    need = required(types)
    have = {}
    for cid, v in mixed.items():
        for p in need:
            if v.get(p[0]) == p[1] and v.get(p[2]) == p[3]:
                have.setdefault(p, []).append(cid)
    missing = sorted((p for p in need if p not in have), key=str)
    # The check itself: without the one case that covers a pair, that pair is reported missing.
    sole = next((p for p in sorted(have, key=str) if len(have[p]) == 1), None)
    if sole is not None:
        gone = have[sole][0]
        left = {p for p in need for cid, v in mixed.items()
                if cid != gone and v.get(p[0]) == p[1] and v.get(p[2]) == p[3]}
        if sole in left:
            print(f"FAIL: the check misses {sole} once {gone} is left out")
            fail = 1
    for p in missing[:20]:
        print(f"FAIL: no case has {p[0]}={p[1]} {p[2]}={p[3]}")
    fail |= bool(missing)
    listed = subprocess.run([bitcts, "list", "--coverage", "--json"], check=True,
                            capture_output=True, text=True).stdout.splitlines()
    claimed = set()
    for line in listed:
        e = json.loads(line)
        (fa, la), (fb, vb) = e["pair"]
        claimed.add((fa, la, fb, vb))
        for cid in e["cases"]:
            v = mixed.get(cid, {})
            if v.get(fa) != la or v.get(fb) != vb:
                print(f"FAIL: list --coverage says {cid} has {fa}={la} {fb}={vb}: {v}")
                fail = 1
    if claimed != need:
        print(f"FAIL: list --coverage names {len(claimed)} pairs, the rules {len(need)}: "
              f"{sorted(claimed ^ need, key=str)[:5]}")
        fail = 1
    print(f"layout_pairs: {len(mixed)} mixed cases, {len(need)} required pairs, "
          f"{len(need) - len(missing)} covered")
    return fail


if __name__ == "__main__":
    sys.exit(main())
