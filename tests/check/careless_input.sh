#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Careless input to `bitcts check` and the other readers of files: a FIFO, a device or a folder
# where a file belongs, a file past the size cap, a manifest whose case_count, ids or case
# descriptions are wrong, a selection that matches nothing. Each is refused with exit code 2 and
# a line naming the file and the problem; nothing hangs.
# usage: careless_input.sh BITCTS REF_RESULTS
set -u
bitcts=$1
ref=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
# refused WANT ARGS...: exit code 2 within 20 s, a line of stderr containing WANT.
refused() {
    local want=$1
    shift
    timeout 20 "$bitcts" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ $rc -ne 2 ] || ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL: bitcts $* -> rc=$rc$([ $rc -eq 124 ] && echo " (it hung)"), stderr: $(head -c 600 "$work/err")"
        fail=1
    else
        echo "ok: $(grep -F -- "$want" "$work/err" | head -1)"
    fi
}
# one_line: the last command's stderr was one line.
one_line() {
    [ "$(wc -l <"$work/err")" -eq 1 ] || { echo "FAIL: more than one line: $(cat "$work/err")"; fail=1; }
}
# edit DIR PYTHON: runs PYTHON with m bound to DIR/manifest.json's object, then writes it back.
edit() {
    python3 - "$1/manifest.json" "$2" <<'PY'
import json, sys
path, code = sys.argv[1], sys.argv[2]
m = json.load(open(path))
exec(code)
json.dump(m, open(path, "w"))
PY
}
fresh() { # fresh NAME: a copy of the good export and its results
    rm -rf "$work/$1" && cp -r "$work/good" "$work/$1"
}

"$bitcts" vectors export --out "$work/good" --filter 'bit_not.uint8.r*' 2>/dev/null || exit 1
"$ref" "$work/good" "$work/good/results" || exit 1
"$bitcts" check "$work/good" --report "$work/good-report" --quiet || { echo "FAIL: the good set"; fail=1; }

# 1. Not a regular file, where a file belongs: refused at once, naming what it is.
fresh fifo && rm "$work/fifo/manifest.json" && mkfifo "$work/fifo/manifest.json"
refused "manifest.json is a FIFO, not a regular file" check "$work/fifo" --report "$work/r"
one_line
fresh fifo-results && rm "$work/fifo-results/results/results.json" &&
    mkfifo "$work/fifo-results/results/results.json"
refused "results.json is a FIFO, not a regular file" check "$work/fifo-results" --report "$work/r"
fresh dir-results && rm "$work/dir-results/results/results.json" &&
    mkdir "$work/dir-results/results/results.json"
refused "results.json is a directory, not a regular file" check "$work/dir-results" --report "$work/r"
fresh dev && ln -sf /dev/zero "$work/dev/manifest.json"
refused "manifest.json is a character device, not a regular file" check "$work/dev" --report "$work/r"
fresh fifo-data
data=$(find "$work/fifo-data/results" -name '*.bin' | head -1)
rm "$data" && mkfifo "$data"
refused "$data is a FIFO, not a regular file" check "$work/fifo-data" --report "$work/r-data" --quiet
mkfifo "$work/fifo.json"
refused "fifo.json is a FIFO, not a regular file" vectors verify --golden "$work/fifo.json"
refused "is a character device, not a regular file" vectors verify --golden /dev/zero
refused "fifo.json is a FIFO, not a regular file" report diff "$work/fifo.json" "$work/good-report"
refused "fifo.json is a FIFO, not a regular file" run --backend cpu --baseline "$work/fifo.json" \
    --filter 'bit_not.uint8.r1.*' --report "$work/r"
[ ! -e "$work/r" ] || { echo "FAIL: a refused command left $work/r"; fail=1; }

# 2. Larger than the cap (sparse files: nothing is written to disk).
fresh big && truncate -s 1025M "$work/big/manifest.json"
refused "manifest.json is larger than 1073741824 bytes" check "$work/big" --report "$work/r"
truncate -s 257M "$work/big.json"
refused "big.json is larger than 268435456 bytes" vectors verify --golden "$work/big.json"

# 3. A manifest that does not add up: case_count, an id twice, an id the plan lacks, a case
#    described otherwise than its seed builds it.
fresh count && edit "$work/count" 'm["case_count"] += 1'
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$work/count/manifest.json")
refused "\"case_count\" is $((n + 1)), but \"cases\" holds $n cases" check "$work/count" --report "$work/r"
one_line
fresh twice && edit "$work/twice" 'm["cases"].append(m["cases"][0]); m["case_count"] += 1'
refused "is listed twice" check "$work/twice" --report "$work/r"
fresh unknown && edit "$work/unknown" 'm["cases"][0]["id"] = "bit_not.uint8.r1.nosuch.0"'
refused "case bit_not.uint8.r1.nosuch.0 is not a case of bitcts's plan" check "$work/unknown" \
    --report "$work/r" --quiet
fresh described && edit "$work/described" 'm["cases"][0]["tensors"][0]["Sizes"][0] += 1'
refused "\"tensors\" is not what seed 0x0062697463747331 builds for this id" \
    check "$work/described" --report "$work/r" --quiet
fresh values && edit "$work/values" 'm["cases"][1]["values"] = "edge" if m["cases"][1]["values"] != "edge" else "random"'
refused "\"values\" is not what seed" check "$work/values" --report "$work/r" --quiet
[ ! -e "$work/r/report.json" ] || grep -q nosuch "$work/r/report.json" && {
    echo "FAIL: an unknown case reached the report"
    fail=1
}

# 4. A selection that matches nothing names its filters; a malformed glob is refused.
refused "the selection matches no case of $work/good/manifest.json (its cases): --filter 'x*', --filter 'y*'" \
    check "$work/good" --filter 'x*' --filter 'y*' --report "$work/r2"
one_line
[ ! -e "$work/r2" ] || { echo "FAIL: an empty selection left $work/r2"; fail=1; }
# 5. check --report claims a folder as run --report does: missing, empty or a bitcts report
#    folder; another tool's folder (even one with a report.json) only with --force.
mkdir -p "$work/other" && echo '{"tool": "other"}' >"$work/other/report.json" && echo keep >"$work/other/notes.txt"
refused "--report $work/other holds files bitcts did not write" check "$work/good" --report "$work/other" --quiet
one_line
[ "$(cat "$work/other/report.json")" = '{"tool": "other"}' ] || { echo "FAIL: check replaced another tool's report.json"; fail=1; }
"$bitcts" check "$work/good" --report "$work/good-report" --quiet ||
    { echo "FAIL: check refused its own earlier report folder"; fail=1; }
"$bitcts" check "$work/good" --report "$work/other" --quiet --force && [ "$(cat "$work/other/notes.txt")" = keep ] ||
    { echo "FAIL: check --force"; fail=1; }
exit $fail
