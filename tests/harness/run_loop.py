#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The implementer's loop in `bitcts run` (docs/harness.md, "Stopping early, retries, reruns"):

* --max-fails N stops the run once N cases failed: exit 1, every case in the report once, the
  cases not run `not_run` naming the rule, every view (report.json, summary.md, report.html,
  junit.xml, the terminal) saying that the run stopped early and why; under --repeat, runs the
  stop left unrun do not make a flake;
* --max-timeouts K: a backend that hangs on every call (exec_hang) costs K timeouts, then the rest
  is `not_run` ("the backend stopped answering: K timeouts in a row"); with 0 every hang is a
  timeout;
* --retry-unexpected N: a plugin wrong only in long batches (exec_flaky_reused) gets `flake`, with
  both runs in `repeats`; a deterministic failure (broken_ignores_strides) stays `fail` after N
  more runs; a case the baseline expects is not retried;
* --rerun REPORT runs exactly the cases that did not pass there, with its seed and backend; with
  the plugin fixed at the same path, the rerun is green; a rerun of a rerun works;
* the progress line without a terminal, its format, and none with --quiet (a run with a hang of
  --timeout 1 lasts longer than --progress-interval 0.1 on any machine);
* bad input: one line, exit 2, nothing written.

No assertion depends on the machine's speed.
Usage: run_loop.py BITCTS WORKDIR NAME=PLUGIN...   (exit 0: all hold)
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

BITCTS, WORK = sys.argv[1], sys.argv[2]
PLUGINS = dict(a.split("=", 1) for a in sys.argv[3:])
failures = []
STRIDES = "bit_xor.uint8.*"  # broken_ignores_strides fails some of these, passes others
HANGS = "bit_count.uint8.*"  # exec_hang hangs in every one of these


def fail(what, why):
    failures.append(f"{what}: {why}")
    print(f"FAIL {what}: {why}", flush=True)


def run(report, *args, quiet=True):
    jobs = [] if "--jobs" in args else ["--jobs", "2"]
    argv = [BITCTS, "run", "--report", os.path.join(WORK, report)] + jobs + list(args)
    p = subprocess.run(argv + (["--quiet"] if quiet else []), capture_output=True, text=True,
                       timeout=600)
    return p


def load(report):
    with open(os.path.join(WORK, report, "report.json")) as f:
        return json.load(f)


def verdicts(r):
    return collections.Counter(c["verdict"] for c in r["cases"])


def listed(filt):
    out = subprocess.run([BITCTS, "list", "--filter", filt], capture_output=True,
                         text=True, check=True)
    return out.stdout.split()


def stopped_everywhere(what, report, p, text):
    """Every view says the run stopped early, and why."""
    r = load(report)
    if r.get("stopped") != text:
        fail(what, f"report.json stopped: {r.get('stopped')!r}, want {text!r}")
    for view in ("summary.md", "report.html", "junit.xml"):
        with open(os.path.join(WORK, report, view)) as f:
            if text not in f.read():
                fail(what, f"{view} does not say '{text}'")
    if f"the run stopped early: {text}" not in p.stdout:
        fail(what, "the terminal summary does not say that the run stopped early")


def max_fails():
    ids = listed(STRIDES)
    p = run("max-fails", "--backend", PLUGINS["broken_ignores_strides"], "--filter", STRIDES,
            "--max-fails", "3", quiet=False)
    r = load("max-fails")
    v = verdicts(r)
    rule = "the run stopped after 3 failures (--max-fails 3)"
    if p.returncode != 1:
        fail("max-fails", f"exit code {p.returncode}, not 1")
    if sorted(c["id"] for c in r["cases"]) != sorted(ids):
        fail("max-fails", "the report does not hold every selected case exactly once")
    # Results that arrive while the run stops are kept: at least 3 failures, fewer than all.
    if v["fail"] < 3 or v["not_run"] == 0 or v["fail"] + v["pass"] + v["not_run"] != len(ids):
        fail("max-fails", f"verdicts {dict(v)}")
    if any(c["detail"] != rule for c in r["cases"] if c["verdict"] == "not_run"):
        fail("max-fails", "a not_run case does not name the rule")
    stopped_everywhere("max-fails", "max-fails", p, rule)
    # Without the option the same run fails more than 3 cases: the stop made the difference.
    p = run("no-max-fails", "--backend", PLUGINS["broken_ignores_strides"], "--filter", STRIDES)
    v = verdicts(load("no-max-fails"))
    if v["fail"] <= verdicts(r)["fail"] or v["not_run"] != 0 or "stopped" in load("no-max-fails"):
        fail("max-fails", f"without --max-fails: {dict(v)}")
    # Under --repeat, a case whose later runs the stop left unrun is not a flake.
    p = run("max-fails-repeat", "--backend", PLUGINS["broken_ignores_strides"], "--filter",
            STRIDES, "--max-fails", "2", "--repeat", "2", "--jobs", "1")
    v = verdicts(load("max-fails-repeat"))
    if p.returncode != 1 or v["flake"] or v["fail"] < 2 or not v["not_run"]:
        fail("max-fails", f"--repeat 2: exit code {p.returncode}, {dict(v)}")
    print(f"ok: --max-fails 3: {dict(verdicts(r))}; under --repeat 2: {dict(v)}", flush=True)


