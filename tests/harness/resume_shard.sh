#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Killing the harness mid-run and rerunning with --resume gives the same final report as an
# uninterrupted run; shards 1/3, 2/3, 3/3 merged equal the unsharded report.
# Usage: resume_shard.sh BITCTS EXAMPLE_PLUGIN
set -u
bitcts=$1
plugin=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
sel=(--filter 'bit_[anox]*' --quiet)
"$bitcts" run --backend "$plugin" "${sel[@]}" --report "$work/full" >/dev/null || { echo "FAIL: full run"; exit 1; }
# Interrupted: SIGKILL (no clean-up at all) once some cases have ended, then --resume. The wait
# is for 300 ended cases, however long a loaded machine takes (up to CTest's limit).
"$bitcts" run --backend "$plugin" "${sel[@]}" --jobs 1 --report "$work/killed" >/dev/null &
pid=$!
while kill -0 $pid 2>/dev/null; do
    [ "$(grep -c '"record":"end"' "$work/killed/results.jsonl" 2>/dev/null || echo 0)" -ge 300 ] && break
    sleep 0.02
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
ended=$(grep -c '"record":"end"' "$work/killed/results.jsonl")
total=$("$bitcts" list "${sel[@]:0:2}" | wc -l)
if [ -e "$work/killed/report.json" ] || [ "$ended" -ge "$total" ]; then
    echo "FAIL: the run was not interrupted (ended $ended of $total)"; fail=1
fi
"$bitcts" run --backend "$plugin" "${sel[@]}" --report "$work/killed" --resume >/dev/null || { echo "FAIL: resume"; fail=1; }
python3 "$here/compare_reports.py" "$work/full/report.json" "$work/killed/report.json" || fail=1
echo "resume: interrupted after $ended of $total cases"
# A resume against another selection is refused.
"$bitcts" run --backend "$plugin" --filter 'bit_not*' --report "$work/killed" --resume --quiet >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "another seed, backend or selection" "$work/err" || { echo "FAIL: mismatched resume accepted"; fail=1; }
# Shards: interleaved, each covers every operator; merged equals unsharded.
for i in 1 2 3; do
    "$bitcts" run --backend "$plugin" "${sel[@]}" --shard $i/3 --report "$work/shard$i" >/dev/null || { echo "FAIL: shard $i"; fail=1; }
    ops=$(python3 -c "import json,sys; print(len({c['operator'] for c in json.load(open(sys.argv[1]))['cases']}))" "$work/shard$i/report.json")
    [ "$ops" = 4 ] || { echo "FAIL: shard $i covers $ops of 4 operators"; fail=1; }
done
"$bitcts" report merge --out "$work/merged" "$work/shard1" "$work/shard2" "$work/shard3" || { echo "FAIL: merge"; fail=1; }
python3 "$here/compare_reports.py" "$work/full/report.json" "$work/merged/report.json" || fail=1
"$bitcts" report diff "$work/full" "$work/merged" >/dev/null || { echo "FAIL: diff of merged vs full"; fail=1; }
exit $fail
