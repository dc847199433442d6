# SPDX-License-Identifier: MIT
"""`bitcts check` end to end (docs/check.md): the default tier exported, computed by the NumPy
adapter (adapters/run_numpy.py) and by a C writer of the reference's own outputs (whole buffers
and logical elements), and checked; then deliberately wrong result sets, each caught with the
verdict, detail and exit code documented: one flipped bit, a padding byte written, a truncated
data file, a wrong size, a wrong CRC, a missing file, an unknown version, hostile JSON, a
missing entry, a producer's not_supported; and check's exit codes against run's for the same
outcomes.

usage: check_results.py BITCTS REF_RESULTS ADAPTERS_DIR WORK_DIR PAD_WRITE_PLUGIN [EXPORT]
EXPORT: the default tier as `bitcts vectors export --tier default` wrote it (read, not changed);
without it the export is made in WORK_DIR/export.
Exit 77 (skip) when NumPy is absent."""

import json
import os
import shutil
import subprocess
import sys
import zlib

try:
    import numpy as np
except ImportError:
    print("check_results: NumPy is absent; skipped")
    sys.exit(77)

BITCTS, REF, ADAPTERS, WORK, PAD_PLUGIN = sys.argv[1:6]
GIVEN_EXPORT = sys.argv[6] if len(sys.argv) > 6 else None
FAILURES = []


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what)


def sh(*args, want=None):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    if want is not None and p.returncode != want:
        print(p.stdout[-3000:], p.stderr[-3000:])
        expect(False, "%s exited %d, want %d" % (" ".join(map(str, args[:3])), p.returncode, want))
    return p


def check(results, report, *extra, want=None, export=None):
    p = sh(BITCTS, "check", export or EXPORT, "--results", results, "--report", report, "--quiet",
           *extra, want=want)
    rep = None
    if os.path.exists(os.path.join(report, "report.json")):
        with open(os.path.join(report, "report.json")) as f:
            rep = json.load(f)
    return p, rep


def cases_of(rep):
    return {c["id"]: c for c in rep["cases"]}


