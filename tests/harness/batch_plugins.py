#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Batching plugins (tests/plugins/hostile_plugin.c built as batch_<behaviour>) against
`bitcts run --batch-cases`.

Each plugin offers bitcts_batch_execute_v1, whose execute_batch runs every item through the
plugin's operator_execute, and misbehaves on BIT_COUNT executions, batched or alone. For each, a
batched run (--batch-cases 16) and a run of one call per case (--batch-cases 1) must give every
case the same verdict and output digest, every BIT_COUNT case the verdict its behaviour earns and
every other case a pass: a fault inside a batched call (a crash, a hang, a write past one
item's output or into its no-access zone, a rewritten description, a lie, a failing status,
damage to the process, lines on the result channel) is charged to the case that makes it, never
to another case of the call. The correct plugin's reports must agree in every detail (ids,
verdicts, details, digests) over the smoke tier. exec_batched_crash crashes only inside a call
of several items: every case passes (each, run alone, is right). exec_batched_wrong is wrong
only inside a call of several items: its BIT_COUNT cases fail batched and pass one call per
case, which proves that the runs batched.

With --no-signals, only the scenarios whose plugin ends by no signal and leaves the process's
limits alone: what the sanitizer lane runs (its runtime turns a signal into its own report and
needs address space a limit takes).
Usage: batch_plugins.py BITCTS WORKDIR [--no-signals] NAME=PLUGIN...   (exit 0: all hold)
"""
import json
import os
import shutil
import subprocess
import sys
from collections import Counter

BITCTS = sys.argv[1]
WORK = sys.argv[2]
NO_SIGNALS = "--no-signals" in sys.argv[3:]
PLUGINS = dict(arg.split("=", 1) for arg in sys.argv[3:] if arg != "--no-signals")

FILTER = "*.uint16.*r2.pa*"  # every operator, BIT_COUNT's two output types; 54 cases
OK = {"pass", "recorded"}
# name: (the verdicts a BIT_COUNT case may earn, a text every such case's detail holds)
EXPECT = {
    "exec_segv": ({"crash"}, "a null pointer"),
    "exec_abort": ({"crash"}, "signal 6"),
    "exec_hang": ({"timeout"}, "no progress within 0.5 s"),
    "exec_write_past": ({"fail"}, "Output"),
    "exec_write_far": ({"crash"}, "65536 bytes past the end of Output"),
    "exec_desc_rewrite": ({"fail"} | OK, ""),  # a case whose sizes are all 1 is unchanged
    "exec_lie": ({"fail"}, "differ"),
    "exec_bad_error": ({"fail"}, "status 201"),
    "exec_write_input": ({"fail"}, "input"),
    "exec_setrlimit_as": ({"fail"}, "RLIMIT_AS"),
    "exec_segv_handler": ({"fail"}, "SIGSEGV handler"),
    "exec_flood_fds": ({"warn"}, "result channel"),
    "exec_batched_crash": (OK, ""),
}
# name: what the warning of a case run again alone says about its batched call
RERUN = {
    "exec_segv": "ended: the worker died in the backend's operator calls",
    "exec_hang": "0.5 s each, their deadlines summed",
    "exec_bad_error": "returned status 201 for case",
    "exec_setrlimit_as": "left damage: the backend changed the process's RLIMIT_AS",
    "exec_desc_rewrite": "changed the description of case",
    "exec_flood_fds": "lines to the harness's result channel during it",
}
failures = []


def fail(name, message):
    failures.append(f"{name}: {message}")
    print(f"FAIL: {name}: {message}", flush=True)


def run(name, batch, extra):
    report = os.path.join(WORK, f"{name}-{batch}")
    shutil.rmtree(report, ignore_errors=True)
    p = subprocess.run([BITCTS, "run", "--backend", PLUGINS[name], "--report", report, "--quiet",
                        "--max-timeouts", "0", "--jobs", "2", "--batch-cases", str(batch)] + extra,
                       capture_output=True, timeout=600)
    if p.returncode not in (0, 1):
        fail(name, f"--batch-cases {batch} exited {p.returncode}: {p.stderr.decode()[-400:]}")
        return None
    with open(os.path.join(report, "report.json")) as f:
        return {c["id"]: c for c in json.load(f)["cases"]}


def scenario(name):
    timeout = "0.5" if name == "exec_hang" else "60"
    args = ["--filter", FILTER, "--timeout", timeout]
    batched, alone = run(name, 16, args), run(name, 1, args)
    if batched is None or alone is None:
        return
    if sorted(batched) != sorted(alone):
        fail(name, "the two runs hold different cases")
        return
    for cid, c in batched.items():
        a = alone[cid]
        if (c["verdict"], c["output_xxh3_128"]) != (a["verdict"], a["output_xxh3_128"]):
            fail(name, f"{cid}: {c['verdict']} batched, {a['verdict']} alone")
        if c["verdict"] == "internal_error":
            fail(name, f"{cid}: internal_error")
        count = cid.startswith("bit_count.")
        want, text = EXPECT[name] if count else (OK, "")
        if c["verdict"] not in want or text not in c["detail"]:
            fail(name, f"{cid}: {c['verdict']} ({c['detail'][:160]}); wanted {sorted(want)}")
    if name in RERUN and not any(RERUN[name] in w for c in batched.values()
                                 for w in c["warnings"] if w.startswith("run again alone")):
        fail(name, f"no case run again alone says '{RERUN[name]}'")
    print(f"ok: {name}: {dict(Counter(c['verdict'] for c in batched.values()))}", flush=True)


def correct():
    batched = run("none", 16, ["--tier", "smoke"])
    alone = run("none", 1, ["--tier", "smoke"])
    if batched is None or alone is None:
        return
    key = ("verdict", "output_xxh3_128", "detail", "policy")
    differ = [cid for cid in batched if cid not in alone or
              [batched[cid][k] for k in key] != [alone[cid][k] for k in key]]
    if differ or len(batched) != len(alone):
        fail("none", f"{len(differ)} cases differ, e.g. {differ[:3]}")
    elif any(c["verdict"] not in OK for c in batched.values()):
        fail("none", "a case of the correct plugin did not pass")
    else:
        print(f"ok: none: {len(batched)} cases agree in every detail", flush=True)


def proof_of_batching():
    batched = run("exec_batched_wrong", 16, ["--filter", FILTER])
    alone = run("exec_batched_wrong", 1, ["--filter", FILTER])
    if batched is None or alone is None:
        return
    counts = [c for cid, c in batched.items() if cid.startswith("bit_count.")]
    if not counts or any(c["verdict"] != "fail" for c in counts):
        fail("exec_batched_wrong", "a BIT_COUNT case passed batched: the run did not batch")
    if any(c["verdict"] not in OK for c in alone.values()):
        fail("exec_batched_wrong", "a case failed with --batch-cases 1: it batched")
    print(f"ok: exec_batched_wrong: {len(counts)} BIT_COUNT cases failed batched only", flush=True)


os.makedirs(WORK, exist_ok=True)
correct()
proof_of_batching()
SIGNALS = {"exec_segv", "exec_abort", "exec_write_far", "exec_setrlimit_as", "exec_segv_handler",
           "exec_batched_crash"}
for scenario_name in EXPECT:
    if not (NO_SIGNALS and scenario_name in SIGNALS):
        scenario(scenario_name)
if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("all batching scenarios hold")
