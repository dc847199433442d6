#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `bitcts baseline update`: a round trip (a broken plugin's run, update, rerun with --baseline:
# exit 0; a fixed plugin empties the file again), idempotence, shard layouts that give the same
# file, --check (exit 1 when stale, writes nothing), comments and lines that govern nothing
# kept, and bad input (a baseline that does not parse is never rewritten).
# Usage: baseline_update.sh BITCTS CRASH_RANK8_PLUGIN SKIP_LAST_ODD_PLUGIN EXAMPLE_PLUGIN
set -u
bitcts=$1 crash=$2 odd=$3 example=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
sel=(--filter 'bit_and.*' --quiet)
no() { echo "FAIL: $*"; fail=1; }
run() { # PLUGIN REPORT [options]: a run whose exit code is printed
    local plugin=$1 report=$2
    shift 2
    "$bitcts" run --backend "$plugin" "${sel[@]}" --report "$work/$report" "$@" >/dev/null 2>&1
    echo $?
}
update() { # FILE [options and reports]: stderr into $work/err
    local file=$1
    shift
    "$bitcts" baseline update --baseline "$work/$file" "$@" 2>"$work/err" >/dev/null
}

# Round trip: crashes and failures become lines; the rerun with the file passes.
[ "$(run "$crash" crash)" = 1 ] || no "the crash_rank8 run did not fail"
update crash.txt --report "$work/crash" || no "update from a crash run: $(cat "$work/err")"
[ "$(grep -c ' crash # the worker died' "$work/crash.txt")" -gt 0 ] || no "no crash lines: $(head -2 "$work/crash.txt")"
[ "$(grep -vc ' crash # ' "$work/crash.txt")" = 0 ] || no "lines other than crashes"
[ "$(run "$crash" crash2 --baseline "$work/crash.txt")" = 0 ] || no "rerun with the updated baseline did not pass"
[ "$(run "$odd" odd)" = 1 ] || no "the skip_last_odd run did not fail"
update odd.txt "$work/odd" || no "update from a fail run: $(cat "$work/err")"
grep -q ' fail # .*elements differ' "$work/odd.txt" || no "no fail line with its detail: $(head -1 "$work/odd.txt")"
[ "$(run "$odd" odd2 --baseline "$work/odd.txt")" = 0 ] || no "rerun of skip_last_odd with its baseline did not pass"
LC_ALL=C sort -c "$work/odd.txt" || no "new lines not in id order"

# Idempotent: a second update (or one from the run with the baseline) changes no byte.
cp "$work/odd.txt" "$work/odd.before"
update odd.txt "$work/odd" || no "second update"
cmp -s "$work/odd.txt" "$work/odd.before" || no "a second update changed the file"
grep -q "(unchanged)" "$work/err" || no "a second update did not say unchanged: $(cat "$work/err")"
update odd.txt "$work/odd2" || no "update from the rerun"
cmp -s "$work/odd.txt" "$work/odd.before" || no "the rerun's report (expected_fail) changed the file"
update odd.txt --check "$work/odd" || no "--check of a current file did not exit 0"

# Shards: 2 and 3 shards give the unsharded run's file, whatever order they are given in.
for n in 2 3; do
    reports=()
    for i in $(seq "$n" -1 1); do
        run "$odd" "s$i-$n" --shard "$i/$n" >/dev/null
        reports+=("$work/s$i-$n")
    done
    update "shard$n.txt" "${reports[@]}" || no "update from $n shards: $(cat "$work/err")"
    cmp -s "$work/shard$n.txt" "$work/odd.txt" || no "$n shards gave another file than the unsharded run"
done
update partial.txt "$work/s1-3" "$work/s2-3"
[ $? = 2 ] && grep -q "give every shard" "$work/err" || no "2 of 3 shards accepted: $(cat "$work/err")"

# --check: stale (another run's failures) exits 1 and writes nothing.
cp "$work/crash.txt" "$work/crash.before"
update crash.txt --check "$work/odd"
[ $? = 1 ] || no "--check of a stale file did not exit 1"
grep -q "is stale" "$work/err" || no "--check did not say stale: $(cat "$work/err")"
cmp -s "$work/crash.txt" "$work/crash.before" || no "--check wrote the file"

# A fixed plugin: every line now passes (unexpected_pass) and goes; comments and a line that
# governs no case stay, byte for byte, and are said so.
{
    echo "# known problems of the driver, see the tracker"
    echo "nosuch.* fail # a case of another tier"
    cat "$work/crash.txt"
} >"$work/fixed.txt"
[ "$(run "$example" fixed --baseline "$work/fixed.txt")" = 1 ] || no "a fixed plugin's run with the old baseline did not fail"
update fixed.txt "$work/fixed" || no "update after the fix"
printf '# known problems of the driver, see the tracker\nnosuch.* fail # a case of another tier\n' |
    cmp -s - "$work/fixed.txt" || no "after the fix: $(cat "$work/fixed.txt")"
grep -q "fixed.txt:2: 'nosuch.\*' governs no case of the reports: kept" "$work/err" || no "unmatched line not said: $(cat "$work/err")"
[ "$(run "$example" fixed2 --baseline "$work/fixed.txt")" = 0 ] || no "rerun after the fix did not pass"

# Bad input: one line, exit 2, nothing written.
printf 'bit_and.* fail\nbit_or.* flaky # typo\n' >"$work/bad.txt"
cp "$work/bad.txt" "$work/bad.before"
for check in "" --check; do
    update bad.txt $check "$work/odd"
    rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -q "bad.txt:2: unknown verdict 'flaky'" "$work/err" ||
        no "a baseline that does not parse ($check): rc $rc, $(cat "$work/err")"
    cmp -s "$work/bad.txt" "$work/bad.before" || no "a baseline that does not parse was rewritten"
done
bad() { # MESSAGE ARGS...
    local msg=$1
    shift
    "$bitcts" baseline "$@" >/dev/null 2>"$work/err"
    local rc=$?
    [ $rc = 2 ] && [ "$(wc -l <"$work/err")" = 1 ] && grep -qF -- "$msg" "$work/err" || no "baseline $*: rc $rc, $(cat "$work/err")"
}
bad "--baseline FILE is required" update "$work/odd"
bad "no report given" update --baseline "$work/new.txt"
bad "nosuch" update --baseline "$work/new.txt" "$work/nosuch"
bad "unknown action 'upgrade'" upgrade
bad "unknown option" update --baseline "$work/new.txt" --chek "$work/odd"
[ -e "$work/new.txt" ] && no "a refused update created its file"
[ $fail = 0 ] && echo "baseline update: round trips, idempotence, shards, --check, bad input ok"
exit $fail
