# SPDX-License-Identifier: MIT
"""`bitcts report verify` (docs/report-schema.md, "Verifying a report"): reports of run (whole,
sharded, balanced and merged), explore and check verify; every kind of damage a hand edit, a
truncation or a mix can do is refused with exit 1 and a line naming it; an unreadable report
is exit 2.

usage: report_verify.py BITCTS WORK"""
import copy
import json
import os
import shutil
import subprocess
import sys

BITCTS, WORK = sys.argv[1:3]
FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def sh(*args):
    return subprocess.run([BITCTS] + [str(a) for a in args], capture_output=True, text=True)


def verify(path):
    p = sh("report", "verify", path)
    return p.returncode, p.stdout + p.stderr


def load(folder):
    with open(os.path.join(folder, "report.json")) as f:
        return json.load(f)


def write(report, name):
    """A damaged copy; the summary recounted so that only verify can object."""
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    by = {}
    for c in report["cases"]:
        by[c["verdict"]] = by.get(c["verdict"], 0) + 1
    report["summary"] = {"total": len(report["cases"]), "by_verdict": by}
    ids = {c["id"] for c in report["cases"]}
    report["slowest"] = [s for s in report["slowest"] if s["id"] in ids]
    with open(os.path.join(folder, "report.json"), "w") as f:
        json.dump(report, f)
    return folder


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
# xor, shifts (with counts >= the width: recorded), count; 648 cases of the default tier
SEL = ["--filter", "bit_shift_*.uint8.*", "--filter", "bit_xor.uint16.r[12]*", "--filter",
       "bit_count.uint32.*.r1.*"]
full = os.path.join(WORK, "full")
expect(sh("run", "--backend", "cpu", *SEL, "--report", full, "--quiet").returncode == 0, "full run")
rc, out = verify(full)
expect(rc == 0 and "verified" in out, "a run verifies: %s" % out)
base = load(full)
recorded = [c for c in base["cases"] if c["verdict"] == "recorded"]
expect(recorded, "the selection has recorded shift cases")

# Shards, interleaved and balanced, and their merges.
for kind, extra in (("n", []), ("b", ["--shard-timings", full])):
    parts = []
    for i in (1, 2, 3):
        part = os.path.join(WORK, "%s%d" % (kind, i))
        sh("run", "--backend", "cpu", *SEL, "--shard", "%d/3" % i, *extra, "--report", part,
           "--quiet")
        rc, out = verify(part)
        expect(rc == 0, "%s shard %d verifies: %s" % (kind, i, out))
        parts.append(part)
    merged = os.path.join(WORK, kind + "-merged")
    sh("report", "merge", "--out", merged, *parts)
    rc, out = verify(merged)
    expect(rc == 0, "the merge of the %s shards verifies: %s" % (kind, out))

# explore's and check's reports.
ex = os.path.join(WORK, "explore")
sh("explore", "--backend", "cpu", "--cases", "20", "--report", ex, "--quiet")
rc, out = verify(ex)
expect(rc == 0, "an explore report verifies: %s" % out)

# Damage, each refused naming what is wrong.
first = base["cases"][0]["id"]


def damaged(name, change, want):
    r = copy.deepcopy(base)
    change(r)
    rc, out = verify(write(r, name))
    expect(rc == 1 and want in out, "%s: exit %d, want 1 and '%s': %s" % (name, rc, want, out))


def flip_digest(r):
    c = next(c for c in r["cases"] if c["verdict"] == "pass" and c["output_xxh3_128"])
    c["output_xxh3_128"] = ("0" if c["output_xxh3_128"][0] != "0" else "1") + c["output_xxh3_128"][1:]


damaged("digest", flip_digest, "is not the one seed")
damaged("missing", lambda r: r["cases"].pop(5), "1 cases of the selection are missing")
damaged("foreign", lambda r: r["cases"].append(dict(r["cases"][0], id="bit_and.uint8.r1.packed.0")),
        "is not in the report's selection")
damaged("unknown", lambda r: r["cases"].append(dict(r["cases"][0], id="bit_nand.uint8.r1.packed.0")),
        "is not a case of this bitcts's plan")
damaged("order", lambda r: r["cases"].insert(0, r["cases"].pop(3)), "out of plan order")
damaged("seed", lambda r: r.update(seed="0x0000000000000001"), "is not the one seed")
damaged("generator", lambda r: r.update(generator_version=1), "generator_version 1")
damaged("tier", lambda r: r["selection"].update(tier="default,large"),
        "cases of the selection are missing")
damaged("filter", lambda r: r["selection"].update(filter="bit_x*"), "is not in the report's selection")
damaged("recorded_not_shift",
        lambda r: next(c for c in r["cases"] if c["id"].startswith("bit_xor")).update(
            verdict="recorded", policy="saturate"), "'recorded' is only for shifts")
damaged("policy",
        lambda r: r["cases"][r["cases"].index(recorded[0])].update(
            policy="mask" if recorded[0]["policy"] == "saturate" else "saturate"),
        "is not the one seed")

# A mix: the first shard's cases with the second's selection.
n1, n2 = load(os.path.join(WORK, "n1")), load(os.path.join(WORK, "n2"))
mix = copy.deepcopy(n1)
mix["cases"] = n1["cases"][:3] + n2["cases"][3:]
rc, out = verify(write(mix, "mix"))
expect(rc == 1 and "not in the report's selection (this shard)" in out, "a mixed shard: %s" % out)

# Truncated or absent: unreadable, exit 2.
trunc = os.path.join(WORK, "truncated")
os.makedirs(trunc)
with open(os.path.join(full, "report.json"), "rb") as f:
    data = f.read()
with open(os.path.join(trunc, "report.json"), "wb") as f:
    f.write(data[: len(data) // 2])
for path in (trunc, os.path.join(WORK, "nowhere")):
    rc, out = verify(path)
    expect(rc == 2 and len(out.strip().splitlines()) == 1, "%s: exit %d: %s" % (path, rc, out))

if FAILURES:
    print("%d failures" % len(FAILURES))
    sys.exit(1)
print("report verify: every report verified, every damage refused")
