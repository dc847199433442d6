# SPDX-License-Identifier: MIT
"""`bitcts bench`'s host peers timed interleaved with the backend, on its own buffers
(docs/performance.md, "Peers on the same buffers"). This file is also the peers script the bench
runs (--peers-script, --serve): a stand-in for NumPy in pure Python that reads the shared buffers
itself, so nothing here depends on a library or on a timing.

1. The same buffers, interleaved: after every timed call of the backend, the peer runs that row
   once. At each run it reads a sample of the row's elements through the strides it was given:
   the output holds the operator applied to the inputs (the backend's output of the call just
   made: the peer sees the same bytes), and the terminal held the line of the row before and not
   this row's (it runs inside the backend's rows). Each row gets exactly as many peer runs as
   backend calls; the row's peer figure is the useful bytes over the median of the times the peer
   sent. The peer can neither write nor resize any of the three buffers (sealed so: opened for
   writing, a shared writable mapping and a truncation are refused).
2. A peer that stops answering is killed at --peer-timeout, named absent with the reason; the
   backend's rows are all measured.
3. A peer that dies at its third run: named with how it ended; the rows it timed keep their
   figures, the bench goes on. One that ends right after answering its second run, while the
   backend makes its next call (when the supervisor, not the bench's own loop, may reap it):
   named with its exit status all the same.
4. A peer that answers with another row's id: killed as a liar, the bench goes on.
5. Within --budget-s, a peer whose runs of a layout take over twice a row's share of the time
   left is not run on the later rows of that layout, and says how many.

6. A backend that crashes or hangs while the peers run beside it: the bench blames it for that
   alone (the peers' processes are not "left running" by the backend), and no peer outlives it.

usage: bench_peers_shared.py BITCTS PLUGIN_DIR WORK_DIR"""
import json
import mmap
import os
import struct
import subprocess
import sys
import time

FAILURES = []
OPS = {"and": lambda a, b, m: a & b, "or": lambda a, b, m: a | b, "xor": lambda a, b, m: a ^ b,
       "not": lambda a, b, m: ~a & m, "shl": lambda a, b, m: (a << b) & m,
       "shr": lambda a, b, m: a >> b}
FMT = {1: "B", 2: "H", 4: "I", 8: "Q"}


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
    print("%s %s" % ("ok  " if cond else "FAIL", what))


# ---- the peer ----

def element(buf, offset, w, index):
    return struct.unpack_from("<" + FMT[w], buf, offset + index * w)[0]


