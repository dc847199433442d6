#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bitcts nightly: from a build to a static site with history, diffs, flakes and trends.

  nightly.py run     --config FILE --site DIR [--build DIR] [--shards N] ...  everything, one host
  nightly.py shard   --config FILE --index I --count N --out DIR                one shard, any host
  nightly.py shard   --config FILE --auto --out DIR                 the shard the engine hands out
  nightly.py publish --config FILE --site DIR --results DIR [DIR...]          merge and publish

`run` builds (with --build), verifies the golden vectors, runs every configured backend over the
nightly tier in N shards, merges them and publishes the night into the site folder. `shard` and
`publish` are the same steps split across machines (docs/ci/). Exit codes: 0 the night is green,
1 it is red (a case failed; flakes do not count), 2 bad command line, config, site or shard
folder (nothing published), 3 published with problems (a missing history, an unreadable report,
a backend that did not run, golden vectors that do not verify), shown on the page, 4 the
environment failed (no device, a backend library that cannot start, a full disk): run it
again. Format of the config, the site and the history: docs/nightly.md.
"""
import argparse
import configparser
import datetime
import glob
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import nightly_site  # noqa: E402  (the pages)

HISTORY_SCHEMA = "bitcts-nightly-history"
HISTORY_VERSION = "1.0"
CPU_VARIANTS = ["scalar", "sse2", "avx2", "avx512", "avx512pop", "neon"]
PROBE_CASE = "bit_not.uint8.r1.packed.0"
EXIT_GREEN, EXIT_RED, EXIT_USAGE, EXIT_PROBLEMS, EXIT_RETRY = 0, 1, 2, 3, 4
BITCTS_EXIT_ENVIRONMENT = 3  # bitcts run: the environment failed (no device, ...): retry
# A built-in backend's folder: no plugin or result set may take one.
RESERVED = {"cpu-" + v for v in CPU_VARIANTS} | {"vulkan"}


def safe_name(name):
    """A name that may become a path: a letter or digit first, then letters, digits and _.+-,
    no '..', at most 64 characters."""
    return isinstance(name, str) and ".." not in name and \
        re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}", name) is not None


class UsageError(Exception):
    """Bad command line or config: exit 2, nothing published."""


# ---- config ----

def load_config(path):
    """The nightly config (docs/nightly.md, "Config"): [nightly], [plugin NAME], [results NAME]."""
    cp = configparser.ConfigParser(inline_comment_prefixes=("#",), interpolation=None)
    try:
        with open(path, encoding="utf-8") as f:
            cp.read_file(f)
    except (OSError, configparser.Error) as e:
        raise UsageError(f"config {path}: {e}") from e
    base = os.path.dirname(os.path.abspath(path))
    n = cp["nightly"] if cp.has_section("nightly") else {}
    known = {"tier", "filter", "repeat", "retry", "jobs", "timeout", "keep_nights", "keep_reports",
             "cpu_variants", "vulkan", "bench", "seed", "title"}
    for key in n:
        if key not in known:
            raise UsageError(f"config {path}: [nightly] has unknown key '{key}'")

    def num(key, default, lo, hi):
        try:
            v = int(n.get(key, str(default)))
        except ValueError as e:
            raise UsageError(f"config {path}: [nightly] {key} is not a number") from e
        if not lo <= v <= hi:
            raise UsageError(f"config {path}: [nightly] {key} must be {lo}..{hi}")
        return v

    try:
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError as e:
        raise UsageError(f"config {path}: {e}") from e
    cfg = {
        "path": os.path.abspath(path),
        "sha256": digest,
        "title": n.get("title", "bitcts nightly"),
        "tier": n.get("tier", "default"),
        "filter": n.get("filter", ""),
        "repeat": num("repeat", 1, 1, 64),
        "retry": num("retry", 2, 0, 64),
        "jobs": num("jobs", 0, 0, 4096),
        "timeout": num("timeout", 30, 1, 86400),
        "keep_nights": num("keep_nights", 60, 2, 100000),
        "keep_reports": num("keep_reports", 2, 1, 100000),
        "cpu_variants": n.get("cpu_variants", "auto").split(),
        "vulkan": n.get("vulkan", "auto"),
        "bench": n.get("bench", "no"),
        "seed": n.get("seed", ""),
        "plugins": [],
        "results": [],
    }
    if cfg["vulkan"] not in ("auto", "yes", "no"):
        raise UsageError(f"config {path}: [nightly] vulkan must be auto, yes or no")
    if cfg["bench"] not in ("no", "quick"):
        raise UsageError(f"config {path}: [nightly] bench must be no or quick")
    v = cfg["cpu_variants"]
    if v not in (["auto"], ["none"]) and (not v or any(x not in CPU_VARIANTS for x in v) or
                                          len(set(v)) != len(v)):
        raise UsageError(f"config {path}: [nightly] cpu_variants = {' '.join(v)}: want auto, none "
                         f"or a list of distinct names from {', '.join(CPU_VARIANTS)}")
    taken = {}
    for section in cp.sections():
        kind, _, name = section.partition(" ")
        if kind == "nightly":
            continue
        if kind not in ("plugin", "results"):
            raise UsageError(f"config {path}: unknown section [{section}] "
                             "(want [nightly], [plugin NAME] or [results NAME])")
        if not safe_name(name):
            raise UsageError(f"config {path}: [{section}]: a NAME starts with a letter or digit "
                             "and holds only letters, digits and _.+- (no '..', at most 64)")
        if name.lower() in RESERVED:
            raise UsageError(f"config {path}: [{section}]: {name} is the folder of a built-in "
                             "backend; choose another NAME")
        if name.lower() in taken:
            raise UsageError(f"config {path}: [{section}] and [{taken[name.lower()]}] would share "
                             "one folder; names must differ (letter case aside)")
        taken[name.lower()] = section
        s = cp[section]
        if "path" not in s:
            raise UsageError(f"config {path}: [{section}] needs a path")
        entry = {"name": name, "path": os.path.join(base, os.path.expanduser(s["path"])),
                 "options": s.get("options", "").split(),
                 "baseline": os.path.join(base, s["baseline"]) if s.get("baseline") else "",
                 "args": shlex.split(s.get("args", ""))}
        cfg["plugins" if kind == "plugin" else "results"].append(entry)
    return cfg


# ---- running ----

def run_cmd(argv, cwd=None, timeout=None):
    """Runs a command; returns (exit code, stdout+stderr text). Never raises on failure."""
    try:
        p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, check=False)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, str(e)


def slug(name):
    """A backend's folder name: "cpu:avx2" -> "cpu-avx2"."""
    return re.sub(r"[^A-Za-z0-9_.+-]", "-", name)