def write_set(path, doc, blobs):
    """A result set: results.json from doc, data files from blobs {name: bytes}."""
    os.makedirs(path, exist_ok=True)
    for name, data in blobs.items():
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)
    with open(os.path.join(path, "results.json"), "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
if GIVEN_EXPORT is not None:
    EXPORT = GIVEN_EXPORT
else:
    EXPORT = os.path.join(WORK, "export")
    sh(BITCTS, "vectors", "export", "--out", EXPORT, "--tier", "default", want=0)
with open(os.path.join(EXPORT, "manifest.json")) as f:
    MANIFEST = json.load(f)
ENTRY = {c["id"]: c for c in MANIFEST["cases"]}

# 1. NumPy over the default tier: nothing fails; shifts by >= the width are recorded with the
#    policy NumPy shows (saturate); BIT_COUNT is not_supported before NumPy 2, with the reason.
numpy_results = os.path.join(WORK, "numpy")
sh(sys.executable, os.path.join(ADAPTERS, "run_numpy.py"), EXPORT, "--results", numpy_results,
   want=0)
p, rep = check(numpy_results, os.path.join(WORK, "numpy-report"), want=0)
by = rep["summary"]["by_verdict"]
expect(rep["summary"]["total"] == len(MANIFEST["cases"]), "numpy: every case in the report")
expect(not any(v in by for v in ("fail", "missing", "crash")), "numpy: no failure: %s" % by)
expect(by.get("pass", 0) > 8000, "numpy: most cases pass: %s" % by)
recorded = [c for c in rep["cases"] if c["verdict"] == "recorded"]
expect(len(recorded) == 728 and all(c["policy"] == "saturate" for c in recorded),
       "numpy: 728 recorded shift cases, policy saturate")
count = [c for c in rep["cases"]
         if c["operator"] == "bit_count" and ".invalid_" not in c["id"]]
if hasattr(np, "bitwise_count"):
    signed = [c for c in count if c["id"].split(".")[1].startswith("int")]
    expect(any(c["verdict"] == "fail" for c in signed), "numpy 2: bitwise_count of signed fails")
else:
    expect(all(c["verdict"] == "not_supported" and "bitwise_count" in c["detail"]
               for c in count), "numpy 1: BIT_COUNT not_supported naming np.bitwise_count")
expect(rep["backend"]["name"] == "numpy" and rep["backend"]["version"] == np.__version__,
       "numpy: the producer named in the report")

# 1b. The manifest does not tell a producer the answer for negative cases (format 2.0): no
#     "expect": "reject", no rule, no "invalid" pattern. The NumPy adapter finds every negative
#     description invalid itself (its own validation, naming the rule the id names) and check
#     judges the rejection: pass.
negative = [c for c in MANIFEST["cases"] if ".invalid_" in c["id"]]
expect(len(negative) == 160 and not any(k in c for c in negative
                                        for k in ("expect", "rule", "pattern", "values")),
       "manifest: negative cases carry no expect, rule, pattern or values")
expect(not any(c.get("expect") not in (None, "pass", "recorded") for c in MANIFEST["cases"]),
       "manifest: no expect other than pass and recorded")
with open(os.path.join(numpy_results, "results.json")) as f:
    np_status = {e["id"]: e for e in json.load(f)["cases"]}
expect(all(np_status[c["id"]]["status"] == "rejected" and
           "(%s:" % c["id"].split(".")[-2][len("invalid_"):] in np_status[c["id"]]["reason"]
           for c in negative), "numpy: every negative case rejected for the rule its id names")
expect(all(cases_of(rep)[c["id"]]["verdict"] == "pass" for c in negative),
       "numpy: every negative case passes")

# 1c. The initial output buffer is in the export (format 2.0): a producer that starts from it
#     and writes only the elements gets no padding warning; one that starts from zeros gets a
#     warning for each buffer with padding. The elements written are the expected ones, which
#     for a pass case that is not in place are the initial buffer's elements complemented.
def elements_producer(ids, zeroed):
    entries, data = [], bytearray()
    for cid in ids:
        c = ENTRY[cid]
        rec, out = c["initial"], c["tensors"][-1]
        with open(os.path.join(EXPORT, rec["path"]), "rb") as f:
            f.seek(rec["offset"])
            initial = bytearray(f.read(rec["bytes"]))
        w = {"UINT8": 1, "INT8": 1, "UINT16": 2, "INT16": 2, "FLOAT16": 2}.get(out["DataType"], 4)
        w = 8 if out["DataType"] in ("UINT64", "INT64", "FLOAT64") else w
        strides = out["Strides"] or [int(np.prod(out["Sizes"][k + 1:])) for k in
                                     range(len(out["Sizes"]))]
        buf = bytearray(len(initial)) if zeroed else bytearray(initial)
        for idx in np.ndindex(*out["Sizes"]):
            at = sum(i * s for i, s in zip(idx, strides)) * w
            buf[at:at + w] = bytes(b ^ 0xFF for b in initial[at:at + w])
        entries.append({"id": cid, "status": "done", "layout": "buffer", "path": "data.bin",
                        "offset": len(data), "bytes": len(buf),
                        "crc32": "%08x" % zlib.crc32(bytes(buf))})
        data += buf
    doc = {"format": "bitcts-results", "format_version": "1.0",
           "producer": {"name": "elements-only", "version": "1"},
           "vectors": {"seed": MANIFEST["seed"],
                       "generator_version": MANIFEST["generator_version"]}, "cases": entries}
    return doc, bytes(data)


padded = [c["id"] for c in MANIFEST["cases"] if c.get("expect") == "pass" and "initial" in c
          and ".r2." in c["id"] and c["id"].startswith("bit_xor.uint8.")]
for zeroed, want_warn in ((False, 0), (True, 1)):
    doc, data = elements_producer(padded, zeroed)
    path = os.path.join(WORK, "elements-only-%s" % ("zeroed" if zeroed else "initial"))
    write_set(path, doc, {"data.bin": data})
    p, rep = check(path, path + "-report", *[a for cid in padded for a in ("--filter", cid)],
                   want=0)
    by = rep["summary"]["by_verdict"]
    warned = by.get("warn", 0)
    if zeroed:
        expect(warned > 0 and warned + by.get("pass", 0) == len(padded),
               "zeroed output: padding warnings (%s)" % by)
    else:
        expect(by == {"pass": len(padded)}, "initial output: every case passes, no warning "
               "(%s of %d)" % (by, len(padded)))

# 2. The reference's own outputs, written by a C program: every valid case passes or is
#    recorded as both policies allow; negative cases (rejected) pass. Both layouts.
for layout in ("buffer", "elements"):
    ref_results = os.path.join(WORK, "ref-" + layout)
    sh(REF, EXPORT, ref_results, *(["--elements"] if layout == "elements" else []), want=0)
    p, rep = check(ref_results, os.path.join(WORK, "ref-report-" + layout),
                   *(["--filter", "*.r[123].*"] if layout == "elements" else []), want=0)
    by = rep["summary"]["by_verdict"]
    expect(set(by) <= {"pass", "recorded"}, "reference (%s): only pass and recorded: %s" %
           (layout, by))
    expect(all(c["policy"] == "saturate" for c in rep["cases"] if c["verdict"] == "recorded"),
           "reference (%s): recorded as saturate" % layout)

# A small result set to damage: a few cases of the NumPy results, in one data file.
with open(os.path.join(numpy_results, "results.json")) as f:
    NUMPY_DOC = json.load(f)
NUMPY_DATA = open(os.path.join(numpy_results, "data.bin"), "rb").read()
PICK = ["bit_xor.uint16.r2.packed.0", "bit_and.uint8.r3.padded_inner.0",
        "bit_not.int32.r2.permuted.1", "bit_or.float32.r4.broadcast_b.0"]
# The damaged sets are checked against an export of the picked cases alone (the same bytes as
# the default tier's: cli.export_determinism), so that each check reads a small manifest.
PICK_EXPORT = os.path.join(WORK, "pick-export")
sh(BITCTS, "vectors", "export", "--out", PICK_EXPORT,
   *[a for cid in PICK for a in ("--filter", cid)], want=0)


def small_set(mutate=None):
    """results.json dict and data bytes for PICK, after mutate(doc, data_bytearray)."""
    entries, data = [], bytearray()
    for e in NUMPY_DOC["cases"]:
        if e["id"] in PICK:
            blob = NUMPY_DATA[e["offset"]:e["offset"] + e["bytes"]]
            entries.append(dict(e, offset=len(data)))
            data += blob
    doc = dict(NUMPY_DOC, cases=entries)
    if mutate is not None:
        mutate(doc, data)
    return doc, data


def recrc(doc, data, i):
    e = doc["cases"][i]
    e["crc32"] = "%08x" % zlib.crc32(bytes(data[e["offset"]:e["offset"] + e["bytes"]]))


def entry(doc, cid):
    return next(i for i, e in enumerate(doc["cases"]) if e["id"] == cid)


n = 0


def run_mutation(name, mutate, want, raw_doc=None):
    """Writes the damaged set and checks exactly the picked cases."""
    global n
    n += 1
    doc, data = small_set(mutate)
    path = os.path.join(WORK, "m%02d-%s" % (n, name))
    write_set(path, raw_doc if raw_doc is not None else doc, {"data.bin": bytes(data)})
    MUTATED[name] = path
    filters = [a for cid in PICK for a in ("--filter", cid)]
    p, rep = check(path, path + "-report", *filters, export=PICK_EXPORT)
    expect(p.returncode == want, "%s: exit %d, want %d" % (name, p.returncode, want))
    return p, rep, None


MUTATED = {}


# 3. One flipped bit in one element: fail, first mismatch at that element, exit 1.
def flip(doc, data):
    i = entry(doc, PICK[0])
    data[doc["cases"][i]["offset"] + 2 * 5] ^= 0x04  # element 5 (packed uint16), bit 2
    recrc(doc, data, i)


p, rep, per = run_mutation("flipped_bit", flip, 1)
c = cases_of(rep)[PICK[0]]
expect(c["verdict"] == "fail" and c["failure"]["mismatches"] == 1 and
       c["failure"]["first"]["index"] == 5, "flipped bit: fail at element 5: %s" % c["detail"])
expect(int(c["failure"]["first"]["expected"], 16) ^ int(c["failure"]["first"]["actual"], 16) == 4,
       "flipped bit: expected and actual differ by bit 2")
expect(all(cases_of(rep)[x]["verdict"] == "pass" for x in PICK[1:]), "flipped bit: others pass")


# 4. A padding byte written (whole-buffer result): warn, as bitcts run (DirectML may write
#    inside TotalTensorSizeInBytes), naming the padding bytes; exit 0.
def pad_offset(cid):
    t = next(t for t in ENTRY[cid]["tensors"] if t["role"] == "Output")
    w = {"UINT8": 1}[t["DataType"]]
    covered = set()
    for idx in np.ndindex(*t["Sizes"]):
        covered.add(sum(i * s for i, s in zip(idx, t["Strides"])) * w)
    return next(b for b in range(t["TotalTensorSizeInBytes"]) if b not in covered)


def pad(doc, data):
    i = entry(doc, PICK[1])
    data[doc["cases"][i]["offset"] + pad_offset(PICK[1])] ^= 0xFF
    recrc(doc, data, i)


p, rep, per = run_mutation("padding_written", pad, 0)
c = cases_of(rep)[PICK[1]]
expect(c["verdict"] == "warn" and "padding" in c["detail"], "padding: warn: %s" % c["detail"])


# 5. A truncated data file: that case fails naming the file, the others are checked; exit 2.
def truncate(doc, data):
    last = max(doc["cases"], key=lambda e: e["offset"])
    del data[last["offset"] + last["bytes"] - 3:]


p, rep, per = run_mutation("truncated", truncate, 2)
bad = [c for c in rep["cases"] if c["id"] in PICK and c["verdict"] == "fail"]
expect(len(bad) == 1 and "truncated" in bad[0]["detail"], "truncated: one case fails")
expect("data.bin: truncated" in p.stderr and p.stderr.count("error:") == 1,
       "truncated: one line naming the file: %r" % p.stderr)
expect(sum(cases_of(rep)[x]["verdict"] == "pass" for x in PICK) == 3,
       "truncated: the other cases still pass")


# 6. A wrong-size result (one byte short, CRC consistent): fail, exit 2.
def short(doc, data):
    i = entry(doc, PICK[2])
    doc["cases"][i]["bytes"] -= 1
    recrc(doc, data, i)


p, rep, per = run_mutation("wrong_size", short, 2)
c = cases_of(rep)[PICK[2]]
expect(c["verdict"] == "fail" and "\"bytes\" is" in c["detail"], "wrong size: %s" % c["detail"])
expect(PICK[2] in p.stderr and "results.json" in p.stderr, "wrong size: the line names it")


# 7. A wrong CRC: fail naming the CRC, exit 2.
def wrong_crc(doc, data):
    doc["cases"][entry(doc, PICK[3])]["crc32"] = "00000000"


p, rep, per = run_mutation("wrong_crc", wrong_crc, 2)
c = cases_of(rep)[PICK[3]]
expect(c["verdict"] == "fail" and "crc32" in c["detail"], "wrong crc: %s" % c["detail"])


# 8. A missing file: fail naming it, exit 2.
def missing_file(doc, data):
    doc["cases"][entry(doc, PICK[0])]["path"] = "nowhere.bin"


p, rep, per = run_mutation("missing_file", missing_file, 2)
c = cases_of(rep)[PICK[0]]
expect(c["verdict"] == "fail" and "nowhere.bin" in c["detail"], "missing file: %s" % c["detail"])


# 9. Hostile entries: each costs its case, never the run; exit 2.
def hostile(doc, data):
    cs = doc["cases"]
    cs[entry(doc, PICK[0])].update(path="../../../etc/passwd")
    cs[entry(doc, PICK[1])].update(status={"x": [1, 2]})
    cs[entry(doc, PICK[2])].update(bytes=-5)
    cs[entry(doc, PICK[3])].update(reason="\u001b[31mred", status="not_supported")
    cs.append({"id": 17})
    cs.append("not an object")


p, rep, per = run_mutation("hostile", hostile, 2)
cs = cases_of(rep)
expect(all(cs[x]["verdict"] == "fail" for x in PICK[:3]), "hostile: three entries fail")
expect(cs[PICK[3]]["verdict"] == "fail" and "reason" in cs[PICK[3]]["detail"],
       "hostile: a reason with control characters is refused")
expect(all("\x1b" not in line for line in p.stderr.splitlines()), "hostile: nothing raw shown")
expect(all(len(line) < 2000 for line in p.stderr.splitlines()), "hostile: one line each")

# 10. results.json itself bad: one line naming it, exit 2, no report.
for name, doc in [("unknown_version", dict(NUMPY_DOC, format_version="2.0", cases=[])),
                  ("not_json", "{\"format\": \"bitcts-results\", "),
                  ("deep", "[" * 100000 + "]" * 100000),
                  ("other_seed", dict(NUMPY_DOC, cases=[],
                                      vectors={"seed": "0x0000000000000001",
                                               "generator_version": 2}))]:
    path = os.path.join(WORK, "r-" + name)
    write_set(path, doc, {})
    p, rep = check(path, path + "-report", want=2, export=PICK_EXPORT)
    lines = p.stderr.strip().splitlines()
    expect(len(lines) == 1 and "results.json" in lines[0], "%s: one line: %r" % (name, lines))
    expect(rep is None, "%s: no report" % name)
expect("2.0 is not supported" in sh(BITCTS, "check", PICK_EXPORT, "--results",
                                    os.path.join(WORK, "r-unknown_version"),
                                    "--report", os.path.join(WORK, "x")).stderr,
       "unknown version named")

# 11. A case without an entry is missing (a failure, exit 1); not_supported keeps the
#     producer's reason (exit 0).
def drop(doc, data):
    del doc["cases"][entry(doc, PICK[0])]
    doc["cases"][entry(doc, PICK[1])] = {"id": PICK[1], "status": "not_supported",
                                         "reason": "no uint8 kernels here"}


p, rep, per = run_mutation("missing_and_not_supported", drop, 1)
cs = cases_of(rep)
expect(cs[PICK[0]]["verdict"] == "missing", "an absent entry is missing")
expect(cs[PICK[1]]["verdict"] == "not_supported" and "no uint8 kernels here" in
       cs[PICK[1]]["detail"], "not_supported keeps the reason")

# 12. Exit codes equal run's: clean (0), a warning only (0: run with a plugin writing padding,
#     check with a padding byte written), failures (1), bad input (2).
sub = "bit_and.uint8.r3.padded_inner.*"
run_clean = sh(BITCTS, "run", "--backend", "cpu", "--filter", sub, "--report",
               os.path.join(WORK, "run-clean"), "--quiet")
chk_clean = check(os.path.join(WORK, "ref-buffer"), os.path.join(WORK, "chk-clean"),
                  "--filter", sub)[0]
expect(run_clean.returncode == chk_clean.returncode == 0, "exit codes: clean 0 = 0")
run_pad = sh(BITCTS, "run", "--backend", PAD_PLUGIN, "--filter", PICK[1], "--report",
             os.path.join(WORK, "run-pad"), "--quiet")
with open(os.path.join(WORK, "run-pad", "report.json")) as f:
    run_pad_verdict = json.load(f)["cases"][0]["verdict"]
chk_pad, chk_pad_rep = check(MUTATED["padding_written"], os.path.join(WORK, "chk-pad"),
                             "--filter", PICK[1], export=PICK_EXPORT)
expect(run_pad_verdict == chk_pad_rep["cases"][0]["verdict"] == "warn" and
       run_pad.returncode == chk_pad.returncode == 0,
       "exit codes: padding written: run %s/%d, check %s/%d" % (
           run_pad_verdict, run_pad.returncode, chk_pad_rep["cases"][0]["verdict"],
           chk_pad.returncode))
chk_fail = check(MUTATED["flipped_bit"], os.path.join(WORK, "chk-fail"), "--filter", PICK[0],
                 export=PICK_EXPORT)[0]
run_fail = sh(BITCTS, "run", "--backend", PAD_PLUGIN.replace("pad_write", "popcount_top_bit"),
              "--filter", "bit_count.uint64.uint8.r1.*", "--report", os.path.join(WORK, "run-fail"),
              "--quiet")
expect(run_fail.returncode == chk_fail.returncode == 1,
       "exit codes: failures run %d = check %d = 1" % (run_fail.returncode, chk_fail.returncode))
run_bad = sh(BITCTS, "run", "--backend", os.path.join(WORK, "no-such-plugin.so"), "--report",
             os.path.join(WORK, "run-bad"))
chk_bad = check(os.path.join(WORK, "no-such-results"), os.path.join(WORK, "chk-bad"),
                export=PICK_EXPORT)[0]
expect(run_bad.returncode == chk_bad.returncode == 2, "exit codes: bad input 2 = 2")

# 13. The matrix over three reports: NumPy, the reference, and the flipped bit.
matrix_json = os.path.join(WORK, "matrix.json")
sh(BITCTS, "report", "matrix", "--out", os.path.join(WORK, "matrix.md"), "--html",
   os.path.join(WORK, "matrix.html"), "--json", matrix_json,
   "numpy=" + os.path.join(WORK, "numpy-report"), "ref=" + os.path.join(WORK, "ref-report-buffer"),
   "flipped=" + MUTATED["flipped_bit"] + "-report", want=0)
with open(matrix_json) as f:
    matrix = json.load(f)
cells = {(r["operator"], r["type"]): r["cells"] for r in matrix["rows"]}
expect([c["label"] for c in matrix["columns"]] == ["numpy", "ref", "flipped"], "matrix: columns")
expect(all(cells[("bit_shift_left", t)][0]["state"] == "recorded" and
           cells[("bit_shift_left", t)][0]["policies"] == ["saturate"]
           for t in ("uint8", "uint16", "uint32", "uint64")),
       "matrix: NumPy's shifts recorded as saturate")
expect(cells[("bit_and", "float32")][0]["text"] == "pass" and
       cells[("bit_and", "float32")][1]["text"] == "pass", "matrix: pass cells")
flip_cell = cells[("bit_xor", "uint16")][2]
expect(flip_cell["state"] == "fail" and flip_cell["text"] == "FAIL 1/1" and
       flip_cell["first"]["id"] == PICK[0] and flip_cell["first"]["mismatch"]["index"] == 5,
       "matrix: the flipped bit's cell and its first deviation")
expect(cells[("bit_xor", "int8")][2]["state"] == "none", "matrix: no cases, no verdict")
if not hasattr(np, "bitwise_count"):
    expect(cells[("bit_count", "int8->uint8")][0]["state"] == "not_supported" and
           "bitwise_count" in cells[("bit_count", "int8->uint8")][0]["reason"],
           "matrix: not supported with the reason")
expect(matrix["negative"][1] == {"pass": 160}, "matrix: the reference rejects every negative case")
with open(os.path.join(WORK, "matrix.md")) as f:
    md = f.read()
expect("element 5 [0, 5]" in md and "FAIL 1/1" in md, "matrix.md: the first deviation explained")

if FAILURES:
    print("%d failures" % len(FAILURES))
    sys.exit(1)
print("check_results: all passed")
