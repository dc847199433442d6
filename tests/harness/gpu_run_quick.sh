#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/gpu-run.sh --quick on whatever Vulkan device is here (lavapipe in CI), in two parts (the
# CPU bench skipped, then --resume): every step passes, the resumed run keeps what passed, and
# gpu-summary.md holds the device, the tiers' verdict counts, the three sweeps with zero
# mismatches and both benches' tables. A step made to fail (a missing executable for the
# peers' Python is not one: a bad --skip name is) is recorded and the exit code says so.
# Then tools/gpu-tune.sh with two variants at 1 MiB, one repetition a row: a table row per shape
# and variant, the limits per run. Exit 77 when no Vulkan device is present. No step has a time
# budget (BITCTS_GPU_RUN_BUDGET=0): the verdict does not depend on the machine's speed or load;
# CTest's TIMEOUT catches a hang.
# usage: gpu_run_quick.sh BITCTS SOURCE_DIR WORKDIR
set -euo pipefail
bitcts=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
if ! "$bitcts" sweep --backend vulkan --op bit_not --type uint8 >"$work/probe.log" 2>&1; then
    if grep -q "status 200" "$work/probe.log"; then
        echo "skipped: $(cat "$work/probe.log")"
        exit 77
    fi
    cat "$work/probe.log"
    exit 1
fi
fail() {
    echo "FAIL: $*"
    exit 1
}
# The run in two parts: every step but the CPU bench's two, then --resume, which keeps the steps
# that passed (their logs and files untouched) and runs the CPU bench alone.
BITCTS_GPU_RUN_BUDGET=0 bash "$src/tools/gpu-run.sh" --quick --skip bench-cpu,bench-cpu-2 \
    --bitcts "$bitcts" "$work/out" >"$work/run.log" 2>&1 && rc=0 || rc=$?
[ "$rc" = 0 ] || { cat "$work/run.log"; fail "gpu-run.sh --quick --skip bench-cpu,bench-cpu-2 exited $rc"; }
cat "$work/run.log"
grep -q "^bench-cpu	skipped (--skip)" "$work/out/steps.tsv" || fail "bench-cpu was not skipped"
grep -q "^bench-cpu-2	skipped (--skip)" "$work/out/steps.tsv" || fail "bench-cpu-2 was not skipped"
before=$(cd "$work/out" && cat logs/run-smoke.log logs/bench-vulkan.log run-smoke/report.json | md5sum)
BITCTS_GPU_RUN_BUDGET=0 bash "$src/tools/gpu-run.sh" --quick --resume --bitcts "$bitcts" \
    "$work/out" >"$work/resume.log" 2>&1 && rc=0 || rc=$?
cat "$work/resume.log"
[ "$rc" = 0 ] || fail "gpu-run.sh --quick --resume exited $rc"
after=$(cd "$work/out" && cat logs/run-smoke.log logs/bench-vulkan.log run-smoke/report.json | md5sum)
[ "$before" = "$after" ] || fail "--resume ran a step again that had passed"
[ "$(grep -c "kept (passed in the run resumed)" "$work/resume.log")" = 7 ] ||
    fail "--resume did not keep the 7 steps that had passed"
[ "$(tail -n +2 "$work/out/steps.tsv" | cut -f2 | sort -u)" = passed ] ||
    fail "after --resume, not every step passed: $(cat "$work/out/steps.tsv")"
rc=0
bash "$src/tools/gpu-run.sh" --quick --resume --bitcts "$bitcts" "$work/none" >"$work/none.log" 2>&1 || rc=$?
[ "$rc" = 2 ] && grep -q "no run to go on with" "$work/none.log" ||
    fail "--resume of a folder without a run: exit $rc, $(cat "$work/none.log")"
summary=$work/out/gpu-summary.md
[ -s "$summary" ] || fail "no gpu-summary.md"
for want in "| Device |" "## Conformance" "| smoke | 448 |" "| exhaustive | 23 |" \
    "## Exhaustive sweeps" "bit_not uint32->uint32" "bit_count uint32->uint8" \
    "bit_xor uint16->uint16" "## bench-vulkan (device timing" "## bench-cpu (host timing" \
    "## bench-cpu-2 (host timing" \
    "| packed |" "| transposed |"; do
    grep -qF -- "$want" "$summary" || fail "gpu-summary.md lacks '$want'"
