#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/nightly.py end to end over the smoke tier: two green nights in a row (the second shows
the first in its history and an empty diff), a broken plugin added (its regressions first, the
night red), a flaky plugin (its cases are flakes, the night stays green), shards run apart and
merged, what changed between nights and since which night each case fails, and the damage
cases: a corrupt history (exit 2, the site untouched), a missing history, an unreadable report
(the night publishes, the page names the problem, exit 3). Leaves OUT/site for the browser
test.
Usage: nightly_site.py BITCTS OUT example=LIB broken=LIB flaky=LIB"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from nightly_lib import check, finish  # noqa: E402
from nightly_lib import nightly as run_nightly  # noqa: E402


def nightly(*args, env=None):
    return run_nightly(*args, env=env, show=True)


def config(path, plugins, extra=""):
    with open(path, "w", encoding="utf-8") as f:
        f.write("[nightly]\ntier = smoke\ncpu_variants = scalar\nvulkan = no\nretry = 2\n"
                f"jobs = 2\nkeep_reports = 3\n{extra}\n")
        for name, lib in plugins:
            f.write(f"\n[plugin {name}]\npath = {lib}\n")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def snapshot(site):
    """Every file of the site with its size and modification time."""
    out = {}
    for root, _, files in os.walk(site):
        for f in files:
            st = os.stat(os.path.join(root, f))
            out[os.path.relpath(os.path.join(root, f), site)] = (st.st_size, st.st_mtime_ns)
    return out


def history(site):
    return json.loads(read(os.path.join(site, "history.json")))


