#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The run log holds every case that ended while the run is still going.

results.jsonl is written as cases end and flushed once per round of the parent's loop, so a
harness killed at any moment loses at most the cases of the round in flight. Here a backend
hangs on its last case (the broken plugin's `hang` bug: BIT_XOR UINT16), one call per case in
one worker: while the parent waits out that hang, the log must already hold a whole `end`
record of every case before it. The parent is then SIGKILLed; the log stays whole records.
The hang lasts until its deadline (--timeout, far longer than a few cases take), so the order
of events, not the machine's speed, decides.

Usage: log_flush.py BITCTS WORKDIR HANG_PLUGIN   (exit 0: all hold)
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

BITCTS, WORK, PLUGIN = sys.argv[1:4]
GOOD = "bit_xor.uint32.r1*"          # plan order: before the hanging case
HANG = "bit_xor.uint16.r1.packed.0"  # sleeps forever in the plugin
TIMEOUT_S = "300"                    # the hang's deadline: the test ends the run long before


def records(path):
    """The whole records of the log (a last line without its newline is not one yet)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.split("\n")[:-1]]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    listed = subprocess.run([BITCTS, "list", "--filter", GOOD], capture_output=True, text=True,
                            check=True).stdout.split()
    report = os.path.join(WORK, "r")
    log = os.path.join(report, "results.jsonl")
    p = subprocess.Popen([BITCTS, "run", "--backend", PLUGIN, "--filter", GOOD, "--filter", HANG,
                          "--jobs", "1", "--batch-cases", "1", "--timeout", TIMEOUT_S,
                          "--report", report, "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ended = set()
    while p.poll() is None and ended != set(listed):
        ended = {r["id"] for r in records(log) if r.get("record") == "end"}
        time.sleep(0.05)
    alive = p.poll() is None
    if alive:
        p.send_signal(signal.SIGKILL)
    p.wait()
    failures = []
    if not alive:
        failures.append(f"the run ended (rc {p.returncode}) before its log held the {len(listed)} "
                        f"cases that ended before the hang; it held {len(ended)}")
    final = records(log)
    ends = [r["id"] for r in final if r.get("record") == "end"]
    if alive and sorted(ends) != sorted(listed):
        failures.append(f"after SIGKILL the log's end records are {sorted(ends)}, not {listed}")
    if HANG in ends:
        failures.append("the hanging case has an end record")
    begins = [r["id"] for r in final if r.get("record") == "begin"]
    if alive and sorted(begins) != sorted(listed):
        failures.append(f"begin records {sorted(begins)}, not one per ended case")
    for message in failures:
        print(f"FAIL: {message}")
    if not failures:
        print(f"ok: {len(listed)} cases logged while the run waited on a hang; killed, the log "
              "is whole")
    shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
