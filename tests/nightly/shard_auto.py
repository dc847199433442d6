#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/nightly.py shard --auto without a cluster: the engines' variables set by hand (a Slurm
array of tasks 5..8, GitLab's 1-based CI_NODE_INDEX, a Kubernetes index with
BITCTS_SHARD_COUNT), each backend's result filed under the shard its report names, no temporary
folder left behind, and publish merging the four Slurm shards into a green night of every case.
Bad input is one line and exit 2 with nothing written: --auto with --index/--count, neither,
--index alone, no engine, two engines.

Usage: shard_auto.py BITCTS SOURCE_DIR OUT
"""
import json
import os
import shutil
import subprocess
import sys

FILTER = "*.uint8.r1.*"  # 182 cases of the default tier, every operator
ENGINE_VARS = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
               "JOB_COMPLETION_INDEX", "CI_NODE_INDEX", "CI_NODE_TOTAL", "TEST_SHARD_INDEX",
               "TEST_TOTAL_SHARDS", "TEST_SHARD_STATUS_FILE", "BITCTS_SHARD_COUNT")
failures = []


def nightly(tool, env_vars, *args):
    env = {k: v for k, v in os.environ.items() if k not in ENGINE_VARS}
    env.update(env_vars)
    p = subprocess.run([sys.executable, tool, *args], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def shard_of(out):
    """The one shard folder of cpu-scalar under out, its notes files and any leftover."""
    entries = sorted(os.listdir(out)) if os.path.isdir(out) else []
    shards = sorted(os.listdir(os.path.join(out, "cpu-scalar"))) \
        if os.path.isdir(os.path.join(out, "cpu-scalar")) else []
    return entries, shards


def main(argv):
    bitcts, source, work = argv[1:4]
    tool = os.path.join(source, "tools", "nightly.py")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    conf = os.path.join(work, "night.conf")
    with open(conf, "w", encoding="utf-8") as f:
        f.write(f"[nightly]\ntier = default\nfilter = {FILTER}\nrepeat = 1\njobs = 1\n"
                "cpu_variants = scalar\nvulkan = no\n")
    common = ["--config", conf, "--bitcts", bitcts]
    results = []
    for task in range(5, 9):  # sbatch --array=5-8
        out = os.path.join(work, "slurm", f"task-{task}")
        slurm = {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_COUNT": "4",
                 "SLURM_ARRAY_TASK_MIN": "5"}
        rc, _, err = nightly(tool, slurm, "shard", *common, "--auto", "--out", out)
        i = task - 4
        entries, shards = shard_of(out)
        expect(rc == 0 and entries == ["cpu-scalar", f"notes-{i}-of-4.json"] and
               shards == [f"shard-{i}-of-4", f"shard-{i}-of-4.log"],
               f"Slurm task {task} of 5..8 filed as shard {i}/4 (exit {rc}, {entries}, {shards},"
               f" {err.strip()[-200:]})")
        results.append(out)
    engines = (({"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "3"}, "shard-2-of-3"),
               ({"JOB_COMPLETION_INDEX": "0", "BITCTS_SHARD_COUNT": "2"}, "shard-1-of-2"))
    for engine, want in engines:
        out = os.path.join(work, "engine-" + want)
        rc, _, err = nightly(tool, engine, "shard", *common, "--auto", "--out", out)
        expect(rc == 0 and shard_of(out)[1] == [want, want + ".log"],
               f"{sorted(engine)} filed as {want} (exit {rc}, {shard_of(out)}, {err.strip()})")
    site = os.path.join(work, "site")
    rc, text, err = nightly(tool, {}, "publish", *common, "--site", site, "--night", "n1",
                            "--no-verify", "--results", *results)
    merged = os.path.join(site, "nights", "n1", "cpu-scalar", "report.json")
    cases = []
    if os.path.isfile(merged):
        with open(merged, encoding="utf-8") as f:
            cases = [c["id"] for c in json.load(f)["cases"]]
    listed = subprocess.run([bitcts, "list", "--tier", "default", "--filter", FILTER],
                            stdout=subprocess.PIPE, check=True).stdout.decode().split()
    expect(rc == 0 and cases == listed and len(listed) > 100,
           f"publish merged the 4 shards into a green night of the {len(listed)} listed cases "
           f"in order (exit {rc}, {len(cases)} cases, {err.strip()[-300:]})")

    slurm = {"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2"}
    bad = [("--auto with --index and --count", slurm, ["--auto", "--index", "1", "--count", "2"],
            "not both or neither"),
           ("neither --auto nor --index/--count", slurm, [], "not both or neither"),
           ("--index without --count", slurm, ["--index", "1"], "go together"),
           ("--auto with no engine", {}, ["--auto"], "no engine set a shard"),
           ("--auto with two engines", dict(slurm, CI_NODE_INDEX="1", CI_NODE_TOTAL="2"),
            ["--auto"], "CI_NODE_INDEX")]
    for what, env, args, word in bad:
        out = os.path.join(work, "bad")
        shutil.rmtree(out, ignore_errors=True)
        rc, text, err = nightly(tool, env, "shard", *common, *args, "--out", out)
        lines = err.strip().splitlines()
        expect(rc == 2 and len(lines) == 1 and word in lines[0] and text == "" and
               (not os.path.exists(out) or os.listdir(out) == []),
               f"{what}: exit 2, one line naming it, nothing written (exit {rc}: {lines})")
    if failures:
        print(f"FAIL: {len(failures)} checks")
        return 1
    print("PASS: nightly.py shard --auto")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