def max_timeouts():
    ids = listed(HANGS)
    for k in (5, 2):
        name = f"max-timeouts-{k}"
        args = ["--backend", PLUGINS["exec_hang"], "--filter", HANGS, "--timeout", "0.3"]
        args += [] if k == 5 else ["--max-timeouts", str(k)]  # 5: the default
        p = run(name, *args, quiet=False)
        r = load(name)
        v = verdicts(r)
        rule = f"the backend stopped answering: {k} timeouts in a row (--max-timeouts {k})"
        if p.returncode != 1:
            fail(name, f"exit code {p.returncode}, not 1")
        if sorted(c["id"] for c in r["cases"]) != sorted(ids):
            fail(name, "the report does not hold every selected case exactly once")
        # The k-th kill stops the run; the other worker's hang may end in the same moment.
        if not k <= v["timeout"] <= k + 1 or v["timeout"] + v["not_run"] != len(ids):
            fail(name, f"verdicts {dict(v)} of {len(ids)} cases")
        if any(c["detail"] != rule for c in r["cases"] if c["verdict"] == "not_run"):
            fail(name, "a not_run case does not name the rule")
        if not re.search(rf"\btimeout\s.*\bnot_run\b", p.stdout) or str(v["not_run"]) not in p.stdout:
            fail(name, "the terminal summary does not count the timeouts and not_run cases")
        stopped_everywhere(name, name, p, rule)
        print(f"ok: --max-timeouts {k}: {dict(v)} of {len(ids)} hanging cases", flush=True)
    few = "bit_count.uint8.uint8.r1.*"
    p = run("max-timeouts-0", "--backend", PLUGINS["exec_hang"], "--filter", few, "--timeout",
            "0.3", "--max-timeouts", "0")
    v = verdicts(load("max-timeouts-0"))
    if v != collections.Counter({"timeout": len(listed(few))}) or len(listed(few)) <= 5:
        fail("max-timeouts-0", f"verdicts {dict(v)}: want every case a timeout")


def retry_unexpected():
    # A plugin wrong only after 16 calls in one process: its failures are flakes once retried.
    p = run("flaky", "--backend", PLUGINS["exec_flaky_reused"], "--filter", "bit_count.uint*")
    once = {c["id"]: c["verdict"] for c in load("flaky")["cases"]}
    p = run("flaky-retried", "--backend", PLUGINS["exec_flaky_reused"], "--filter",
            "bit_count.uint*", "--retry-unexpected", "2", "--retry-cases", "0")
    r = load("flaky-retried")
    v = verdicts(r)
    if "fail" not in once.values() or v["flake"] == 0 or set(v) - {"pass", "flake"}:
        fail("retry-unexpected", f"flaky plugin: {dict(v)} (without retries: "
                                 f"{dict(collections.Counter(once.values()))})")
    for c in r["cases"]:
        if c["verdict"] != "flake":
            continue
        runs = c.get("repeats", [])
        if len(runs) != 2 or runs[0]["verdict"] != "fail" or runs[1]["verdict"] != "pass" or \
                runs[1]["worker"] != "a fresh worker (--retry-unexpected)":
            fail("retry-unexpected", f"{c['id']}: repeats {runs}")
            break
    if p.returncode != 1:
        fail("retry-unexpected", f"flakes fail the run: exit code {p.returncode}, not 1")
    # A deterministic failure stays a failure, after two more runs each.
    p = run("strides-retried", "--backend", PLUGINS["broken_ignores_strides"], "--filter",
            STRIDES, "--retry-unexpected", "2")
    r = load("strides-retried")
    failing = {c["id"] for c in r["cases"] if c["verdict"] == "fail"}
    with open(os.path.join(WORK, "strides-retried", "results.jsonl")) as f:
        ends = [json.loads(line) for line in f if '"record":"end"' in line]
    retried = collections.Counter(e["id"] for e in ends if e["round"] > 0)
    if not failing or set(verdicts(r)) - {"pass", "fail"} or \
            set(retried) != failing or set(retried.values()) != {2}:
        fail("retry-unexpected", f"deterministic failures: {dict(verdicts(r))}, retried "
                                 f"{len(retried)} of {len(failing)}")
    # With a baseline that expects them, they are not unexpected: no retry.
    baseline = os.path.join(WORK, "strides.baseline")
    with open(baseline, "w") as f:
        f.writelines(f"{cid} fail\n" for cid in sorted(failing))
    p = run("strides-baselined", "--backend", PLUGINS["broken_ignores_strides"], "--filter",
            STRIDES, "--retry-unexpected", "2", "--baseline", baseline)
    with open(os.path.join(WORK, "strides-baselined", "results.jsonl")) as f:
        rounds = {json.loads(line).get("round") for line in f if '"record":"end"' in line}
    if p.returncode != 0 or rounds != {0}:
        fail("retry-unexpected", f"expected failures: exit code {p.returncode}, rounds {rounds}")
    retry_cases(failing)
    print(f"ok: --retry-unexpected: flaky -> {dict(verdicts(load('flaky-retried')))}, "
          f"deterministic -> {dict(verdicts(r))}", flush=True)