def probe(bitcts, spec, work):
    """(exit code of `bitcts run --backend spec` over one case, its last line): 0 or 1 when it
    can run here, 3 when the environment failed (no device, a library that cannot start)."""
    out = os.path.join(work, "probe-" + slug(spec))
    rc, text = run_cmd([bitcts, "run", "--backend", spec, "--tier", "all", "--filter",
                        PROBE_CASE, "--report", out, "--quiet", "--force", "--jobs", "1"],
                       timeout=120)
    shutil.rmtree(out, ignore_errors=True)
    return rc, (text.strip().splitlines() or ["no output"])[-1]


def backends(cfg, bitcts, work):
    """Every backend of the night: [{name, spec, options, baseline}]; notes on the skipped; and
    what the config asked for that cannot run: problems, and retries (the environment failed:
    no device). A night that did not test what its config asked is never green."""
    found, notes, problems, retry = [], [], [], []
    variants = CPU_VARIANTS if cfg["cpu_variants"] == ["auto"] else cfg["cpu_variants"]
    for v in variants:
        if v == "none":
            continue
        rc, last = probe(bitcts, "cpu:" + v, work)
        if rc in (0, 1):
            found.append({"name": "cpu:" + v, "spec": "cpu:" + v, "options": [], "baseline": ""})
        elif cfg["cpu_variants"] != ["auto"]:
            problems.append(f"cpu:{v} was asked for but cannot run on this host: {last}")
    if cfg["vulkan"] != "no":
        rc, last = probe(bitcts, "vulkan", work)
        if rc in (0, 1):
            found.append({"name": "vulkan", "spec": "vulkan", "options": [], "baseline": ""})
        elif cfg["vulkan"] == "yes":
            retry.append(f"vulkan was asked for (vulkan = yes) but did not start: {last}")
    for p in cfg["plugins"]:
        found.append({"name": p["name"], "spec": p["path"], "options": p["options"],
                      "baseline": p["baseline"]})
    if not found and not cfg["results"]:
        problems.append("no backend ran: the config asks for none that this host can run")
    return found, notes, problems, retry


def run_shard(cfg, bitcts, backend, index, count, out, dest=None, rc_out=None):
    """One shard of one backend: bitcts run into out/<slug>/shard-I-of-N (or into dest, with
    --shard auto when count is 0; rc_out, a list, gets bitcts run's exit code). Returns a
    problem or "", and whether to retry it (bitcts run exit 3: the environment failed, not the
    backend's conformance)."""
    dest = dest or os.path.join(out, slug(backend["name"]), f"shard-{index}-of-{count}")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    argv = [bitcts, "run", "--backend", backend["spec"], "--tier", cfg["tier"], "--report", dest,
            "--quiet", "--force", "--repeat", str(cfg["repeat"]), "--timeout", str(cfg["timeout"])]
    if cfg["retry"]:  # flakes at the price of one run: only the unexpected outcomes run again
        argv += ["--retry-unexpected", str(cfg["retry"])]
    if cfg["filter"]:
        argv += ["--filter", cfg["filter"]]
    if cfg["seed"]:
        argv += ["--seed", cfg["seed"]]
    if cfg["jobs"]:
        argv += ["--jobs", str(cfg["jobs"])]
    if count > 1:
        argv += ["--shard", f"{index}/{count}"]
    elif count == 0:
        argv += ["--shard", "auto"]
    for o in backend["options"]:
        argv += ["--backend-option", o]
    if backend["baseline"]:
        argv += ["--baseline", backend["baseline"]]
    rc, text = run_cmd(argv)
    if rc_out is not None:
        rc_out.append(rc)
    with open(dest + ".log", "w", encoding="utf-8") as f:
        f.write(" ".join(shlex.quote(a) for a in argv) + "\n" + text)
    if rc in (0, 1):
        return "", False
    last = text.strip().splitlines()[-1] if text.strip() else "no output"
    where = f"shard {index}/{count}" if count else "shard auto"
    if rc == BITCTS_EXIT_ENVIRONMENT:
        return f"{backend['name']} {where}: the environment failed, run it again (bitcts run " \
               f"exit 3): {last}", True
    return f"{backend['name']} {where}: bitcts run exited {rc}: {last}", False


