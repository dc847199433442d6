#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The plan catches bugs that need two tensors laid out differently (docs/case-plan.md,
"Mixed layouts"): two broken plugins, wrong only for such cases, pass every other case of the
default tier and fail the `mixed` family, and only where their bug can show.

* broken_broadcast_packed_output: an input with a zero stride, and the output is written with
  packed strides whatever its own are. Can show: an input with a zero stride, under an output
  whose strides (over the dims of size > 1) are not the packed ones.
* broken_padded_under_packed: the output packed, and a padded input (strides in logical order,
  none zero, not packed) is read as packed. Can show: such an input under a packed output.

Usage: mixed_broken_plugins.py BITCTS WORKDIR name=path ...  (exit 0: as stated; 1: not)"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from desc_layout import packed, strides  # noqa: E402

bitcts, work = sys.argv[1], sys.argv[2]
plugins = dict(a.split("=", 1) for a in sys.argv[3:])
MIXED = "*.mixed.*"


def is_packed(t):
    p = packed(t["Sizes"])
    return all(n == 1 or s == q for n, s, q in zip(t["Sizes"], strides(t), p))


def is_padded(t):
    big = [s for n, s in zip(t["Sizes"], strides(t)) if n > 1]
    return all(s > 0 for s in big) and big == sorted(big, reverse=True) and not is_packed(t)


def can_show(bug, case):
    roles = {t["role"]: t for t in case["tensors"]}
    out = roles["Output"]
    inputs = [t for r, t in roles.items() if r != "Output"]
    if bug == "broken_broadcast_packed_output":
        return any(0 in strides(t) for t in inputs) and not is_packed(out)
    return is_packed(out) and any(is_padded(t) for t in inputs)


def run(name, *selection):
    out = os.path.join(work, name + ("_mixed" if MIXED in selection else "_rest"))
    shutil.rmtree(out, ignore_errors=True)
    cmd = [bitcts, "run", "--backend", plugins[name], "--tier", "default", "--report", out,
           "--quiet", "--jobs", "2", "--timeout", "60"] + list(selection)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with open(os.path.join(out, "report.json")) as f:
        return proc.returncode, json.load(f)


def main():
    listed = subprocess.run([bitcts, "list", "--json", "--filter", MIXED], check=True,
                            stdout=subprocess.PIPE, text=True).stdout.splitlines()
    cases = {c["id"]: c for c in map(json.loads, listed)}
    failures = []
    for bug in ("broken_broadcast_packed_output", "broken_padded_under_packed"):
        rc, report = run(bug, "--exclude", MIXED)
        counts = report["summary"]["by_verdict"]
        print(f"{bug}, the default tier without the mixed family: {counts}, exit {rc}")
        if rc != 0 or set(counts) - {"pass", "recorded"}:
            failures.append(f"{bug} fails outside the mixed family: {counts}")
        rc, report = run(bug, "--filter", MIXED)
        counts = report["summary"]["by_verdict"]
        failed = [c["id"] for c in report["cases"] if c["verdict"] == "fail"]
        showing = [i for i in cases if can_show(bug, cases[i])]
        print(f"{bug}, the mixed family: {counts}, exit {rc}; the bug can show in "
              f"{len(showing)} cases, {len(failed)} fail")
        if rc != 1 or not failed:
            failures.append(f"{bug}: the mixed family does not fail it (exit {rc})")
        stray = [i for i in failed if i not in showing]
        if stray:
            failures.append(f"{bug}: fails where its bug cannot show: {stray[:3]}")
        other = set(counts) - {"pass", "recorded", "fail"}
        if other:
            failures.append(f"{bug}: verdicts other than pass/recorded/fail: {counts}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