def retry_cases(failing):
    # More unexpected outcomes than --retry-cases M: M of them, spread evenly over the plan (the
    # j-th of M is the floor(j*X/M)-th of the X in plan order), run again; every view says so.
    p = run("strides-capped", "--backend", PLUGINS["broken_ignores_strides"], "--filter",
            STRIDES, "--retry-unexpected", "2", "--retry-cases", "3")
    r = load("strides-capped")
    order = [c["id"] for c in r["cases"] if c["id"] in failing]
    want = {order[j * len(order) // 3] for j in range(3)}
    with open(os.path.join(WORK, "strides-capped", "results.jsonl")) as f:
        ends = [json.loads(line) for line in f if '"record":"end"' in line]
    retried = collections.Counter(e["id"] for e in ends if e["round"] > 0)
    note = f"{len(failing)} cases had an unexpected outcome; 3 of them, spread evenly over the " \
           "plan, ran again (--retry-cases 3): 0 of the 3 are flakes"
    views = {}
    for name in ("summary.md", "report.html", "junit.xml"):
        with open(os.path.join(WORK, "strides-capped", name), encoding="utf-8") as f:
            views[name] = note in f.read()
    if len(failing) <= 3 or dict(retried) != {cid: 2 for cid in want} or \
            r.get("retried") != note or not all(views.values()) or p.returncode != 1 or \
            {c["id"] for c in r["cases"] if c["verdict"] == "fail"} != failing:
        fail("retry-cases", f"retried {dict(retried)}, want {sorted(want)} twice each; "
                            f"report says {r.get('retried')!r}; views {views}; exit {p.returncode}")
    # Without a cap (0), every one of them runs again.
    p = run("strides-uncapped", "--backend", PLUGINS["broken_ignores_strides"], "--filter",
            STRIDES, "--retry-unexpected", "1", "--retry-cases", "0")
    with open(os.path.join(WORK, "strides-uncapped", "results.jsonl")) as f:
        again = {json.loads(line)["id"] for line in f
                 if '"record":"end"' in line and json.loads(line)["round"] > 0}
    if again != failing or "retried" in load("strides-uncapped"):
        fail("retry-cases", f"--retry-cases 0 retried {len(again)} of {len(failing)}")


def rerun():
    # The first run: a broken plugin at a path of its own; stopped early, so not_run cases too.
    lib = os.path.join(WORK, "libimpl.so")
    shutil.copyfile(PLUGINS["broken_ignores_strides"], lib)
    run("first", "--backend", lib, "--filter", "bit_xor.*", "--max-fails", "20", "--seed", "7")
    first = load("first")
    todo = sorted(c["id"] for c in first["cases"] if c["verdict"] not in
                  ("pass", "warn", "recorded", "not_supported", "skipped"))
    p = run("rerun", "--rerun", os.path.join(WORK, "first"))
    r = load("rerun")
    if sorted(c["id"] for c in r["cases"]) != todo or p.returncode != 1:
        fail("rerun", f"ran {len(r['cases'])} cases, want the {len(todo)} that did not pass; "
                      f"exit code {p.returncode}: {p.stderr.strip()}")
    if r["seed"] != first["seed"] or r["backend"]["spec"] != lib:
        fail("rerun", f"seed {r['seed']} / backend {r['backend']['spec']}: not the report's")
    # A rerun of the rerun (its report records the options it took) with --filter narrowing.
    p = run("rerun2", "--rerun", os.path.join(WORK, "rerun", "report.json"), "--filter",
            "bit_xor.uint8.*")
    again = sorted(c["id"] for c in load("rerun2")["cases"])
    want = sorted(c["id"] for c in r["cases"]
                  if c["verdict"] == "fail" and c["id"].startswith("bit_xor.uint8."))
    if again != want or not want:
        fail("rerun", f"rerun of a rerun: {len(again)} cases, want {len(want)}")
    # The plugin fixed in place: the rerun is green.
    shutil.copyfile(PLUGINS["example"], lib)
    p = run("green", "--rerun", os.path.join(WORK, "rerun"))
    v = verdicts(load("green"))
    if p.returncode != 0 or set(v) - {"pass", "recorded"} or sum(v.values()) != verdicts(r)["fail"]:
        fail("rerun", f"fixed plugin: exit code {p.returncode}, {dict(v)}")
    print(f"ok: --rerun: {len(todo)} cases that did not pass of {len(first['cases'])}; "
          f"fixed: {dict(v)}", flush=True)


def progress():
    pattern = re.compile(r"^bitcts run: \d+/\d+ cases \(\d+\.\d%\), \d+ failing, "
                         r"\d+\.\d cases/s, (\d+ s|unknown) left$")
    args = ["--backend", PLUGINS["exec_hang"], "--filter", "bit_count.uint8.uint8.r1.*", "--timeout",
            "1", "--max-timeouts", "1", "--progress-interval", "0.1"]
    p = run("progress", *args, quiet=False)
    lines = [line for line in p.stderr.splitlines() if line.startswith("bitcts run: ")]
    bad = [line for line in lines if not pattern.match(line)]
    if not lines or bad:
        fail("progress", f"{len(lines)} progress lines, malformed: {bad[:2]}; stderr "
                         f"{p.stderr[-300:]!r}")
    p = run("progress-quiet", *args)
    if p.stderr.strip():
        fail("progress", f"--quiet printed {p.stderr[-200:]!r}")
    print(f"ok: progress lines: {lines[0]!r}", flush=True)


def bad_input():
    ex = PLUGINS["example"]
    with open(os.path.join(WORK, "garbage.json"), "w") as f:
        f.write("{not json")
    cases = [
        (["--backend", ex, "--max-fails", "0"], "--max-fails"),
        (["--backend", ex, "--max-fails", "x"], "--max-fails"),
        (["--backend", ex, "--max-timeouts", "-1"], "--max-timeouts"),
        (["--backend", ex, "--retry-unexpected", "0"], "--retry-unexpected"),
        (["--backend", ex, "--retry-unexpected", "65"], "--retry-unexpected"),
        (["--backend", ex, "--retry-cases", "-1"], "--retry-cases"),
        (["--backend", ex, "--progress-interval", "0"], "--progress-interval"),
        (["--rerun", os.path.join(WORK, "no-such-report")], "no-such-report"),
        (["--rerun", os.path.join(WORK, "garbage.json")], "garbage.json"),
        (["--rerun", os.path.join(WORK, "first"), "--timeout", "5"], "--timeout differs"),
        (["--rerun", os.path.join(WORK, "first"), "--seed", "8"], "--seed differs"),
        (["--rerun", os.path.join(WORK, "first"), "--backend", ex], "--backend differs"),
        (["--rerun", os.path.join(WORK, "first"), "--tier", "smoke"], "--tier does not apply"),
    ]
    for args, want in cases:
        out = os.path.join(WORK, "refused")
        p = subprocess.run([BITCTS, "run", "--report", out, "--quiet"] + args,
                           capture_output=True, text=True, timeout=60)
        lines = p.stderr.splitlines()
        if p.returncode != 2 or len(lines) != 1 or want not in lines[0] or os.path.exists(out):
            fail("bad input", f"{args}: exit code {p.returncode}, stderr {p.stderr!r}")
    p = subprocess.run([BITCTS, "run", "--rerun", os.path.join(WORK, "first"), "--report",
                        os.path.join(WORK, "first"), "--quiet"], capture_output=True, text=True)
    if p.returncode != 2 or "holds the report being rerun" not in p.stderr:
        fail("bad input", f"--rerun into its own folder: {p.returncode} {p.stderr!r}")
    print(f"ok: bad input: {len(cases) + 1} refusals, one line each", flush=True)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    for check in (max_fails, max_timeouts, retry_unexpected, rerun, progress, bad_input):
        check()
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
    print("all hold")


if __name__ == "__main__":
    main()
