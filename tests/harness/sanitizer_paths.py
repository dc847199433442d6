#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The commands of the suite's largest end-to-end tests at a small scale, for the sanitizer
lane (tools/test.sh, lane asan): every broken plugin over a few cases of each operator, the
report matrix over their reports, `check` over damaged result sets of every kind, explore and
shrink of an in-place case and of a crash, `vectors verify` of an edited golden manifest, and
the command line's refusals. Those end-to-end tests (harness.broken_plugins, harness.explore,
check.results, vectors.golden_verify, cli.options, ...) run every case of their tiers; under
ASan and UBSan they took most of the lane's time while the C they reach is reached here too
(docs/fuzzing.md, "The asan lane's selection", says how that is measured). Each step asserts
its exit code and what it must say; the sanitizers assert the rest.

Usage: sanitizer_paths.py BITCTS REF_RESULTS GOLDEN_MANIFEST WORK_DIR name=plugin..."""
import json
import os
import shutil
import subprocess
import sys
import zlib

bitcts, ref_results, golden, work = sys.argv[1:5]
plugins = dict(a.split("=", 1) for a in sys.argv[5:])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def sh(*args, want=0, says=None, out=None):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True)
    text = p.stdout + p.stderr
    ok = p.returncode == want and (says is None or says in text)
    if not ok:
        failures.append("%s: exit %d (want %d)%s: %s" % (
            " ".join(str(a) for a in args[:6]), p.returncode, want,
            "" if says is None else ", must say %r" % says, text.strip()[-400:]))
    return p


def run(name, filters, *extra, want=None):
    """A plugin over filters; its report (exit 0 or 1 unless want says)."""
    rep = os.path.join(work, "run-" + name)
    p = subprocess.run([bitcts, "run", "--backend", plugins[name]] +
                       [a for f in filters for a in ("--filter", f)] + [
                        "--report", rep, "--quiet", "--timeout",
                        "0.5" if name == "broken_hang" else "60", "--max-timeouts", "0"] +
                       list(extra), capture_output=True, text=True)
    if (want is None and p.returncode not in (0, 1)) or (want is not None and p.returncode != want):
        failures.append("run %s: exit %d: %s" % (name, p.returncode, p.stderr.strip()[-400:]))
    return rep


# 1. Every broken plugin over the first case of each pattern of rank 4 for 8-bit elements, every
#    negative case's first, and rank 8 and 16-bit floats for the bugs that need them.
FILTERS = ["bit_*.uint8.r4.*.0", "*.invalid_*.0", "bit_count.uint16.uint8.r8.*.0",
           "bit_not.float16.r4.*.0", "bit_or.float32.r4.*.0", "bit_and.float64.r4.*.0"]
reports = []
for name in sorted(plugins):
    if name.startswith("broken_") or name == "example":
        reports.append("%s=%s" % (name, run(name, FILTERS)))
rep_invalid = os.path.join(work, "run-broken_accepts_invalid", "report.json")
with open(rep_invalid) as f:
    cases = json.load(f)["cases"]
if not any("accepted an invalid description" in c.get("detail", "") for c in cases):
    failures.append("broken_accepts_invalid: no case says it accepted an invalid description")

# A repeated run: a case ends several times.
run("example", ["bit_xor.uint8.r4.*"], "--repeat", "2", want=0)

# 2. check over damaged result sets: the reference's results for a small export, then each
#    kind of damage.
export = os.path.join(work, "export")
sh(bitcts, "vectors", "export", "--out", export, "--filter", "bit_xor.uint8.r2.*",
   "--filter", "bit_count.uint16.uint8.r2.*", "--filter", "bit_shift_left.uint8.r2.*", want=0)
good = os.path.join(work, "ref")
sh(ref_results, export, good, want=0)
sh(ref_results, export, os.path.join(work, "ref-elements"), "--elements", want=0)
sh(bitcts, "check", export, "--results", good, "--report", os.path.join(work, "check-ref"),
   "--quiet", want=0)
sh(bitcts, "check", export, "--results", os.path.join(work, "ref-elements"), "--report",
   os.path.join(work, "check-elements"), "--quiet", want=0)
with open(os.path.join(good, "results.json")) as f:
    doc = json.load(f)
with open(os.path.join(good, "data.bin"), "rb") as f:
    data = f.read()
done = [e for e in doc["cases"] if e["status"] == "done"]


def damaged(tag, mutate, want, says):
    """check over a damaged copy of the results: a failing case (exit 1, the report says it)
    or input it refuses (exit 2, one line saying it)."""
    d = json.loads(json.dumps(doc))
    blob = bytearray(data)
    mutate(d, blob)
    path = os.path.join(work, "damaged-" + tag)
    os.makedirs(path)
    with open(os.path.join(path, "data.bin"), "wb") as f:
        f.write(bytes(blob))
    with open(os.path.join(path, "results.json"), "w") as f:
        json.dump(d, f)
    p = sh(bitcts, "check", export, "--results", path, "--report", path + "-report", "--quiet",
           want=want, says=says if want == 2 else None)
    if want == 1 and p.returncode == 1:
        with open(os.path.join(path + "-report", "report.json")) as f:
            text = json.dumps(json.load(f))
        if says not in text:
            failures.append("check %s: the report does not say %r" % (tag, says))


def wrong_bytes(d, blob):
    d["cases"][d["cases"].index(done[0])]["bytes"] += 1


def wrong_crc(d, blob):
    e = d["cases"][d["cases"].index(done[1])]
    e["crc32"] = "%08x" % (int(e["crc32"], 16) ^ 1)


def truncated(d, blob):
    del blob[done[-1]["offset"] + 1:]


def flipped(d, blob):
    e = done[2]
    blob[e["offset"]] ^= 0x10
    d["cases"][d["cases"].index(e)]["crc32"] = "%08x" % zlib.crc32(
        bytes(blob[e["offset"]:e["offset"] + e["bytes"]]))


def missing_and_unsupported(d, blob):
    d["cases"].remove(done[3])
    e = d["cases"][d["cases"].index(done[4])]
    for k in ("layout", "path", "offset", "bytes", "crc32"):
        del e[k]
    e["status"] = "not_supported"
    e["reason"] = "no kernel for this layout"


def unattributed(d, blob):
    d["cases"].append({"status": "done"})
    d["cases"].append({"id": "x" * 300, "status": "done"})


def shifts_flipped(d, blob):
    for e in done:
        if e["id"].startswith("bit_shift_left."):
            blob[e["offset"]] ^= 0x01
            d["cases"][d["cases"].index(e)]["crc32"] = "%08x" % zlib.crc32(
                bytes(blob[e["offset"]:e["offset"] + e["bytes"]]))


def bad_offset(d, blob):
    d["cases"][d["cases"].index(done[6])]["offset"] = "x"


def other_seed(d, blob):
    d["vectors"]["seed"] = "0x0000000000000001"


def missing_file(d, blob):
    d["cases"][d["cases"].index(done[5])]["path"] = "gone.bin"


damaged("bytes", wrong_bytes, 2, "the output buffer of this case is")
damaged("crc", wrong_crc, 2, "results.json says")
damaged("truncated", truncated, 2, "truncated")
damaged("flipped", flipped, 1, "differ")
damaged("missing", missing_and_unsupported, 1, "not supported by the producer")
damaged("unattributed", unattributed, 2, "entries without an id ignored")
damaged("file", missing_file, 2, "cannot read gone.bin")
damaged("shifts", shifts_flipped, 1, "differ")
damaged("offset", bad_offset, 2, "is not a byte count")
damaged("seed", other_seed, 2, "seed")

# 3. The matrix over the plugins' reports and two of check's: failing, not supported, recorded
#    and empty cells, first deviations, the reasons.
sh(bitcts, "report", "matrix", "--out", os.path.join(work, "m.md"), "--html",
   os.path.join(work, "m.html"), "--json", os.path.join(work, "m.json"), *reports[:8],
   "ref=" + os.path.join(work, "check-ref"),
   "missing=" + os.path.join(work, "damaged-missing-report"), want=0)
with open(os.path.join(work, "m.md")) as f:
    matrix = f.read()
for cell in ("FAIL ", ">=w: saturate", "| - |"):
    if cell not in matrix:
        failures.append("report matrix: no %r cell" % cell)
sh(bitcts, "report", "matrix", "--help", want=0, says="usage")
# 4. explore and shrink: a crash (its signal in the failure's kind) and the in-place bug.
for name in ("broken_crash_rank8", "broken_broken_in_place"):
    sh(bitcts, "explore", "--backend", plugins[name], "--cases", "48", "--jobs", "2", "--quiet",
       "--report", os.path.join(work, "explore-" + name), "--shrink-max", "1",
       "--shrink-seconds", "600", want=1)
explored = os.path.join(work, "explore-broken_broken_in_place", "report.json")
with open(explored) as f:
    first = next((c["id"] for c in json.load(f)["cases"] if c["verdict"] == "fail"), None)
if first is None:
    failures.append("explore of broken_broken_in_place found nothing to shrink")
else:  # an explored case run again by its id, and its shrunk vectors checked (no results)
    run("broken_broken_in_place", [first], want=1)
    shrunk = os.path.join(work, "explore-broken_broken_in_place", "shrunk", first)
    empty = os.path.join(work, "no-results")
    os.makedirs(empty)
    with open(os.path.join(shrunk, "manifest.json")) as f:
        vectors = json.load(f)
    with open(os.path.join(empty, "results.json"), "w") as f:
        json.dump({"format": "bitcts-results", "format_version": "1.0",
                   "producer": {"name": "nothing", "version": "1"},
                   "vectors": {"seed": vectors["seed"],
                               "generator_version": vectors["generator_version"]},
                   "cases": []}, f)
    sh(bitcts, "check", shrunk, "--results", empty, "--report", empty + "-report", "--quiet",
       want=1)

# 5. vectors verify of an edited golden manifest: every kind of change named.
with open(golden) as f:
    m = json.load(f)
m["cases"][5]["inputs"]["A"] = "0" * 32
m["cases"][9]["expected"] = "1" * 32
m["cases"].append(dict(m["cases"][7], id="bit_and.uint8.r9.nonexistent.0"))
del m["cases"][7]
m["literals"][0]["expected"] = [1, 2, 3, 4]
edited = os.path.join(work, "golden-edited.json")
with open(edited, "w") as f:
    json.dump(m, f)
sh(bitcts, "vectors", "verify", "--golden", edited, want=1, says="input A changed")
m["generator_version"] = 1
twice = json.loads(json.dumps(m))
twice["cases"][1]["id"] = twice["cases"][0]["id"]
with open(edited, "w") as f:
    json.dump(twice, f)
sh(bitcts, "vectors", "verify", "--golden", edited, want=2, says="appears twice")
with open(edited, "w") as f:
    json.dump(m, f)
sh(bitcts, "vectors", "verify", "--golden", edited, want=1, says="generator_version changed")
for field, value in (("seed", "12"), ("tier", 5), ("cases", [])):
    bad = dict(m, **{field: value})
    with open(edited, "w") as f:
        json.dump(bad, f)
    sh(bitcts, "vectors", "verify", "--golden", edited, want=2, says="golden")
sh(bitcts, "vectors", "verify", "--golden", golden, want=0, says="agree")
regen = os.path.join(work, "golden-regen.json")
sh(bitcts, "vectors", "regen", "--golden", regen, want=0, says="wrote")
with open(regen, "rb") as f, open(golden, "rb") as g:
    if f.read() != g.read():
        failures.append("vectors regen does not reproduce the committed golden manifest")

# 6. The command line's refusals, one line each, exit 2.
sh(bitcts, "run", "--tier", "smoke", "--tier", "smoke", want=2, says="given twice")
sh(bitcts, "run", "--quiet=yes", want=2, says="takes no value")
sh(bitcts, "run", "--tier", want=2, says="needs a value")
sh(bitcts, "run", "--tier=", want=2, says="needs a value")
sh(bitcts, "run", "--backend", "cpu", "--backend-option", "threads", want=2, says="KEY=VALUE")
sh(bitcts, "check", want=2, says="is required")
sh(bitcts, "explore", "--cases", "1", want=2, says="--backend is required")
sh(bitcts, "explore", "--backend", "cpu", want=2, says="--seconds N and --cases N")
for cmd in (["vectors", "verify"], ["report", "diff"], ["report", "verdicts"],
            ["report", "merge"], ["report", "render"], ["check"], ["list"]):
    sh(bitcts, *cmd, "--help", want=0, says="usage")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("ok: %d reports, the matrix, 7 damaged result sets, 2 explorations, an edited golden "
      "manifest, the command line's refusals" % len(reports))
