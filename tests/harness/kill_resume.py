#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SIGKILL at random moments, then --resume twice, equals the uninterrupted report.

The harness is killed with no chance to clean up (kill -9 of the bitcts process alone); its
workers must die with it (nothing of the run's may be left), and the log it leaves, however cut,
must resume, and resume again, to the report an uninterrupted run writes. The moments come
from a fixed seed, so a failure reproduces. Also: a log cut in the middle of a line.

Usage: kill_resume.py BITCTS WORKDIR PLUGIN   (exit 0: all hold)
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import uuid

BITCTS, WORK, PLUGIN = sys.argv[1:4]
SELECTION = ["--filter", "bit_[anox]*", "--jobs", "2", "--quiet", "--timeout", "10"]
failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL: {message}", flush=True)


def key(report):
    with open(os.path.join(report, "report.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    return [(c["id"], c["verdict"], c["output_xxh3_128"], c["detail"], c["policy"]) for c in cases]


def left_behind(token):
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"KILL_RESUME_TOKEN={token}".encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def run(report, extra=(), kill_after=None):
    """Runs bitcts; with kill_after, SIGKILLs it that many seconds in. Returns (rc, killed)."""
    token = uuid.uuid4().hex
    env = dict(os.environ, KILL_RESUME_TOKEN=token)
    p = subprocess.Popen([BITCTS, "run", "--backend", PLUGIN, "--report", report] + SELECTION +
                         list(extra), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    killed = False
    if kill_after is not None:
        try:
            p.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            killed = True
    _, err = p.communicate(timeout=300)
    # The workers notice their parent's death (PDEATHSIG) at once; a loaded machine may take a
    # while to reap them, so the wait is long, and ends as soon as none is left.
    deadline = time.monotonic() + 120
    while True:
        left = left_behind(token)
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    if left:
        fail(f"processes left after the harness was killed: {left}")
    if not killed and p.returncode not in (0, 1):
        fail(f"bitcts run {' '.join(extra)}: rc {p.returncode}: {err.decode(errors='replace')[-300:]}")
    return p.returncode, killed


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    full = os.path.join(WORK, "full")
    t0 = time.monotonic()
    rc_full, _ = run(full)
    span = time.monotonic() - t0
    want = key(full)
    rng = random.Random(20261123)
    for trial in range(4):
        report = os.path.join(WORK, f"killed{trial}")
        moments = []
        rc, killed = run(report, kill_after=rng.uniform(0.05, 0.9) * span)
        moments.append(killed)
        # The first resume may itself be killed (trials 2 and 3), then resumed again.
        if trial >= 2:
            rc, killed = run(report, ["--resume"], kill_after=rng.uniform(0.05, 0.5) * span)
            moments.append(killed)
        for attempt in range(2):
            rc, _ = run(report, ["--resume"])
            if rc != rc_full:
                fail(f"trial {trial}: --resume #{attempt + 1}: rc {rc}, the full run's {rc_full}")
            if key(report) != want:
                fail(f"trial {trial}: --resume #{attempt + 1}: the report differs from the full run's")
        print(f"ok: trial {trial}: killed {sum(moments)} time(s), resumed twice", flush=True)
    # A log cut in the middle of a line (a disk that filled, a copy cut short).
    report = os.path.join(WORK, "cut")
    shutil.copytree(full, report)
    log = os.path.join(report, "results.jsonl")
    size = os.path.getsize(log)
    with open(log, "r+b") as f:
        f.truncate(rng.randrange(size // 3, size - 10))
    os.remove(os.path.join(report, "report.json"))
    for attempt in range(2):
        rc, _ = run(report, ["--resume"])
        if rc != rc_full or key(report) != want:
            fail(f"cut log: --resume #{attempt + 1} does not give the full run's report (rc {rc})")
    print("ok: a log cut mid-line resumes, twice", flush=True)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
