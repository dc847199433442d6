# SPDX-License-Identifier: MIT
# Every failure kind shrinks (docs/explore.md, "Shrinking the project's broken and hostile
# plugins"): for each broken and hostile plugin of tests/plugins, `bitcts run --shrink` over a
# large case it fails, and the shrunk case must
#   * fail the same way (the signature: verdict and kind of failure),
#   * end at a local minimum, at most the row's elements (what the bug needs),
#   * come with a repro whose `bitcts eval` line is at most 8192 characters and runs; past 2048
#     characters of values, the values are files in the shrunk case's vectors/ folder, and the
#     line names them (never megabytes on one line).
# The table (plugin, kind, start elements, shrunk elements, repro length) is printed.
# The checks are proven on a broken shrinker (BITCTS_SHRINK_STOP_AFTER=1 stops after its first
# step as if it had found a local minimum): it must be caught. And `eval --a @FILE` refuses a file
# of the wrong size with exit 2 and one line.
# No verdict depends on the machine's speed: the shrink budgets are far above what shrinking
# takes, and the timeouts only bound the cases that hang whatever the time.
# usage: shrink_kinds.py BITCTS WORKDIR name=plugin...
import json
import os
import shutil
import subprocess
import sys

BITCTS = sys.argv[1]
WORK = sys.argv[2]
PLUGINS = dict(arg.split("=", 1) for arg in sys.argv[3:])
REPRO_MAX = 8192  # BITCTS_SHRINK_REPRO_MAX
INLINE_MAX = 2048  # BITCTS_SHRINK_INLINE_MAX

# plugin | the cases run (a glob or an exact id) | the signature shrunk | the most elements it
# may keep | the timeout in seconds (the hangs')
TABLE = """
broken_ignores_strides     | bit_and.float32.r5.padded_outer.0       | fail:mismatch       | 2 | 60
broken_zero_stride         | bit_and.float16.r6.broadcast_both.0     | fail:mismatch       | 2 | 60
broken_skip_last_odd       | bit_xor.uint16.r3.*                     | fail:mismatch       | 1 | 60
broken_write_past_end      | bit_and.float32.r5.padded_outer.0       | fail:stray_write    | 1 | 60
broken_nan_canonicalise    | explore.107                             | fail:mismatch       | 1 | 60
broken_fp16_denormal_flush | explore.155                             | fail:mismatch       | 1 | 60
broken_popcount_top_bit    | bit_count.float64.uint32.r5.oversized.0 | fail:mismatch       | 1 | 60
broken_count_input_width   | bit_count.float32.uint8.r6.oversized.1  | fail:mismatch       | 2 | 60
broken_count_input_width   | bit_count.uint64.uint8.r2.*             | warn                | 1 | 60
broken_pad_write           | bit_and.float32.r5.padded_outer.0       | warn                | 1 | 60
broken_corrupt_input       | bit_and.float32.r5.padded_outer.0       | fail:input_changed  | 1 | 60
broken_broken_in_place     | bit_not.int64.r6.inplace.0              | fail:mismatch       | 1 | 60
broken_crash_rank8         | bit_and.float32.r8.packed.0             | crash:signal 11     | 1 | 60
broken_hang                | bit_xor.uint16.r3.packed.0              | timeout             | 1 | 1
broken_abort_count         | bit_count.float32.uint8.r6.oversized.1  | crash:signal 6      | 1 | 60
broken_claims_fp64         | bit_and.float64.r5.broadcast_both.1     | fail:not_supported  | 1 | 60
broken_writes_nothing      | bit_not.uint16.r3.large_packed.0        | fail:mismatch       | 1 | 60
broken_permuted_padded     | explore.4                               | fail:mismatch       | 4 | 60
exec_segv                  | bit_count.float32.uint8.r6.oversized.1  | crash:signal 11     | 1 | 60
exec_abort                 | bit_count.float32.uint8.r6.oversized.1  | crash:signal 6      | 1 | 60
exec_exit0                 | bit_count.float32.uint8.r6.oversized.1  | crash:exit          | 1 | 60
exec_hang                  | bit_count.float32.uint8.r3.packed.0     | timeout             | 1 | 0.5
exec_bad_error             | bit_count.float32.uint8.r6.oversized.1  | fail:status         | 1 | 60
exec_write_input           | bit_count.float32.uint8.r6.oversized.1  | fail:input_changed  | 1 | 60
exec_setrlimit_as          | bit_count.float32.uint8.r6.oversized.1  | fail:process_damage | 1 | 60
"""
ROWS = [tuple(f.strip() for f in line.split("|")) for line in TABLE.strip().splitlines()]
ROWS = [(name, cases, want, int(most), float(timeout)) for name, cases, want, most, timeout in ROWS]

failures = []


def fail(text):
    print("FAIL: " + text)
    failures.append(text)


