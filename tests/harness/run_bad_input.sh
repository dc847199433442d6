#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bitcts run / report: bad input gets a one-line error naming the problem and exit code 2; a
# backend that loads but cannot start for the machine's reasons gets exit code 3 (retry).
# Usage: run_bad_input.sh BITCTS EXAMPLE_PLUGIN WRONG_MAJOR_STUB MISSING_SYMBOL_STUB
set -u
bitcts=$1
example=$2
wrong_major=$3
missing_symbol=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
    local want=$1
    shift
    "$bitcts" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL: bitcts $* -> rc=$rc: $(cat "$work/err")"; fail=1
    else
        echo "ok: $(cat "$work/err")"
    fi
}
bad "$work/nope.so" run --backend "$work/nope.so" --report "$work/r1" --quiet
bad "ABI major 2 not supported" run --backend "$wrong_major" --report "$work/r2" --quiet
bad "symbol bitcts_plugin_negotiate not found" run --backend "$missing_symbol" --report "$work/r3" --quiet
bad "unknown backend 'gpu9'" run --backend gpu9 --report "$work/r4" --quiet
printf 'bit_xor.* fail  # known\nbit_not.* flaky\n' >"$work/baseline.txt"
bad "baseline.txt:2: unknown verdict 'flaky'" run --backend "$example" --baseline "$work/baseline.txt" --report "$work/r5" --quiet
# A refused run writes nothing: no report folder is made, an empty one stays empty (no mark).
refused_leaves_nothing() { # refused_leaves_nothing WANT ARGS...
    local want=$1
    shift
    rm -rf "$work/refused" "$work/refused-empty" && mkdir "$work/refused-empty"
    bad "$want" run "$@" --report "$work/refused" --quiet
    bad "$want" run "$@" --report "$work/refused-empty" --quiet
    if [ -e "$work/refused" ] || [ -n "$(ls -A "$work/refused-empty")" ]; then
        echo "FAIL: refused run $* left $(ls -A "$work/refused" "$work/refused-empty" 2>&1 | tr '\n' ' ')"
        fail=1
    fi
}
refused_leaves_nothing "$work/nope.so" --backend "$work/nope.so"
refused_leaves_nothing "ABI major 2 not supported" --backend "$wrong_major"
refused_leaves_nothing "symbol bitcts_plugin_negotiate not found" --backend "$missing_symbol"
refused_leaves_nothing "unknown backend 'gpu9'" --backend gpu9
refused_leaves_nothing "unknown verdict 'flaky'" --backend "$example" --baseline "$work/baseline.txt"
refused_leaves_nothing "matches no case" --backend "$example" --filter 'no_such_case*'
# Baseline lines that can never match: an unknown verdict or a malformed glob is refused
# (FILE:LINE); a glob that matches no case of any tier is one warning line, and the run goes on.
for kind in pass warn recorded expected_fail unexpected_pass Fail flaky; do
    printf 'bit_xor.* fail\nbit_not.* %s # why\n' "$kind" >"$work/kind.txt"
    bad "kind.txt:2: unknown verdict '$kind'" run --backend "$example" --baseline "$work/kind.txt" --report "$work/kind" --quiet
done
printf 'bit_xor.* fail\n# a comment\nbit_not.*\n' >"$work/kind.txt"
bad "kind.txt:3: missing verdict after 'bit_not.*'" run --backend "$example" --baseline "$work/kind.txt" --report "$work/kind" --quiet
printf 'bit_[xor.* fail\n' >"$work/glob.txt"
bad "glob.txt:1: 'bit_[xor.*' is a malformed glob" run --backend "$example" --baseline "$work/glob.txt" --report "$work/kind" --quiet
printf 'bit_not.* crash\nbit_nand.* fail # typo\nexplore.* fail\nbit_xor.uint8.r9.* timeout\n' >"$work/dead.txt"
"$bitcts" run --backend "$example" --filter 'bit_not.uint8.r1.packed.*' --baseline "$work/dead.txt" \
    --report "$work/dead" --quiet >/dev/null 2>"$work/err"
