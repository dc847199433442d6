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
1 it is red (a case failed; flakes do not count), 2 bad command line or config (nothing
published), 3 published with problems (missing or corrupt history, an unreadable report, a
backend that did not run, golden vectors that do not verify), shown on the page. Format of the
config, the site and the history: docs/nightly.md.
"""
import argparse
import configparser
import datetime
import glob
import html
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
EXIT_GREEN, EXIT_RED, EXIT_USAGE, EXIT_PROBLEMS = 0, 1, 2, 3


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
    known = {"tier", "filter", "repeat", "jobs", "timeout", "keep_nights", "keep_reports",
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

    cfg = {
        "path": os.path.abspath(path),
        "title": n.get("title", "bitcts nightly"),
        "tier": n.get("tier", "default"),
        "filter": n.get("filter", ""),
        "repeat": num("repeat", 2, 1, 64),
        "jobs": num("jobs", 0, 0, 4096),
        "timeout": num("timeout", 30, 1, 86400),
        "keep_nights": num("keep_nights", 60, 2, 100000),
        "keep_reports": num("keep_reports", 7, 2, 100000),
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
    for section in cp.sections():
        kind, _, name = section.partition(" ")
        if kind == "nightly":
            continue
        if kind not in ("plugin", "results") or not re.fullmatch(r"[A-Za-z0-9_.+-]+", name):
            raise UsageError(f"config {path}: unknown section [{section}] "
                             "(want [nightly], [plugin NAME] or [results NAME])")
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
    """1 when `bitcts run --backend spec` can run one case here."""
    out = os.path.join(work, "probe-" + slug(spec))
    rc, _ = run_cmd([bitcts, "run", "--backend", spec, "--tier", "all", "--filter", PROBE_CASE,
                     "--report", out, "--quiet", "--force", "--jobs", "1"], timeout=120)
    shutil.rmtree(out, ignore_errors=True)
    return rc in (0, 1)


def backends(cfg, bitcts, work):
    """Every backend of the night: [{name, spec, options, baseline}], and notes on the skipped."""
    found, notes = [], []
    variants = CPU_VARIANTS if cfg["cpu_variants"] == ["auto"] else cfg["cpu_variants"]
    for v in variants:
        if v == "none":
            continue
        if probe(bitcts, "cpu:" + v, work):
            found.append({"name": "cpu:" + v, "spec": "cpu:" + v, "options": [], "baseline": ""})
        elif cfg["cpu_variants"] != ["auto"]:
            notes.append(f"cpu:{v} cannot run on this host (skipped)")
    if cfg["vulkan"] != "no":
        if probe(bitcts, "vulkan", work):
            found.append({"name": "vulkan", "spec": "vulkan", "options": [], "baseline": ""})
        elif cfg["vulkan"] == "yes":
            notes.append("vulkan: no device or driver on this host (skipped)")
    for p in cfg["plugins"]:
        found.append({"name": p["name"], "spec": p["path"], "options": p["options"],
                      "baseline": p["baseline"]})
    return found, notes


def run_shard(cfg, bitcts, backend, index, count, out, dest=None, rc_out=None):
    """One shard of one backend: bitcts run into out/<slug>/shard-I-of-N (or into dest, with
    --shard auto when count is 0; rc_out, a list, gets bitcts run's exit code). Returns a note
    or ""."""
    dest = dest or os.path.join(out, slug(backend["name"]), f"shard-{index}-of-{count}")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    argv = [bitcts, "run", "--backend", backend["spec"], "--tier", cfg["tier"], "--report", dest,
            "--quiet", "--force", "--repeat", str(cfg["repeat"]), "--timeout", str(cfg["timeout"])]
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
        return ""
    last = text.strip().splitlines()[-1] if text.strip() else "no output"
    where = f"shard {index}/{count}" if count else "shard auto"
    return f"{backend['name']} {where}: bitcts run exited {rc}: {last}"


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
    out/<slug>/shard-I-of-N after the report's selection.shard. Returns ((I, N) or None, note).
    A run that refuses its command line (no engine, or two, set a shard) is a UsageError."""
    tmp = tempfile.mkdtemp(prefix=".auto-" + slug(backend["name"]) + "-", dir=out)
    run_dir = os.path.join(tmp, "shard")
    rc = []
    problem = run_shard(cfg, bitcts, backend, 0, 0, out, dest=run_dir, rc_out=rc)
    shard = report_shard(run_dir)
    if shard is None:
        shutil.rmtree(tmp, ignore_errors=True)
        if rc == [EXIT_USAGE]:
            raise UsageError(problem)
        return None, problem or f"{backend['name']} shard auto: no readable selection.shard"
    dest = os.path.join(out, slug(backend["name"]), "shard-%d-of-%d" % shard)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.rmtree(dest, ignore_errors=True)
    if os.path.exists(dest + ".log"):
        os.remove(dest + ".log")
    os.rename(run_dir + ".log", dest + ".log")
    os.rename(run_dir, dest)
    shutil.rmtree(tmp, ignore_errors=True)
    return shard, problem


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
    found, notes = backends(cfg, args.bitcts, args.out)
    problems, shards = [], set()
    for b in found:
        shard, problem = run_shard_auto(cfg, args.bitcts, b, args.out)
        if problem:
            problems.append(problem)
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
        {"notes": notes, "problems": problems, "backends": [b["name"] for b in found]}))
    for n in notes + problems:
        print("nightly: " + n, file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_GREEN


def cmd_shard(args, cfg):
    if args.auto:
        return cmd_shard_auto(args, cfg)
    os.makedirs(args.out, exist_ok=True)
    found, notes = backends(cfg, args.bitcts, args.out)
    problems = [p for p in (run_shard(cfg, args.bitcts, b, args.index, args.count, args.out)
                            for b in found) if p]
    if args.index == 1:
        more_notes, more_problems = run_results(cfg, args.bitcts, args.out)
        notes += more_notes
        problems += more_problems
    with open(os.path.join(args.out, f"notes-{args.index}-of-{args.count}.json"), "w",
              encoding="utf-8") as f:
        json.dump({"notes": notes, "problems": problems,
                   "backends": [b["name"] for b in found]}, f)
    for n in notes + problems:
        print("nightly: " + n, file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_GREEN


# ---- merging ----

def merge_backend(bitcts, shard_dirs, dest):
    """Merges one backend's shard reports into dest; returns (report path or "", problem)."""
    good = [d for d in shard_dirs if os.path.isfile(os.path.join(d, "report.json"))]
    missing = [os.path.basename(d) for d in shard_dirs if d not in good]
    if missing:
        return "", f"no report in {', '.join(missing)}"
    if len(good) == 1:
        shutil.copytree(good[0], dest, dirs_exist_ok=True)
        return os.path.join(dest, "report.json"), ""
    rc, text = run_cmd([bitcts, "report", "merge", "--out", dest, *sorted(good)])
    if rc != 0:
        return "", "report merge failed: " + (text.strip().splitlines() or ["?"])[-1]
    return os.path.join(dest, "report.json"), ""


def collect(results_dirs):
    """Shard folders by backend slug over every results folder, and the shards' notes."""
    by_backend, notes, problems = {}, [], []
    counts = {}
    for root in results_dirs:
        for nf in glob.glob(os.path.join(root, "notes-*.json")):
            try:
                with open(nf, encoding="utf-8") as f:
                    got = json.load(f)
                notes += got["notes"]
                problems += got["problems"]
            except (OSError, ValueError, KeyError, TypeError):
                problems.append(f"unreadable shard notes {os.path.basename(nf)}")
        for d in sorted(glob.glob(os.path.join(root, "*", "shard-*-of-*"))):
            if not os.path.isdir(d):
                continue
            m = re.search(r"shard-(\d+)-of-(\d+)$", d)
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
    return by_backend, sorted(set(notes)), sorted(set(problems))


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


def load_history(site):
    """The history (docs/nightly.md); a problem when it is missing from a used site or corrupt."""
    path = os.path.join(site, "history.json")
    fresh = {"schema": HISTORY_SCHEMA, "schema_version": HISTORY_VERSION, "nights": []}
    if not os.path.exists(path):
        if os.path.isdir(os.path.join(site, "nights")) and os.listdir(os.path.join(site, "nights")):
            return fresh, "history.json is missing (earlier nights are on the site): " \
                          "a new history starts with this night"
        return fresh, ""
    try:
        with open(path, encoding="utf-8") as f:
            h = json.load(f)
        if h.get("schema") != HISTORY_SCHEMA or not isinstance(h.get("nights"), list) or \
                not str(h.get("schema_version", "")).startswith("1.") or \
                not all(isinstance(n, dict) and isinstance(n.get("id"), str) for n in h["nights"]):
            raise ValueError("not a bitcts nightly history 1.x")
        return h, ""
    except (OSError, ValueError, AttributeError) as e:
        keep = path + ".corrupt"
        try:
            shutil.copyfile(path, keep)
        except OSError:
            pass
        return fresh, f"history.json is unreadable ({e}); kept as history.json.corrupt, " \
                      "a new history starts with this night"


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


def publish(args, cfg, results_dirs, extra, started):
    """Merges, diffs against the previous night and writes the site. Returns the exit code."""
    site = os.path.abspath(args.site)
    os.makedirs(site, exist_ok=True)
    problems = []
    night_id = args.night or now_utc().strftime("%Y-%m-%dT%H%M%SZ")
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", night_id):
        raise UsageError(f"--night {night_id!r}: letters, digits and _.+- only")
    history, hist_problem = load_history(site)
    if hist_problem:
        problems.append(hist_problem)
    history["nights"] = [n for n in history["nights"] if n.get("id") != night_id]
    night_dir = os.path.join(site, "nights", night_id)
    shutil.rmtree(night_dir, ignore_errors=True)
    os.makedirs(night_dir)
    by_backend, notes, shard_problems = collect(results_dirs)
    problems += shard_problems + extra[1]
    notes = sorted(set(notes + extra[0]))
    if args.vectors_problem:
        problems.append(args.vectors_problem)
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
        reports[name] = report
        for junk in glob.glob(os.path.join(dest, "results.jsonl")):
            os.remove(junk)
    prev = history["nights"][-1] if history["nights"] else None
    prev_reports = {}  # each backend against the latest night that ran it and kept its report
    diffs = {}  # bitcts report diff of each such pair: the one meaning of a change
    for name in reports:
        for n in reversed(history["nights"]):
            p = os.path.join(site, "nights", n["id"], name, "report.json")
            if name in n.get("backends", {}) and os.path.isfile(p):
                r, _ = read_report(p)
                if r is not None:
                    prev_reports[name] = (n["id"], r)
                    diffs[name], problem = report_diff(
                        args.bitcts, p, os.path.join(night_dir, name, "report.json"), args.work)
                    if problem:
                        problems.append(f"{name}: {problem}")
                break
    bench_ratios = {}
    if cfg["bench"] == "quick":
        bench_ratios, problem = bench(args.bitcts, args.work)
        if problem:
            problems.append(problem)
    identity = {
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
        "repeat": cfg["repeat"],
        "config": os.path.basename(cfg["path"]),
    }
    night = nightly_site.summarize_night(identity, reports, prev, prev_reports, problems, notes,
                                         bench_ratios, diffs)
    history["nights"].append(night)
    history["nights"] = history["nights"][-cfg["keep_nights"]:]
    # Only the last keep_reports nights keep their full reports; history keeps the summaries.
    kept = {n["id"] for n in history["nights"][-cfg["keep_reports"]:]}
    for d in glob.glob(os.path.join(site, "nights", "*")):
        if os.path.basename(d) not in kept:
            shutil.rmtree(d, ignore_errors=True)
    for n in history["nights"]:
        n["reports_kept"] = n["id"] in kept
    nightly_site.write_site(site, night_dir, history, night, reports)
    write_atomic(os.path.join(site, "history.json"), json.dumps(history, indent=1) + "\n")
    status = nightly_site.night_status(night)
    print(f"nightly: night {night_id}: {status}; {len(reports)} backends; "
          f"{night['totals']['failing']} failing, {night['totals']['flakes']} flakes, "
          f"{len(night['diff']['regressions'])} regressions; site {site}/index.html")
    for p in problems:
        print(f"nightly: problem: {p}", file=sys.stderr)
    if problems:
        return EXIT_PROBLEMS
    return EXIT_RED if status == "red" else EXIT_GREEN


def write_atomic(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


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
    found, notes = backends(cfg, args.bitcts, work)
    jobs = [(b, i) for b in found for i in range(1, args.shards + 1)]
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        problems = [p for p in pool.map(
            lambda bi: run_shard(cfg, args.bitcts, bi[0], bi[1], args.shards, results), jobs) if p]
    more_notes, more_problems = run_results(cfg, args.bitcts, results)
    try:
        return publish(args, cfg, [results], (notes + more_notes, problems + more_problems),
                       started)
    finally:
        if not args.work_given:
            shutil.rmtree(work, ignore_errors=True)


def cmd_publish(args, cfg):
    args.vectors_problem = "" if args.no_verify else verify_vectors(args.bitcts, args.source)
    args.work = args.work or tempfile.mkdtemp(prefix="bitcts-nightly-")
    for d in args.results:
        if not os.path.isdir(d):
            raise UsageError(f"--results {d}: no such folder")
    return publish(args, cfg, args.results, ([], []), now_utc())


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
    pub.add_argument("--no-verify", action="store_true", help="skip bitcts vectors verify")
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
        if args.cmd == "shard":
            if args.auto == (args.index is not None or args.count is not None):
                raise UsageError("shard: give --auto or --index and --count, not both or neither")
            if not args.auto and (args.index is None or args.count is None):
                raise UsageError("shard: --index and --count go together")
            if not args.auto and not 1 <= args.index <= args.count:
                raise UsageError("--index must be 1..--count")
            return cmd_shard(args, cfg)
        if args.cmd == "run":
            if args.shards < 1 or args.parallel < 1:
                raise UsageError("--shards and --parallel must be at least 1")
            return cmd_run(args, cfg)
        return cmd_publish(args, cfg)
    except UsageError as e:
        print(f"nightly: error: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv))
