#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bitcts explore and run --shrink (docs/explore.md):
#  * a plugin whose bug needs a shape the plan lacks (broken_permuted_padded: a tensor both
#    permuted and padded; explore_plan.sh shows that it passes the whole default tier): explore
#    finds it in its first 200 cases; every failure it shrinks ends at <= 8 elements and
#    rank <= 2, as vectors (the original and the shrunk case) with a repro whose `bitcts eval`
#    line runs and whose `bitcts run --filter explore.N` line fails the same way again;
#  * run --shrink reduces the failures of broken plugins of other kinds (strides, broadcast,
#    odd counts, a crash at rank 8) to a few elements;
#  * a careless command line gets exit 2 and a message naming the problem.
# No verdict depends on the machine's speed: the shrink budgets (--shrink-seconds) are far above
# what shrinking takes, so a loaded machine still shrinks to the end.
# usage: explore.sh BITCTS WORKDIR name=plugin...
set -euo pipefail
bitcts=$1
work=$2
shift 2
. "$(cd "$(dirname "$0")" && pwd)/harness_lib.sh"
harness_start "$work" "$@"
pp=${plugin[broken_permuted_padded]}

# 1. explore finds what the plan misses, and shrinks it.
rc=0
"$bitcts" explore --backend "$pp" --cases 200 --jobs 2 --report ex --quiet --shrink-max 4 \
    --shrink-seconds 900 >ex.log 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat ex.log; fail "explore over broken_permuted_padded exited $rc, not 1"; }
python3 - <<'PY' || fail "explore's report or shrunk cases are wrong"
import json, os, subprocess, sys
rep = json.load(open("ex/report.json"))
ids = [c["id"] for c in rep["cases"]]
assert ids == ["explore.%d" % i for i in range(200)], "ids are not explore.0 .. explore.199"
failing = [c for c in rep["cases"] if c["verdict"] == "fail"]
assert failing, "no failure found"
print("explore: %d of 200 cases fail, the first %s" % (len(failing), failing[0]["id"]))
shrunk = sorted(os.listdir("ex/shrunk"))
assert len(shrunk) == 4, "want 4 shrunk cases, got %s" % shrunk
for d in shrunk:
    info = json.load(open(os.path.join("ex/shrunk", d, "shrink.json")))
    man = json.load(open(os.path.join("ex/shrunk", d, "manifest.json")))
    assert [c["id"] for c in man["cases"]] == [d, d + ".shrunk"], man["cases"]
    assert info["signature"] == "fail:mismatch", info
    assert info["elements_after"] <= 8 and info["rank_after"] <= 2, info
    assert info["result"]["verdict"] == "fail", info["result"]
    print("  %s: %d elements, rank %d -> %d elements, rank %d" % (
        d, info["elements_before"], info["rank_before"], info["elements_after"], info["rank_after"]))
PY
first=$(ls ex/shrunk | head -n 1)
# The eval line runs as pasted: it names this bitcts by its absolute path (PATH is empty here).
eval_line=$(grep -v '^#' "ex/shrunk/$first/repro.txt" | grep '^/[^ ]*bitcts eval ')
[ -n "$eval_line" ] || fail "no eval line in repro.txt"
PATH='' /bin/bash -c "$eval_line --format hex" >eval.out 2>&1 ||
    fail "the repro's eval line fails: $(cat eval.out)"
echo "eval of the shrunk $first: $(cat eval.out)"
rc=0
"$bitcts" run --backend "$pp" --filter "$first" --report again --quiet >again.log 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "bitcts run --filter $first exited $rc, not 1 (the failure did not reproduce)"
python3 -c "
import json; c = json.load(open('again/report.json'))['cases']
assert [x['id'] for x in c] == ['$first'] and c[0]['verdict'] == 'fail', c" ||
    fail "run --filter $first did not fail the same case"

