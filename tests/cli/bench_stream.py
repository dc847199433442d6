# SPDX-License-Identifier: MIT
"""`bitcts bench` as it goes and within a time budget (docs/performance.md, "A bench that
finishes"): no timing is asserted, only what the output and the JSON say.

1. Streaming: a peers script (this file, run by the bench as its host peer with --serve) runs
   inside the backend's rows (docs/performance.md, "Peers on the same buffers") and, at its last
   row, reads what the bench had written by then: the line of every row before it on the
   standard output (a file, so fully buffered unless flushed) and the JSON file rewritten with
   each of those rows, "in_progress": true. The final JSON says in_progress false.
2. The budget: --budget-s 0.1 over 64 MiB tensors (seconds of work on any machine) ends with
   exit code 1, "NOT MEASURED" naming rows, and a JSON whose not_measured lists exactly the rows
   without figures (measured false, check "-", a note), complete false.
3. A peer's process ends at its share of the budget: a peers script that sends nothing for
   ten minutes (its start never done) is killed at the end of its share of --budget-s 3, the
   bench exits and names why the peer timed nothing (without the budget's end it would wait for
   the peer's 120 s of silence, a note of its own).
4. Large rows are checked on a sample (over 64 MiB per input, the reference checking): a plugin that flips one output
   byte, or one input byte, is still caught (WRONG, INPUT), the note naming the bands.

usage: bench_stream.py BITCTS PLUGIN_DIR WORK_DIR"""
import json
import os
import subprocess
import sys
import time

FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
    print("%s %s" % ("ok  " if cond else "FAIL", what))


def probe(argv):
    """Run by the bench as its host peer (--serve): at every run of a row, record what the bench
    had written by then (the last record is the last row's), time nothing; or
    (BENCH_STREAM_SILENT) say nothing for ten minutes."""
    if os.environ.get("BENCH_STREAM_SILENT"):
        time.sleep(600)
        return 0
    fd = int(argv[argv.index("--fd") + 1])
    prefix = argv[argv.index("--prefix") + 1]

    def send(obj):
        os.write(fd, (prefix + " " + json.dumps(obj) + "\n").encode())

    send({"peer": "numpy", "version": "a probe", "device": "cpu", "note": ""})
    for line in sys.stdin:
        f = line.split()
        if f[0] == "map":
            send({"mapped": True})
        elif f[0] == "copy":
            send({"id": "copy", "seconds": 1.0})
        elif f[0] == "row":
            send({"id": f[1], "ready": True})
        elif f[0] == "rep":
            seen = {"row": int(f[1]),
                    "stdout": open(os.environ["BENCH_STREAM_STDOUT"], encoding="utf-8").read()}
            if os.path.exists(os.environ["BENCH_STREAM_JSON"]):  # from the first row's end
                with open(os.environ["BENCH_STREAM_JSON"], encoding="utf-8") as j:
                    seen["json"] = json.load(j)
            with open(os.environ["BENCH_STREAM_SEEN"], "w", encoding="utf-8") as out:
                json.dump(seen, out)
            send({"id": f[1], "seconds": 0.001})
    return 0


def run(args, stdout_path=None, env=None):
    with open(stdout_path or os.devnull, "w", encoding="utf-8") as out:
        p = subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, env=env, check=False)
    text = open(stdout_path, encoding="utf-8").read() if stdout_path else ""
    return p.returncode, text


def streaming(bitcts, work):
    out, js, seen = (os.path.join(work, n) for n in ("stream.txt", "stream.json", "seen.json"))
    for path in (js, seen):
        if os.path.exists(path):
            os.remove(path)
    env = dict(os.environ, BENCH_STREAM_STDOUT=out, BENCH_STREAM_JSON=js, BENCH_STREAM_SEEN=seen)
    rc, text = run([bitcts, "bench", "--quick", "--ops", "not,xor", "--layouts", "packed,bcast",
                    "--peers", "numpy", "--python", sys.executable, "--peers-script",
                    os.path.abspath(__file__), "--json", js], out, env)
    expect(rc == 0, "streaming run: exit 0 (got %d)" % rc)
    final = json.load(open(js, encoding="utf-8"))
    rows = len(final["results"])
    expect(rows > 0 and final["in_progress"] is False and final["complete"] is True,
           "final JSON: %d rows, in_progress false, complete true" % rows)
    if not os.path.exists(seen):
        expect(False, "the peers script ran (no %s)" % seen)
        return
    s = json.load(open(seen, encoding="utf-8"))
    last = s["row"]
    lines = [l for l in s["stdout"].splitlines() if l.startswith("row ")]
    expect(last == rows - len(final["limits"]["instances"]),
           "the peer's last row is the first instance's last (%d of %d)" % (last, rows))
    expect(len(lines) == last and all(l.endswith(", ok") for l in lines),
           "at the peer's last row, stdout held the line of every row before it (%d of %d)" %
           (len(lines), last))
    expect("op    in" not in s["stdout"], "at the peer's last row, no final table yet")
    j = s.get("json") or {}
    expect(j.get("in_progress") is True and j.get("complete") is False,
           "at the peer's last row, the JSON said in_progress true, complete false")
    done = j.get("results", [])[:last]
    expect(len(done) == last and
           all(r.get("check") == "ok" and r.get("measured") for r in done),
           "at the peer's last row, the JSON held every row before it measured")


