#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bad input gets a one-line error naming the problem and exit code 2; nothing is left half-written.
set -u
bitcts=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
bad() { # bad "<text the error must contain>" args...
    local want=$1
    shift
    "$bitcts" "$@" >"$work/out" 2>"$work/err"
    local rc=$? lines
    lines=$(wc -l <"$work/err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL: bitcts $* -> rc=$rc, stderr: $(cat "$work/err")"
        fail=1
    else
        echo "ok: bitcts $* -> $(cat "$work/err")"
    fi
}
bad "unknown operator 'bit_nand'" eval bit_nand --type uint8 --sizes 1 --a 1 --b 1
bad "malformed size list '2,,3'" eval bit_xor --type uint8 --sizes 2,,3 --a 1 --b 1
bad "malformed size list '1,2,3,4,5,6,7,8,9'" eval bit_not --type uint8 --sizes 1,2,3,4,5,6,7,8,9 --input 1
bad "rule type_not_allowed" eval bit_shift_left --type int32 --sizes 1 --a 1 --b 1
bad "rule type_not_allowed" eval bit_shift_right --type float16 --sizes 1 --a 1 --b 1
bad "rule output_type_not_allowed" eval bit_count --type uint8 --out-type uint16 --sizes 1 --input 1
bad "rule size_zero" eval bit_not --type uint8 --sizes 2,0 --input 1
bad "unknown data type 'uint7'" eval bit_not --type uint7 --sizes 1 --input 1
bad "'256' is not a uint8 value" eval bit_not --type uint8 --sizes 2 --input 1,256
bad "3 values given, its buffer holds 2 elements" eval bit_not --type uint8 --sizes 2 --input 1,2,3
bad "unknown command 'frobnicate'" frobnicate
bad "unknown tier 'huge'" list --tier huge
bad "unknown feature level '9_9'" list --feature-level 9_9
bad "unknown option '--bogus'" list --bogus
bad "--out DIR is required" vectors export --filter 'bit_not.*'
bad "unknown action 'import'" vectors import
# An argument that is not UTF-8 is named (the option it is the value of, or its position),
# never taken for "out of memory".
nonutf8=$(printf 'x\377y')
bad "the value of --backend is not valid UTF-8" run --backend "$nonutf8" --report "$work/r"
bad "the value of --backend is not valid UTF-8" run --backend="$nonutf8" --report "$work/r"
bad "the value of --filter is not valid UTF-8" list --filter "$nonutf8"
bad "the value of --out is not valid UTF-8" vectors export --out "$work/$nonutf8"
bad "the value of --report is not valid UTF-8" explore --backend cpu --cases 1 --report "$nonutf8"
bad "the value of --type is not valid UTF-8" eval bit_not --type "$nonutf8" --sizes 1 --input 1
bad "argument 1 is not valid UTF-8" check "$nonutf8"
[ ! -e "$work/r" ] || { echo "FAIL: a refused run left $work/r"; fail=1; }
# A malformed glob selects nothing silently: every command that takes --filter refuses it.
for glob in '[' 'bit_[and.*' 'bit_not.*\' '[[:digit:].*'; do
    bad "--filter: '$glob' is a malformed glob" list --filter "$glob"
    bad "--filter: '$glob' is a malformed glob" vectors export --out "$work/g" --filter "$glob"
    bad "--filter: '$glob' is a malformed glob" run --backend cpu --filter "$glob" --report "$work/g"
    bad "--filter: '$glob' is a malformed glob" check "$work/g" --filter "$glob" --report "$work/g"
done
[ ! -e "$work/g" ] || { echo "FAIL: a refused command left $work/g"; fail=1; }
# A selection that matches nothing is refused by every command, naming what selected nothing.
for args in "--filter no_such_case.*" "--filter bit_and.float32.* --tier exhaustive" \
    "--filter bit_and.int64.* --feature-level 3_0"; do
    # shellcheck disable=SC2086 # the words of args are separate arguments
    set -- $args
    want="--filter '$2', --tier ${4:-default}"
    [ "${3:-}" = --feature-level ] && want="--filter '$2', --tier default, --feature-level 3_0"
    bad "the selection matches no case: $want" list "$@"
    bad "the selection matches no case: $want" list --count "$@"
    bad "the selection matches no case: $want" vectors export --out "$work/e" "$@"
    bad "the selection matches no case: $want" run --backend cpu --report "$work/e" "$@"
done
[ ! -e "$work/e" ] || { echo "FAIL: an empty selection left $work/e"; fail=1; }
# Output that cannot be written is an error, never exit code 0: every command's stdout.
if [ -w /dev/full ]; then
    full() { # full ARGS...: stdout to /dev/full
        "$bitcts" "$@" >/dev/full 2>"$work/err"
        local rc=$?
        if [ $rc -eq 0 ] || [ "$(wc -l <"$work/err")" -ne 1 ] ||
            ! grep -q "cannot write standard output: No space left on device" "$work/err"; then
            echo "FAIL: bitcts $* >/dev/full -> rc=$rc, stderr: $(cat "$work/err")"
            fail=1
        else
            echo "ok: bitcts $* >/dev/full -> rc=$rc $(cat "$work/err")"
        fi
    }
    full list
    full list --count
    full list --json --filter 'bit_not.uint8.r1.*'
    full eval bit_xor --type uint8 --sizes 2,2 --a 0,128,42,255 --b 255,128,15,1
    full --help
    full --version
    for cmd in $("$bitcts" --help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}'); do
        full "$cmd" --help
    done
fi
# A timeout no correct backend can meet (or no number at all) is refused by every command that
# takes one, with the same rule: 0.1 to 86400 seconds.
for t in 1e-9 0 0.05 -1 nan inf 86401 5x; do
    rule="'$t' is not a number of seconds from 0.1 to 86400"
    bad "--timeout: $rule" run --backend cpu --timeout "$t" --report "$work/t"
    bad "--timeout: $rule" explore --backend cpu --cases 1 --timeout "$t" --report "$work/t"
    bad "--timeout: $rule" sweep --backend cpu --op bit_not --type uint8 --timeout "$t"
    bad "--timeout: $rule" bench --quick --timeout "$t"
    bad "--peer-timeout: $rule" bench --quick --peer-timeout "$t"
done
[ ! -e "$work/t" ] || { echo "FAIL: a refused timeout left $work/t"; fail=1; }
# A non-writable destination: under a regular file (holds for root as well).
touch "$work/afile"
bad "$work/afile" vectors export --out "$work/afile/vectors" --filter 'bit_not.uint8.r1.*'
[ -z "$(ls "$work" | grep -v '^afile$\|^out$\|^err$')" ] || { echo "FAIL: partial output left: $(ls "$work")"; fail=1; }
# A read-only folder (only meaningful when not root).
if [ "$(id -u)" != 0 ]; then
    mkdir "$work/ro" && chmod 0555 "$work/ro"
    bad "Permission denied" vectors export --out "$work/ro/v" --filter 'bit_not.uint8.r1.*'
    [ -z "$(ls -A "$work/ro")" ] || { echo "FAIL: partial output in read-only folder"; fail=1; }
fi
# A non-empty folder that is not an export is not replaced.
mkdir "$work/mine" && echo keep >"$work/mine/notes.txt"
bad "holds no bitcts vector export" vectors export --out "$work/mine" --filter 'bit_not.uint8.r1.*'
[ "$(cat "$work/mine/notes.txt")" = keep ] || { echo "FAIL: foreign folder touched"; fail=1; }
# An export stopped by SIGINT or SIGTERM, or one that fails half-way (a file size limit), leaves
# nothing: no folder, no staging folder beside it; one line on stderr.
for sig in INT TERM; do
    "$bitcts" vectors export --out "$work/stopped" --tier default >"$work/out" 2>"$work/err" &
    pid=$!
    sleep 0.5
    kill -"$sig" "$pid"
    wait "$pid"
    rc=$?
    if [ $rc -ne 130 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ls -d "$work"/stopped* >/dev/null 2>&1; then
        echo "FAIL: export stopped by SIG$sig -> rc=$rc, stderr: $(cat "$work/err"), left: $(ls -d "$work"/stopped* 2>&1)"
        fail=1
    else
        echo "ok: export stopped by SIG$sig -> $(cat "$work/err")"
    fi
done
(trap '' XFSZ; ulimit -f 256; "$bitcts" vectors export --out "$work/limited" --tier default) >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -q "File too large" "$work/err" || ls -d "$work"/limited* >/dev/null 2>&1; then
    echo "FAIL: export past the file size limit -> rc=$rc, $(cat "$work/err"), left: $(ls -d "$work"/limited* 2>&1)"
    fail=1
fi
# Help works for every command and exits 0.
for cmd in list eval vectors; do
    "$bitcts" "$cmd" --help >/dev/null 2>&1 || { echo "FAIL: $cmd --help"; fail=1; }
done
"$bitcts" --help >/dev/null && "$bitcts" --version | grep -q '^bitcts [0-9]' || { echo "FAIL: --help/--version"; fail=1; }
exit $fail
