#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Repro lines, `bitcts debug`, `run --vectors` and the traceability of report.json.

- repro: a run of a broken plugin at a path with a space, with --timeout, --isolate case,
  --feature-level, --baseline and --skips; every repro line starts with an absolute path, carries those
  options, and pasted into `bash -c` with an empty PATH, from another folder, gives its case the
  same verdict (and the exit code that verdict calls for). The old form ("bitcts run ...") is
  shown to fail there, so the check cannot pass by accident. bitcts check's repro line likewise
  (with NumPy's adapter as the producer, when /usr/bin/python3 has NumPy).
- debug: `bitcts debug ID` gives the verdict and the detail `bitcts run` gave, for the example
  plugin (pass) and a broken one (the same mismatch); a crashing plugin's case dies of the same
  signal in the foreground, and under gdb (when there is one) the backtrace is in the plugin.
- vectors: `run --vectors` of an export gives the verdicts of the direct run; a shrunk folder
  (run --shrink) runs through the broken plugin (fail) and the example (pass), and `debug
  --vectors` runs its shrunk case; bad input is one line and exit code 2.
- trace: report.json has the source commit (git's, when the source is a checkout), the plugin
  file's size and digest, the device object and the full command line; --version shows the
  commit.
- matrix: a smoke and a default-tier report give columns headed by their tiers and cells with
  their case counts, in Markdown, HTML and JSON.

Usage: repro_trace.py BITCTS WORKDIR SOURCE_DIR NAME=PLUGIN...   (exit 0: all hold)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys

BITCTS = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
SOURCE = os.path.abspath(sys.argv[3])
PLUGINS = dict(arg.split("=", 1) for arg in sys.argv[4:])
FAILED = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        FAILED.append(what)


def bitcts(*args, cwd=WORK, env=None):
    return subprocess.run([BITCTS, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env=env)


# A plugin's deliberate crash in the debug process itself: under AddressSanitizer (the asan lane)
# the runtime would turn the signal into its own report and exit status; it is told to leave
# SIGSEGV alone, so the process dies of the signal as it does in a plain build.
CRASH_ENV = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":handle_segv=0")


def report(folder):
    with open(os.path.join(folder, "report.json"), encoding="utf-8") as f:
        return json.load(f)


def paste(line, cwd):
    """The line as a user pastes it: bash, no PATH, another folder."""
    return subprocess.run(["/bin/bash", "-c", line], cwd=cwd, env={"PATH": ""},
                          capture_output=True, text=True, timeout=600)


def repro():
    odd = os.path.join(WORK, "odd dir")
    os.makedirs(odd)
    plugin = os.path.join(odd, "lib odd.so")
    shutil.copy(PLUGINS["broken_skip_last_odd"], plugin)
    sel = ["--tier", "smoke", "--filter", "bit_and.uint8.*", "--quiet", "-j", "2"]
    first = bitcts("run", "--backend", "odd dir/lib odd.so", *sel, "--report", "first")
    failing = [c["id"] for c in report(os.path.join(WORK, "first"))["cases"]
               if c["verdict"] == "fail"]
    check(first.returncode == 1 and len(failing) >= 3, f"the broken plugin fails {failing}")
    with open(os.path.join(WORK, "base.txt"), "w", encoding="utf-8") as f:
        f.write(f"{failing[0]} fail known\n")
    with open(os.path.join(WORK, "skips.txt"), "w", encoding="utf-8") as f:
        f.write(f"{failing[2]} not this week\n")
    p = bitcts("run", "--backend", "odd dir/lib odd.so", *sel, "--timeout", "7.5", "--isolate",
               "case", "--feature-level", "4_1", "--baseline", "base.txt", "--skips", "skips.txt",
               "--report", "second")
    cases = {c["id"]: c for c in report(os.path.join(WORK, "second"))["cases"]}
    check(p.returncode == 1 and cases[failing[0]]["verdict"] == "expected_fail" and
          cases[failing[2]]["verdict"] == "skipped",
          "the baseline's case is an expected failure, the skipped one skipped")
    passing = next(i for i, c in cases.items() if c["verdict"] == "pass")
    elsewhere = os.path.join(WORK, "elsewhere")
    os.makedirs(elsewhere)
    base = os.path.join(WORK, "base.txt")
    skips = os.path.join(WORK, "skips.txt")
    for cid in (failing[0], failing[1], failing[2], passing):
        line = cases[cid]["repro"]
        words = ["--timeout 7.5", "--isolate case", "--feature-level 4_1", f"--baseline {base}",
                 f"--skips {skips}", "'" + plugin + "'"]
        check(line.startswith(BITCTS + " run ") and all(w in line for w in words),
              f"{cid}: the repro line starts with {BITCTS} and carries every option: {line}")
        r = paste(line, elsewhere)
        got = report(os.path.join(elsewhere, "bitcts-repro", cid))["cases"]
        want = cases[cid]["verdict"]
        check([(c["id"], c["verdict"]) for c in got] == [(cid, want)] and
              r.returncode == (1 if want == "fail" else 0),
              f"{cid}: pasted with an empty PATH, rc {r.returncode}, verdict {want}")
    old = paste("bitcts" + cases[passing]["repro"][len(BITCTS):], elsewhere)
    check(old.returncode == 127, "the bare 'bitcts' form cannot run there (exit 127)")
    return cases


def check_repro():
    """bitcts check's repro line, pasted the same way (needs NumPy for a producer)."""
    numpy = subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True)
    if numpy.returncode != 0:
        print("skip: check's repro line: no NumPy for /usr/bin/python3")
        return
    adapter = os.path.join(SOURCE, "adapters", "run_numpy.py")
    bitcts("vectors", "export", "--out", "cx", "--tier", "smoke", "--filter", "bit_and.uint8.*")
    subprocess.run(["/usr/bin/python3", adapter, "cx"], cwd=WORK, capture_output=True,
                   timeout=600)
    bitcts("check", "cx", "--report", "cr")
    c = report(os.path.join(WORK, "cr"))["cases"][0]
    r = paste(c["repro"], os.path.join(WORK, "elsewhere"))
    got = report(os.path.join(WORK, "elsewhere", "bitcts-repro", c["id"]))["cases"]
    check(c["repro"].startswith(BITCTS + " check " + os.path.join(WORK, "cx") + " ") and
          r.returncode == 0 and [(x["id"], x["verdict"]) for x in got] == [(c["id"], c["verdict"])],
          f"check's repro line pasted: {c['id']} {c['verdict']}")


def debug(cases):
    plugin = os.path.join(WORK, "odd dir", "lib odd.so")
    # Debugging a case is running it: a skipped case (--skips is run's) is left out here.
    for cid, c in [kv for kv in cases.items() if kv[1]["verdict"] != "skipped"][:6]:
        d = bitcts("debug", cid, "--backend", plugin)
        head = d.stdout.splitlines()
        want = "fail" if c["verdict"] == "expected_fail" else c["verdict"]
        detail = next((x[len("  detail: "):] for x in head if x.startswith("  detail: ")), "")
        check(head and head[0] == f"{cid}: {want}" and detail == c["detail"] and
              d.returncode == (1 if want == "fail" else 0) and "in this process" in d.stderr,
              f"debug {cid} in process: {want}, as run said ({c['detail'][:50]})")
    ex = bitcts("debug", next(iter(cases)), "--backend", PLUGINS["example"])
    check(ex.returncode == 0 and ex.stdout.startswith(next(iter(cases)) + ": pass"),
          "debug of the example plugin: pass")
    crash = bitcts("run", "--backend", PLUGINS["broken_crash_rank8"], "--tier", "all",
                   "--filter", "bit_and.uint8.r8.packed.0", "--quiet", "--report", "crash")
    verdict = report(os.path.join(WORK, "crash"))["cases"][0]["verdict"]
    d = bitcts("debug", "bit_and.uint8.r8.packed.0", "--backend", PLUGINS["broken_crash_rank8"],
               env=CRASH_ENV)
    check(crash.returncode == 1 and verdict == "crash" and d.returncode == -signal.SIGSEGV,
          f"a crash in run ({verdict}) is a SIGSEGV of the debug process itself ({d.returncode})")
    if shutil.which("gdb") is None:
        print("skip: gdb: not installed")
        return
    g = subprocess.run(["gdb", "-q", "-batch", "-ex", "run", "-ex", "bt", "--args", BITCTS,
                        "debug", "bit_and.uint8.r8.packed.0", "--backend",
                        PLUGINS["broken_crash_rank8"]], capture_output=True, text=True,
                       timeout=600, cwd=WORK, env=CRASH_ENV)
    check("SIGSEGV" in g.stdout and "broken_plugin.c" in g.stdout and
          "bitcts_worker_debug" in g.stdout,
          "gdb stops inside the plugin, called from bitcts debug")


def vectors():
    plugin = PLUGINS["broken_skip_last_odd"]
    sel = ["--tier", "smoke", "--filter", "bit_or.uint16.*"]
    bitcts("vectors", "export", "--out", "ex", *sel)
    direct = bitcts("run", "--backend", plugin, *sel, "--quiet", "--report", "direct")
    via = bitcts("run", "--backend", plugin, "--vectors", "ex", "--quiet", "--report", "via")
    a = [(c["id"], c["verdict"], c["detail"]) for c in report(os.path.join(WORK, "direct"))["cases"]]
    b = [(c["id"], c["verdict"], c["detail"]) for c in report(os.path.join(WORK, "via"))["cases"]]
    check(direct.returncode == via.returncode == 1 and a == b and
          any(v == "fail" for _, v, _ in b),
          f"run --vectors of an export: the direct run's {len(a)} verdicts")
    via_cases = report(os.path.join(WORK, "via"))["cases"]
    check(all(f"--vectors {os.path.join(WORK, 'ex')} " in c["repro"] for c in via_cases),
          "its repro lines name the folder")
    bitcts("run", "--backend", plugin, "--tier", "smoke", "--filter", "bit_xor.uint8.r1.*",
           "--shrink", "--shrink-max", "1", "--quiet", "--report", "rs")
    folder = os.path.join(WORK, "rs", "shrunk", os.listdir(os.path.join(WORK, "rs", "shrunk"))[0])
    shrunk = os.path.basename(folder) + ".shrunk"
    bad = bitcts("run", "--backend", plugin, "--vectors", folder, "--quiet", "--report", "sb")
    good = bitcts("run", "--backend", PLUGINS["example"], "--vectors", folder, "--quiet",
                  "--report", "sg")
    vb = {c["id"]: c["verdict"] for c in report(os.path.join(WORK, "sb"))["cases"]}
    vg = {c["id"]: c["verdict"] for c in report(os.path.join(WORK, "sg"))["cases"]}
    check(bad.returncode == 1 and vb.get(shrunk) == "fail" and good.returncode == 0 and
          vg.get(shrunk) == "pass", f"a shrunk folder through two backends: {vb}, {vg}")
    d = bitcts("debug", shrunk, "--vectors", folder, "--backend", plugin)
    check(d.returncode == 1 and d.stdout.startswith(shrunk + ": fail"),
          "debug --vectors runs the shrunk case")
    for args, what in ((["--vectors", "nowhere"], "a missing folder"),
                       (["--vectors", "ex", "--seed", "7"], "another seed")):
        r = bitcts("run", "--backend", plugin, *args, "--quiet", "--report", "no")
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and "error" in lines[0],
              f"run --vectors with {what}: one line, exit 2 ({lines[-1] if lines else ''})")
    r = bitcts("debug", "no.such.case", "--backend", plugin)
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1,
          "debug of an unknown case: one line, exit 2")