def report_shard(report_dir):
    """(I, N) from a report's selection.shard ("i/n"; "" is 1/1), or None when unreadable."""
    try:
        with open(os.path.join(report_dir, "report.json"), encoding="utf-8") as f:
            text = json.load(f)["selection"]["shard"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    m = re.fullmatch(r"([1-9][0-9]*)/([1-9][0-9]*)", text) if isinstance(text, str) else None
    if text == "":
        return 1, 1
    if m is None or int(m.group(1)) > int(m.group(2)):
        return None
    return int(m.group(1)), int(m.group(2))


def run_shard_auto(cfg, bitcts, backend, out):
    """One backend with --shard auto: bitcts run into a temporary folder of out, then renamed to
    out/<slug>/shard-I-of-N after the report's selection.shard. Returns ((I, N) or None, problem,
    whether to retry).
    A run that refuses its command line (no engine, or two, set a shard) is a UsageError."""
    tmp = tempfile.mkdtemp(prefix=".auto-" + slug(backend["name"]) + "-", dir=out)
    run_dir = os.path.join(tmp, "shard")
    rc = []
    problem, again = run_shard(cfg, bitcts, backend, 0, 0, out, dest=run_dir, rc_out=rc)
    shard = report_shard(run_dir)
    if shard is None:
        shutil.rmtree(tmp, ignore_errors=True)
        if rc == [EXIT_USAGE]:
            raise UsageError(problem)
        return None, problem or f"{backend['name']} shard auto: no readable selection.shard", \
            again
    dest = os.path.join(out, slug(backend["name"]), "shard-%d-of-%d" % shard)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.rmtree(dest, ignore_errors=True)
    if os.path.exists(dest + ".log"):
        os.remove(dest + ".log")
    os.rename(run_dir + ".log", dest + ".log")
    os.rename(run_dir, dest)
    shutil.rmtree(tmp, ignore_errors=True)
    return shard, problem, again


def has_check(bitcts):
    rc, _ = run_cmd([bitcts, "check", "--help"])
    return rc == 0


def run_results(cfg, bitcts, out):
    """The [results NAME] sets through `bitcts check` (the hook: docs/nightly.md).
    Returns (notes, problems)."""
    notes, problems = [], []
    if not cfg["results"]:
        return notes, problems
    if not has_check(bitcts):
        return [f"results {r['name']}: skipped, this bitcts has no 'check' command"
                for r in cfg["results"]], problems
    for r in cfg["results"]:
        dest = os.path.join(out, slug(r["name"]), "shard-1-of-1")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        argv = [bitcts, "check", *(r["args"] or [r["path"]]), "--report", dest, "--force"]
        rc, text = run_cmd(argv)
        if rc not in (0, 1):
            problems.append(f"results {r['name']}: bitcts check exited {rc}: "
                            f"{text.strip().splitlines()[-1] if text.strip() else ''}")
    return notes, problems


def cmd_shard_auto(args, cfg):
    """shard --auto: every backend with `bitcts run --shard auto`; the slice (from the engine's
    variables: docs/harness.md, "Sharding, logs, resume") is read back from each report's
    selection.shard."""
    os.makedirs(args.out, exist_ok=True)
    found, notes, problems, retry = backends(cfg, args.bitcts, args.out)
    shards = set()
    for b in found:
        shard, problem, again = run_shard_auto(cfg, args.bitcts, b, args.out)
        if problem:
            (retry if again else problems).append(problem)
        if shard is not None:
            shards.add(shard)
    if len(shards) > 1:
        problems.append("shard auto: the backends ran different shards: " +
                        ", ".join("%d/%d" % s for s in sorted(shards)))
    index, count = min(shards) if shards else (0, 0)
    if index == 1:
        more_notes, more_problems = run_results(cfg, args.bitcts, args.out)
        notes += more_notes
        problems += more_problems
    elif not shards:
        problems.append("shard auto: no backend ran, so the engine's shard is unknown")
    name = f"notes-{index}-of-{count}.json" if shards else f"notes-auto-{os.getpid()}.json"
    write_atomic(os.path.join(args.out, name), json.dumps(
        {"notes": notes, "problems": problems, "retry": retry,
         "backends": [b["name"] for b in found]}))
    for n in notes + problems + retry:
        print("nightly: " + n, file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_RETRY if retry else EXIT_GREEN


def cmd_shard(args, cfg):
    if args.auto:
        return cmd_shard_auto(args, cfg)
    os.makedirs(args.out, exist_ok=True)
    found, notes, problems, retry = backends(cfg, args.bitcts, args.out)
    for b in found:
        problem, again = run_shard(cfg, args.bitcts, b, args.index, args.count, args.out)
        if problem:
            (retry if again else problems).append(problem)
    if args.index == 1:
        more_notes, more_problems = run_results(cfg, args.bitcts, args.out)
        notes += more_notes
        problems += more_problems
    write_atomic(os.path.join(args.out, f"notes-{args.index}-of-{args.count}.json"),
                 json.dumps({"notes": notes, "problems": problems, "retry": retry,
                             "backends": [b["name"] for b in found]}))
    for n in notes + problems + retry:
        print("nightly: " + n, file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_RETRY if retry else EXIT_GREEN


# ---- merging ----

def merge_backend(bitcts, shard_dirs, dest):
    """Merges one backend's shard reports into dest; returns (report path or "", problem)."""
    good = [d for d in shard_dirs if os.path.isfile(os.path.join(d, "report.json"))]
    missing = [os.path.basename(d) for d in shard_dirs if d not in good]
    if missing:
        return "", f"no report in {', '.join(missing)}"
    if len(good) == 1:  # the report's files only, and only plain files: never what a link names
        os.makedirs(dest, exist_ok=True)
        for name in REPORT_FILES:
            src = os.path.join(good[0], name)
            if os.path.islink(src):
                return "", f"{os.path.basename(good[0])}/{name} is a symbolic link"
            if os.path.isfile(src):
                shutil.copyfile(src, os.path.join(dest, name))
        return os.path.join(dest, "report.json"), ""
    rc, text = run_cmd([bitcts, "report", "merge", "--out", dest, *sorted(good)])
    if rc != 0:
        return "", "report merge failed: " + (text.strip().splitlines() or ["?"])[-1]
    return os.path.join(dest, "report.json"), ""


REPORT_FILES = ("report.json", "report.html", "summary.md", "junit.xml")


def read_shard_notes(path):
    """A shard's notes file: {"notes", "problems", "retry": [text], "backends": [name]}; a
    damaged or hostile one is bad input (exit 2), named."""
    try:
        got = read_json(path, 16 << 20)
        if not isinstance(got, dict):
            raise ValueError("not an object")
        for key in ("notes", "problems", "retry", "backends"):
            v = got.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, str) and len(x) < 4096
                                                   for x in v):
                raise ValueError(f"'{key}' is not a list of lines")
        return got
    except (OSError, ValueError) as e:
        raise UsageError(f"shard notes {path}: damaged ({e}); nothing published") from e


def collect(results_dirs):
    """Shard folders by backend slug over every results folder, and the shards' notes and
    retries."""
    by_backend, notes, problems, retry = {}, [], [], []
    counts = {}
    for root in results_dirs:
        for nf in glob.glob(os.path.join(root, "notes-*.json")):
            got = read_shard_notes(nf)
            notes += got.get("notes", [])
            problems += got.get("problems", [])
            retry += got.get("retry", [])
        for entry in sorted(os.listdir(root)):
            full = os.path.join(root, entry)
            if not os.path.isdir(full) or os.path.islink(full) or entry.startswith("probe-") or \
                    entry.startswith("."):  # a run's own scratch (shard --auto)
                continue
            if not safe_name(entry):
                raise UsageError(f"--results {root}: a folder named {entry!r} is no backend's; "
                                 "nothing published")
        for d in sorted(glob.glob(os.path.join(root, "*", "shard-*-of-*"))):
            if not os.path.isdir(d) or os.path.islink(d):
                continue
            m = re.search(r"shard-(\d+)-of-(\d+)$", d)
            if m is None or not 1 <= int(m.group(1)) <= int(m.group(2)) <= 100000:
                raise UsageError(f"--results: {d}: not a shard folder (shard-I-of-N, 1 <= I <= N)")
            name = os.path.basename(os.path.dirname(d))
            by_backend.setdefault(name, []).append(d)
            counts.setdefault(name, set()).add(int(m.group(2)))
    for name, dirs in by_backend.items():
        n = max(counts[name])
        have = {int(re.search(r"shard-(\d+)-of-", d).group(1)) for d in dirs}
        lost = sorted(set(range(1, n + 1)) - have)
        if lost:
            problems.append(f"{name}: shards {', '.join(map(str, lost))} of {n} never arrived")
            by_backend[name] = []  # not merged: a partial report would read as a full one
    return by_backend, sorted(set(notes)), sorted(set(problems)), sorted(set(retry))


# ---- the night ----

def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def source_commit(source):
    for var in ("BITCTS_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA"):
        if os.environ.get(var):
            return os.environ[var]
    if source:
        rc, text = run_cmd(["git", "-C", source, "rev-parse", "HEAD"])
        if rc == 0:
            return text.strip()
    return ""


def read_json(path, limit):
    """A JSON file of at most `limit` bytes; OSError or ValueError (invalid UTF-8, nesting too
    deep for the parser included) when it cannot be read."""
    if os.path.getsize(path) > limit:
        raise ValueError(f"over {limit} bytes")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except RecursionError as e:
        raise ValueError("nested too deep") from e


def load_json_file(path, what, limit=256 << 20):
    """A JSON file of the site, or UsageError naming it: a damaged or hostile site is never
    published over (exit 2, one line, nothing written)."""
    try:
        if os.path.islink(path):
            raise ValueError("a symbolic link")
        return read_json(path, limit)
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: the {what} is damaged ({str(e)[:200]}); nothing published. "
                         f"Repair it, or move it aside to start a new {what}") from e


