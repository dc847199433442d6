# SPDX-License-Identifier: MIT
"""One meaning of a change (docs/nightly.md): every (before, after) pair of verdicts goes
through `bitcts report diff` and through the nightly's summary, and both give the class that
`bitcts report verdicts` states for it; the nightly's failing and healthy sets are bitcts's.

usage: verdict_pairs.py BITCTS WORK"""
import copy
import json
import os
import shutil
import subprocess
import sys

BITCTS, WORK = sys.argv[1:3]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import nightly_site  # noqa: E402

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
table = json.loads(subprocess.run([BITCTS, "report", "verdicts"], capture_output=True,
                                  text=True, check=True).stdout)
nightly_site.use_verdicts(table)
names = [v["name"] for v in table["verdicts"]]
assert nightly_site.FAILING == {v["name"] for v in table["verdicts"] if v["failure"]}
assert nightly_site.HEALTHY == {v["name"] for v in table["verdicts"] if v["healthy"]}

CASE = "bit_shift_left.uint8.r1.packed.0"
subprocess.run([BITCTS, "run", "--backend", "cpu", "--tier", "all", "--filter", CASE,
                "--report", os.path.join(WORK, "template"), "--quiet"], check=True)
with open(os.path.join(WORK, "template", "report.json")) as f:
    TEMPLATE = json.load(f)


def report_with(verdict, name):
    r = copy.deepcopy(TEMPLATE)
    c = r["cases"][0]
    c["verdict"] = verdict
    c["policy"] = "saturate" if verdict == "recorded" else ""
    if verdict == "flake":
        c["repeats"] = [{"verdict": "pass", "detail": "", "output_xxh3_128": ""},
                        {"verdict": "fail", "detail": "x", "output_xxh3_128": ""}]
    r["summary"] = {"total": 1, "by_verdict": {verdict: 1}}
    r.pop("analysis", None)
    folder = os.path.join(WORK, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "report.json"), "w") as f:
        json.dump(r, f)
    return folder, r


LISTS = {"regression": "regressions", "fix": "fixes", "other": "changed", "same": None}
wrong = []
for a in names:
    fa, ra = report_with(a, "a-" + a)
    for b in names:
        fb, rb = report_with(b, "b-" + b)
        out = os.path.join(WORK, "diff.json")
        p = subprocess.run([BITCTS, "report", "diff", fa, fb, "--json", out], capture_output=True,
                           text=True)
        want = table["changes"][a][b]
        if p.returncode != (1 if want == "regression" else 0):  # 1: a regression
            wrong.append(f"{a} -> {b}: report diff exit {p.returncode}: {p.stderr.strip()}")
            continue
        with open(out) as f:
            d = json.load(f)
        got_c = next((k for k, key in LISTS.items() if key and d[key]), "same")
        night = nightly_site.summarize_night({"id": "n2"}, {"cpu": rb}, {"id": "n1",
                                             "backends": {"cpu": {}}}, {"cpu": ("n1", ra)}, [],
                                             [], {}, {"cpu": d})
        got_n = next((k for k, key in LISTS.items() if key and night["diff"][key]), "same")
        if not want == got_c == got_n:
            wrong.append(f"{a} -> {b}: verdicts say {want}, report diff {got_c}, nightly {got_n}")
for line in wrong:
    print("FAIL:", line)
print(f"{len(names) ** 2} verdict pairs, {len(wrong)} disagreements")
sys.exit(1 if wrong else 0)
