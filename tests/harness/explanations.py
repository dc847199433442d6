#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Proof that the failure analysis explains: runs each broken plugin over a selection and checks
that its report's analysis names exactly the attribute values of the table below (the
explanation the bug must get), in every view: report.json "analysis", the terminal summary
(first), summary.md, report.html (before the verdict table) and junit.xml (a first testsuite
"bitcts.analysis"); that every failing case carries its description (with its tensors) and that
the views show it; that a report without a stored analysis gets the same one from `bitcts
report render`; that `report diff` explains the regressions alike; and that the checker itself
refuses planted wrong explanations.

Usage: explanations.py BITCTS WORKDIR name=path ...   (names: example, broken_<bug>)"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

bitcts, work = sys.argv[1], sys.argv[2]
plugins = dict(a.split("=", 1) for a in sys.argv[3:])

# Ranks 1 and 8 of the default tier: every operator, type, pattern and value class, 2,480 cases
# (the negative cases are at rank 4: accepts_invalid runs rank 4).
FILTER = "*.r[18].*"
# plugin: (filter, timeout, kind, {attribute: values the explanation names}). kind "exact":
# every failure and no passing case matches; "partial": the best rule, with at least MIN_RATE
# of precision and recall; None: nothing fails, so there is no analysis. ("not", [values]):
# every value the attribute takes in the selection but those.
TABLE = {
    "example": (FILTER, "60", None, {}),
    "broken_permuted_padded": (FILTER, "60", None, {}),  # the plan cannot see it (explore can)
    "broken_pad_write": (FILTER, "60", None, {}),  # warnings only: nothing fails
    "broken_ignores_strides": (FILTER, "60", "partial", {"layout": ["strided", "broadcast"]}),
    "broken_zero_stride": (FILTER, "60", "partial", {"layout": ["broadcast"]}),
    "broken_skip_last_odd": (FILTER, "60", "partial", {"parity": ["odd"]}),
    "broken_crash_rank8": (FILTER, "60", "exact", {"rank": ["8"]}),
    "broken_abort_count": (FILTER, "60", "exact", {"operator": ["bit_count"]}),
    "broken_claims_fp64": (FILTER, "60", "exact", {"input_type": ["float64"]}),
    "broken_popcount_top_bit": (FILTER, "60", "partial",
                                {"operator": ["bit_count"],
                                 "input_type": ["float64", "uint64", "int64"]}),
    # mixed: the family's cases whose output is in place (docs/case-plan.md, "Mixed layouts"),
    # none of them over a broadcast input
    "broken_broken_in_place": (FILTER, "60", "partial",
                               {"pattern": ["inplace_a", "inplace_b", "inplace", "mixed"],
                                "layout": ("not", ["broadcast"])}),
    "broken_fp16_denormal_flush": (FILTER, "60", "partial", {"output_type": ["float16"]}),
    "broken_nan_canonicalise": (FILTER, "60", "partial",
                                {"output_type": ["float32", "float16"],
                                 "pattern": ("not", ["scalar"])}),
    "broken_hang": ("bit_*or.uint16.r1.p*", "2", "exact", {"operator": ["bit_xor"]}),
    "broken_accepts_invalid": ("*.r4.*", "60", "partial", {"pattern": ["invalid"]}),
}
MIN_RATE = 0.75
failures = []