def load_history(site):
    """The history (docs/nightly.md) and a problem when it is missing from a used site; a
    damaged or hostile one is bad input (UsageError)."""
    path = os.path.join(site, "history.json")
    fresh = {"schema": HISTORY_SCHEMA, "schema_version": HISTORY_VERSION, "nights": []}
    if not os.path.lexists(path):
        nights = os.path.join(site, "nights")
        if os.path.isdir(nights) and [n for n in os.listdir(nights) if not n.startswith(".")]:
            return fresh, "history.json is missing (earlier nights are on the site): " \
                          "a new history starts with this night"
        return fresh, ""
    h = load_json_file(path, "history")
    ok = isinstance(h, dict) and h.get("schema") == HISTORY_SCHEMA and \
        isinstance(h.get("nights"), list) and str(h.get("schema_version", "")).startswith("1.")
    bad = [] if not ok else [n for n in h["nights"]
                             if not isinstance(n, dict) or not safe_name(n.get("id"))]
    if not ok or bad:
        raise UsageError(f"{path}: the history is damaged (not a bitcts nightly history 1.x"
                         f"{' whose night ids are names' if ok else ''}); nothing published. "
                         "Repair it, or move it aside to start a new history")
    return h, ""


FAILING_SCHEMA = "bitcts-nightly-failing"