def budget(bitcts, work):
    js = os.path.join(work, "budget.json")
    rc, text = run([bitcts, "bench", "--size-mib", "64", "--reps", "3", "--budget-s", "0.1",
                    "--no-peers", "--json", js], os.path.join(work, "budget.txt"))
    expect(rc == 1, "tiny budget: exit 1 (got %d)" % rc)
    expect("NOT MEASURED: " in text and "the time budget (--budget-s 0.1) ran out" in text,
           "tiny budget: the rows not measured are named on the terminal")
    b = json.load(open(js, encoding="utf-8"))
    rows = b["results"]
    missing = b["not_measured"]
    unmeasured = [r for r in rows if not r["measured"]]
    expect(b["complete"] is False and b["budget_s"] == 0.1 and len(missing) > 0,
           "tiny budget: JSON complete false, budget_s 0.1, %d rows not measured" % len(missing))
    expect(len(missing) == len(unmeasured) and
           all(r["check"] == "-" and r["gbps"] is None and "time budget" in (r["note"] or "")
               for r in unmeasured),
           "tiny budget: every row without figures is listed, check '-', with a note")
    names = ["%s %s->%s %s %s thr" % (r["op"], r["in_type"], r["out_type"], r["layout"],
                                      r["threads"]) for r in unmeasured]
    expect(names == missing, "tiny budget: not_measured names those rows, in order")
    expect(all(r["reps"] >= 1 for r in rows if r["measured"]), "measured rows have reps")


def peer_budget(bitcts, work):
    js = os.path.join(work, "peer-budget.json")
    env = dict(os.environ, BENCH_STREAM_SILENT="1")
    rc, text = run([bitcts, "bench", "--quick", "--ops", "not", "--layouts", "packed",
                    "--budget-s", "3", "--peers", "numpy", "--python", sys.executable,
                    "--peers-script", os.path.abspath(__file__), "--json", js],
                   os.path.join(work, "peer-budget.txt"), env)
    doc = json.load(open(js, encoding="utf-8"))
    numpy = [p for p in doc["peers"] if p["name"] == "numpy"]
    expect(len(numpy) == 1 and not numpy[0]["present"] and
           "stopped at the end of its share of the time budget" in numpy[0]["note"],
           "a silent peer is stopped at its share of the budget (exit %d, %s)" %
           (rc, numpy[0]["note"] if numpy else "no numpy entry"))


def sampled(bitcts, plugins):
    cases = (("wrong_byte", "WRONG: operator_execute (timed call 1 of 1): 1 of 68157440 output "
                            "bytes (", "bytes checked in 64 bands of rows)"),
             ("write_input", "INPUT: operator_execute (timed call 1 of 1) changed the A buffer",
              ""))
    for name, want, want2 in cases:
        plugin = os.path.join(plugins, "libbitcts_misbehave_%s.so" % name)
        p = subprocess.run([bitcts, "bench", "--backend", plugin, "--ops", "not", "--layouts",
                            "packed", "--size-mib", "65", "--reps", "1", "--no-peers", "--check",
                            "reference"],
                           capture_output=True, text=True, check=False)
        out = p.stdout + p.stderr
        expect(p.returncode == 1 and want in out and want2 in out,
               "65 MiB, sampled check, %s: exit 1 and %r" % (name, want + "..." + want2))
        if p.returncode != 1 or want not in out:
            print(out[-2000:])


def main(argv):
    if "--peer" in argv:
        return probe(argv)
    bitcts, plugins, work = argv
    os.makedirs(work, exist_ok=True)
    streaming(bitcts, work)
    budget(bitcts, work)
    peer_budget(bitcts, work)
    sampled(bitcts, plugins)
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
