#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One selection everywhere (--filter, --exclude, --skips, run --claimed).

usage: selection.py BITCTS PARTIAL_XOR_PLUGIN REF_RESULTS WORKDIR

- list, vectors export, run and check given the same --filter/--exclude select the same ids,
  and report.json's selection and the manifest record the excludes;
- a --skips file: the cases it lists are skipped (never pass) with FILE:LINE and the reason, in
  run and in check alike, and count as skipped in the summary;
- bad globs and bad skips files are refused with one line and exit code 2, leaving no report;
- a plugin that implements BIT_XOR alone fails without --claimed (each required case of the
  other operators) and passes with it, its report's conformance claim naming what is not
  claimed with the counts of the run without --claimed, in every view.
"""
import json
import os
import shutil
import subprocess
import sys

BITCTS, PARTIAL, REF_RESULTS, WORK = sys.argv[1:5]
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def sh(*args, want=None):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if want is not None and p.returncode != want:
        print(p.stdout[-3000:], p.stderr[-3000:])
        expect(False, "%s: exit code %d, want %d" % (" ".join(map(str, args[:4])), p.returncode, want))
    return p


def report(folder):
    with open(os.path.join(folder, "report.json")) as f:
        return json.load(f)


def ids_of(rep):
    return [c["id"] for c in rep["cases"]]


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
W = lambda name: os.path.join(WORK, name)

SEL = ["--filter", "bit_xor.uint8.*", "--filter", "bit_and.int8.*",
       "--exclude", "*.r2.*", "--exclude", "*.permuted.*"]
SKIPS = W("skips.txt")
with open(SKIPS, "w") as f:
    f.write("# known problems\n\nbit_xor.uint8.r1.* driver bug 12 (tracked)\n"
            "bit_and.int8.r3.packed.* too slow\n")

# ---- the same ids in list, export, run and check ----
listed = sh(BITCTS, "list", *SEL, want=0).stdout.split()
expect(len(listed) > 50, "list selects %d cases" % len(listed))
expect(not any(".r2." in i or ".permuted." in i for i in listed), "list: an excluded id is listed")
everything = sh(BITCTS, "list", "--filter", "bit_xor.uint8.*", "--filter", "bit_and.int8.*",
                want=0).stdout.split()
expect(set(listed) == {i for i in everything if ".r2." not in i and ".permuted." not in i},
       "list: --exclude takes out exactly the ids its globs match")
p = sh(BITCTS, "list", "--tier", "smoke", "--exclude", "bit_*", want=2)
expect("--exclude 'bit_*'" in p.stderr, "list: a selection --exclude empties is named: %r" % p.stderr)
smoke = sh(BITCTS, "list", "--tier", "smoke", want=0).stdout.split()
no_xor = sh(BITCTS, "list", "--tier", "smoke", "--exclude", "bit_xor.*", want=0).stdout.split()
expect(no_xor == [i for i in smoke if not i.startswith("bit_xor.")], "list: --exclude alone")

sh(BITCTS, "vectors", "export", "--out", W("export"), *SEL, want=0)
with open(W("export/manifest.json")) as f:
    manifest = json.load(f)
expect([c["id"] for c in manifest["cases"]] == listed, "export selects the ids list does")
expect(manifest.get("exclude") == "*.r2.*,*.permuted.*", "manifest exclude: %r" % manifest.get("exclude"))

sh(BITCTS, "run", "--backend", "cpu", "-j", "2", "--quiet", "--report", W("run"), "--skips", SKIPS,
   *SEL, want=0)
run = report(W("run"))
expect(ids_of(run) == listed, "run selects the ids list does")
expect(run["selection"].get("exclude") == "*.r2.*,*.permuted.*",
       "report.json selection.exclude: %r" % run["selection"].get("exclude"))


def skipped_ids(rep):
    return [c["id"] for c in rep["cases"] if c["verdict"] == "skipped"]


want_skipped = [i for i in listed if i.startswith("bit_xor.uint8.r1.") or
                i.startswith("bit_and.int8.r3.packed.")]
expect(len(want_skipped) > 3, "the skips file lists %d selected cases" % len(want_skipped))
expect(skipped_ids(run) == want_skipped, "run: the skipped cases are those the file lists")
for c in run["cases"]:
    if c["id"].startswith("bit_xor.uint8.r1."):
        expect(c["detail"] == "skipped by %s:3: driver bug 12 (tracked)" % SKIPS,
               "run: skipped detail %r" % c["detail"])
    if c["id"] not in want_skipped:
        expect(c["verdict"] in ("pass", "recorded"), "run: %s is %s" % (c["id"], c["verdict"]))
expect(run["summary"]["by_verdict"].get("skipped") == len(want_skipped), "run: summary counts skipped")
expect("skipped" in open(W("run/summary.md")).read(), "summary.md shows skipped")
expect('<skipped' in open(W("run/junit.xml")).read(), "junit shows skipped")

sh(REF_RESULTS, W("export"), W("results"), want=0)
sh(BITCTS, "check", W("export"), "--results", W("results"), "--quiet", "--report", W("check"),
   "--skips", SKIPS, want=0)
chk = report(W("check"))
expect(ids_of(chk) == listed, "check judges the ids list does")
expect(skipped_ids(chk) == want_skipped, "check: the skipped cases are those the file lists")
expect(chk["selection"].get("exclude") == "*.r2.*,*.permuted.*", "check records the export's excludes")
sh(BITCTS, "check", W("export"), "--results", W("results"), "--quiet", "--report", W("check2"),
   "--exclude", "bit_and.*", want=0)
chk2 = report(W("check2"))
expect(ids_of(chk2) == [i for i in listed if not i.startswith("bit_and.")], "check --exclude")
expect(chk2["selection"].get("exclude") == "bit_and.*", "check records its own --exclude")

# Skips never pass: a damaged result of a skipped case is not judged, and a skips file that
# lists everything leaves no pass at all.
everything_skips = W("all.txt")
with open(everything_skips, "w") as f:
    f.write("* not today\n")
sh(BITCTS, "run", "--backend", "cpu", "-j", "2", "--quiet", "--report", W("run-all"), "--skips",
   everything_skips, "--filter", "bit_xor.uint8.*", want=0)
allrep = report(W("run-all"))
expect(set(c["verdict"] for c in allrep["cases"]) == {"skipped"}, "skips '*': only skipped")

# ---- bad input: one line, exit code 2, no report folder ----
for cmd in (["list"], ["vectors", "export", "--out", W("bad-export")],
            ["run", "--backend", "cpu", "--report", W("bad-run")],
            ["check", W("export"), "--results", W("results"), "--report", W("bad-check")]):
    p = sh(BITCTS, *cmd, "--exclude", "bit_[xor.*", want=2)
    expect(len(p.stderr.strip().splitlines()) == 1 and "malformed glob" in p.stderr,
           "%s --exclude: %r" % (cmd[0], p.stderr))
for name, text, problem in (("noreason.txt", "# c\nbit_xor.*\n", ":2: 'bit_xor.*' has no reason"),
                            ("badglob.txt", "bit_[xor.* why\n", ":1: 'bit_[xor.*' is a malformed glob"),
                            ("missing.txt", None, "missing.txt")):
    path = W(name)
    if text is not None:
        with open(path, "w") as f:
            f.write(text)
    for cmd in (["run", "--backend", "cpu", "--filter", "bit_xor.uint8.*", "--report", W("bad-run")],
                ["check", W("export"), "--results", W("results"), "--report", W("bad-check")]):
        p = sh(BITCTS, *cmd, "--skips", path, want=2)
        expect(len(p.stderr.strip().splitlines()) == 1 and problem in p.stderr,
               "%s --skips %s: %r" % (cmd[0], name, p.stderr))
expect(not os.path.exists(W("bad-run")) and not os.path.exists(W("bad-check")),
       "a refused command left a report folder")

# ---- run --claimed with a plugin that implements BIT_XOR alone ----
plain = sh(BITCTS, "run", "--backend", PARTIAL, "--tier", "smoke", "-j", "2", "--quiet",
           "--report", W("partial"), want=1)
partial = report(W("partial"))
required_fails = [c for c in partial["cases"] if c["verdict"] == "fail" and
                  "requires it" in c["detail"]]
expect(len(required_fails) > 300, "without --claimed: %d required-but-not-supported failures"
       % len(required_fails))
expect(all(c["id"].startswith("bit_xor.") or ".invalid_" in c["id"]
           for c in partial["cases"] if c["verdict"] == "pass"),
       "without --claimed: only bit_xor passes (and negative cases, rejected)")
expect("claims" not in partial, "without --claimed: no claims member")

p = sh(BITCTS, "run", "--backend", PARTIAL, "--tier", "smoke", "-j", "2", "--quiet",
       "--report", W("claimed"), "--claimed", want=0)
claimed = report(W("claimed"))
expect(all(c["id"].startswith("bit_xor.") for c in claimed["cases"]), "--claimed runs bit_xor alone")
expect(set(c["verdict"] for c in claimed["cases"]) <= {"pass", "recorded"}, "--claimed: all pass")
claims = claimed.get("claims", {})
left_out = {c["id"] for c in partial["cases"] if not c["id"].startswith("bit_xor.")}
expect(claims.get("not_claimed") == len(left_out), "claims.not_claimed %r, want %d"
       % (claims.get("not_claimed"), len(left_out)))
expect(claims.get("required_not_claimed") == len(required_fails),
       "claims.required_not_claimed %r, want %d (the failures without --claimed)"
       % (claims.get("required_not_claimed"), len(required_fails)))
per_op = {}
for c in required_fails:
    op = c["id"].split(".")[0]
    per_op[op] = per_op.get(op, 0) + 1
rows = claims.get("rows", [])
for op, n in per_op.items():
    got = sum(r["required_not_claimed"] for r in rows if r["operator"] == op)
    expect(got == n, "claims: %s required_not_claimed %d, want %d" % (op, got, n))
xor_rows = [r for r in rows if r["operator"] == "bit_xor"]
expect(xor_rows and all(r["claimed"] == r["selected"] == r["run"] == r["passed"] and
                        r["not_claimed"] == 0 for r in xor_rows), "claims: bit_xor rows")
expect(sum(r["run"] for r in rows) == len(claimed["cases"]), "claims: run counts")
line = "bit_and: not claimed; the feature level requires it on "
expect(line in p.stdout and "(%d cases), not run" % per_op["bit_and"] in p.stdout,
       "terminal summary shows the claim")
expect("## Conformance claim" in open(W("claimed/summary.md")).read() and
       line.replace("_", "\\_") in open(W("claimed/summary.md")).read(),
       "summary.md shows the claim")
expect('id="claims"' in open(W("claimed/report.html")).read(), "report.html shows the claim")
expect('<property name="claims"' in open(W("claimed/junit.xml")).read(), "junit shows the claim")
p = sh(BITCTS, "explore", "--backend", "cpu", "--claimed", want=2)
expect("run's" in p.stderr, "explore refuses --claimed naming run: %r" % p.stderr)

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