def load_failing(site):
    """failing.json: {backend: {case id: the night it has failed since}}."""
    path = os.path.join(site, "failing.json")
    if not os.path.lexists(path):
        return {}
    f = load_json_file(path, "failing-since record")
    ok = isinstance(f, dict) and f.get("schema") == FAILING_SCHEMA and \
        isinstance(f.get("backends"), dict) and all(
            isinstance(m, dict) and all(isinstance(k, str) and safe_name(v) for k, v in m.items())
            for m in f["backends"].values())
    if not ok:
        raise UsageError(f"{path}: the failing-since record is damaged; nothing published. "
                         "Repair it, or move it aside to start a new one")
    return f["backends"]


def load_verdicts(bitcts):
    """The verdict table and every change's class, from bitcts itself (bitcts report verdicts):
    the nightly keeps no meaning of its own. (table, "") or (None, problem)."""
    rc, out = run_cmd([bitcts, "report", "verdicts"], timeout=60)
    try:
        table = json.loads(out) if rc == 0 else None
        if table is None or table.get("schema") != "bitcts-verdicts":
            raise ValueError(out.strip()[:300] or f"exit {rc}")
        return table, ""
    except ValueError as e:
        return None, f"bitcts report verdicts failed: {e}"


def verify_report(bitcts, path):
    """bitcts report verify of a merged report: "" when verified, else the problem."""
    rc, text = run_cmd([bitcts, "report", "verify", path], timeout=3600)
    if rc == 0:
        return ""
    lines = [x for x in text.strip().splitlines() if x.startswith("problem: ")]
    return f"bitcts report verify refused the merged report (exit {rc}): " + \
        (lines[0][len("problem: "):] if lines else text.strip()[-300:])


def report_diff(bitcts, before, after, work):
    """bitcts report diff BEFORE AFTER as JSON: (diff, "") or (None, problem)."""
    out = os.path.join(work, "diff-%d.json" % os.getpid())
    rc, text = run_cmd([bitcts, "report", "diff", before, after, "--json", out], timeout=600)
    try:
        with open(out, encoding="utf-8") as f:
            return json.load(f), ""
    except (OSError, ValueError) as e:
        return None, f"bitcts report diff failed (exit {rc}): {text.strip()[-300:] or e}"
    finally:
        if os.path.exists(out):
            os.remove(out)


