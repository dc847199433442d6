#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`bitcts vectors verify` and `regen` on the committed golden manifest: verify agrees (exit 0);
regen reproduces the committed bytes exactly; every kind of change is named with its reason
and exits 1 (an input digest, an expected output, a literal's expected values, a case added or
removed); a missing, malformed, foreign or unknown-major manifest exits 2 with a one-line error;
a higher minor version with unknown fields is read (exit 0).

Usage: golden_verify.py BITCTS MANIFEST WORK_DIR"""
import json
import os
import shutil
import subprocess
import sys

bitcts, manifest, work = sys.argv[1:]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def verify(path):
    p = subprocess.run([bitcts, "vectors", "verify", "--golden", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr.strip()


def expect(name, path, rc, lines=None, error=None):
    got_rc, out, err = verify(path)
    ok = got_rc == rc
    if lines is not None:
        ok = ok and sorted(out) == sorted(lines)
    if error is not None:
        ok = ok and error in err and len(err.splitlines()) == 1
    print(f"{'ok' if ok else 'FAIL'}: {name}: exit {got_rc}, {len(out)} lines; {err[:150]}")
    if not ok:
        failures.append(f"{name}: exit {got_rc} (want {rc}); stdout {out[:4]}; stderr {err[:300]}")


def write(name, data):
    path = os.path.join(work, name)
    with open(path, "w" if isinstance(data, str) else "wb") as f:
        f.write(data)
    return path


with open(manifest, "rb") as f:
    committed = f.read()
m = json.loads(committed)

expect("the committed manifest", manifest, 0)
regen = os.path.join(work, "regen.json")
p = subprocess.run([bitcts, "vectors", "regen", "--golden", regen], stderr=subprocess.PIPE, text=True)
with open(regen, "rb") as f:
    same = p.returncode == 0 and f.read() == committed
print(f"{'ok' if same else 'FAIL'}: regen reproduces the committed manifest byte for byte")
if not same:
    failures.append("regen does not reproduce the committed manifest (run bitcts vectors regen)")

# Changes, each named with its reason.
edited = json.loads(committed)
c_in, c_out, c_gone = edited["cases"][5], edited["cases"][9], edited["cases"][7]
c_in["inputs"]["A"] = "0" * 32
c_out["expected"] = "1" * 32
del edited["cases"][7]
edited["cases"].append(dict(c_gone, id="bit_and.uint8.r9.nonexistent.0"))
edited["literals"][0]["expected"] = [1, 2, 3, 4]
expect("edited digests, a case moved out and a stranger in", write("edited.json", json.dumps(edited)), 1,
       lines=[f"{c_in['id']}: input A changed: {'0' * 32} -> {m['cases'][5]['inputs']['A']}",
              f"{c_out['id']}: expected output changed: {'1' * 32} -> {m['cases'][9]['expected']}",
              f"{c_gone['id']}: added (not in the manifest)",
              "bit_and.uint8.r9.nonexistent.0: removed (in the manifest, no longer generated)",
              f"literal {m['literals'][0]['name']}: expected output changed: [1,2,3,4] -> "
              f"{json.dumps(m['literals'][0]['expected'], separators=(',', ':'))}"])
older = json.loads(committed)
older["generator_version"] = 1
expect("an older generator version", write("older.json", json.dumps(older)), 1,
       lines=[f"manifest: generator_version changed: 1 -> {m['generator_version']}"])

# A later minor version: unknown fields are ignored.
minor = json.loads(committed)
minor["format_version"] = "1.9"
minor["future_field"] = {"x": 1}
minor["cases"][0]["future_case_field"] = 7
expect("format_version 1.9 with unknown fields", write("minor.json", json.dumps(minor)), 0)

# Refused with exit 2 and one line.
major = json.loads(committed)
major["format_version"] = "2.0"
expect("format_version 2.0", write("major.json", json.dumps(major)), 2, error="reads major version 1 only")
foreign = json.loads(committed)
foreign["format"] = "bitcts-vectors"
expect("another format", write("foreign.json", json.dumps(foreign)), 2, error="not a bitcts golden manifest")
expect("a truncated manifest", write("truncated.json", committed[:len(committed) // 2]), 2, error="not JSON")
expect("not JSON at all", write("garbage.json", b"\x00\xff garbage"), 2, error="not JSON")
expect("a missing manifest", os.path.join(work, "missing.json"), 2, error="missing.json")
for field, value, text in [("case_count", 3, "counts disagree"), ("seed", "0x12", "seed"),
                           ("tier", "nightly", "tier")]:
    bad = json.loads(committed)
    bad[field] = value
    expect(f"{field} = {value!r}", write(f"bad_{field}.json", json.dumps(bad)), 2, error=text)
bad = json.loads(committed)
bad["cases"][3]["inputs"]["A"] = "XYZ"
expect("a digest that is not one", write("bad_digest.json", json.dumps(bad)), 2, error="cases[3]")
bad = json.loads(committed)
bad["cases"][4]["tensors"][0] = ["A", 5, 0, [2, -1], None, 4, 0]
expect("a negative size", write("bad_size.json", json.dumps(bad)), 2, error="cases[4]")
bad = json.loads(committed)
bad["cases"][6]["id"] = bad["cases"][5]["id"]
expect("a duplicated id", write("dup.json", json.dumps(bad)), 2, error="appears twice")

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
print("verify and regen behave as documented")
