# SPDX-License-Identifier: MIT
"""The CPU bench's JSON carries what sizes and places it (docs/performance.md, "The CPU
bench"): the host's last-level cache and cores, the size per input from them, each instance's
threads, the CPUs they ran on and the spread of its limits, and every row's over-limit flag with
its reason; the run's budget fields (none asked: complete, every row measured with every
repetition). Values come from this machine; only their presence, types and mutual consistency
are checked (no speed is asserted).

usage: bench_fields.py BENCH_JSON"""
import json
import sys

FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        b = json.load(f)
    h = b.get("host")
    expect(isinstance(h, dict), "no host object")
    h = h or {}
    for key in ("llc_bytes", "llc_level", "llc_instances", "llc_total_bytes", "online_cpus",
                "cores"):
        expect(isinstance(h.get(key), int), "host.%s is not an integer" % key)
    expect(h.get("llc_source") in ("sysfs", "fallback"), "host.llc_source %r" % h.get("llc_source"))
    expect(h.get("topology_source") in ("sysfs", "fallback"), "host.topology_source")
    expect(isinstance(h.get("placed"), bool), "host.placed is not a boolean")
    cores = h.get("core_cpus") or []
    expect(len(cores) == h.get("cores"), "host.core_cpus has %d entries, cores %s" % (
        len(cores), h.get("cores")))
    expect(1 <= (h.get("cores") or 0) <= (h.get("online_cpus") or 0), "cores not in 1..online")
    instances = (b.get("limits") or {}).get("instances") or []
    expect(len(instances) >= 1, "no instances")
    for inst in instances:
        cpus = inst.get("cpus")
        if h.get("placed") and inst.get("threads", 0) <= h.get("cores", 0):
            expect(cpus == cores[:inst["threads"]], "instance cpus %r, cores %r" % (cpus, cores))
        spread = inst.get("limit_spread") or {}
        for kind in ("copy", "triad"):
            v = spread.get(kind)
            expect(v is not None, "no %s limit spread for %s threads" % (kind, inst.get("threads")))
            if v:
                expect(v["min_gbps"] <= v["median_gbps"] <= v["max_gbps"] and v["rows"] >= 1,
                       "spread %r" % v)
    expect(b.get("budget_s") is None, "budget_s is not null without --budget-s")
    expect(b.get("complete") is True and b.get("in_progress") is False,
           "a finished run without a budget: complete true, in_progress false")
    expect(b.get("not_measured") == [], "not_measured is not an empty list")
    expect(isinstance(b.get("total_seconds"), float), "total_seconds is not a number")
    rows = b.get("results") or []
    expect(len(rows) > 0, "no rows")
    expect(all(r.get("measured") is True and r.get("reps") == b.get("reps") for r in rows),
           "every row measured with every repetition asked (no budget)")
    for r in rows:
        expect(isinstance(r.get("over_limit"), bool), "row without over_limit")
        expect((r.get("over_limit_why") is not None) == bool(r.get("over_limit")),
               "over_limit_why does not match over_limit")
        if r.get("ratio_limit") is not None:
            expect(r.get("over_limit") == (r["ratio_limit"] > 1.05), "over_limit vs ratio_limit")
    # A count to another width is measured against the shaped stream (its own read and write
    # bytes), which the built-in backend has; every other row against the copy or the triad.
    def width(t):
        return int("".join(c for c in (t or "") if c.isdigit()) or 0)

    shaped = [r for r in rows if width(r.get("in_type")) != width(r.get("out_type"))]
    expect(len(shaped) > 0, "no count to another width among the rows")
    for r in rows:
        want = "shaped" if r in shaped else ("triad" if r.get("op") not in (
            "bit_not", "bit_count") and r.get("layout") != "bcast" else "copy")
        expect(r.get("limit") == want, "row %s %s->%s %s: limit %r, not %r" % (
            r.get("op"), r.get("in_type"), r.get("out_type"), r.get("layout"), r.get("limit"),
            want))
    for inst in instances:
        expect((inst.get("limit_spread") or {}).get("shaped") is not None,
               "no shaped limit spread for %s threads" % inst.get("threads"))
    for f in FAILURES:
        print("FAIL: %s" % f)
    print("%d rows, %d instances, %d failures" % (len(rows), len(instances), len(FAILURES)))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