def run(name, flt, timeout):
    out = os.path.join(work, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [bitcts, "run", "--backend", plugins[name], "--filter", flt, "--report", out,
           "--jobs", "2", "--timeout", timeout]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    path = os.path.join(out, "report.json")
    if not os.path.exists(path):
        sys.exit(f"{name}: no report ({proc.returncode}): {proc.stderr.strip()}")
    with open(path) as f:
        return out, proc.stdout + proc.stderr, json.load(f)


def explanation_problems(analysis, kind, terms):
    """What is wrong with a report's analysis against its table row ([] when nothing)."""
    if kind is None:
        return [] if analysis is None else [f"an analysis where nothing fails: {analysis}"]
    if analysis is None:
        return ["no analysis"]
    e = analysis["explanation"]
    problems = []
    if e["kind"] != kind:
        problems.append(f"kind {e['kind']}, want {kind}: {e['text']}")
    got = {t["attribute"]: sorted(t["values"]) for t in e["terms"]}
    universe = {a["name"]: [v["value"] for v in a["values"]] for a in analysis["attributes"]}
    want = {k: sorted(set(universe.get(k, [])) - set(v[1]) if isinstance(v, tuple) else set(v))
            for k, v in terms.items()}
    if got != want:
        problems.append(f"names {got}, want {terms}: {e['text']}")
    if e["kind"] == "exact" and (e["passing_matched"] or e["failing_matched"] != analysis["failing"]):
        problems.append(f"an exact rule that is not: {e}")
    if e["kind"] == "partial" and min(e["precision"], e["recall"]) < MIN_RATE:
        problems.append(f"precision {e['precision']:.3f}, recall {e['recall']:.3f}: {e['text']}")
    return problems


def unmd(text):
    return re.sub(r"\\(.)", r"\1", text)


def view_problems(out, terminal, report):
    """The analysis first in every view, and the failing cases' descriptions shown."""
    text = report["analysis"]["explanation"]["text"]
    problems = []
    if not terminal.lstrip().startswith("analysis:") or text not in terminal:
        problems.append("terminal: the analysis is not first")
    with open(os.path.join(out, "summary.md")) as f:
        md = unmd(f.read())
    if not (0 <= md.find("## Analysis") < md.find("| operator") and text in md):
        problems.append("summary.md: the analysis is not before the verdict table")
    with open(os.path.join(out, "report.html")) as f:
        page = f.read()
    if not (0 <= page.find('<section id="analysis">') < page.find("<table") and
            html.escape(text, quote=False) in page):
        problems.append("report.html: the analysis is not before the verdict table")
    suites = ET.parse(os.path.join(out, "junit.xml")).getroot().findall("testsuite")
    props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
    if suites[0].get("name") != "bitcts.analysis" or props.get("analysis.explanation") != text:
        problems.append("junit.xml: no first testsuite bitcts.analysis with the explanation")
    failing = [c for c in report["cases"] if c["verdict"] in ("fail", "crash", "timeout")]
    if any("tensors" not in c.get("description", {}) for c in failing):
        problems.append("a failing case without its description's tensors")
    def shown(c, body, esc=lambda x: x):
        d = c.get("description", {})
        return esc(f"case: {c['operator']} {d.get('input_type')} -> {d.get('output_type')}, "
                   f"rank {d.get('rank')}, pattern {d.get('pattern')}") in body
    for view, body, esc in (("terminal", terminal, str), ("summary.md", md, str),
                            ("report.html", page, lambda x: html.escape(x, quote=False))):
        if not any(shown(c, body, esc) for c in failing):
            problems.append(f"{view}: no failing case's description")
    junit_failures = [x.text or "" for s in suites for x in s.iter("failure")]
    if not all("\ncase: " in body for body in junit_failures):
        problems.append("junit.xml: a failure without its case description")
    return problems


def check(name):
    flt, timeout, kind, terms = TABLE[name]
    out, terminal, report = run(name, flt, timeout)
    analysis = report.get("analysis")
    problems = explanation_problems(analysis, kind, terms)
    if kind is not None and not problems:
        problems += view_problems(out, terminal, report)
    text = analysis["explanation"]["text"] if analysis else "no analysis"
    return name, report, problems, text


def rerendered(name, report):
    """The analysis of a report that lacks one (an older bitcts's): `report render` adds it."""
    out = os.path.join(work, name + "-stripped")
    os.makedirs(out, exist_ok=True)
    stripped = dict(report)
    stripped.pop("analysis")
    with open(os.path.join(out, "report.json"), "w") as f:
        json.dump(stripped, f)
    subprocess.run([bitcts, "report", "render", out], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.md")) as f:
        return report["analysis"]["explanation"]["text"] in unmd(f.read())


def planted(name, report, others):
    """Wrong rows for this plugin, each of which the checker must refuse."""
    _, _, kind, terms = TABLE[name]
    wrong = [("exact" if kind == "partial" else "partial", terms)]
    wrong += [(kind, t) for k, (_, _, _, t) in others.items() if t and t != terms][:3]
    first = next(iter(terms))
    wrong.append((kind, {**terms, first: terms[first][:-1] or ["packed"]}))  # a value short
    wrong.append((kind, {a: v for a, v in terms.items() if a != first} or {"rank": ["1"]}))
    return [w for w in wrong if not explanation_problems(report.get("analysis"), *w)]


names = [n for n in TABLE if n in plugins]
missing = sorted(set(TABLE) - set(plugins))
if missing:
    sys.exit(f"plugins not given: {missing}")
results = [check(name) for name in names]  # one run at a time, each with --jobs 2
for name, report, problems, text in results:
    print(f"{name}: {text}")
    failures += [f"{name}: {p}" for p in problems]
    if report.get("analysis"):
        accepted = planted(name, report, TABLE)
        failures += [f"{name}: the checker accepted a planted wrong explanation {w}"
                     for w in accepted]
by_name = {name: report for name, report, _, _ in results}
if not rerendered("broken_ignores_strides", by_name["broken_ignores_strides"]):
    failures.append("report render: a report without an analysis did not get it")
# report diff explains the regressions from the example's run to zero_stride's as the run of
# zero_stride does its failures (there, every failure is a regression).
diff_json = os.path.join(work, "diff.json")
diff = subprocess.run([bitcts, "report", "diff", os.path.join(work, "example"),
                       os.path.join(work, "broken_zero_stride"), "--json", diff_json],
                      stdout=subprocess.PIPE, text=True)
with open(diff_json) as f:
    diff_analysis = json.load(f).get("analysis")
failures += [f"report diff: {p}" for p in explanation_problems(diff_analysis, *TABLE["broken_zero_stride"][2:])]
if diff_analysis and f"regressions: {diff_analysis['explanation']['text']}" not in diff.stdout:
    failures.append("report diff: the regressions' explanation is not printed")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
