#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --shard auto reads the slice from the job engine's variables (Kubernetes, Slurm, GitLab,
# Bazel/GoogleTest): each engine's slices hold the same cases as --shard I/N, Bazel's status file
# is touched, and a missing, doubled or bad variable is refused with one line (exit 2).
# --shard-timings balances the shards by an earlier report's durations: the shards are disjoint,
# every case is in one, their merge equals the one-host run, two layouts of the same timings are
# the same shards, and shards of two layouts (balanced and interleaved) do not merge.
# Usage: shard_engines.sh BITCTS
set -u
bitcts=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
sel=(--backend cpu --filter 'bit_[ax]*' --quiet)
ids() { python3 -c "import json,sys; print(' '.join(c['id'] for c in json.load(open(sys.argv[1]))['cases']))" "$1/report.json"; }
"$bitcts" run "${sel[@]}" --report "$work/full" >/dev/null || { echo "FAIL: full run"; exit 1; }
for i in 1 2 3; do
    "$bitcts" run "${sel[@]}" --shard "$i/3" --report "$work/n$i" >/dev/null || { echo "FAIL: --shard $i/3"; fail=1; }
done

# Each engine's variables for shard i of 3 (i from 1).
engine_env() { # engine_env ENGINE I: the env assignments
    local i=$2
    case "$1" in
    kubernetes) echo "JOB_COMPLETION_INDEX=$((i - 1)) BITCTS_SHARD_COUNT=3" ;;
    slurm) echo "SLURM_ARRAY_TASK_ID=$((i + 9)) SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=3" ;;
    gitlab) echo "CI_NODE_INDEX=$i CI_NODE_TOTAL=3" ;;
    bazel) echo "TEST_SHARD_INDEX=$((i - 1)) TEST_TOTAL_SHARDS=3 TEST_SHARD_STATUS_FILE=$work/status-$i" ;;
    esac
}
for engine in kubernetes slurm gitlab bazel; do
    for i in 1 2 3; do
        # shellcheck disable=SC2046 # the assignments are separate words
        env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID -u CI_NODE_INDEX -u TEST_SHARD_INDEX \
            $(engine_env "$engine" "$i") "$bitcts" run "${sel[@]}" --shard auto \
            --report "$work/$engine$i" >/dev/null 2>"$work/$engine$i.err" ||
            { echo "FAIL: $engine shard $i: $(cat "$work/$engine$i.err")"; fail=1; continue; }
        [ "$(ids "$work/$engine$i")" = "$(ids "$work/n$i")" ] ||
            { echo "FAIL: $engine shard $i holds other cases than --shard $i/3"; fail=1; }
    done
    echo "ok: $engine: three slices, each the cases of --shard I/3"
done
for i in 1 2 3; do
    [ -f "$work/status-$i" ] || { echo "FAIL: TEST_SHARD_STATUS_FILE of shard $i not touched"; fail=1; }
done

refused() { # refused WANT ENV...: --shard auto under ENV exits 2 with one line saying WANT
    local want=$1
    shift
    local rc=0
    env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_ID -u CI_NODE_INDEX -u TEST_SHARD_INDEX "$@" \
        "$bitcts" run "${sel[@]}" --shard auto --report "$work/refused" >/dev/null 2>"$work/err" || rc=$?
    if [ "$rc" != 2 ] || [ "$(wc -l <"$work/err")" != 1 ] || ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL: under $*: exit $rc, '$(cat "$work/err")', wanted '$want'"
        fail=1
    fi
    [ ! -e "$work/refused" ] || { echo "FAIL: a refused run left $work/refused"; fail=1; }
}
refused "no engine set a shard" PATH="$PATH"
refused "two engines set a shard" CI_NODE_INDEX=1 CI_NODE_TOTAL=2 TEST_SHARD_INDEX=0 TEST_TOTAL_SHARDS=2
refused "nothing gives the count" JOB_COMPLETION_INDEX=0
refused "not a number" CI_NODE_INDEX=one CI_NODE_TOTAL=2
refused "is shard 4 of 3" TEST_SHARD_INDEX=3 TEST_TOTAL_SHARDS=3
rc=0
"$bitcts" run "${sel[@]}" --shard 1/2 --shard-count 2 --report "$work/refused" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "goes with --shard auto" "$work/err" || { echo "FAIL: --shard-count with I/N: $rc"; fail=1; }
rc=0
"$bitcts" run "${sel[@]}" --shard-timings "$work/full" --report "$work/refused" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "needs --shard" "$work/err" || { echo "FAIL: --shard-timings alone: $rc"; fail=1; }
rc=0
"$bitcts" run "${sel[@]}" --shard 1/2 --shard-timings "$work/nowhere" --report "$work/refused" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "shard-timings" "$work/err" || { echo "FAIL: unreadable --shard-timings: $rc"; fail=1; }
echo "ok: bad engine variables and options refused"

# Balanced by the full run's durations: disjoint, complete, merged equal to the one-host run.
for i in 1 2 3 4; do
    "$bitcts" run "${sel[@]}" --shard "$i/4" --shard-timings "$work/full" --report "$work/b$i" >/dev/null ||
        { echo "FAIL: balanced shard $i"; fail=1; }
done
"$bitcts" run "${sel[@]}" --shard 2/4 --shard-timings "$work/full/report.json" --report "$work/b2again" >/dev/null
[ "$(ids "$work/b2")" = "$(ids "$work/b2again")" ] || { echo "FAIL: balanced shard 2 differs between two runs"; fail=1; }
python3 - "$work" <<'PY' || fail=1
import json, sys
w = sys.argv[1]
load = lambda p: json.load(open(p + "/report.json"))
full = load(w + "/full")
want = [c["id"] for c in full["cases"]]
ms = {c["id"]: c["duration_ms"] + 1 for c in full["cases"]}
shards = [load("%s/b%d" % (w, i)) for i in (1, 2, 3, 4)]
got = [c["id"] for s in shards for c in s["cases"]]
assert sorted(got) == sorted(want), "the balanced shards are not a partition of the selection"
for s in shards:
    assert s["selection"]["cases"] == len(want), s["selection"]
    assert s["selection"]["balance"].startswith("timings:"), s["selection"]
loads = [sum(ms[c["id"]] for c in s["cases"]) for s in shards]
assert max(loads) - min(loads) <= max(ms.values()) + 1e-6, loads
print("ok: balanced shards partition %d cases; loads by the timings %s ms" %
      (len(want), ", ".join("%.1f" % x for x in loads)))
PY
"$bitcts" report merge --out "$work/merged" "$work/b1" "$work/b2" "$work/b3" "$work/b4" >/dev/null ||
    { echo "FAIL: merge of the balanced shards"; fail=1; }
python3 "$here/compare_reports.py" "$work/full/report.json" "$work/merged/report.json" || fail=1
rc=0
"$bitcts" report merge --out "$work/mixed" "$work/b1" "$work/n2" "$work/b3" "$work/b4" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" = 2 ] && grep -q "selection.balance differs" "$work/err" ||
    { echo "FAIL: balanced and interleaved shards merged: $rc $(cat "$work/err")"; fail=1; }
exit $fail