def trace():
    plugin = PLUGINS["example"]
    args = ["run", "--backend", plugin, "--tier", "smoke", "--filter", "bit_not.*", "--quiet",
            "--report", "tr"]
    subprocess.run([BITCTS, *args], cwd=WORK, capture_output=True, timeout=600)
    r = report(os.path.join(WORK, "tr"))
    commit = r.get("suite_commit", "")
    head = subprocess.run(["git", "-C", SOURCE, "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode == 0:
        # The commit of the build: HEAD, or an ancestor when commits came after the build.
        m = re.fullmatch("([0-9a-f]{40})(-dirty)?", commit)
        ours = m is not None and subprocess.run(
            ["git", "-C", SOURCE, "merge-base", "--is-ancestor", m.group(1), "HEAD"]).returncode == 0
        check(ours, f"suite_commit is the source's commit ({commit}; HEAD {head.stdout.strip()})")
    else:
        check(commit == "unknown", f"outside git, suite_commit is unknown: {commit}")
    be = r["backend"]
    check(be.get("library_size") == os.path.getsize(plugin) and
          re.fullmatch("[0-9a-f]{32}", be.get("library_xxh3_128", "")) is not None,
          f"the plugin's size ({be.get('library_size')}) and digest are recorded")
    check(isinstance(be.get("device"), dict) and "variant" in be.get("info", {}),
          "the device and the variant are recorded")
    check(r["command_line"] == [BITCTS, *args], f"the full command line: {r['command_line']}")
    views = {}
    for name in ("summary.md", "report.html", "junit.xml"):
        with open(os.path.join(WORK, "tr", name), encoding="utf-8") as f:
            views[name] = f.read()
    check(f"(commit `{commit}`)" in views["summary.md"] and
          f"Suite commit</dt><dd class=\"mono\">{commit}<" in views["report.html"] and
          f"Library size</dt><dd>{be['library_size']} bytes<" in views["report.html"] and
          f'<property name="suite_commit" value="{commit}"/>' in views["junit.xml"],
          "summary.md, report.html and junit.xml show the commit (and the HTML the size)")
    cpu = bitcts("run", "--backend", "cpu", "--tier", "smoke", "--filter", "bit_not.*",
                 "--quiet", "--report", "trc")
    rc = report(os.path.join(WORK, "trc"))["backend"]
    check(cpu.returncode == 0 and rc.get("library_size") == 0 and rc["info"]["variant"] != "",
          f"a built-in: no file, its CPU variant {rc['info']['variant']}")
    v = bitcts("--version")
    check(v.stdout.strip() == f"bitcts {r['suite_version']} (commit {commit})", v.stdout.strip())


def matrix():
    sel = ["--filter", "bit_xor.uint16.*", "--quiet"]
    bitcts("run", "--backend", "cpu", "--tier", "smoke", *sel, "--report", "ms")
    bitcts("run", "--backend", "cpu", "--tier", "default", *sel, "--report", "md")
    counts = [len(report(os.path.join(WORK, d))["cases"]) for d in ("ms", "md")]
    m = bitcts("report", "matrix", "--out", "m.md", "--html", "m.html", "--json", "m.json",
               "smoke=ms", "default=md")
    with open(os.path.join(WORK, "m.json"), encoding="utf-8") as f:
        mj = json.load(f)
    row = next(x for x in mj["rows"] if x["type"] == "uint16")
    check(m.returncode == 0 and [c["tier"] for c in mj["columns"]] == ["smoke", "default"] and
          [c["cases"] for c in row["cells"]] == counts and counts[0] < counts[1],
          f"matrix.json: tiers and case counts {counts}")
    with open(os.path.join(WORK, "m.md"), encoding="utf-8") as f:
        md = f.read()
    check("| `smoke` [`smoke`] | `default` [`default`] |" in md and
          f"| pass ({counts[0]}) | pass ({counts[1]}) |" in md, "matrix.md: tiers and counts")
    with open(os.path.join(WORK, "m.html"), encoding="utf-8") as f:
        html = f.read()
    check("tier smoke" in html and "tier default" in html and f">pass ({counts[1]})<" in html,
          "matrix.html: tiers and counts")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    cases = repro()
    check_repro()
    debug(cases)
    vectors()
    trace()
    matrix()
    print("FAILED: " + "; ".join(FAILED) if FAILED else "all hold")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
