#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proof that a read one element past an input is caught whatever the guard bytes it meets hold:
broken_read_past_end computes the last element from the element-width bytes after A (Input),
which for these cases are the guard bytes after the buffer. For BIT_COUNT the harness once let
it pass when the stray element's popcount was half its width: the second pass's complementary
guard bytes then have the same popcount, so both passes wrote the expected count. Pattern 0 of
the guards now never holds an element-wide window with half its bits set, so the two passes'
popcounts differ and one of them is wrong. The cases below passed before that (each one found by
running the plugin over the default tier with both versions); the example plugin passes them.

Usage: guard_reads.py BITCTS WORKDIR EXAMPLE_PLUGIN READ_PAST_END_PLUGIN"""
import json
import os
import shutil
import subprocess
import sys

bitcts, work, example, broken = sys.argv[1:5]
# One per width of A (1, 2, 4 and 8 bytes) and per way its last element ends the buffer.
CASES = [
    "bit_count.uint8.uint8.r4.packed.0",
    "bit_count.uint16.uint32.r3.packed.0",
    "bit_count.float32.uint32.r4.packed.0",
    "bit_count.uint64.uint32.r1.packed.1",
    "bit_count.uint32.uint32.r3.scalar.1",
    "bit_count.int16.uint8.r3.padded_inner.1",
]
failures = []


def run(name, plugin):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [bitcts, "run", "--backend", plugin, "--report", out, "--jobs", "2", "--quiet",
           "--timeout", "60"]
    for case in CASES:
        cmd += ["--filter", case]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    path = os.path.join(out, "report.json")
    if not os.path.exists(path):
        sys.exit(f"{name}: no report ({proc.returncode}): {proc.stderr.strip()}")
    with open(path) as f:
        cases = {c["id"]: c for c in json.load(f)["cases"]}
    if sorted(cases) != sorted(CASES):
        sys.exit(f"{name}: ran {sorted(cases)}, not {sorted(CASES)}: the plan changed; find "
                 "cases again as the docstring says")
    return proc.returncode, cases


rc, cases = run("example", example)
for case in CASES:
    if cases[case]["verdict"] != "pass":
        failures.append(f"example: {case}: {cases[case]['verdict']}: {cases[case]['detail']}")
rc, cases = run("read_past_end", broken)
for case in CASES:
    c = cases[case]
    print(f"read_past_end: {case}: {c['verdict']}: {c['detail'][:160]}")
    if c["verdict"] != "fail":
        failures.append(f"read_past_end: {case}: {c['verdict']}, want fail (a read past the end "
                        "of A went unnoticed)")
if rc != 1:
    failures.append(f"read_past_end: exit code {rc}, want 1")

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print(f"all {len(CASES)} reads past the end caught")
