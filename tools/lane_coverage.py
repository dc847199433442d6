#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which lines of bitcts's C each CTest test reaches, and what a lane loses when it leaves tests
out (docs/fuzzing.md, "The asan lane's selection").

Builds the tree with gcov instrumentation in BUILD (forked workers end with _exit, which skips
gcov's own dump: a preloaded _exit dumps first), runs every test of the selection alone with its
counters in a folder of its own, and reads them with gcov. Then prints how many lines of the
product's C (harness/, reports/, generators/, reference/, vectors/, backends/, include/) the
selection reaches, and which of them no test outside --drop reaches.

usage: tools/lane_coverage.py BUILD [--select REGEX] [--exclude REGEX] [--drop TEST,...]
                              [--with TEST,...]
  --select REGEX   the tests the lane runs (ctest -R; default: all)
  --exclude REGEX  the tests the lane does not run (ctest -E), as tools/test.sh gives it
  --drop TESTS     tests to leave out: the lines only they reach are listed
  --with TESTS     tests outside the selection to count (a replacement for the dropped ones)
Runs every test once, one at a time (about as long as the default lane on one core)."""
import argparse
import glob
import json
import linecache
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = tuple(os.path.join(ROOT, d) + "/" for d in
                ("harness", "reports", "generators", "reference", "vectors", "backends", "include"))
DUMP_REF = "extern void __gcov_dump(void);\nvoid bitcts_cov_dump(void) { __gcov_dump(); }\n"
EXIT_SHIM = r"""#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>
void _exit(int status)
{
    void (*dump)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "bitcts_cov_dump");
    if (dump != NULL) {
        dump();
    }
    syscall(SYS_exit_group, status);
    for (;;) {
    }
}
"""


def build(dirname):
    os.makedirs(dirname, exist_ok=True)
    with open(os.path.join(dirname, "cov_dump.c"), "w") as f:
        f.write(DUMP_REF)
    with open(os.path.join(dirname, "cov_exit.c"), "w") as f:
        f.write(EXIT_SHIM)
    obj, shim = os.path.join(dirname, "cov_dump.o"), os.path.join(dirname, "cov_exit.so")
    subprocess.run(["cc", "-c", "-fPIC", "-o", obj, os.path.join(dirname, "cov_dump.c")], check=True)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", shim, os.path.join(dirname, "cov_exit.c"),
                    "-ldl"], check=True)
    subprocess.run(["cmake", "-S", ROOT, "-B", dirname, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Debug",
                    "-DCMAKE_C_FLAGS=--coverage -O1",
                    "-DCMAKE_EXE_LINKER_FLAGS=--coverage -rdynamic " + obj,
                    "-DCMAKE_SHARED_LINKER_FLAGS=--coverage"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", dirname, "-j%d" % os.cpu_count()], check=True,
                   stdout=subprocess.DEVNULL)
    return shim


def tests_of(dirname, exclude, select=""):
    p = subprocess.run(["ctest", "-N"] + (["-E", exclude] if exclude else []) +
                       (["-R", select] if select else []), cwd=dirname,
                       capture_output=True, text=True, check=True)
    return [line.split(": ", 1)[1].strip() for line in p.stdout.splitlines()
            if line.strip().startswith("Test") and ": " in line]


def lines_of(dirname, shim, test):
    prefix = os.path.join(dirname, "coverage", test)
    shutil.rmtree(prefix, ignore_errors=True)
    env = dict(os.environ, GCOV_PREFIX=prefix, LD_PRELOAD=shim)
    p = subprocess.run(["ctest", "-R", "^%s$" % test.replace(".", r"\."), "--timeout", "1800"],
                       cwd=dirname, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        print("  (%s failed in the coverage build: its lines still count)" % test, file=sys.stderr)
    root = prefix + os.path.abspath(dirname)
    gcdas = glob.glob(root + "/**/*.gcda", recursive=True)
    for g in gcdas:
        gcno = os.path.join(os.path.abspath(dirname), os.path.relpath(g, root))[:-5] + ".gcno"
        if os.path.exists(gcno) and not os.path.exists(g[:-5] + ".gcno"):
            os.symlink(gcno, g[:-5] + ".gcno")
    reached = set()
    for i in range(0, len(gcdas), 64):
        out = subprocess.run(["gcov", "--json-format", "--stdout"] + gcdas[i:i + 64],
                             capture_output=True, text=True, cwd=prefix).stdout
        for line in out.splitlines():
            try:
                doc = json.loads(line)
            except ValueError:
                continue
            for f in doc["files"]:
                if f["file"].startswith(PRODUCT):
                    reached.update((f["file"], n["line_number"]) for n in f["lines"]
                                   if n["count"] > 0)
    return reached


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--select", default="")
    ap.add_argument("--exclude", default="")
    ap.add_argument("--drop", default="")
    ap.add_argument("--with", dest="extra", default="")
    a = ap.parse_args()
    shim = build(a.build)
    drop = [t for t in a.drop.split(",") if t]
    extra = [t for t in a.extra.split(",") if t]
    tests = tests_of(a.build, a.exclude, a.select)
    every = tests_of(a.build, "")
    unknown = [t for t in drop + extra if t not in every]
    if unknown:
        sys.exit("lane_coverage: no such test: %s" % ", ".join(unknown))
    per = {}
    for t in tests + [t for t in extra if t not in tests]:
        per[t] = lines_of(a.build, shim, t)
        print("%-44s %6d lines" % (t, len(per[t])), flush=True)
    selection = set().union(*(per[t] for t in tests))
    kept = set().union(*(per[t] for t in per if t not in drop))
    lost = sorted(selection - kept)
    print("the selection reaches %d lines of C; without %s (with %s): %d lines no other test "
          "reaches" % (len(selection), ", ".join(drop) or "nothing", ", ".join(extra) or "nothing",
                       len(lost)))
    for f, n in lost:
        text = linecache.getline(f, n).strip()
        print("  %s:%d: %s" % (os.path.relpath(f, ROOT), n, text[:100]))


if __name__ == "__main__":
    main()
