#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/nightly.py against careless and hostile input, environment faults and a long history:

* bad input (a night named . or .., a plugin named .., .vendor or like a built-in backend, two
  names that share a folder, a mistyped CPU variant, an unknown tier, a filter that selects
  nothing, a damaged or hostile history, failing record, shard notes or results folder): one
  line naming the problem, exit 2, no traceback, and the site byte for byte as it was;
* the environment failing (Vulkan asked for, no driver: bitcts run exit 3): the night is
  published as "retry", not red, and the nightly exits 4;
* a CPU variant asked for that this host cannot run: never a green night;
* bounded history: the site's size after 2, 6 and 12 clean nights of the default tier (full
  reports only for the last keep_reports nights, 2: from the third night on, each night adds
  its pages and takes one full report away); a clean night adds at most 1 MiB.
Usage: careless.py BITCTS OUT example=LIB"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
from nightly_lib import check, finish  # noqa: E402
from nightly_lib import nightly as run_nightly  # noqa: E402


def nightly(*args, env=None):
    return run_nightly(*args, env=env, show=False)


def snapshot(site):
    out = {}
    for root, dirs, files in os.walk(site):
        for f in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = os.path.join(root, f)
            st = os.lstat(path)
            out[os.path.relpath(path, site)] = (st.st_size, st.st_mtime_ns)
    return out


def size(site):
    return sum(v[0] for v in snapshot(site).values())


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def config(path, extra="", sections=""):
    """A small night (BIT_NOT of the smoke tier, cpu:scalar); extra: "key = value" lines that
    replace the defaults."""
    keys = {"tier": "smoke", "filter": "bit_not.*", "cpu_variants": "scalar", "vulkan": "no",
            "jobs": "2"}
    for line in extra.splitlines():
        k, _, v = line.partition("=")
        keys[k.strip()] = v.strip()
    write(path, "[nightly]\n" + "".join(f"{k} = {v}\n" for k, v in keys.items()) + sections)


def refused(what, args, want, site):
    """One line naming the problem, exit 2, the site untouched."""
    before = snapshot(site)
    rc, text = nightly(*args)
    lines = [x for x in text.splitlines() if x.strip()]
    ok = rc == 2 and len(lines) == 1 and lines[0].startswith("nightly: error: ") and \
        want in lines[0] and snapshot(site) == before
    check(ok, f"{what}: exit {rc}, want 2 with one line naming {want!r}; got: {text.strip()[:400]}"
          + ("" if snapshot(site) == before else "; the site changed"))
    if ok:
        print(f"ok: {what}: {lines[0]}", flush=True)


