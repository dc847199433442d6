#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile plugins (tests/plugins/hostile_plugin.c) against `bitcts run`.

Each plugin is the correct example plugin plus one misbehaviour. For each, the run must end
with the verdict the behaviour deserves on exactly the cases it touched (the others pass),
every selected case exactly once in report.json and in results.jsonl, the exit code that the
verdicts call for, no internal_error, no process of the plugin's left behind, nothing but
sanitised text in the report and on the terminal, and a wall time bounded by a multiple of
--timeout per hang plus a slack far above what the run takes (the bound catches a harness that
waits on a hung plugin, not a slow or loaded machine). Only the scenarios that hang get the
short --timeout; the others get a long one, so that a correct case is never a timeout on a
loaded machine. Then: a mutant that writes one byte outside its output (every byte value, near
and far, before and after) never passes; --repeat finds a flake; a repro line is valid shell
for a hostile plugin path and reproduces its case in its own folder.

Usage: hostile_plugins.py BITCTS WORKDIR NAME=PLUGIN...   (exit 0: all hold)
HOSTILE_ONLY=name,name... runs only those scenarios (and no special checks).
HOSTILE_SKIP=name,name... leaves those scenarios out (e.g. under a sanitizer: a plugin that limits
the address space leaves AddressSanitizer's shadow memory no room).
"""
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

BITCTS = sys.argv[1]
WORK = sys.argv[2]
PLUGINS = dict(arg.split("=", 1) for arg in sys.argv[3:])

FILTER = "*.uint16.*r2.pa*"  # every operator, BIT_COUNT's two output types; 54 cases
TIMEOUT = 0.5  # the watchdog of the scenarios that hang: each of their hangs costs one
LONG_TIMEOUT = 60  # the others': nothing of theirs hangs
SLACK = 120  # seconds a run may take beyond its hangs' timeouts
HUNG = r"hung in the backend's operator calls: no progress within 0.5 s, the process "
OK = {"pass", "recorded"}  # a correct case: shifts by >= the width are recorded
failures = []


def fail(name, message):
    failures.append(f"{name}: {message}")
    print(f"FAIL: {name}: {message}", flush=True)


def listed(filt):
    out = subprocess.run([BITCTS, "list", "--filter", filt], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def leftovers(token):
    """Processes whose environment carries the run's token: the plugin's, left behind."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"HOSTILE_TOKEN={token}".encode() in f.read():
                    found.append(pid)
        except OSError:
            pass
    return found


def no_controls(value, where, name):
    """Every string in the report is valid text without control characters."""
    if isinstance(value, str):
        if re.search(r"[\x00-\x1f\x7f-\x9f]", value):
            fail(name, f"a control character in the report at {where}: {value[:80]!r}")
            return False
    elif isinstance(value, dict):
        return all(no_controls(v, f"{where}.{k}", name) for k, v in value.items())
    elif isinstance(value, list):
        return all(no_controls(v, f"{where}[{i}]", name) for i, v in enumerate(value))
    return True


def run(name, plugin, args, report, env_extra=None):
    token = uuid.uuid4().hex
    env = dict(os.environ, HOSTILE_TOKEN=token, HOSTILE_DIR=os.path.join(WORK, "markers"))
    env.update(env_extra or {})
    os.makedirs(env["HOSTILE_DIR"], exist_ok=True)
    start = time.monotonic()
    # --max-timeouts 0: every hang gets its own verdict here (the stop rule has run_loop.py).
    p = subprocess.run([BITCTS, "run", "--backend", plugin, "--report", report, "--quiet",
                        "--max-timeouts", "0"] + args, capture_output=True, env=env, timeout=600)
    wall = time.monotonic() - start
    time.sleep(0.05)
    return p, wall, leftovers(token)


def check_run(name, p, wall, left, report, ids, limit_s, rounds=1):
    """The checks every run must pass; returns the cases by id, or None."""
    for stream, text in (("stdout", p.stdout), ("stderr", p.stderr)):
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError:
            fail(name, f"bitcts's {stream} is not UTF-8")
            continue
        if re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", decoded):
            fail(name, f"a control character on bitcts's {stream}")
        if len(text) > 65536:
            fail(name, f"{len(text)} bytes on bitcts's {stream}: the plugin's output leaked")
    if left:
        fail(name, f"processes left behind: {left}")
    if wall > limit_s:
        fail(name, f"took {wall:.1f} s (limit {limit_s:.1f} s)")
    try:
        with open(os.path.join(report, "report.json"), encoding="utf-8") as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        fail(name, f"no report ({e}); rc {p.returncode}; {p.stderr[-300:]!r}")
        return None
    no_controls(rep, "report", name)
    cases = {}
    for c in rep["cases"]:
        if c["id"] in cases:
            fail(name, f"{c['id']} twice in report.json")
        cases[c["id"]] = c
    if sorted(cases) != sorted(ids):
        fail(name, f"report.json has {len(cases)} cases, the selection {len(ids)}")
    # Every case ends in the log once per round; a worker's failure after its last case (in
    # instance_destroy, say) amends that case with a later record, which is what counts.
    ends, last = {}, {}
    with open(os.path.join(report, "results.jsonl"), encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("record") == "end":
                ends[rec["id"]] = ends.get(rec["id"], 0) + 1
                last[rec["id"]] = rec["verdict"]
    if sorted(ends) != sorted(ids) or any(n < rounds for n in ends.values()):
        fail(name, f"results.jsonl does not hold every case {rounds} time(s)")
    if rounds == 1 and any(last.get(i) != c["verdict"] for i, c in cases.items()):
        fail(name, "a verdict in report.json is not the case's last record in results.jsonl")
    verdicts = {c["verdict"] for c in cases.values()}
    if "internal_error" in verdicts:
        bad = [c for c in cases.values() if c["verdict"] == "internal_error"][0]
        fail(name, f"internal_error: {bad['id']}: {bad['detail']}")
    want_rc = 1 if verdicts - {"pass", "recorded", "warn", "not_supported", "expected_fail"} else 0
    if p.returncode != want_rc:
        fail(name, f"exit code {p.returncode}, expected {want_rc}")
    return cases


# Each: name -> (the verdicts of BIT_COUNT cases, of the others, a pattern their details match,
# extra arguments, filter). "all" gives every case the same verdict set.
def all_(v, pattern="", args=(), filt=FILTER):
    return ({v} if isinstance(v, str) else set(v), {v} if isinstance(v, str) else set(v),
            pattern, list(args), filt)


def count(v, pattern="", args=(), filt=FILTER):
    return ({v} if isinstance(v, str) else set(v), OK, pattern, list(args), filt)


def fine(args=(), filt=FILTER):
    return (OK, OK, "", list(args), filt)


CASE = ["--isolate", "case"]
# Scenarios where only the instances after the probe's misbehave: the probe's process runs the
# first batch (harness/run/runner.c), so exactly a first run of cases in plan order passes.
PROBE_FIRST = {"create_crash_in_workers", "caps_fickle"}
SCENARIOS = {
    "ctor_exit": all_("crash", r"loading .*exit status 0"),
    "ctor_abort": all_("crash", r"loading .*signal 6"),
    "ctor_loop": all_("timeout", r"hung in loading the backend .*no progress within 0.5 s"),
    "ctor_daemon": fine(),
    "ctor_flood_stderr": fine(),
    "negotiate_hang": all_("timeout", r"loading"),
    "negotiate_garbage_table": all_("crash", r"loading .*signal 11"),
    "create_exit": all_("crash", r"instance_create .*exit status 0"),
    "create_hang": all_("timeout", r"instance_create"),
    # The first instance of a run is the probe's, whose process then runs the first batch:
    # those cases pass (PROBE_FIRST), every later worker's instance is the one that misbehaves.
    "create_crash_in_workers": all_({"pass", "crash"},
                                    r"instance_create: signal 11 .*3 workers in a row"),
    # A thread that reads the probe's standard input, where its first batch comes: every case
    # still runs once (in the probe's process, or, when the batch was taken, in another).
    "create_stdin_thief": fine(),
    "log_flood": fine(),
    "caps_crash": all_("crash", r"capability queries .*signal 11"),
    "info_garbage": all_("crash", r"capability queries .*signal 11"),
    "bad_strings": fine(),
    "exec_segv": count("crash", r"in the backend.s operator calls: signal 11 .*a null pointer"),
    "exec_abort": count("crash", r"in the backend.s operator calls: signal 6"),
    "exec_exit0": count("crash", r"in the backend.s operator calls: exit status 0"),
    "exec_hang": count("timeout", HUNG),
    "exec_sigstop": count("timeout", r"stopped its process .* no progress within 0.5 s"),
    "exec_deaf_hang": count("timeout", HUNG),
    "exec_close_fds_hang": count("timeout", HUNG),
    "exec_kill_group": count("crash", r"signal 9"),
    "exec_raise_term": count("crash", r"signal 15"),
    "exec_stack_overflow": count("crash", r"stack overflow"),
    "exec_bad_error": count("fail", r"operator_execute returned status 201"),
    "exec_fork_sleeper": fine(),
    "exec_setsid_grandchild": fine(),
    "exec_close_fds": count("crash", r"never reached the harness"),
    "exec_flood_stdout": fine(),
    "exec_flood_fds": count("warn", r"wrote \d+ lines to the harness's result channel"),
    "exec_forge_pass": count("fail", r"elements differ"),
    "exec_setrlimit_as": count("fail", r"changed the process's RLIMIT_AS"),
    "exec_setrlimit_nofile": count("fail", r"changed the process's RLIMIT_NOFILE"),
    "exec_segv_handler": count("fail", r"replaced the harness's SIGSEGV handler"),
    "exec_write_input": count("fail", r"input .* changed"),
    "exec_stale_write": count({"fail", "crash"}, r"nondeterministic|retired buffer|changed"),
    "exec_leak_child_stdout": fine(),
    "exec_flaky_reused": count({"pass", "fail"}, r"^$|elements differ"),
    "destroy_hang": all_("timeout", r"after this case ended .*instance_destroy", CASE,
                         "*.uint16.*r2.packed.*"),
    "destroy_crash": all_("crash", r"after this case ended .*instance_destroy .*signal 11", CASE,
                          "*.uint16.*r2.packed.*"),
    # A worker leaves the plugin loaded until it exits (a thread the plugin left running keeps
    # its code), so a library destructor that would hang never runs: every case passes.
    "dtor_hang": fine(CASE, "*.uint16.*r2.packed.*"),
    # A thread left spinning in the plugin by plugin_shutdown: the worker exits under it.
    "shutdown_spin_thread": fine(CASE, "*.r2.packed.*"),
    "shutdown_crash": all_("crash", r"after this case ended .*signal 11", CASE,
                           "*.uint16.*r2.packed.*"),
    # The data boundary: the description a plugin is lent is a read-only copy, compared after
    # every call; the claims of every worker's instance must be the probe's.
    "desc_shrink": count("crash", r"the harness's operator description \(read-only"),
    "desc_unprotect_shrink": count(
        "fail", r"changed the operator description it was lent during operator_create: "
                r"Input sizes\[\d\] \d+ -> 1"),
    "caps_fickle": all_({"pass", "fail"}, r"claims differ from the probe instance's: it was told "
                                          r"'bit_and=in:0x[0-9a-f]+,.*', this worker's instance "
                                          r"says 'bit_and=none'"),
    # A write that lands after its case (a thread left running) is charged to the case whose
    # call left it, never to the case running when it lands (that one is run again).
    "exec_late_write": count({"pass", "crash"},
                             r"retired buffer \(Output\) of case \d+.*written by a thread the "
                             r"backend left running after that case's calls, during case \d+"),
    # A plugin that exhausts the process's memory is charged with it, never the harness.
    # (A case whose calls took it passes when nothing after it in its worker needed memory;
    # special_checks requires that the exhaustion was charged at least once.)
    "mem_eat_address_space": count({"pass", "fail"}, r"^out of memory: .* charged to the backend"),
}


def scenario(name):
    count_v, other_v, pattern, args, filt = SCENARIOS[name]
    ids = listed(filt)
    report = os.path.join(WORK, name)
    hanging = "timeout" in count_v | other_v
    timeout = TIMEOUT if hanging else LONG_TIMEOUT
    p, wall, left = run(name, PLUGINS[name], ["--filter", filt, "--timeout", str(timeout),
                                              "--jobs", "2"] + args, report)
    # Hangs cost a timeout each, shared by two workers; everything else is quick.
    hangs = 0
    if hanging:
        hangs = len(ids) if "isolate" in args else len([i for i in ids if i.startswith("bit_count")])
    limit = SLACK + 4 * TIMEOUT * hangs
    before = len(failures)
    cases = check_run(name, p, wall, left, report, ids, limit)
    if cases is None:
        return None
    for cid, c in sorted(cases.items()):
        want = count_v if cid.startswith("bit_count") else other_v
        if c["verdict"] not in want:
            fail(name, f"{cid}: {c['verdict']} (want {'/'.join(sorted(want))}): {c['detail']}")
            break
        if pattern and c["verdict"] not in OK and not re.search(pattern, c["detail"]):
            fail(name, f"{cid}: detail {c['detail']!r} does not match {pattern!r}")
            break
    if name in PROBE_FIRST and len(failures) == before:
        passed = [cid for cid in ids if cases[cid]["verdict"] == "pass"]
        if not passed or passed != ids[:len(passed)] or len(passed) == len(ids):
            fail(name, "the passing cases are not the first batch alone, which the probe's "
                       f"process runs: {len(passed)} of {len(ids)}, {passed[:3]}...")
    if len(failures) == before:
        print(f"ok: {name}: {len(cases)} cases, rc {p.returncode}, {wall:.1f} s", flush=True)
    return cases


def special_checks(results):
    # Each late write is charged to the case that owned the buffer, and only BIT_COUNT's calls
    # leave writers behind: so the cases charged are BIT_COUNT's, each its own plan index.
    late = results.get("exec_late_write") or {}
    charged = [c for c in late.values() if c["verdict"] == "crash"]
    if not charged:
        fail("exec_late_write", "no late write was charged")
    for c in charged:
        owner = re.search(r"retired buffer \(Output\) of case (\d+)", c["detail"])
        if owner is None or int(owner.group(1)) != c["plan_index"]:
            fail("exec_late_write", f"{c['id']} (plan index {c['plan_index']}) was charged with "
                                    f"another case's late write: {c['detail']}")
    # Exhausted memory is charged to BIT_COUNT's cases (whose calls took it), never another's.
    eaten = results.get("mem_eat_address_space") or {}
    if not any(c["verdict"] == "fail" for c in eaten.values()):
        fail("mem_eat_address_space", "no case was charged with the exhausted memory")
    # The flooding plugins' output is in the report, bounded; the terminal saw none of it.
    flood = results.get("exec_flood_stdout") or {}
    counted = [c for c in flood.values() if c["id"].startswith("bit_count")]
    if not counted or any(c.get("output", {}).get("bytes", 0) < (64 << 20) for c in counted):
        fail("exec_flood_stdout", "the captured output's size is not in the report")
    if any(len(c.get("output", {}).get("excerpt", "")) > 20000 for c in flood.values()):
        fail("exec_flood_stdout", "an excerpt is not bounded")
    # A plugin's bad strings are escaped, not dropped.
    with open(os.path.join(WORK, "bad_strings", "report.json"), encoding="utf-8") as f:
        backend = json.load(f)["backend"]
    if "\\xFF" not in backend.get("name", ""):
        fail("bad_strings", f"the backend's name is not shown escaped: {backend.get('name')!r}")
    # The log of a run whose plugin wrote on every descriptor resumes, and changes nothing.
    report = os.path.join(WORK, "exec_flood_fds")
    before = open(os.path.join(report, "report.json"), "rb").read()
    for attempt in (1, 2):
        p = subprocess.run([BITCTS, "run", "--backend", PLUGINS["exec_flood_fds"], "--filter",
                            FILTER, "--timeout", str(LONG_TIMEOUT), "--report", report, "--resume",
                            "--quiet"], capture_output=True)
        if p.returncode != 0:
            fail("exec_flood_fds", f"--resume #{attempt}: rc {p.returncode}: {p.stderr[-300:]!r}")
    after = json.load(open(os.path.join(report, "report.json")))
    if [c["verdict"] for c in after["cases"]] != [c["verdict"] for c in json.loads(before)["cases"]]:
        fail("exec_flood_fds", "--resume changed the verdicts")


def careless():
    """Baseline kinds are honoured; timeouts record their time; Ctrl-C says how to resume."""
    segv = PLUGINS["exec_segv"]
    for kind, want, want_rc in (("crash", "expected_fail", 0), ("timeout", "crash", 1)):
        baseline = os.path.join(WORK, f"baseline-{kind}.txt")
        with open(baseline, "w") as f:
            f.write(f"bit_count.* {kind} tracked upstream\n")
        report = os.path.join(WORK, f"baseline-{kind}")
        p = subprocess.run([BITCTS, "run", "--backend", segv, "--filter", FILTER, "--baseline",
                            baseline, "--report", report, "--quiet"], capture_output=True)
        cases = json.load(open(os.path.join(report, "report.json")))["cases"]
        got = {c["verdict"] for c in cases if c["id"].startswith("bit_count")}
        if got != {want} or p.returncode != want_rc:
            fail("baseline", f"a '{kind}' baseline over crashes gave {got}, rc {p.returncode}; "
                             f"want {want}, rc {want_rc}")
    hang = json.load(open(os.path.join(WORK, "exec_hang", "report.json")))["cases"]
    short = [c for c in hang if c["verdict"] == "timeout" and c["duration_ms"] < 900 * TIMEOUT]
    if short:
        fail("exec_hang", f"a timeout records {short[0]['duration_ms']} ms of a {TIMEOUT} s limit")
    report = os.path.join(WORK, "interrupted")
    args = [BITCTS, "run", "--backend", PLUGINS["exec_hang"], "--filter", FILTER, "--jobs", "1",
            "--timeout", "1", "--report", report, "--quiet", "--max-timeouts", "0"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # SIGINT once the run has logged its first case (a loaded machine may take a while to get
    # there), then a moment into the hangs that follow.
    log = os.path.join(report, "results.jsonl")
    while p.poll() is None and not (os.path.exists(log) and os.path.getsize(log) > 0):
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    text = err.decode("utf-8", "replace")
    if p.returncode != 130 or "--resume" not in text or "interrupted" not in text:
        fail("interrupt", f"SIGINT: rc {p.returncode}, stderr {text[-300:]!r}")
    elif os.path.exists(os.path.join(report, "report.json")):
        fail("interrupt", "an interrupted run wrote a report")
    else:
        p = subprocess.run(args + ["--resume"], capture_output=True, timeout=120)
        cases = json.load(open(os.path.join(report, "report.json")))["cases"]
        if p.returncode != 1 or [c["verdict"] for c in cases] != [c["verdict"] for c in hang]:
            fail("interrupt", f"--resume after SIGINT: rc {p.returncode}, verdicts differ")
        else:
            print("ok: careless users: baseline kinds, timeout durations, Ctrl-C and --resume",
                  flush=True)


def address_space():
    """Under a 4 GiB address-space limit (common on shared machines) every smoke case runs as
    without one; under a limit too small for a worker, the run stops up front with one line
    naming the limit and the need, and writes no report."""
    import resource

    def limited(mib):
        def apply():
            resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
        return apply

    report = os.path.join(WORK, "rlimit-as-4g")
    shutil.rmtree(report, ignore_errors=True)
    p = subprocess.run([BITCTS, "run", "--backend", "cpu", "--tier", "smoke", "--jobs", "2",
                        "--report", report, "--quiet"], capture_output=True,
                       preexec_fn=limited(4096), timeout=600)
    try:
        cases = json.load(open(os.path.join(report, "report.json")))["cases"]
    except (OSError, ValueError):
        cases = []
    bad = [c for c in cases if c["verdict"] not in OK]
    if p.returncode != 0 or len(cases) != len(listed_tier("smoke")) or bad:
        fail("address_space", f"under RLIMIT_AS 4 GiB: rc {p.returncode}, {len(cases)} cases, "
                              f"{len(bad)} not passed: {(bad or [{}])[0].get('detail', '')!r} "
                              f"{p.stderr[-300:]!r}")
        return
    report = os.path.join(WORK, "rlimit-as-tiny")
    shutil.rmtree(report, ignore_errors=True)
    p = subprocess.run([BITCTS, "run", "--backend", "cpu", "--tier", "smoke", "--report",
                        report, "--quiet"], capture_output=True, preexec_fn=limited(40),
                       timeout=600)
    err = p.stderr.decode("utf-8", "replace").strip()
    if (p.returncode != 2 or len(err.splitlines()) != 1 or "RLIMIT_AS" not in err or
            "a worker needs at least" not in err or
            os.path.exists(os.path.join(report, "report.json"))):
        fail("address_space", f"under RLIMIT_AS 40 MiB: rc {p.returncode}, stderr {err!r}")
        return
    print(f"ok: address space: smoke tier whole under RLIMIT_AS 4 GiB; 40 MiB refused: {err}",
          flush=True)


def listed_tier(tier):
    out = subprocess.run([BITCTS, "list", "--tier", tier], capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


def mutant():
    """One byte outside the output, every byte value, 20 distances: never a pass."""
    name = "mutant_spill"
    filt = "*.r[1-4].*"
    ids = listed(filt)
    report = os.path.join(WORK, name)
    p, wall, left = run(name, PLUGINS[name],
                        ["--filter", filt, "--timeout", str(LONG_TIMEOUT), "--jobs", "2"], report)
    cases = check_run(name, p, wall, left, report, ids, 600)
    if cases is None:
        return
    values, offsets = set(), set()
    passed = 0
    for cid, c in cases.items():
        spills = re.findall(r"spill (\d+) (-?\d+)", c.get("output", {}).get("excerpt", ""))
        for v, off in spills:
            values.add(int(v))
            offsets.add(int(off))
        if spills and c["verdict"] not in ("fail", "crash"):
            passed += 1
            fail(name, f"{cid}: {c['verdict']} after writing outside its output: {spills}")
        if not spills and ".invalid_" not in cid and c["verdict"] not in ("not_supported",):
            fail(name, f"{cid}: {c['verdict']} with no spill recorded")
    if len(values) != 256 or len(offsets) != 20:
        fail(name, f"covered {len(values)} byte values and {len(offsets)} distances, want 256, 20")
    print(f"ok: {name}: {len(cases)} cases, {len(values)} byte values x {len(offsets)} distances, "
          f"none passed, {wall:.1f} s", flush=True)


def flake():
    """A defect that shows only after many calls in one process: --repeat 2 calls it a flake."""
    name = "exec_flaky_reused"
    report = os.path.join(WORK, "flake")
    ids = listed(FILTER)
    p, wall, left = run(name, PLUGINS[name], ["--filter", FILTER, "--jobs", "1", "--repeat", "2"],
                        report)
    cases = check_run(name, p, wall, left, report, ids, SLACK, rounds=2)
    if cases is None:
        return
    flakes = [c for c in cases.values() if c["verdict"] == "flake"]
    if not flakes or any(not c["id"].startswith("bit_count") for c in flakes):
        fail(name, f"--repeat 2: {len(flakes)} flakes, all BIT_COUNT expected")
    for c in flakes:
        outcomes = {r["verdict"] for r in c.get("repeats", [])}
        if outcomes != {"pass", "fail"}:
            fail(name, f"{c['id']}: the flake's runs show {outcomes}, want pass and fail")
            break
    print(f"ok: flake: {len(flakes)} cases disagree with themselves under --repeat 2", flush=True)


def repro_shell():
    """A plugin at a path no shell likes: the repro line is valid shell and reproduces."""
    odd = os.path.join(WORK, "it's a \"quoted\" $(echo no) `dir` \\ \x1b[1m", "bad\xff".encode(
        "utf-8", "surrogateescape").decode("utf-8", "surrogateescape"))
    try:
        os.makedirs(os.fsencode(odd))
    except OSError as e:
        print(f"skip: repro_shell: cannot make the odd folder: {e}")
        return
    lib = os.path.join(os.fsencode(odd), b"lib hostile.so")
    shutil.copy(PLUGINS["exec_segv"], lib)
    report = os.path.join(WORK, "odd-path")
    p = subprocess.run([BITCTS.encode(), b"run", b"--backend", lib, b"--filter",
                        b"bit_count.uint16.uint8.r2.packed.*", b"--report", report.encode(),
                        b"--quiet"], capture_output=True)
    try:
        cases = json.load(open(os.path.join(report, "report.json"), encoding="utf-8"))["cases"]
    except (OSError, ValueError) as e:
        fail("repro_shell", f"no report for a plugin at an odd path: {e}: {p.stderr[-300:]!r}")
        return
    if p.returncode != 1 or cases[0]["verdict"] != "crash":
        fail("repro_shell", f"rc {p.returncode}, verdict {cases[0]['verdict']}")
        return
    line = cases[0]["repro"]
    here = os.path.join(WORK, "repro-here")
    os.makedirs(here, exist_ok=True)
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(BITCTS)) + ":" + os.environ["PATH"])
    r = subprocess.run(["bash", "-c", line], cwd=here, capture_output=True, env=env)
    out = os.path.join(here, "bitcts-repro", cases[0]["id"], "report.json")
    if r.returncode != 1 or not os.path.exists(out):
        fail("repro_shell", f"the repro line {line!r} gave rc {r.returncode}: {r.stderr[-300:]!r}")
        return
    again = json.load(open(out, encoding="utf-8"))["cases"]
    if len(again) != 1 or again[0]["verdict"] != "crash":
        fail("repro_shell", "the repro line did not reproduce the crash")
        return
    print(f"ok: repro_shell: {line[:100]}...", flush=True)


def main():
    missing = sorted(set(SCENARIOS) - set(PLUGINS))
    if missing:
        print(f"FAIL: plugins not given: {missing}")
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    only = [n for n in os.environ.get("HOSTILE_ONLY", "").split(",") if n]
    skip = {n for n in os.environ.get("HOSTILE_SKIP", "").split(",") if n}
    names = []
    for name in only or SCENARIOS:
        if name in skip:
            print(f"skipped: {name} (HOSTILE_SKIP)")
        else:
            names.append(name)
    # Two runs at a time: much of a scenario's time is its hangs' watchdogs, waited out while the
    # other run works. Each run has its own report folder and token; the plugins' marker files
    # are named by the harness's process.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(names, pool.map(scenario, names)))
    if only:
        print(f"{len(only)} hostile plugins, {len(failures)} failures")
        return 1 if failures else 0
    special_checks(results)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for done in [pool.submit(f) for f in (mutant, careless, address_space, flake, repro_shell)]:
            done.result()
    print(f"{len(SCENARIOS)} hostile plugins, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
