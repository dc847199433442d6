#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes OUTDIR/gpu-summary.md from what tools/gpu-run.sh left in OUTDIR: the device, each
step's status and time, the verdict counts of each tier, the sweeps and the benchmarks (GB/s,
the ratio to the device's copy limits measured in the same run, and the peers' GB/s).

usage: gpu_summary.py OUTDIR VERSION_LINE MODE"""
import json
import os
import statistics
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f), None
    except (OSError, ValueError) as e:
        return None, "%s: %s" % (os.path.basename(path), e)


def fmt(x, digits=1):
    return "-" if x is None else ("%.*f" % (digits, x))


def host_bench_lines(b):
    """A host-timed (CPU) bench: the host that sized and placed it, each instance's threads,
    cores and limit spread, and every row's ratio to its limit and to the CPU peers."""
    h = b["host"]
    lines = ["### %s: host, threads and limits" % b.get("backend", {}).get("name", "cpu"), "",
             "- last-level cache: %s" % (
                 "L%s %.1f MiB x %s instances (%s), %.0f MiB per input" % (
                     h.get("llc_level"), (h.get("llc_bytes") or 0) / 2**20,
                     h.get("llc_instances"), h.get("llc_source"), b.get("size_bytes", 0) / 2**20)
                 if h.get("llc_source") == "sysfs" else
                 "unknown (fallback), %.0f MiB per input" % (b.get("size_bytes", 0) / 2**20)),
             "- cores: %s of %s online CPUs (%s topology); threads %s" % (
                 h.get("cores"), h.get("online_cpus"), h.get("topology_source"),
                 "placed one per core" if h.get("placed") else "not placed"), ""]
    if h.get("size_capped_by_memory"):
        lines.insert(3, "- inputs capped by memory: %.0f MiB per input, a sixteenth of the %.0f "
                        "MiB available (less than the cache asks for)" % (
                            b.get("size_bytes", 0) / 2**20,
                            (h.get("mem_available_bytes") or 0) / 2**20))
    lines += ["| threads | CPUs | copy limit min / median / max | triad limit min / median / max "
              "| shaped limit min / median / max |",
              "|---:|---|---|---|---|"]
    for inst in (b.get("limits") or {}).get("instances") or []:
        spread = inst.get("limit_spread") or {}
        cells = []
        for kind in ("copy", "triad", "shaped"):
            v = spread.get(kind)
            cells.append("%s / %s / %s (%d rows)" % (fmt(v["min_gbps"]), fmt(v["median_gbps"]),
                                                     fmt(v["max_gbps"]), v["rows"])
                         if v else "-")
        cpus = inst.get("cpus")
        lines.append("| %s | %s | %s | %s | %s |" % (inst.get("threads"),
                                               ",".join(map(str, cpus)) if cpus else "-", *cells))
    lines.append("")
    rows = b.get("results") or []
    over = [r for r in rows if r.get("over_limit")]
    lines += ["Rows above %.2f of their limit: %d of %d." % (1.05, len(over), len(rows))]
    lines += ["- %s %s->%s %s %s thr: %s" % (r.get("op"), r.get("in_type"), r.get("out_type"),
                                            r.get("layout"), r.get("threads"),
                                            r.get("over_limit_why")) for r in over]
    missing = b.get("not_measured") or []
    if b.get("in_progress"):
        lines += ["", "PARTIAL: the bench was still running when its step ended (the JSON holds "
                      "the rows measured before); the rows without figures were not measured."]
    if b.get("budget_s") is not None:
        lines += ["", "Time budget %s s, used %s s; rows not measured: %d%s" % (
            fmt(b.get("budget_s"), 0), fmt(b.get("total_seconds")), len(missing),
            (": " + ", ".join(missing)) if missing else ".")]
    lines += ["", "LLC %.0f MiB in all (%s); per row: the limit next to it (kind, GB/s), the "
                  "ratio to it, to its instance's median limit (the spread above), and to the "
                  "peers." % ((h.get("llc_total_bytes") or 0) / 2**20, h.get("llc_source")), "",
              "| op | in -> out | layout | threads | reps | GB/s | limit | / limit | / median limit "
              "| x numpy | x torch-cpu | check |",
              "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---|"]
    medians = {}
    for inst in (b.get("limits") or {}).get("instances") or []:
        for kind, v in (inst.get("limit_spread") or {}).items():
            if v:
                medians[(inst.get("threads"), kind)] = v.get("median_gbps")
    for r in rows:
        peers = r.get("peers") or {}
        median = medians.get((r.get("threads"), r.get("limit")))
        gbps = r.get("gbps")
        check = r.get("check")
        if r.get("measured") is False and check == "-":
            check = "not measured"
        lines.append("| %s | %s -> %s | %s | %s | %s | %s | %s %s | %s | %s | %s | %s | %s |" % (
            r.get("op"), r.get("in_type"), r.get("out_type"), r.get("layout"), r.get("threads"),
            r.get("reps", "-"), fmt(gbps), r.get("limit"), fmt(r.get("limit_gbps")),
            fmt(r.get("ratio_limit"), 2), fmt(gbps / median if gbps and median else None, 2),
            fmt((peers.get("numpy") or {}).get("ratio"), 2),
            fmt((peers.get("torch-cpu") or {}).get("ratio"), 2), check))
    lines.append("")
    return lines


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    out, version, mode = sys.argv[1:]
    lines = ["# bitcts GPU run", "", "%s, %s run." % (version, mode), ""]
    problems = []

    ident, err = load(os.path.join(out, "identity.json"))
    if ident is not None:
        dev = ident.get("backend", {}).get("device", {})
        lines += ["| | |", "|---|---|"]
        for key, label in (("device", "Device"), ("driver", "Driver"), ("api_version", "Vulkan API"),
                           ("device_memory_mib", "Device-local memory (MiB)")):
            lines.append("| %s | %s |" % (label, dev.get(key, "-")))
        lines.append("")
    else:
        problems.append(err)

    lines += ["## Steps", "", "| step | status | seconds |", "|---|---|---:|"]
    status = {}
    try:
        with open(os.path.join(out, "steps.tsv"), encoding="utf-8") as f:
            for row in list(f)[1:]:
                cells = row.rstrip("\n").split("\t")
                if len(cells) >= 3:
                    lines.append("| %s | %s | %s |" % tuple(cells[:3]))
                    status[cells[0]] = cells[1]
    except OSError as e:
        problems.append("steps.tsv: %s" % e)
    lines.append("")

    runs = sorted(d for d in os.listdir(out) if d.startswith("run-"))
    if runs:
        lines += ["## Conformance", "", "| tier | cases | verdicts | seconds |", "|---|---:|---|---:|"]
        for d in runs:
            rep, err = load(os.path.join(out, d, "report.json"))
            if rep is None:
                problems.append(err)
                continue
            summ = rep.get("summary", {})
            verdicts = ", ".join("%s %d" % kv for kv in sorted(summ.get("by_verdict", {}).items()))
            lines.append("| %s | %d | %s | %s |" % (d[4:], summ.get("total", 0), verdicts,
                                                  fmt(rep.get("duration_s"))))
        lines.append("")

    sweeps = sorted(f for f in os.listdir(out) if f.startswith("sweep-") and f.endswith(".json"))
    if sweeps:
        lines += ["## Exhaustive sweeps", "",
                  "| sweep | elements checked | mismatches | seconds | device s | Gelem/s on device |",
                  "|---|---:|---:|---:|---:|---:|"]
        for f in sweeps:
            s, err = load(os.path.join(out, f))
            if s is None:
                problems.append(err)
                continue
            dev_s = s.get("device_seconds")
            rate = s["checked"] / dev_s / 1e9 if dev_s else None
            lines.append("| %s %s->%s | %d of %d | %d | %s | %s | %s |" % (
                s.get("op"), s.get("type"), s.get("out_type"), s.get("checked", 0),
                s.get("total", 0), s.get("mismatches", 0), fmt(s.get("seconds")),
                fmt(dev_s, 3), fmt(rate, 2)))
        lines.append("")

    for name in ("bench-vulkan", "bench-cpu", "bench-cpu-2"):
        if status.get(name, "skipped").startswith("skipped"):
            continue  # not run: the steps table says so
        b, err = load(os.path.join(out, name + ".json"))
        if b is None:
            problems.append(err)
            continue
        lines += ["## %s (%s timing, %d B per input, %s reps)" % (
            name, b.get("timing"), b.get("size_bytes", 0), b.get("reps")), ""]
        limits = b.get("limits") or {}
        for k, v in sorted(limits.items()):
            if isinstance(v, list) and all(x is None or isinstance(x, (int, float)) for x in v):
                lines.append("- limit %s: %s (start / end)" % (k, " / ".join(fmt(x) for x in v)))
            elif isinstance(v, (int, float)):
                lines.append("- limit %s: %s" % (k, fmt(v)))
            elif isinstance(v, list):
                for inst in (i for i in v if isinstance(i, dict)):
                    lines.append("- limit %s: %s" % (k, ", ".join(
                        "%s %s" % (ik, fmt(iv) if isinstance(iv, float) else iv)
                        for ik, iv in inst.items() if not isinstance(iv, (list, dict)))))
        for p in b.get("peers") or []:
            lines.append("- peer %s: %s%s" % (
                p.get("name"), "%s on %s" % (p.get("version"), p.get("device"))
                if p.get("present") else "absent (%s)" % p.get("note"),
                ", copy %s GB/s" % fmt(p.get("copy_gbps")) if p.get("copy_gbps") else ""))
        lines.append("")
        rows = b.get("results") or []
        by_layout = {}
        for r in rows:
            by_layout.setdefault(r.get("layout"), []).append(r)
        peer_names = [p.get("name") for p in b.get("peers") or [] if p.get("present")]
        kcopy = any(r.get("ratio_copy_kernel") is not None for r in rows)
        head = "| layout | rows | median GB/s | median GB/s / limit | worst |%s checks |" % (
            " median GB/s / kcopy |" if kcopy else "")
        rule = "|---|---:|---:|---:|---:|%s---|" % ("---:|" if kcopy else "")
        for p in peer_names:
            head += " median %s GB/s | median bitcts / %s |" % (p, p)
            rule += "---:|---:|"
        lines += [head, rule]
        for layout, rs in by_layout.items():
            ratios = [r["ratio_limit"] for r in rs if r.get("ratio_limit") is not None]
            gbps = [r["gbps"] for r in rs if r.get("gbps") is not None]
            checks = sorted({r.get("check") for r in rs})
            kr = [r["ratio_copy_kernel"] for r in rs if r.get("ratio_copy_kernel") is not None]
            row = "| %s | %d | %s | %s | %s |%s %s |" % (
                layout, len(rs), fmt(statistics.median(gbps)) if gbps else "-",
                fmt(statistics.median(ratios), 2) if ratios else "-",
                fmt(min(ratios), 2) if ratios else "-",
                (" %s |" % (fmt(statistics.median(kr), 2) if kr else "-")) if kcopy else "",
                ", ".join(str(c) for c in checks))
            for p in peer_names:
                pg = [r["peers"][p]["gbps"] for r in rs
                      if r.get("peers", {}).get(p, {}).get("gbps") is not None]
                pr = [r["gbps"] / r["peers"][p]["gbps"] for r in rs
                      if r.get("gbps") and r.get("peers", {}).get(p, {}).get("gbps")]
                row += " %s | %s |" % (fmt(statistics.median(pg)) if pg else "-",
                                       fmt(statistics.median(pr), 2) if pr else "-")
            lines.append(row)
        lines.append("")
        if b.get("host"):
            lines += host_bench_lines(b)

    if problems:
        lines += ["## Problems", ""] + ["- %s" % p for p in problems] + [""]
    tmp = os.path.join(out, "gpu-summary.md.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, os.path.join(out, "gpu-summary.md"))
    return 0  # the problems are on the page; gpu-run.sh's steps say what failed


if __name__ == "__main__":
    sys.exit(main())