def bad_input(bitcts, out, lib):
    site = os.path.join(out, "site")
    conf = os.path.join(out, "good.conf")
    config(conf, sections=f"[plugin example]\npath = {lib}\n")
    base = ["run", "--bitcts", bitcts, "--site", site]
    rc, text = nightly(*base, "--config", conf, "--night", "good")
    check(rc == 0, f"the first night: exit {rc}: {text[-500:]}")
    for night in ("..", ".", ".hidden", "a/b", "x" * 65):
        refused(f"--night {night!r}", base + ["--config", conf, "--night", night], "--night", site)
    cases = [
        ("a plugin named ..", "[plugin ..]\npath = x.so\n", "[plugin ..]"),
        ("a plugin named .vendor", "[plugin .vendor]\npath = x.so\n", "[plugin .vendor]"),
        ("a plugin named like a CPU variant", "[plugin cpu-scalar]\npath = x.so\n",
         "folder of a built-in backend"),
        ("a result set named vulkan", "[results Vulkan]\npath = x\n",
         "folder of a built-in backend"),
        ("two names, one folder", "[plugin Vendor]\npath = a.so\n[results vendor]\npath = b\n",
         "would share one folder"),
    ]
    for what, sections, want in cases:
        bad = os.path.join(out, "bad.conf")
        config(bad, sections=sections)
        refused(what, base + ["--config", bad], want, site)
    for what, extra, want in (("a mistyped CPU variant", "cpu_variants = scalr", "scalr"),
                              ("an unknown tier", "tier = nightly", "tier 'nightly'"),
                              ("a filter that selects nothing", "filter = bit_nor.*",
                               "bit_nor.*")):
        bad = os.path.join(out, "bad.conf")
        config(bad, extra)
        refused(what, base + ["--config", bad], want, site)
    # A damaged or hostile site: history, failing record.
    hist = os.path.join(site, "history.json")
    good_history = open(hist, encoding="utf-8").read()
    for what, text in (("a history cut short", good_history[:len(good_history) // 2]),
                       ("a history whose night id is a path",
                        json.dumps({"schema": "bitcts-nightly-history", "schema_version": "1.0",
                                    "nights": [{"id": "../../etc"}]})),
                       ("a history that is a list", "[]"),
                       ("a history of invalid UTF-8", "\udcff")):
        with open(hist, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        refused(what, base + ["--config", conf], "history.json: the history is damaged", site)
    write(hist, good_history)
    failing = os.path.join(site, "failing.json")
    good_failing = open(failing, encoding="utf-8").read()
    write(failing, json.dumps({"schema": "bitcts-nightly-failing", "backends":
                               {"example": {"bit_not.uint8.r1.packed.0": "../x"}}}))
    refused("a hostile failing record", base + ["--config", conf], "failing.json", site)
    write(failing, good_failing)
    # Shard folders: damaged notes, a folder that is no backend's.
    shard = os.path.join(out, "shard")
    rc, text = nightly("shard", "--bitcts", bitcts, "--config", conf, "--index", "1", "--count",
                       "1", "--out", shard)
    check(rc == 0, f"a shard: exit {rc}: {text[-300:]}")
    pub = ["publish", "--bitcts", bitcts, "--config", conf, "--site", site, "--no-verify"]
    notes = os.path.join(shard, "notes-1-of-1.json")
    good_notes = open(notes, encoding="utf-8").read()
    write(notes, '{"notes": [1, 2], "problems": []}')
    refused("damaged shard notes", pub + ["--results", shard], "notes-1-of-1.json", site)
    write(notes, good_notes)
    os.makedirs(os.path.join(shard, "no backend!"))
    refused("a folder that is no backend's", pub + ["--results", shard], "'no backend!'", site)
    shutil.rmtree(os.path.join(shard, "no backend!"))
    rc, _ = nightly(*pub, "--results", shard, "--night", "published")
    check(rc == 0, f"the shard published after all: exit {rc}")


def environment(bitcts, out, lib):
    site = os.path.join(out, "site-env")
    conf = os.path.join(out, "env.conf")
    # Vulkan asked for, no driver: the environment failed; retry, not red.
    config(conf, "vulkan = yes")
    env = dict(os.environ, VK_ICD_FILENAMES=os.path.join(out, "none.json"),
               VK_DRIVER_FILES=os.path.join(out, "none.json"))
    rc, text = nightly("run", "--bitcts", bitcts, "--config", conf, "--site", site, "--night",
                       "nodevice", env=env)
    h = json.load(open(os.path.join(site, "history.json"), encoding="utf-8"))
    night = h["nights"][-1]
    check(rc == 4 and night["status"] == "retry" and night["retry_shards"] and
          "retry-shard" in open(os.path.join(site, "index.html"), encoding="utf-8").read(),
          f"no Vulkan driver: exit {rc} (want 4), status {night['status']}: {text[-400:]}")
    # A CPU variant asked for that this host cannot run: published, never green.
    other = "neon" if os.uname().machine == "x86_64" else "avx2"
    config(conf, f"cpu_variants = scalar {other}")
    rc, text = nightly("run", "--bitcts", bitcts, "--config", conf, "--site", site, "--night",
                       "novariant")
    h = json.load(open(os.path.join(site, "history.json"), encoding="utf-8"))
    check(rc == 3 and any(f"cpu:{other} was asked for" in p for p in h["nights"][-1]["problems"]),
          f"cpu:{other} asked for: exit {rc} (want 3): {text[-400:]}")


def bounded(bitcts, out):
    """12 clean nights of the default tier (one run, published 12 times)."""
    site = os.path.join(out, "site-30")
    conf = os.path.join(out, "bounded.conf")
    write(conf, "[nightly]\ntier = default\ncpu_variants = scalar\nvulkan = no\njobs = 2\n")
    shard = os.path.join(out, "shard-default")
    rc, text = nightly("shard", "--bitcts", bitcts, "--config", conf, "--index", "1", "--count",
                       "1", "--out", shard)
    check(rc == 0, f"the default tier's shard: exit {rc}: {text[-300:]}")
    sizes = {}
    for n in range(1, 13):
        rc, text = nightly("publish", "--bitcts", bitcts, "--config", conf, "--site", site,
                           "--no-verify", "--night", f"n{n:02d}", "--results", shard)
        check(rc == 0, f"clean night {n}: exit {rc}: {text[-300:]}")
        sizes[n] = size(site)
    per = (sizes[12] - sizes[6]) / 6
    print(f"site size after 2, 6, 12 clean nights: {sizes[2] / 2**20:.2f}, "
          f"{sizes[6] / 2**20:.2f}, {sizes[12] / 2**20:.2f} MiB; a clean night adds "
          f"{per / 1024:.0f} KiB (nights 7-12)", flush=True)
    check(per <= 1 << 20, f"a clean night adds {per / 2**20:.2f} MiB, want at most 1")
    report = os.path.join(site, "nights", "n12", "cpu-scalar", "report.json")
    old = os.path.join(site, "nights", "n01", "cpu-scalar")
    check(os.path.isfile(report) and os.path.isfile(os.path.join(old, "report.html")) and
          not os.path.exists(os.path.join(old, "report.json")),
          "the last nights keep their full reports, older ones their pages only")


def main(argv):
    bitcts, out = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    libs = dict(a.split("=", 1) for a in argv[3:])
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    bad_input(bitcts, out, os.path.abspath(libs["example"]))
    environment(bitcts, out, libs["example"])
    bounded(bitcts, out)
    return finish()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