def peer(argv):
    fd = int(argv[argv.index("--fd") + 1])
    prefix = argv[argv.index("--prefix") + 1]
    mode = os.environ.get("SHARED_MODE", "good")
    log = {"argv": argv, "runs": [], "mismatches": 0, "samples": 0}

    def send(obj):
        os.write(fd, (prefix + " " + json.dumps(obj) + "\n").encode())

    send({"peer": "numpy", "version": "stand-in", "device": "cpu, 1 thread", "note": ""})
    bufs, offset, row, runs = None, 0, None, 0
    for line in sys.stdin:
        f = line.split()
        if f[0] == "map":
            bufs, offset = [], int(f[4])
            for k, path in enumerate(f[1:4]):
                h = os.open(path, os.O_RDONLY)
                size = os.fstat(h).st_size
                bufs.append(mmap.mmap(h, size, access=mmap.ACCESS_READ))
                os.close(h)
                # May the peer write the buffer, or resize it? Opened for writing (which the
                # file's mode allows), only its seals stand in the way.
                name = "abo"[k]
                try:
                    h2 = os.open(path, os.O_RDWR)
                except OSError:
                    log[name + "_writable"] = log[name + "_resized"] = False
                    continue
                try:
                    mmap.mmap(h2, size, access=mmap.ACCESS_WRITE)
                    log[name + "_writable"] = True
                except OSError:
                    log[name + "_writable"] = False
                try:
                    os.ftruncate(h2, size // 2)
                    log[name + "_resized"] = True
                except OSError:
                    log[name + "_resized"] = False
                os.close(h2)
            send({"mapped": True})
        elif f[0] == "copy":
            send({"id": "copy", "seconds": 0.5})
        elif f[0] == "row":
            row = f[1:]
            send({"id": f[1], "ready": True})
        elif f[0] == "rep":
            runs += 1
            if mode == "hang" and runs == 2:
                time.sleep(600)
            if mode == "die" and runs == 3:
                with open(os.environ["SHARED_LOG"], "w", encoding="utf-8") as out:
                    json.dump(log, out)
                os._exit(3)
            ident, op, w, ow, rows, cols = row[0], row[1], int(row[2]), int(row[3]), \
                int(row[4]), int(row[5])
            s = [int(x) for x in row[6:12]]
            mask = (1 << (8 * ow)) - 1
            for i in range(0, rows, max(1, rows // 8)):
                for j in range(0, cols, max(1, cols // 8)):
                    a = element(bufs[0], offset, w, i * s[0] + j * s[1])
                    b = element(bufs[1], offset, w, i * s[2] + j * s[3])
                    o = element(bufs[2], offset, ow, i * s[4] + j * s[5])
                    want = bin(a).count("1") if op == "count" else OPS[op](a, b, mask)
                    log["samples"] += 1
                    log["mismatches"] += want != o
            with open(os.environ["SHARED_STDOUT"], encoding="utf-8") as out:
                printed = [l.split(":")[0] for l in out if l.startswith("row ")]
            log["runs"].append({"row": int(ident), "printed": printed})
            # "slow": a transposed row's run says it took 50 s (nothing here is timed).
            slow = mode == "slow" and s[0] < s[1]
            send({"id": str(int(ident) + 1) if mode == "liar" else ident,
                  "seconds": 50.0 if slow else 0.001})
            if mode == "quit" and runs == 2:
                os._exit(5)
    with open(os.environ["SHARED_LOG"], "w", encoding="utf-8") as out:
        json.dump(log, out)
    return 0


# ---- the tests ----

def bench(bitcts, work, name, mode, extra=()):
    out, js, log = (os.path.join(work, name + e) for e in (".txt", ".json", ".log.json"))
    for p in (js, log):
        if os.path.exists(p):
            os.remove(p)
    env = dict(os.environ, SHARED_MODE=mode, SHARED_LOG=log, SHARED_STDOUT=out)
    with open(out, "w", encoding="utf-8") as f:
        p = subprocess.run([bitcts, "bench", "--quick", "--ops", "xor,not,shr", "--layouts",
                            "packed,padded,transposed,bcast", "--peers", "numpy", "--python",
                            sys.executable, "--peers-script", os.path.abspath(__file__),
                            "--json", js] + list(extra), stdout=f, stderr=subprocess.STDOUT,
                           env=env, check=False)
    doc = json.load(open(js, encoding="utf-8")) if os.path.exists(js) else {}
    peer_log = json.load(open(log, encoding="utf-8")) if os.path.exists(log) else {}
    numpy = [q for q in doc.get("peers", []) if q["name"] == "numpy"]
    return p.returncode, doc, peer_log, numpy[0] if numpy else {}


def numpy_gbps(row):
    return ((row.get("peers") or {}).get("numpy") or {}).get("gbps")


def same_buffers(bitcts, work):
    rc, doc, log, numpy = bench(bitcts, work, "good", "good")
    rows = doc.get("results", [])
    expect(rc == 0 and rows and all(r["check"] == "ok" for r in rows),
           "exit 0 and every row ok (rc %d)" % rc)
    expect(numpy.get("interleaved") is True and numpy.get("present") is True,
           "the peer is present and interleaved: %s" % numpy)
    expect(log.get("samples", 0) > 0 and log.get("mismatches") == 0,
           "at every run the output held the operator of the inputs: %d of %d samples differ"
           % (log.get("mismatches", -1), log.get("samples", 0)))
    keys = [b + w for b in "abo" for w in ("_writable", "_resized")]
    expect(all(log.get(k) is False for k in keys),
           "the peer can neither write nor resize A, B or the output: %s" %
           {k: log.get(k) for k in keys})
    per = len(doc.get("limits", {}).get("instances", [])) or 1
    mine = [n for n in range(len(rows)) if n % per == 0]
    runs = {}
    for run in log.get("runs", []):
        runs.setdefault(run["row"], []).append(run)
    expect(sorted(runs) == mine and
           all(len(runs[n]) == rows[n]["reps"] for n in mine),
           "one peer run after each of the backend's calls, rows %s" %
           [(n, len(runs.get(n, [])), rows[n]["reps"]) for n in mine][:6])
    inside = all(("row %d/%d" % (n, len(rows)) in run["printed"]) and
                 ("row %d/%d" % (n + 1, len(rows)) not in run["printed"])
                 for n in mine if n > 0 for run in runs.get(n, []))
    expect(inside, "each run came after the row before was printed and before its own row")
    want = all(abs(numpy_gbps(r) - r["useful_bytes"] / 0.001 / 1e9) < 1e-6 * numpy_gbps(r)
               for r in rows if numpy_gbps(r) is not None)
    expect(want and all(numpy_gbps(r) is not None for r in rows),
           "every row's figure is its useful bytes over the peer's median time")


def misbehaving(bitcts, work):
    t0 = time.monotonic()
    rc, doc, _, numpy = bench(bitcts, work, "hang", "hang", ["--peer-timeout", "5"])
    rows = doc.get("results", [])
    expect(rc == 0 and rows and all(r["check"] == "ok" for r in rows) and
           numpy_gbps(rows[0]) is not None and  # its first run came: it hung in its second
           numpy_gbps(rows[-2]) is None and
           "no answer within 5 s; the Python process was killed" in numpy.get("note", ""),
           "a peer that hangs is killed at --peer-timeout and named (rc %d, %s, %.0f s)" %
           (rc, numpy.get("note"), time.monotonic() - t0))
    rc, doc, log, numpy = bench(bitcts, work, "die", "die")
    rows = doc.get("results", [])
    timed = [r for r in rows if numpy_gbps(r) is not None]
    expect(rc == 0 and all(r["check"] == "ok" for r in rows) and len(timed) >= 1 and
           "the Python process ended" in numpy.get("note", "") and "exit status 3" in
           numpy.get("note", ""),
           "a peer that dies is named with how it ended, its rows before kept (rc %d, %d rows "
           "timed, %s)" % (rc, len(timed), numpy.get("note")))
    rc, doc, _, numpy = bench(bitcts, work, "quit", "quit")
    rows = doc.get("results", [])
    expect(rc == 0 and all(r["check"] == "ok" for r in rows) and
           "exit status 5" in numpy.get("note", ""),
           "a peer that ends between two turns is named with its exit status (rc %d, %s)" %
           (rc, numpy.get("note")))
    rc, doc, _, numpy = bench(bitcts, work, "liar", "liar")
    rows = doc.get("results", [])
    expect(rc == 0 and all(r["check"] == "ok" for r in rows) and
           "not a time of the row asked for" in numpy.get("note", "") and
           not any(numpy_gbps(r) is not None for r in rows),
           "a peer that answers for another row is killed, no figure taken (rc %d, %s)" %
           (rc, numpy.get("note")))


def budget(bitcts, work):
    """Within --budget-s, a row whose one run would take over twice its share (by the peer's last
    run of that layout) is not run: only the first transposed row gets the slow peer's figure."""
    rc, doc, _, numpy = bench(bitcts, work, "slow", "slow", ["--budget-s", "600"])
    rows = doc.get("results", [])
    per = len(doc.get("limits", {}).get("instances", [])) or 1
    mine = [r for n, r in enumerate(rows) if n % per == 0]
    tr = [r for r in mine if r["layout"] == "transposed"]
    other = [r for r in mine if r["layout"] != "transposed"]
    # Which later rows fit depends on the share (the time left over the rows left: the last
    # few rows' shares grow), not on the machine: count the rows without a figure.
    skipped = [r for r in tr[1:] if numpy_gbps(r) is None]
    want = "%d rows not run: one run would take over twice the row's share" % len(skipped)
    expect(rc == 0 and len(tr) > 1 and numpy_gbps(tr[0]) is not None and len(skipped) > 0 and
           all(numpy_gbps(r) is not None for r in other) and want in numpy.get("note", ""),
           "within a budget, a peer's row that would not fit its share is not run: %s (rc %d)" %
           (numpy.get("note"), rc))


def serving_peers():
    """Process ids of peers in serve mode still running (none should outlive a bench)."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if b"--serve" in args and any(a.endswith(b"bench_peers_shared.py") for a in args):
            found.append(int(pid))
    return found


def crashing_backend(bitcts, work, plugins):
    """A backend that crashes or hangs while the peers run beside it is blamed for that alone:
    the peers' processes are not counted as its own, and none is left running."""
    for name, what in (("abort_execute", "crashed in operator_execute"),
                       ("loop_execute", "hung in operator_execute")):
        plugin = os.path.join(plugins, "libbitcts_misbehave_%s.so" % name)
        rc, doc, _, numpy = bench(bitcts, work, "crash-" + name, "good",
                                  ["--backend", plugin, "--timeout", "2"])
        error = (doc.get("error") or {}) if isinstance(doc.get("error"), dict) else \
            {"text": doc.get("error") or ""}
        text = json.dumps(error) + open(os.path.join(work, "crash-%s.txt" % name),
                                        encoding="utf-8").read()
        expect(rc != 0 and what in text and "process of its own" not in text and
               not serving_peers(),
               "a backend that %s beside the peers: blamed for that alone, no peer left (rc %d)"
               % (what, rc))


def main(argv):
    if "--serve" in argv:
        return peer(argv)
    if "--fd" in argv:  # run as a peer after the backend: not expected here
        return 2
    bitcts, plugins, work = argv[0], argv[1], argv[2]
    os.makedirs(work, exist_ok=True)
    same_buffers(bitcts, work)
    misbehaving(bitcts, work)
    budget(bitcts, work)
    crashing_backend(bitcts, work, plugins)
    print("%d failure(s)" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