def read_report(path):
    try:
        with open(path, encoding="utf-8") as f:
            r = json.load(f)
        if r.get("schema") != "bitcts-report" or not isinstance(r.get("cases"), list):
            raise ValueError("not a bitcts report")
        return r, ""
    except (OSError, ValueError, AttributeError) as e:
        return None, f"unreadable report {os.path.basename(os.path.dirname(path))}/report.json: {e}"


def bench(bitcts, work):
    """Median ratio to the measured limit per operator (bitcts bench --quick), or {}."""
    out = os.path.join(work, "bench.json")
    rc, _ = run_cmd([bitcts, "bench", "--quick", "--no-peers", "--json", out], timeout=1800)
    try:
        with open(out, encoding="utf-8") as f:
            rows = json.load(f)["results"]
    except (OSError, ValueError, KeyError):
        return {}, f"bench exited {rc} without results"
    ratios = {}
    for r in rows:
        if isinstance(r.get("ratio_limit"), (int, float)):
            ratios.setdefault(r["op"], []).append(r["ratio_limit"])
    return {op: sorted(v)[len(v) // 2] for op, v in ratios.items()}, ""


def check_night_id(night_id):
    if not safe_name(night_id):
        raise UsageError(f"--night {night_id!r}: a letter or digit first, then letters, digits "
                         "and _.+- (no '..', at most 64)")
    return night_id


def merge_reports(args, by_backend, night_dir, problems):
    """Each backend's shards merged into night_dir/NAME and verified: {name: report}."""
    reports = {}
    for name in sorted(by_backend):
        if not by_backend[name]:
            continue
        dest = os.path.join(night_dir, name)
        path, problem = merge_backend(args.bitcts, by_backend[name], dest)
        if problem:
            problems.append(f"{name}: {problem}")
            continue
        report, problem = read_report(path)
        if report is None:
            problems.append(f"{name}: {problem}")
            continue
        problem = "" if args.no_verify else verify_report(args.bitcts, path)
        if problem:  # published all the same, with the reason on the page: the night is not green
            problems.append(f"{name}: {problem}")
        reports[name] = report
        for junk in glob.glob(os.path.join(dest, "results.jsonl")):
            os.remove(junk)
    return reports


def diff_with_history(args, site, history, reports, night_dir, problems):
    """Each backend against the latest night that ran it and kept its report, by bitcts report
    diff: ({name: (night id, report)}, {name: diff})."""
    prev_reports, diffs = {}, {}
    for name in reports:
        for n in reversed(history["nights"]):
            p = os.path.join(site, "nights", n["id"], name, "report.json")
            if name in n.get("backends", {}) and os.path.isfile(p) and not os.path.islink(p):
                r, _ = read_report(p)
                if r is not None:
                    prev_reports[name] = (n["id"], r)
                    diffs[name], problem = report_diff(
                        args.bitcts, p, os.path.join(night_dir, name, "report.json"), args.work)
                    if problem:
                        problems.append(f"{name}: {problem}")
                break
    return prev_reports, diffs


def night_identity(args, cfg, night_id, started):
    return {
        "id": night_id,
        "title": cfg["title"],
        "started": started.isoformat().replace("+00:00", "Z"),
        "finished": now_utc().isoformat().replace("+00:00", "Z"),
        "commit": source_commit(args.source),
        "host": {"hostname": socket.gethostname(), "os": f"{platform.system()} "
                 f"{platform.release()}", "machine": platform.machine()},
        "command_line": args.command_line,
        "tier": cfg["tier"],
        "filter": cfg["filter"],
        "seed": cfg["seed"],
        "repeat": cfg["repeat"],
        "retry": cfg["retry"],
        "config": os.path.basename(cfg["path"]),
        "config_sha256": cfg["sha256"],
    }


def prune(site, history, cfg):
    """Old nights out of the site: beyond keep_nights entirely; beyond keep_reports their full
    reports (report.json, junit.xml: the bulk of a clean night) while their pages, summaries,
    diffs and failing cases stay. Leftovers of an interrupted publish go too."""
    ids = [n["id"] for n in history["nights"]]
    kept = set(ids[-cfg["keep_reports"]:])
    for d in glob.glob(os.path.join(site, "nights", "*")) + \
            glob.glob(os.path.join(site, "nights", ".*")):
        base = os.path.basename(d)
        if base not in ids:
            shutil.rmtree(d, ignore_errors=True)
        elif base not in kept:
            for f in glob.glob(os.path.join(d, "*", "report.json")) + \
                    glob.glob(os.path.join(d, "*", "junit.xml")):
                os.remove(f)
    for n in history["nights"]:
        n["reports_kept"] = n["id"] in kept


def install_night(site, staging, night_id):
    """The staged night folder in place of nights/ID, by renames: never half there."""
    final = os.path.join(site, "nights", night_id)
    old = os.path.join(site, "nights", f".old-{night_id}")
    shutil.rmtree(old, ignore_errors=True)
    if os.path.lexists(final):
        os.rename(final, old)
    os.rename(staging, final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def exit_code(night, problems):
    status = nightly_site.night_status(night)
    if status == "red":
        return EXIT_RED
    if status == "retry":
        return EXIT_RETRY
    return EXIT_PROBLEMS if problems else EXIT_GREEN


def publish(args, cfg, results_dirs, extra, started):
    """Merges, diffs against the previous night and writes the site. Returns the exit code.
    The night is staged in nights/.staging-ID and renamed into place; history.json,
    failing.json and the front page are each written to a temporary file and renamed."""
    site = os.path.abspath(args.site)
    night_id = check_night_id(args.night or now_utc().strftime("%Y-%m-%dT%H%M%SZ"))
    history, hist_problem = load_history(site)
    failing = load_failing(site)
    by_backend, notes, shard_problems, retry = collect(results_dirs)
    problems = [hist_problem] if hist_problem else []
    history["nights"] = [n for n in history["nights"] if n.get("id") != night_id]
    staging = os.path.join(site, "nights", f".staging-{night_id}")
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    problems += shard_problems + extra[1]
    retry = sorted(set(retry + extra[2]))
    notes = sorted(set(notes + extra[0]))
    if args.vectors_problem:
        problems.append(args.vectors_problem)
    reports = merge_reports(args, by_backend, staging, problems)
    prev = history["nights"][-1] if history["nights"] else None
    prev_reports, diffs = diff_with_history(args, site, history, reports, staging, problems)
    bench_ratios = {}
    if cfg["bench"] == "quick":
        bench_ratios, problem = bench(args.bitcts, args.work)
        if problem:
            problems.append(problem)
    since = nightly_site.failing_since(night_id, reports, failing)
    night = nightly_site.summarize_night(night_identity(args, cfg, night_id, started), reports,
                                         prev, prev_reports, problems, notes, bench_ratios,
                                         diffs, since, retry)
    history["nights"].append(night)
    history["nights"] = history["nights"][-cfg["keep_nights"]:]
    nightly_site.write_site(site, staging, history, night, reports)
    install_night(site, staging, night_id)
    write_atomic(os.path.join(site, "failing.json"), json.dumps(
        {"schema": FAILING_SCHEMA, "schema_version": "1.0", "backends": since}) + "\n")
    prune(site, history, cfg)
    write_atomic(os.path.join(site, "history.json"), json.dumps(history, indent=1) + "\n")
    status = nightly_site.night_status(night)
    print(f"nightly: night {night_id}: {status}; {len(reports)} backends; "
          f"{night['totals']['failing']} failing, {night['totals']['flakes']} flakes, "
          f"{len(night['diff']['regressions'])} regressions; site {site}/index.html")
    for p in problems:
        print(f"nightly: problem: {p}", file=sys.stderr)
    for r in retry:
        print(f"nightly: retry: {r}", file=sys.stderr)
    return exit_code(night, problems)


write_atomic = nightly_site.write_text  # a temporary file beside it, then a rename


def verify_vectors(bitcts, source):
    argv = [bitcts, "vectors", "verify"]
    golden = os.path.join(source, "vectors", "golden", "manifest.json") if source else ""
    if golden and os.path.isfile(golden):
        argv += ["--golden", golden]
    rc, text = run_cmd(argv, cwd=source or None)
    if rc != 0:
        return "golden vectors: bitcts vectors verify exited %d: %s" % (
            rc, (text.strip().splitlines() or ["?"])[-1])
    return ""


def cmd_run(args, cfg):
    started = now_utc()
    if args.build:
        rc, text = run_cmd(["cmake", "--build", args.build, "-j", str(args.build_jobs)])
        if rc != 0:
            print(text[-4000:], file=sys.stderr)
            print("nightly: the build failed; nothing published", file=sys.stderr)
            return EXIT_PROBLEMS
    args.vectors_problem = "" if args.no_verify else verify_vectors(args.bitcts, args.source)
    work = args.work or tempfile.mkdtemp(prefix="bitcts-nightly-")
    args.work = work
    results = os.path.join(work, "results")
    shutil.rmtree(results, ignore_errors=True)
    os.makedirs(results)
    found, notes, problems, retry = backends(cfg, args.bitcts, work)
    jobs = [(b, i) for b in found for i in range(1, args.shards + 1)]
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        for problem, again in pool.map(
                lambda bi: run_shard(cfg, args.bitcts, bi[0], bi[1], args.shards, results), jobs):
            if problem:
                (retry if again else problems).append(problem)
    more_notes, more_problems = run_results(cfg, args.bitcts, results)
    try:
        return publish(args, cfg, [results],
                       (notes + more_notes, problems + more_problems, retry), started)
    finally:
        if not args.work_given:
            shutil.rmtree(work, ignore_errors=True)


def cmd_publish(args, cfg):
    args.vectors_problem = "" if args.no_verify else verify_vectors(args.bitcts, args.source)
    for d in args.results:
        if not os.path.isdir(d):
            raise UsageError(f"--results {d}: no such folder")
    args.work = args.work or tempfile.mkdtemp(prefix="bitcts-nightly-")
    try:
        return publish(args, cfg, args.results, ([], [], []), now_utc())
    finally:
        if not args.work_given:
            shutil.rmtree(args.work, ignore_errors=True)


def check_selection(bitcts, cfg):
    """The config's tier and filter select cases (bitcts list): an unknown tier or a filter
    that selects nothing is bad input, found before anything runs."""
    argv = [bitcts, "list", "--tier", cfg["tier"], "--count"]
    if cfg["filter"]:
        argv += ["--filter", cfg["filter"]]
    rc, text = run_cmd(argv, timeout=300)
    last = (text.strip().splitlines() or ["no output"])[-1]
    if rc != 0:
        raise UsageError(f"config {cfg['path']}: tier {cfg['tier']!r}, filter "
                         f"{cfg['filter'] or '*'!r}: bitcts list refused it: {last}")


def check_site(args):
    """Before anything runs: a site the night can be published into (a history and failing
    record that are not damaged), and a night id that is a name."""
    site = os.path.abspath(args.site)
    if os.path.lexists(site) and (os.path.islink(site) or not os.path.isdir(site)):
        raise UsageError(f"--site {args.site}: not a folder")
    if args.night is not None:
        check_night_id(args.night)
    load_history(site)
    load_failing(site)
    os.makedirs(os.path.join(site, "nights"), exist_ok=True)


def find_bitcts(args):
    if args.bitcts:
        return os.path.abspath(args.bitcts)
    for cand in ([os.path.join(args.build, "bitcts")] if args.build else []) + \
            [shutil.which("bitcts") or ""]:
        if cand and os.access(cand, os.X_OK):
            return os.path.abspath(cand)
    raise UsageError("no bitcts: give --bitcts PATH or --build DIR")


def main(argv):
    ap = argparse.ArgumentParser(prog="nightly.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", required=True, help="the nightly config (docs/nightly.md)")
    common.add_argument("--bitcts", help="the bitcts executable (default: BUILD/bitcts or PATH)")
    common.add_argument("--build", help="the CMake build folder")
    common.add_argument("--source", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), help="the source tree (golden vectors, commit)")
    common.add_argument("--work", help="scratch folder (default: a temporary one)")
    pub = argparse.ArgumentParser(add_help=False)
    pub.add_argument("--site", required=True, help="the site folder, updated in place")
    pub.add_argument("--night", help="the night's id (default: the UTC time)")
    pub.add_argument("--no-verify", action="store_true",
                     help="skip bitcts vectors verify and bitcts report verify")
    r = sub.add_parser("run", parents=[common, pub], help="build, run every shard, publish")
    r.add_argument("--shards", type=int, default=1, help="shards per backend (default 1)")
    r.add_argument("--parallel", type=int, default=1, help="shards run at once (default 1)")
    r.add_argument("--build-jobs", type=int, default=2)
    s = sub.add_parser("shard", parents=[common], help="run shard I of N of every backend")
    s.add_argument("--index", type=int)
    s.add_argument("--count", type=int)
    s.add_argument("--auto", action="store_true",
                   help="the shard the job engine hands out (bitcts run --shard auto) "
                   "instead of --index and --count")
    s.add_argument("--out", required=True, help="where the shard's results go")
    p = sub.add_parser("publish", parents=[common, pub], help="merge shard results, publish")
    p.add_argument("--results", nargs="+", required=True, help="folders written by shard")
    args = ap.parse_args(argv[1:])
    args.command_line = ["nightly.py"] + argv[1:]
    args.work_given = bool(args.work)
    try:
        cfg = load_config(args.config)
        args.bitcts = find_bitcts(args)
        table, problem = load_verdicts(args.bitcts)
        if table is None:
            raise UsageError(problem)
        nightly_site.use_verdicts(table)
        if args.cmd in ("run", "shard"):
            check_selection(args.bitcts, cfg)
        if args.cmd == "shard":
            if args.auto == (args.index is not None or args.count is not None):
                raise UsageError("shard: give --auto or --index and --count, not both or neither")
            if not args.auto and (args.index is None or args.count is None):
                raise UsageError("shard: --index and --count go together")
            if not args.auto and not 1 <= args.index <= args.count:
                raise UsageError("--index must be 1..--count")
            return cmd_shard(args, cfg)
        check_site(args)
        if args.cmd == "run":
            if args.shards < 1 or args.parallel < 1:
                raise UsageError("--shards and --parallel must be at least 1")
            return cmd_run(args, cfg)
        return cmd_publish(args, cfg)
    except UsageError as e:
        print(f"nightly: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:  # a disk that filled, a folder that went away: the night is not red
        print(f"nightly: error: {e.strerror or e} ({e.filename or 'no file'}): the night was "
              "not published; run it again", file=sys.stderr)
        return EXIT_RETRY


if __name__ == "__main__":
    sys.exit(main(sys.argv))
