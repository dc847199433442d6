#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proof that the harness catches broken implementations: runs the example plugin and every
broken plugin over a selection and asserts the exact verdict each case earns, and that every
selected case is accounted for (crashers and hangers included).

Usage: broken_plugins.py BITCTS WORKDIR name=path ...   (names: example, broken_<bug>)"""
import concurrent.futures
import json
import os
import subprocess
import sys

bitcts, work = sys.argv[1], sys.argv[2]
plugins = dict(a.split("=", 1) for a in sys.argv[3:])
# Ranks 1, 4 and 8 of the default tier: every operator, type, pattern and value class, and the
# negative cases (rank 4), in about a third of the time.
FILTER = "*.r[148].*"
# The watchdog: short for the plugin that hangs (each of its hangs costs one), long for the
# others, whose every case ends at once: a loaded machine never turns one into a timeout.
HANG_TIMEOUT = {"broken_hang": "0.5"}
TIMEOUT = "60"
failures = []


def run(name, extra=()):
    out = os.path.join(work, name)
    cmd = [bitcts, "run", "--backend", plugins[name], "--filter", FILTER, "--report", out,
           "--jobs", "2", "--quiet", "--timeout", HANG_TIMEOUT.get(name, TIMEOUT),
           # every hang gets its own verdict here (the stop rule has run_loop.py)
           "--max-timeouts", "0"] + list(extra)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    path = os.path.join(out, "report.json")
    if not os.path.exists(path):
        sys.exit(f"{name}: no report ({proc.returncode}): {proc.stderr.strip()}")
    with open(path) as f:
        return proc.returncode, json.load(f)


selected = subprocess.run([bitcts, "list", "--filter", FILTER], stdout=subprocess.PIPE, text=True,
                          check=True).stdout.split()


def parts(case_id):
    """operator, input type, output type, rank, pattern, n of a case id."""
    p = case_id.split(".")
    if p[0] == "bit_count":
        return p[0], p[1], p[2], int(p[3][1:]), p[4], int(p[5])
    return p[0], p[1], p[1], int(p[2][1:]), p[3], int(p[4])


pending = []


def check(name, expect, rc_ok=None):
    """Queues a plugin's run: expect(case) -> the verdict the case must earn, or a set of
    acceptable verdicts; rc_ok: whether the exit code must be 0."""
    pending.append((name, expect, rc_ok))


def check_now(name, expect, rc_ok):
    rc, report = run(name)
    cases = report["cases"]
    ids = [c["id"] for c in cases]
    if ids != selected:
        failures.append(f"{name}: {len(ids)} cases reported, {len(selected)} selected")
    wrong = []
    for c in cases:
        want = expect(c["id"])
        want = {want} if isinstance(want, str) else want
        if c["verdict"] not in want:
            wrong.append(f"{c['id']}: {c['verdict']} (want {'/'.join(sorted(want))}): {c['detail']}")
    if wrong:
        failures.append(f"{name}: {len(wrong)} unexpected verdicts, e.g. " + "; ".join(wrong[:3]))
    counts = report["summary"]["by_verdict"]
    if rc_ok is not None and (rc == 0) != rc_ok:
        failures.append(f"{name}: exit code {rc}")
    print(f"{name}: {len(cases)} cases, {counts}, exit {rc}")


def invalid(i):
    return ".invalid_" in i


def recorded_or_pass(i):
    op, *_ = parts(i)
    return {"pass", "recorded"} if op.startswith("bit_shift") else "pass"


def when(pred, verdict, otherwise=None):
    return lambda i: verdict if (not invalid(i) and pred(i)) else (otherwise or recorded_or_pass)(i)


LAYOUT_SENSITIVE = ("padded_inner", "padded_outer", "broadcast", "broadcast_a", "broadcast_b",
                    "broadcast_both", "scalar", "scalar_a", "scalar_b", "permuted", "mixed")
check("example", recorded_or_pass, rc_ok=True)
# A bug the plan cannot see (a tensor both permuted and padded): it passes; bitcts explore finds
# it (harness.explore).
check("broken_permuted_padded", recorded_or_pass, rc_ok=True)
check("broken_crash_rank8", when(lambda i: parts(i)[3] == 8, "crash"), rc_ok=False)
check("broken_abort_count", when(lambda i: parts(i)[0] == "bit_count", "crash"), rc_ok=False)
check("broken_hang", when(lambda i: parts(i)[:2] == ("bit_xor", "uint16"), "timeout"), rc_ok=False)
# The bug turns INVALID_DESCRIPTOR into OK; an operator type it does not know is still refused
# (NOT_SUPPORTED, as the example does), which is a rejection.
check("broken_accepts_invalid", lambda i: ("pass" if ".invalid_unknown_operator." in i else "fail")
      if invalid(i) else recorded_or_pass(i), rc_ok=False)
check("broken_claims_fp64", when(lambda i: parts(i)[1] == "float64", "fail"), rc_ok=False)
check("broken_write_past_end", when(lambda i: True, "fail"), rc_ok=False)
# In place over A, the corrupted byte is output element 0; in a shift_oob case that element's
# count is the width, so it is recorded (policy "other"), not asserted.
check("broken_corrupt_input", when(lambda i: not (parts(i)[0].startswith("bit_shift") and parts(i)[4] == "inplace_a"
                                                  and parts(i)[5] == 2), "fail",
                                   lambda i: {"recorded", "fail"} if not invalid(i) else "pass"), rc_ok=False)
# Bugs that fail only on some data: the verdict is fail or the correct one, never anything else,
# and the failures fall only where the bug can show.
check("broken_ignores_strides", when(lambda i: parts(i)[4] in LAYOUT_SENSITIVE or parts(i)[4].startswith("inplace"),
                                     {"fail", "pass", "recorded"}))
check("broken_zero_stride", when(lambda i: parts(i)[4] in ("broadcast", "broadcast_a", "broadcast_b",
                                                           "broadcast_both", "scalar", "scalar_a", "scalar_b",
                                                           "mixed"),
                                 {"fail", "pass", "recorded"}))
check("broken_skip_last_odd", when(lambda i: True, {"fail", "pass", "recorded"}))
check("broken_nan_canonicalise", when(lambda i: parts(i)[1] in ("float32", "float16")
                                      and parts(i)[0] in ("bit_and", "bit_or", "bit_xor", "bit_not"),
                                      {"fail", "pass"}))
check("broken_fp16_denormal_flush", when(lambda i: parts(i)[1] == "float16" and parts(i)[0] != "bit_count",
                                         {"fail", "pass"}))
check("broken_popcount_top_bit", when(lambda i: parts(i)[0] == "bit_count" and parts(i)[1] in ("uint64", "int64", "float64"),
                                      {"fail", "pass"}))
# Writing the count with the input's width puts the right low byte in the element and the rest
# into padding when the buffer has room: a warning, as DirectML allows writes there.
check("broken_count_input_width", when(lambda i: parts(i)[0] == "bit_count", {"fail", "pass", "warn"}))
# (mixed: the cases whose output is in place; docs/case-plan.md, "Mixed layouts")
check("broken_broken_in_place", when(lambda i: parts(i)[4].startswith("inplace") or parts(i)[4] == "mixed",
                                     {"fail", "pass", "recorded"}))
# Nothing written: the poisoned output catches every element, except in place where an element's
# expected value can equal its input (AND/OR with equal operands, shifts by 0...), and in shift_oob
# cases whose every count is out of range (nothing asserted: recorded, policy "other").
check("broken_writes_nothing", when(lambda i: not parts(i)[4].startswith("inplace")
                                    and not (parts(i)[0].startswith("bit_shift") and parts(i)[5] == 2), "fail",
                                    lambda i: {"fail", "pass", "recorded"} if not invalid(i) else "pass"),
      rc_ok=False)
check("broken_pad_write", when(lambda i: True, {"warn", "pass", "recorded"}), rc_ok=True)

# Two runs at a time: a run's hangs are waited out while the other works.
with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
    for job in [pool.submit(check_now, *args) for args in pending]:
        job.result()

# Each data-dependent bug must really be caught somewhere in the selection.
for name, verdict in [("broken_ignores_strides", "fail"), ("broken_zero_stride", "fail"),
                      ("broken_skip_last_odd", "fail"), ("broken_nan_canonicalise", "fail"),
                      ("broken_fp16_denormal_flush", "fail"), ("broken_popcount_top_bit", "fail"),
                      ("broken_count_input_width", "fail"), ("broken_broken_in_place", "fail"),
                      ("broken_pad_write", "warn")]:
    with open(os.path.join(work, name, "report.json")) as f:
        n = json.load(f)["summary"]["by_verdict"].get(verdict, 0)
    if n == 0:
        failures.append(f"{name}: no case got {verdict}: the bug went unnoticed")

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("all broken plugins caught with their expected verdicts")