if [ "$(grep -c warning "$work/err")" -ne 2 ] || ! grep -qF "dead.txt:2: 'bit_nand.*' matches no case of any tier" "$work/err" ||
    ! grep -qF "dead.txt:4: 'bit_xor.uint8.r9.*' matches no case" "$work/err" || [ ! -s "$work/dead/report.json" ]; then
    echo "FAIL: dead baseline lines: $(cat "$work/err")"; fail=1
fi
bad "--shard: '4/3'" run --backend "$example" --shard 4/3
bad "--jobs" run --backend "$example" --jobs 0
bad "--backend is required" run --filter 'bit_not*'
bad "the selection matches no case" run --backend "$example" --filter 'no_such_case*' --report "$work/r6"
bad "--isolate: 'process' is not batch or case" run --backend "$example" --isolate process
bad "--repeat: '65' is not a number from 1 to 64" run --backend "$example" --repeat 65
# --report refuses a folder bitcts did not create, unless --force; nothing in it is touched.
mkdir -p "$work/mine" && echo "precious" >"$work/mine/notes.txt"
bad "holds files bitcts did not write" run --backend "$example" --filter 'bit_not.uint8.r1.*' --report "$work/mine" --quiet
[ "$(cat "$work/mine/notes.txt")" = precious ] && [ ! -e "$work/mine/report.json" ] || { echo "FAIL: --report touched a foreign folder"; fail=1; }
"$bitcts" run --backend "$example" --filter 'bit_not.uint8.r1.*' --report "$work/mine" --quiet --force >/dev/null && [ -s "$work/mine/report.json" ] || { echo "FAIL: --force"; fail=1; }
# Files bitcts does not own are not overwritten. Two runs of one selection with two CPU
# variants, and one with another seed: report merge refuses to join them, naming both.
sel='bit_not.uint8.r1.packed.*'
"$bitcts" run --backend cpu:scalar --filter "$sel" --report "$work/v1" --quiet --jobs 1 >/dev/null
"$bitcts" run --backend cpu --filter "$sel" --report "$work/v2" --quiet --jobs 1 >/dev/null
"$bitcts" run --backend cpu:scalar --filter "$sel" --report "$work/v3" --quiet --jobs 1 --seed 7 >/dev/null
bad "$work/v1 and $work/v2 are not shards of one run: backend.spec differs ('cpu:scalar' vs 'cpu')" \
    report merge --out "$work/merged" "$work/v1" "$work/v2"
bad "are not shards of one run: seed differs" report merge --out "$work/merged" "$work/v1" "$work/v3"
[ ! -e "$work/merged" ] || { echo "FAIL: a refused merge left $work/merged"; fail=1; }
bad "--out $work/v1 is the input report $work/v1" report merge --out "$work/v1" "$work/v1"
# report matrix and report diff never write over an input report, nor two outputs on one file.
cp "$work/v1/report.json" "$work/v1-copy.json"
bad "--out $work/v1/report.json is the input report $work/v1/report.json" \
    report matrix --out "$work/v1/report.json" "$work/v1" "$work/v2"
bad "--html $work/v1-copy.json is the input report" report matrix --out "$work/m.md" \
    --html "$work/v1-copy.json" "$work/v1-copy.json" "$work/v2"
bad "--out and --html name the same file" report matrix --out "$work/m.md" --html "$work/./m.md" "$work/v1"
bad "--html and --json name the same file" report matrix --out "$work/m.md" --html "$work/h" --json "$work/h" "$work/v1"
bad "--json $work/v2/report.json is the input report" report diff "$work/v1" "$work/v2" --json "$work/v2/report.json"
cmp -s "$work/v1/report.json" "$work/v1-copy.json" && [ ! -e "$work/m.md" ] ||
    { echo "FAIL: an input report or output was written"; fail=1; }