def shrink(name, cases, timeout, report, env=None, rc_ok=(1,)):
    """Runs the cases with --shrink; the shrink.json of each shrunk case, by signature."""
    shutil.rmtree(report, ignore_errors=True)
    cmd = [BITCTS, "run", "--backend", PLUGINS[name], "--tier", "all", "--filter", cases,
           "--jobs", "2", "--timeout", "%g" % timeout, "--report", report, "--quiet", "--shrink",
           "--shrink-max", "4", "--shrink-seconds", "3600"]
    p = subprocess.run(cmd, cwd=WORK, capture_output=True, text=True, env=env)
    if p.returncode not in rc_ok:  # 1, or 0 where the plugin only warns
        fail("%s: run --shrink exited %d: %s" % (name, p.returncode, p.stdout[-2000:]))
        return {}
    root = os.path.join(report, "shrunk")
    found = {}
    for d in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        info = json.load(open(os.path.join(root, d, "shrink.json")))
        info["folder"] = os.path.join(root, d)
        found.setdefault(info["signature"], info)
    return found


def check(name, want, most, info):
    """The problems of one shrunk case (a list of lines; empty: it is right)."""
    problems = []
    if info["signature"] != want or info["result"]["verdict"] != want.split(":")[0]:
        problems.append("%s: signature %s, verdict %s (want %s)" %
                        (name, info["signature"], info["result"]["verdict"], want))
    if not info["exhausted"]:
        problems.append("%s: ran out of time (%.1f s)" % (name, info["seconds"]))
    if info["elements_after"] > most:
        problems.append("%s: %s kept %d elements (at most %d)" %
                        (name, want, info["elements_after"], most))
    line = info["eval_command"]
    if len(line) > REPRO_MAX or "\n" in line:
        problems.append("%s: the eval line is %d characters" % (name, len(line)))
    if "@" in line and not os.path.isdir(os.path.join(info["folder"], "vectors")):
        problems.append("%s: the eval line names files, but there is no vectors/ folder" % name)
    if "@" not in line and len(line) > INLINE_MAX:
        problems.append("%s: %d characters of inline values" % (name, len(line)))
    repro = open(os.path.join(info["folder"], "repro.txt")).read()
    if line not in repro:
        problems.append("%s: repro.txt lacks the eval line" % name)
    p = subprocess.run(["/bin/bash", "-c", line + " --format hex"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        problems.append("%s: the eval line fails: %s" % (name, p.stderr.strip()))
    return problems


os.makedirs(WORK, exist_ok=True)
print("%-28s %-20s %10s %8s %8s %6s" % ("plugin", "kind", "start", "shrunk", "repro", "steps"))
for row in ROWS:
    name, cases, want, most, timeout = row
    found = shrink(name, cases, timeout, os.path.join(WORK, "r-" + name),
                   rc_ok=(0, 1) if want == "warn" else (1,))
    info = found.get(want)
    if info is None:
        fail("%s: no %s case shrunk (got %s)" % (name, want, sorted(found)))
        continue
    print("%-28s %-20s %10d %8d %8d %6d" % (name, want, info["elements_before"],
                                            info["elements_after"], len(info["eval_command"]),
                                            info["steps"]))
    for problem in check(name, want, most, info):
        fail(problem)

# The broken shrinker: it stops after one step, and the checks above must catch it.
env = dict(os.environ, BITCTS_SHRINK_STOP_AFTER="1")
name, cases, want, most = next(r for r in ROWS if r[0] == "broken_writes_nothing")[:4]
found = shrink(name, cases, 60, os.path.join(WORK, "broken-shrinker"), env)
info = found.get(want)
if info is None:
    fail("the broken shrinker shrank nothing: %s" % sorted(found))
else:
    caught = check(name, want, most, info)
    print("broken shrinker (stops after 1 step): %d -> %d elements, repro %d characters; "
          "caught: %s" % (info["elements_before"], info["elements_after"],
                          len(info["eval_command"]), "; ".join(caught) or "NOTHING"))
    if not any("kept" in c for c in caught):
        fail("a shrinker that stops early was not caught")
    if [c for c in caught if "kept" not in c]:
        fail("the early stop's repro is wrong too: %s" % caught)
    if "@" not in info["eval_command"]:
        fail("%d elements written inline" % info["elements_after"])
    # The files hold the values: eval reads them; one byte short is refused, exit 2, one line.
    vec = os.path.join(info["folder"], "vectors")
    files = sorted(os.listdir(vec))
    if files != ["input.bin"]:
        fail("vectors/ holds %s" % files)
    else:
        data = open(os.path.join(vec, "input.bin"), "rb").read()
        short = os.path.join(WORK, "short.bin")
        open(short, "wb").write(data[:-1])
        line = info["eval_command"].replace(os.path.join(os.path.abspath(vec), "input.bin"), short)
        p = subprocess.run(["/bin/bash", "-c", line], capture_output=True, text=True)
        if p.returncode != 2 or p.stdout or len(p.stderr.strip().splitlines()) != 1 or \
                "holds %d bytes" % (len(data) - 1) not in p.stderr:
            fail("eval of a short file: exit %d, '%s'" % (p.returncode, p.stderr.strip()))
        else:
            print("eval of a file one byte short: exit 2, %s" % p.stderr.strip())

if failures:
    print("%d problem(s)" % len(failures))
    sys.exit(1)
print("shrink_kinds: every check passed")
