#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Exits 0 when two report.json files hold the same cases, in the same order, with the same
verdicts, details and output digests (durations and timestamps aside)."""
import json
import sys


def key(path):
    with open(path) as f:
        r = json.load(f)
    return [(c["id"], c["verdict"], c["output_xxh3_128"], c["detail"], c["policy"]) for c in r["cases"]]


a, b = key(sys.argv[1]), key(sys.argv[2])
if a != b:
    diff = [(x, y) for x, y in zip(a, b) if x != y][:3]
    print(f"reports differ: {len(a)} vs {len(b)} cases; first differences: {diff}")
    sys.exit(1)
print(f"reports agree on {len(a)} cases")