def main(argv):
    bitcts, out = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    libs = {k: os.path.abspath(v) for k, v in (a.split("=", 1) for a in argv[3:])}
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    site = os.path.join(out, "site")
    base = [("example", libs["example"])]
    conf = os.path.join(out, "base.conf")
    config(conf, base)
    run = ["run", "--bitcts", bitcts, "--config", conf, "--site", site]

    # Two green nights in a row: the second lists the first and has an empty diff.
    rc, _ = nightly(*run, "--night", "n1")
    check(rc == 0, f"night 1 exit {rc}, want 0")
    rc, _ = nightly(*run, "--night", "n2")
    check(rc == 0, f"night 2 exit {rc}, want 0")
    h = history(site)
    check([n["id"] for n in h["nights"]] == ["n1", "n2"], "history lists n1, n2")
    n2 = h["nights"][-1]
    check(n2["previous"] == "n1", "night 2 compares with night 1")
    check(n2["diff_counts"]["regressions"] == 0 and n2["diff_counts"]["digest_changed"] == 0
          and n2["diff_counts"]["fixes"] == 0, f"night 2 diff empty: {n2['diff_counts']}")
    check(sorted(n2["backends"]) == ["cpu-scalar", "example"], f"backends {sorted(n2['backends'])}")
    check(n2["backends"]["example"]["cases"] == 448, "example ran the smoke tier (448 cases)")
    index = read(os.path.join(site, "index.html"))
    check('id="diff-empty"' in index, "index says the diff is empty")
    check('href="nights/n1/index.html">n1</a>' in index, "index links night 1 in its history")
    check('<svg id="chart-pass-rate"' in index, "index has the pass-rate chart")
    check('id="matrix-table"' in index and "bit_shift_right" in index, "index has the matrix")
    for f in ("junit.xml", "summary.md", "history.json", "nights/n2/example/report.html",
              "nights/n2/example/report.json", "nights/n1/index.html", "nights/n2/junit.xml"):
        check(os.path.isfile(os.path.join(site, f)), f"site has {f}")
    check("Commit</dt>" in index and "Seed</dt><dd>0x0062697463747331" in index,
          "provenance: commit and seed")
    check('id="nothing-changed"' in index, "night 2: nothing changed since night 1")

    # The backend "example" now a broken plugin, and a flaky one new: example's regressions
    # first (bitcts report diff's, against night 2), the night red; the flaky one's cases are
    # flakes, counted apart from the failures.
    conf3 = os.path.join(out, "broken.conf")
    config(conf3, [("example", libs["broken"]), ("flaky", libs["flaky"])])
    rc, _ = nightly("run", "--bitcts", bitcts, "--config", conf3, "--site", site, "--night", "n3")
    check(rc == 1, f"night 3 (broken plugin) exit {rc}, want 1")
    n3 = history(site)["nights"][-1]
    diff = json.loads(read(os.path.join(site, "nights", "n3", "diff.json")))
    check(len(diff["regressions"]) > 0 and all(e["backend"] == "example"
                                               for e in diff["regressions"]),
          "night 3: regressions, all of the broken plugin")
    check(diff.get("backends_added") == ["flaky"], "night 3: the flaky backend is new")
    check(n3["backends"]["flaky"]["failing"] == 0 and n3["backends"]["flaky"]["flakes"] > 0,
          "night 3: the flaky plugin has flakes, no other failures")
    index = read(os.path.join(site, "index.html"))
    pos = [index.find(k) for k in ('id="regressions"', 'id="matrix"', 'id="flakes"',
                                   'id="history"')]
    check(-1 not in pos and pos == sorted(pos), f"regressions first, then matrix, flakes, "
          f"history: {pos}")
    first = diff["regressions"][0]
    page = os.path.join(site, "nights", "n3", "example", "cases",
                        re.sub(r"[^A-Za-z0-9._-]", "_", first["id"]) + ".html")
    check(os.path.isfile(page), f"a page for the failing case {first['id']}")
    if os.path.isfile(page):
        text = read(page)
        check('id="repro"' in text and "bitcts run --backend" in text, "case page: repro")
        check("Provenance" in text and "Seed</dt>" in text, "case page: provenance")
    junit = read(os.path.join(site, "junit.xml"))
    check('<testsuite name="example"' in junit and "<failure" in junit, "junit: example fails")
    # What changed, at the top: example's library (bitcts report diff's provenance); the
    # regressions in bitcts's groups, every one listed once, each failing since this night.
    changed = diff["changes"]["backends"].get("example", [])
    check([c["what"] for c in changed if c["what"] == "backend.library_xxh3_128"] and
          index.find('id="what-changed-table"') < index.find('id="regressions"'),
          f"night 3: example's new library shown first: {changed}")
    grouped = [(g["backend"], i) for g in diff["groups"] for i in g["ids"]]
    check(sorted(grouped) == sorted((e["backend"], e["id"]) for e in diff["regressions"]),
          "night 3: every regression in exactly one group")
    check(all(f'{e["id"]}</code></a></td><td>{e["from"]}</td>' in index
              for e in diff["regressions"]) and 'id="regressions-search"' in index,
          "night 3: every regression listed on the page, with a search box")
    check(all(e["since"] == "n3" for e in diff["regressions"]), "night 3: failing since n3")
    # The same broken plugin a night later: no regressions; its failures fail since n3.
    rc, _ = nightly("run", "--bitcts", bitcts, "--config", conf3, "--site", site, "--night", "n3b")
    check(rc == 1, f"night 3b (still broken) exit {rc}, want 1")
    since = json.loads(read(os.path.join(site, "failing.json")))["backends"]["example"]
    check(since and set(since.values()) == {"n3"}, f"night 3b: failing since n3: "
          f"{sorted(set(since.values()))}")
    if os.path.isfile(page):
        check('failing since night <b>n3</b>' in read(page.replace("/n3/", "/n3b/")),
              "night 3b: the case page says since which night it fails")

    # The flaky plugin alone with the base: green.
    conf4 = os.path.join(out, "flaky.conf")
    config(conf4, base + [("flaky", libs["flaky"])])
    rc, _ = nightly("run", "--bitcts", bitcts, "--config", conf4, "--site", site, "--night", "n4")
    check(rc == 0, f"night 4 (flaky plugin) exit {rc}, want 0: flakes do not fail the night")
    n4 = history(site)["nights"][-1]
    check(n4["status"] == "green" and n4["totals"]["flakes"] > 0, "night 4 green with flakes")
    check(n4["diff_counts"]["fixes"] > 0 and n4["diff_counts"]["regressions"] == 0,
          f"night 4: example fixed again: {n4['diff_counts']}")
    check(os.path.isfile(os.path.join(site, "nights", "n1", "index.html")) and
          not os.path.exists(os.path.join(site, "nights", "n1", "example", "report.json")) and
          not os.path.exists(os.path.join(site, "nights", "n2", "example", "report.json")) and
          os.path.isfile(os.path.join(site, "nights", "n3", "example", "report.json")),
          "keep_reports = 3 pruned the full reports of nights 1 and 2, kept their pages")
    check(len(history(site)["nights"]) == 5, "the history keeps every night")
    check(not os.path.exists(os.path.join(site, "failing.json")) or
          "example" not in json.loads(read(os.path.join(site, "failing.json")))["backends"] or
          not json.loads(read(os.path.join(site, "failing.json")))["backends"]["example"],
          "night 4: example fails no more")
    shutil.copytree(site, os.path.join(out, "site-good"))

    # Shards run apart and merged equal one run.
    res = []
    for i in (1, 2):
        d = os.path.join(out, f"shard{i}")
        rc, _ = nightly("shard", "--bitcts", bitcts, "--config", conf, "--index", str(i),
                        "--count", "2", "--out", d)
        check(rc == 0, f"shard {i}/2 exit {rc}")
        res.append(d)
    rc, _ = nightly("publish", "--bitcts", bitcts, "--config", conf, "--site", site, "--night",
                    "n5", "--results", *res)
    check(rc == 0, f"publish of 2 shards exit {rc}")
    n5 = history(site)["nights"][-1]
    check(n5["backends"].get("example", {}).get("cases") == 448, "the shards merged: 448 cases")
    check(n5["diff_counts"]["regressions"] == 0, "merged shards: no regressions")
    # A shard that never arrived: a problem on the page, exit 3.
    rc, _ = nightly("publish", "--bitcts", bitcts, "--config", conf, "--site", site, "--night",
                    "n5b", "--results", res[0])
    check(rc == 3, f"publish with a shard missing exit {rc}, want 3")
    check("never arrived" in read(os.path.join(site, "index.html")), "page: shard missing")

    # A corrupt history: one line naming it, exit 2, before anything ran; the site untouched.
    with open(os.path.join(site, "history.json"), "w", encoding="utf-8") as f:
        f.write('{"schema": "bitcts-nightly-history", "nights": [tru')
    before = snapshot(site)
    rc, text = nightly(*run, "--night", "n6")
    check(rc == 2 and "history.json: the history is damaged" in text and
          "Traceback" not in text, f"corrupt history: exit {rc}, want 2, one line")
    check(snapshot(site) == before, "corrupt history: the site is untouched")
    # Moved aside, as the line says: a history is missing on a site with nights.
    os.rename(os.path.join(site, "history.json"), os.path.join(site, "history.json.bad"))
    rc, _ = nightly(*run, "--night", "n7")
    check(rc == 3, f"missing history: exit {rc}, want 3")
    check("history.json is missing" in read(os.path.join(site, "index.html")),
          "missing history: the page shows the problem")
    rc, _ = nightly(*run, "--night", "n8")
    check(rc == 0, f"the night after: exit {rc}, want 0")
    # An unreadable report: publish the shard folders with one report.json cut short.
    bad = os.path.join(out, "bad-results")
    shutil.copytree(res[0], bad)
    target = os.path.join(bad, "example", "shard-1-of-2", "report.json")
    with open(target, "r+", encoding="utf-8") as f:
        f.truncate(100)
    shutil.copytree(os.path.join(res[1], "example", "shard-2-of-2"),
                    os.path.join(bad, "example", "shard-2-of-2"))
    shutil.copytree(os.path.join(res[1], "cpu-scalar", "shard-2-of-2"),
                    os.path.join(bad, "cpu-scalar", "shard-2-of-2"))
    rc, _ = nightly("publish", "--bitcts", bitcts, "--config", conf, "--site", site, "--night",
                    "n9", "--results", bad)
    check(rc == 3, f"unreadable report: exit {rc}, want 3")
    index = read(os.path.join(site, "index.html"))
    check("Problem:</b> example:" in index, "unreadable report: the page names the backend")
    check("cpu-scalar" in index, "unreadable report: the other backend is published")
    # Bad config: exit 2, nothing published.
    badconf = os.path.join(out, "bad.conf")
    with open(badconf, "w", encoding="utf-8") as f:
        f.write("[nightly]\nrepeat = lots\n")
    rc, _ = nightly("run", "--bitcts", bitcts, "--config", badconf, "--site", site)
    check(rc == 2, f"bad config: exit {rc}, want 2")
    # The last good site stays for the browser test.
    shutil.rmtree(site)
    shutil.move(os.path.join(out, "site-good"), site)
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