# The shrunk vectors are an export `bitcts check` takes: NumPy's results for both cases pass;
# one flipped bit in the shrunk case's result (its CRC updated) is a mismatch, exit 1.
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
    src=$(cd "$(dirname "$0")/../.." && pwd)
    /usr/bin/python3 "$src/adapters/run_numpy.py" "ex/shrunk/$first" >numpy.log 2>&1 ||
        fail "the NumPy adapter on the shrunk vectors: $(tail -n 3 numpy.log)"
    "$bitcts" check "ex/shrunk/$first" --report check-ok >check-ok.log 2>&1 ||
        fail "bitcts check of NumPy's results for the shrunk vectors: $(tail -n 5 check-ok.log)"
    /usr/bin/python3 - "ex/shrunk/$first/results" "$first.shrunk" <<'PY'
import json, sys, zlib
root, sid = sys.argv[1], sys.argv[2]
r = json.load(open(root + "/results.json"))
e = next(c for c in r["cases"] if c["id"] == sid)
data = bytearray(open(root + "/" + e["path"], "rb").read())
data[e["offset"]] ^= 0x01
open(root + "/" + e["path"], "wb").write(data)
e["crc32"] = "%08x" % zlib.crc32(bytes(data[e["offset"]:e["offset"] + e["bytes"]]))
json.dump(r, open(root + "/results.json", "w"))
PY
    rc=0
    "$bitcts" check "ex/shrunk/$first" --report check-bad >check-bad.log 2>&1 || rc=$?
    [ "$rc" = 1 ] || fail "check of a flipped bit in $first.shrunk exited $rc, not 1"
    python3 -c "
import json; c = {x['id']: x for x in json.load(open('check-bad/report.json'))['cases']}
assert c['$first']['verdict'] == 'pass', c['$first']
assert c['$first.shrunk']['verdict'] == 'fail' and 'differ' in c['$first.shrunk']['detail'], c" ||
        fail "check did not blame the flipped bit on $first.shrunk"
    echo "check: NumPy's results for $first and $first.shrunk pass; a flipped bit fails the shrunk case"
fi

# 2. run --shrink on broken plugins of other kinds.
for spec in "broken_ignores_strides:*.r3.padded_inner.*:2" "broken_zero_stride:*.r3.broadcast*:2" \
    "broken_skip_last_odd:bit_xor.*.r2.*:3" "broken_crash_rank8:bit_not.uint8.r8.*:1"; do
    IFS=: read -r name filter most <<<"$spec"
    rc=0
    "$bitcts" run --backend "${plugin[$name]}" --tier all --filter "$filter" --jobs 2 --report "rs-$name" \
        --quiet --shrink --shrink-max 2 --shrink-seconds 900 >"rs-$name.log" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { tail -n 20 "rs-$name.log"; fail "$name: run --shrink exited $rc, not 1"; }
    python3 - "rs-$name/shrunk" "$most" "$name" <<'PY' || fail "$name: not shrunk far enough"
import json, os, sys
root, most, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dirs = sorted(os.listdir(root))
assert dirs, "nothing shrunk"
for d in dirs:
    info = json.load(open(os.path.join(root, d, "shrink.json")))
    assert info["elements_after"] <= most, "%s: %d elements left" % (d, info["elements_after"])
    print("%s: %s (%s): %d elements, rank %d -> %d, rank %d" % (name, d, info["signature"],
          info["elements_before"], info["rank_before"], info["elements_after"], info["rank_after"]))
PY
done

# 3. A careless command line.
careless() { # careless WANT_TEXT ARGS...
    local want=$1
    shift
    local out rc=0
    out=$("$bitcts" explore "$@" 2>&1) || rc=$?
    [ "$rc" = 2 ] || fail "explore $*: exit $rc, not 2"
    grep -q -- "$want" <<<"$out" || fail "explore $*: '$out' does not say '$want'"
}
careless "one of --seconds N and --cases N" --backend cpu
careless "one of --seconds N and --cases N" --backend cpu --seconds 5 --cases 5
careless "--backend is required" --cases 5
careless "run's, not explore's" --backend cpu --cases 5 --filter 'bit_and.*'
careless "--cases" --backend cpu --cases 0
careless "--seconds" --backend cpu --seconds x
mkdir -p foreign && echo mine >foreign/notes.txt
careless "holds files bitcts did not write" --backend cpu --cases 5 --report foreign
[ "$(cat foreign/notes.txt)" = mine ] || fail "explore touched a foreign folder"
echo "explore: every check passed"
