#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The committed regression set (vectors/regressions/, docs/regressions.md) replayed:
#  * each broken plugin fails again on the cases it was found with, with the verdict of the
#    signature saved (fail or crash), and exits 1;
#  * the example plugin and cpu pass every case (recorded where shift counts reach the width);
#  * with --tier the set joins the tier's cases, --filter selects among them, each report case
#    carries its origin; vectors export --regressions writes an export run --vectors reads;
#  * a truncated, damaged or hostile file (a FIFO), an empty folder, --save without --shrink:
#    one line naming the problem, exit 2, no report written;
#  * the same find saved twice is one file, byte-identical.
# usage: regressions.sh BITCTS SET_DIR WORK_DIR name=plugin...
set -euo pipefail
bitcts=$1
set_dir=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness_lib.sh
. "$here/harness_lib.sh"
harness_start "$@"
count=$(ls "$set_dir"/*.json | wc -l)
[ "$count" -gt 0 ] || fail "no case in $set_dir"

# 1. Every plugin the set was made from fails on it, one run each (its finds may be another's
#    file: the same case, found first by another plugin, is one file with the first origin);
#    its verdicts printed. A plugin that found a case gets that case's saved verdict again.
backends=$(python3 -c '
import json, glob, sys
print(" ".join(sorted({json.load(open(f))["origin"]["backend"] for f in glob.glob(sys.argv[1] + "/*.json")})))
' "$set_dir")
made_from=$(grep -o '^    broken_[a-z0-9_]*' "$here/../../tools/regressions_generate.sh")
for lib in $backends; do
    name=${lib#libbitcts_}
    name=${name%.so}
    [ -n "${plugin[$name]:-}" ] || fail "the set names $lib, no such plugin given"
    grep -qx "    $name" <<<"$made_from" || fail "the set names $lib, which the set is not made from"
done
for name in $made_from; do
    [ -n "${plugin[$name]:-}" ] || fail "no plugin $name given"
    rc=0
    "$bitcts" run --backend "${plugin[$name]}" --regressions "$set_dir" --report "r-$name" \
        --quiet --jobs 2 >"r-$name.log" 2>&1 || rc=$?
    [ "$rc" = 1 ] || { cat "r-$name.log"; fail "$name exited $rc on the set, not 1"; }
    found=0 # the set holds cases this plugin found: at least one of its own must be there
    grep -qwF "libbitcts_$name.so" <<<"$backends" && found=1
    python3 - "r-$name/report.json" "libbitcts_$name.so" "$count" "$name" "$found" <<'PY' || fail "$name's replay is wrong"
import collections, json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert len(cases) == int(sys.argv[3]), "want every case of the set, got %d" % len(cases)
print("  %s: %s" % (sys.argv[4], dict(collections.Counter(c["verdict"] for c in cases))))
own = [c for c in cases if c["origin"]["backend"] == sys.argv[2]]
assert own or sys.argv[5] == "0", "no case of its own"
for c in own:
    assert c["id"].startswith("regression."), c["id"]
    want = c["origin"]["signature"].split(":")[0]
    assert c["verdict"] == want, "%s: %s, saved as %s" % (c["id"], c["verdict"], c["origin"]["signature"])
    print("    its own %s: %s (%s)" % (c["id"], c["verdict"], c["detail"][:70]))
PY
    rm -rf "r-$name"
done

# 2. Correct backends pass every case.
for be in cpu "${plugin[example]}"; do
    rc=0
    "$bitcts" run --backend "$be" --regressions "$set_dir" --report r-good --quiet --jobs 2 \
        >r-good.log 2>&1 || rc=$?
    [ "$rc" = 0 ] || { cat r-good.log; fail "$be exited $rc on the set, not 0"; }
    python3 - r-good/report.json "$count" <<'PY' || fail "$be does not pass the set"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert len(cases) == int(sys.argv[2])
bad = [(c["id"], c["verdict"]) for c in cases if c["verdict"] not in ("pass", "recorded")]
assert not bad, bad
PY
    rm -rf r-good
done

# 3. With a tier, a filter; origins in the report.
first=$(basename "$(ls "$set_dir"/*.json | head -n 1)" .json)
"$bitcts" run --backend cpu --tier smoke --regressions "$set_dir" --report r-tier --quiet \
    --jobs 2 >/dev/null 2>&1 || fail "smoke + the set on cpu failed"
"$bitcts" run --backend cpu --regressions "$set_dir" --filter "regression.$first" \
    --report r-one --quiet >/dev/null 2>&1 || fail "one case of the set on cpu failed"
"$bitcts" list --tier smoke >smoke-ids.txt || fail "bitcts list --tier smoke failed"
python3 - "$count" "$first" <<'PY' || fail "--tier or --filter with --regressions is wrong"
import json, sys
tier = json.load(open("r-tier/report.json"))["cases"]
reg = [c for c in tier if c["id"].startswith("regression.")]
assert len(reg) == int(sys.argv[1]) and len(tier) > len(reg), (len(tier), len(reg))
# The tier's cases are the smoke tier's, no other tier's.
smoke = open("smoke-ids.txt").read().split()
assert sorted(c["id"] for c in tier if c not in reg) == sorted(smoke), \
    "--tier smoke with --regressions ran %d suite cases, the smoke tier has %d" % (
        len(tier) - len(reg), len(smoke))
assert all("origin" in c for c in reg) and not any("origin" in c for c in tier if c not in reg)
one = json.load(open("r-one/report.json"))["cases"]
assert [c["id"] for c in one] == ["regression." + sys.argv[2]], one
PY

# The set as an export (vectors export --regressions): run --vectors reads it back whole.
"$bitcts" vectors export --regressions "$set_dir" --out exp >/dev/null 2>&1 ||
    fail "vectors export --regressions failed"
"$bitcts" run --backend cpu --vectors exp --report r-exp --quiet >/dev/null 2>&1 ||
    fail "the exported set does not pass on cpu"
python3 - "$count" <<'PY' || fail "the exported set is not the set"
import json, sys
cases = json.load(open("r-exp/report.json"))["cases"]
assert len(cases) == int(sys.argv[1]) and all(c["id"].startswith("regression.") for c in cases)
PY

# 4. Bad input: one line naming the file, exit 2, nothing written.
refuse() { # what dir
    rc=0
    "$bitcts" run --backend cpu --regressions "$2" --report r-bad >bad.out 2>bad.err || rc=$?
    [ "$rc" = 2 ] || fail "$1: exit $rc, not 2"
    [ "$(wc -l <bad.err)" = 1 ] || fail "$1: not one line: $(cat bad.err)"
    [ ! -e r-bad ] || fail "$1: a report was written"
    echo "  $1: $(cat bad.err)"
}
mkdir truncated damaged fifo empty
cp "$set_dir"/*.json truncated/ && cp "$set_dir"/*.json damaged/ && cp "$set_dir"/*.json fifo/
victim=$(ls truncated | head -n 1)
head -c 300 "$set_dir/$victim" >"truncated/$victim"
# one hex digit of the output's initial bytes changed (to another digit, whatever it was)
python3 -c '
import re, sys
p = sys.argv[1]
t = open(p).read()
t = re.sub(r"(\"initial\": \")(.)", lambda m: m.group(1) + ("0" if m.group(2) != "0" else "1"), t, 1)
open(p, "w").write(t)' "damaged/$victim"
cmp -s "damaged/$victim" "$set_dir/$victim" && fail "could not damage $victim"
mkfifo fifo/0000000000000000.json
refuse truncated truncated
grep -q "$victim" bad.err || fail "the message does not name $victim"
refuse damaged damaged
grep -q "$victim" bad.err || fail "the message does not name $victim"
refuse fifo fifo
refuse empty empty
refuse missing missing
rc=0
"$bitcts" run --backend cpu --save s --report r-bad >/dev/null 2>bad.err || rc=$?
[ "$rc" = 2 ] || fail "--save without --shrink: exit $rc, not 2"

# 5. The same find saved twice: one file, the same bytes.
for i in 1 2; do
    rc=0
    "$bitcts" explore --backend "${plugin[broken_permuted_padded]}" --cases 6 --quiet \
        --report "ex$i" --shrink-max 1 --shrink-seconds 900 --save twice >/dev/null 2>&1 || rc=$?
    [ "$rc" = 1 ] || fail "explore over broken_permuted_padded exited $rc, not 1"
    [ "$(ls twice | wc -l)" = 1 ] || fail "after save $i: $(ls twice)"
    [ "$i" = 1 ] && cp twice/*.json once.json
done
cmp -s once.json twice/*.json || fail "the second save changed the file"
echo "regressions: $count cases replayed on ${backends// /, }, cpu and example"