done
# Every sweep row says 0 mismatches; no step failed; no problem listed.
if grep -E '^\| bit_' "$summary" | awk -F'|' '$4 + 0 != 0 { bad = 1 } END { exit !bad }'; then
    fail "a sweep reports mismatches"
fi
! grep -q "## Problems" "$summary" || fail "the summary lists problems: $(sed -n '/## Problems/,$p' "$summary")"
! grep -qE '\| (failed|timed out)' "$summary" || fail "a step failed"

# The CPU bench's two parts: AND, OR, XOR and NOT in bench-cpu, BIT_COUNT and the shifts in
# bench-cpu-2, every row of the bench once.
python3 - "$work/out/bench-cpu.json" "$work/out/bench-cpu-2.json" <<'PY' || fail "the CPU bench's parts"
import json, sys
ops = [sorted({r["op"] for r in json.load(open(f))["results"]}) for f in sys.argv[1:]]
assert ops == [["bit_and", "bit_not", "bit_or", "bit_xor"],
               ["bit_count", "bit_shift_left", "bit_shift_right"]], ops
print("the CPU bench's parts: %s" % ops)
PY

# The device bench times the copy kernel next to every row: each row has its own, within the
# run's recorded range, and the drift flag agrees with that range.
python3 - "$work/out/bench-vulkan.json" <<'PY' || fail "bench-vulkan.json: per-row copy kernel"
import json, sys
d = json.load(open(sys.argv[1]))
lim, rows = d["limits"], d["results"]
lo, hi = lim["copy_kernel_min_gbps"], lim["copy_kernel_max_gbps"]
k = [r["copy_kernel_gbps"] for r in rows]
assert rows and all(isinstance(x, (int, float)) and x > 0 for x in k), k[:5]
assert lo <= min(k) and max(k) <= hi, (lo, hi, min(k), max(k))
assert lim["drift"] == (lo < 0.9 * hi), lim
print("bench-vulkan.json: %d rows with their own copy kernel, %.3g to %.3g GB/s, drift %s"
      % (len(rows), lo, hi, lim["drift"]))
PY

# A run whose backend cannot start (a Vulkan loader pointed at no driver): every step recorded
# as failed, a summary still written, exit 1.
rc=0
VK_DRIVER_FILES=/nonexistent/icd.json VK_ICD_FILENAMES=/nonexistent/icd.json \
    BITCTS_GPU_RUN_BUDGET=0 bash "$src/tools/gpu-run.sh" --quick --skip bench-vulkan,bench-cpu,bench-cpu-2 \
    --bitcts "$bitcts" "$work/bad" >"$work/bad.log" 2>&1 || rc=$?
cat "$work/bad.log"
[ "$rc" = 1 ] || fail "a run whose every step fails exited $rc, not 1"
grep -q "failed" "$work/bad/steps.tsv" || fail "steps.tsv does not record the failures"
[ -s "$work/bad/gpu-summary.md" ] || fail "no summary for a failed run"

# tools/gpu-tune.sh, reduced: every padded and transposed row with both variants' figures.
bash "$src/tools/gpu-tune.sh" --bitcts "$bitcts" --quick --reps 1 --variants u1,u3 "$work/tune" \
    >"$work/tune.log" 2>&1 && fail "gpu-tune.sh accepted the unknown variant u3"
grep -q "unknown variant u3" "$work/tune.log" || fail "gpu-tune.sh did not name the bad variant"
[ ! -e "$work/tune/u1.json" ] || fail "gpu-tune.sh ran a bench before it rejected u3"
bash "$src/tools/gpu-tune.sh" --bitcts "$bitcts" --quick --reps 1 --variants u1,u8 "$work/tune" \
    >"$work/tune.log" 2>&1 || { cat "$work/tune.log"; fail "gpu-tune.sh exited non-zero"; }
rows=$(grep -cE '^\| bit_[a-z_]+ \| uint[0-9]+ \| uint[0-9]+ \| (padded|transposed) \| [0-9.]+ \([0-9.]+\) \| [0-9.]+ \([0-9.]+\) \| u[18] \|$' "$work/tune/tune.md")
[ "$rows" = 64 ] || { cat "$work/tune/tune.md"; fail "gpu-tune.sh: $rows complete rows, not 64"; }
grep -q "^- u8: kcopy [0-9.]* to [0-9.]* GB/s" "$work/tune/tune.md" || fail "gpu-tune.sh: no limits"
echo "gpu-run.sh --quick: summary checked; a failing run recorded and exit 1; gpu-tune.sh checked"