# A folder holding a report.json another tool wrote is not a bitcts report folder.
mkdir -p "$work/other" && echo '{"tool": "other"}' >"$work/other/report.json"
bad "--report $work/other holds files bitcts did not write" run --backend cpu --filter "$sel" --report "$work/other" --quiet
bad "--report $work/other holds files bitcts did not write" explore --backend cpu --cases 2 --report "$work/other" --quiet
bad "--out $work/other holds files bitcts did not write" report merge --out "$work/other" "$work/v1"
[ "$(cat "$work/other/report.json")" = '{"tool": "other"}' ] || { echo "FAIL: another tool's report.json was replaced"; fail=1; }
# A good run, then a report with an unknown verdict.
"$bitcts" run --backend "$example" --filter 'bit_not.uint8.r1.*' --report "$work/good" --quiet >/dev/null || { echo "FAIL: good run"; fail=1; }
for f in report.json junit.xml report.html summary.md results.jsonl; do
    [ -s "$work/good/$f" ] || { echo "FAIL: $f missing"; fail=1; }
done
mkdir -p "$work/doctored" && sed 's/"verdict": *"pass"/"verdict": "flaky"/' "$work/good/report.json" >"$work/doctored/report.json"
bad "unknown verdict 'flaky'" report diff "$work/good" "$work/doctored"
bad "" report diff "$work/good" "$work/missing"
# --resume believes only end records that are case results.
"$bitcts" run --backend "$example" --filter 'bit_not.uint8.r1.*' --report "$work/resume" --quiet >/dev/null
sed -i -e 's/"verdict": *"pass"/"verdict": "bogus"/' -e '$d' "$work/resume/results.jsonl"
bad "is not a case result" run --backend "$example" --filter 'bit_not.uint8.r1.*' --report "$work/resume" --resume --quiet
# Expected failures: a baseline turns fail into expected_fail and pass into unexpected_pass.
printf 'bit_not.uint8.r1.packed.0 fail # tracked elsewhere\n' >"$work/b2.txt"
"$bitcts" run --backend "$example" --filter 'bit_not.uint8.r1.packed.*' --baseline "$work/b2.txt" --report "$work/b2" --quiet >/dev/null
[ $? -eq 1 ] && grep -q '"unexpected_pass"' "$work/b2/report.json" || { echo "FAIL: unexpected_pass"; fail=1; }
# The environment, not the input: exit 3 with one line, nothing written. A CPU variant this
# build or machine lacks, and (where the Vulkan backend is built) no Vulkan driver at all.
environment() { # environment WANT ENV... -- ARGS...
    local want=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    rm -rf "$work/env"
    env ${envs[@]+"${envs[@]}"} "$bitcts" "$@" --report "$work/env" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ $rc -ne 3 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$want" "$work/err" ||
        [ -e "$work/env" ]; then
        echo "FAIL: bitcts $* -> rc=$rc (want 3): $(cat "$work/err")"; fail=1
    else
        echo "ok (exit 3): $(cat "$work/err")"
    fi
}
other_arch=neon
[ "$(uname -m)" = x86_64 ] || other_arch=avx2
environment "variant $other_arch is not built into this backend" -- run --backend "cpu:$other_arch" --tier smoke --quiet
bad "unknown variant 'bogus'" run --backend cpu:bogus --tier smoke --report "$work/r9" --quiet
bad "threads=x" run --backend cpu --backend-option threads=x --tier smoke --report "$work/r10" --quiet
if ! "$bitcts" run --backend vulkan --filter none --report "$work/vk" 2>&1 | grep -q "unknown backend"; then
    environment "no Vulkan driver" VK_ICD_FILENAMES="$work/none.json" VK_DRIVER_FILES="$work/none.json" \
        -- run --backend vulkan --tier smoke --quiet
fi
exit $fail
