#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole GPU run of bitcts in one command, on any Linux machine with a Vulkan driver: the
# device as bitcts sees it, `bitcts run --backend vulkan` over the default, large and
# exhaustive tiers (a report folder each), the exhaustive sweeps (NOT and BIT_COUNT over every
# UINT32, XOR over every pair of UINT16), `bitcts bench --backend vulkan` with its GPU peers and
# `bitcts bench --backend cpu` with its CPU peers, in two parts (bench-cpu: AND, OR, XOR and NOT;
# bench-cpu-2: BIT_COUNT and the shifts); then OUTDIR/gpu-summary.md (device, driver,
# API, counts per tier, sweep times, bench ratios) beside the raw JSON and the logs.
# Every step has a time budget (and the whole run one); a step that fails or runs out of time is
# recorded and the rest still runs. Exit code 0 only when every step passed. A budget of 0
# (BITCTS_GPU_RUN_BUDGET=0) lifts every limit: the steps run to their end, however slow the
# machine (the tests use that: their verdict must not depend on the machine's speed).
#
# usage: tools/gpu-run.sh [--quick] [--skip STEP,...] [--resume] [--bitcts PATH] [--python PATH]
#                         OUTDIR
#   --quick        a reduced run for CI on lavapipe: the smoke tier for the default one and
#                  no large tier (CTest's conformance.vulkan.large runs it), sweeps of every 64th
#                  chunk, bench --quick
#   --skip STEPS   steps not to run, by name (identity, run-<tier>, run-default-cpu, sweep-*,
#                  bench-vulkan, bench-cpu, bench-cpu-2), comma-separated; recorded as skipped
#   --resume       go on with OUTDIR's run: the steps its steps.tsv records as passed are kept
#                  (their files and lines, not run again), the others run, and the summary covers
#                  them all. For a machine whose sessions are shorter than the whole run: the
#                  CPU bench's parts share what is left of the budget, and at 4x a large
#                  last-level cache each needs a session of its own (run once with --skip
#                  bench-cpu,bench-cpu-2, then --resume --skip bench-cpu-2, then --resume).
#   --bitcts PATH  the bitcts executable (default $BITCTS, else build/bitcts, else bitcts on PATH)
#   --python PATH  the peers' interpreter (default $BITCTS_PYTHON, else the first python3 that
#                  imports the peers' libraries)
# Environment: BITCTS, BITCTS_PYTHON, BITCTS_GPU_RUN_BUDGET (seconds for the whole run, default
# 540; 0: no time limit on the run or its steps), BITCTS_GPU_CPU_BENCH_REPS (the CPU bench's
# repetitions, default 5), and whatever the Vulkan loader needs
# (LD_LIBRARY_PATH, VK_DRIVER_FILES).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
quick=0
skip=""
bitcts=${BITCTS:-}
python=${BITCTS_PYTHON:-}
out=""
. "$here/script-options.sh"
resume=0
script_options gpu-run 2,30 --quick:quick=1 --skip:skip --resume:resume=1 --bitcts:bitcts \
    --python:python -- "$@"
[ -z "$skip" ] || skip=",$skip,"
[ -n "$out" ] || { echo "usage: tools/gpu-run.sh [--quick] [--bitcts PATH] OUTDIR" >&2; exit 2; }
if [ -z "$bitcts" ]; then
    if [ -x "$here/../build/bitcts" ]; then
        bitcts="$here/../build/bitcts"
    else
        bitcts=$(command -v bitcts || true)
    fi
fi
[ -n "$bitcts" ] && [ -x "$bitcts" ] || { echo "gpu-run: no bitcts executable (set BITCTS or --bitcts)" >&2; exit 2; }
bitcts=$(cd "$(dirname "$bitcts")" && pwd)/$(basename "$bitcts")
mkdir -p "$out/logs" || exit 2
out=$(cd "$out" && pwd)
budget=${BITCTS_GPU_RUN_BUDGET:-540}
case $budget in
'' | *[!0-9]*) echo "gpu-run: BITCTS_GPU_RUN_BUDGET must be a number of seconds (0: no limit)" >&2; exit 2 ;;
esac
started=$(date +%s)
steps="$out/steps.tsv"
# --resume: the steps an earlier run of this OUTDIR passed, with their steps.tsv lines.
declare -A kept=()
if [ "$resume" = 1 ]; then
    [ -s "$steps" ] || { echo "gpu-run: --resume: $steps is missing or empty (no run to go on with)" >&2; exit 2; }
    while IFS=$'\t' read -r name status rest; do
        [ "$status" = passed ] && kept[$name]="$name"$'\t'"$status"$'\t'"$rest"
    done < <(tail -n +2 "$steps")
fi
printf 'step\tstatus\tseconds\tcommand\n' >"$steps.new" && mv "$steps.new" "$steps" || exit 2
failed=0

# step NAME BUDGET_S COMMAND...: runs the command with its output in logs/NAME.log, within the
# smaller of its budget and what is left of the whole run's (no limit when the run's budget is
# 0); records it in steps.tsv.
step() {
    local name=$1 limit=$2
    shift 2
    local left=$((budget - ($(date +%s) - started)))
    local cmd="$*"
    if [ -n "${kept[$name]:-}" ]; then
        printf '%s\n' "${kept[$name]}" >>"$steps"
        printf '%-22s kept (passed in the run resumed)\n' "$name"
        return 0
    fi
    if [[ "$skip" == *",$name,"* ]]; then
        printf '%s\tskipped (--skip)\t0\t%s\n' "$name" "$cmd" >>"$steps"
        printf '%-22s skipped (--skip)\n' "$name"
        return 0
    fi
    if [ "$budget" -gt 0 ] && [ "$left" -lt 10 ]; then
        printf '%s\tskipped (out of time)\t0\t%s\n' "$name" "$cmd" >>"$steps"
        printf '%-22s skipped: the run is out of time\n' "$name"
        failed=1
        return 1
    fi
    [ "$budget" -gt 0 ] && [ "$limit" -gt "$left" ] && limit=$left
    local t0 t1 rc status
    t0=$(date +%s.%N)
    if [ "$budget" -gt 0 ]; then
        timeout --kill-after=15 "$limit" "$@" >"$out/logs/$name.log" 2>&1 && rc=0 || rc=$?
    else
        "$@" >"$out/logs/$name.log" 2>&1 && rc=0 || rc=$?
    fi
    t1=$(date +%s.%N)
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    case $rc in
    0) status=passed ;;
    124 | 137) status="timed out after ${limit} s"; [ "$budget" -gt 0 ] || status="failed (exit $rc)" ;;
    130) status="interrupted (out of its ${limit} s)" ;;
    1) status="failed (exit 1)" ;;
    *) status="failed (exit $rc)" ;;
    esac
    printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$secs" "$cmd" >>"$steps"
    printf '%-22s %-34s %7s s   %s\n' "$name" "$status" "$secs" "$(tail -n 1 "$out/logs/$name.log" | cut -c1-100)"
    [ "$rc" = 0 ] || failed=1
    return "$rc"
}

# The first interpreter that imports every module named, or "".
pick_python() {
    local candidates=()
    [ -n "$python" ] && candidates+=("$python")
    candidates+=(python3 /usr/bin/python3 python3.12 python3.11 python)
    for py in "${candidates[@]}"; do
        command -v "$py" >/dev/null 2>&1 || continue
        if timeout 120 "$py" -c "import $1" >/dev/null 2>&1; then
            echo "$py"
            return 0
        fi
    done
    [ -n "$python" ] && echo "$python"
}

limits="budget ${budget} s"
[ "$budget" -gt 0 ] || limits="no time limit"
echo "gpu-run: $("$bitcts" --version) ($bitcts), output in $out, $limits, $(nproc 2>/dev/null || echo "?") CPUs"
if [ "$quick" = 1 ]; then
    tiers=(smoke exhaustive)
    every=(--every 64)
    bench=(--quick)
    bench_cpu=(--quick)
else
    tiers=(default large exhaustive)
    every=()
    # 256 MiB per input: far beyond any GPU's last-level cache, and the whole bench with its
    # peers fits in its budget on an H100 (1 GiB, the bench's default there, does not).
    bench=(--size-mib "${BITCTS_GPU_BENCH_MIB:-256}" --reps 7)
    # 5 repetitions for the CPU bench (median of 5): at 4x a 300 MiB L3 (1200 MiB per input)
    # the default 11 over 232 rows and their peers took about 12 minutes; with 5 the backend's
    # half of a 540 s budget reached 181 rows on a 16-core host (docs/gpu/h100.md, the
    # thirteenth run). BITCTS_GPU_CPU_BENCH_REPS overrides.
    bench_cpu=(--reps "${BITCTS_GPU_CPU_BENCH_REPS:-5}")
fi

# 1. The device, as bitcts's own report identity (no vulkaninfo needed).
if step identity 60 "$bitcts" sweep --backend vulkan --op bit_not --type uint8 --json "$out/identity.json"; then
    python3 - "$out/identity.json" <<'PY' 2>/dev/null || grep -E '"(device|driver|api_version)"' "$out/identity.json"
import json, sys
d = json.load(open(sys.argv[1]))["backend"]["device"]
print("device:  %s\ndriver:  %s\nAPI:     %s\nmemory:  %s MiB device-local" % (
    d.get("device"), d.get("driver"), d.get("api_version"), d.get("device_memory_mib")))
PY
else
    cat "$out/logs/identity.log"
fi

# 2. The conformance tiers, each its own report folder, at default options (the wall time a
#    user sees; docs/harness.md says how many workers a device backend gets), and the default
#    tier on the CPU backend of the same host for comparison.
for tier in "${tiers[@]}"; do
    [ -n "${kept[run-$tier]:-}" ] || rm -rf "$out/run-$tier"
    step "run-$tier" 120 "$bitcts" run --backend vulkan --tier "$tier" \
        --report "$out/run-$tier" --quiet
done
if [ "$quick" = 0 ]; then
    [ -n "${kept[run-default-cpu]:-}" ] || rm -rf "$out/run-default-cpu"
    step run-default-cpu 60 "$bitcts" run --backend cpu --tier default \
        --report "$out/run-default-cpu" --quiet
fi

# 3. The exhaustive sweeps, device time apart from transfers and checking.
step sweep-not-uint32 60 "$bitcts" sweep --backend vulkan --op bit_not --type uint32 "${every[@]}" \
    --json "$out/sweep-not-uint32.json"
step sweep-count-uint32 60 "$bitcts" sweep --backend vulkan --op bit_count --type uint32 \
    --out-type uint8 "${every[@]}" --json "$out/sweep-count-uint32.json"
step sweep-xor-uint16 60 "$bitcts" sweep --backend vulkan --op bit_xor --type uint16 "${every[@]}" \
    --json "$out/sweep-xor-uint16.json"

# 4. The benchmarks with their peers.
gpu_python=$(pick_python "torch" || true)
[ -n "$gpu_python" ] || gpu_python=$(pick_python "numpy" || true)
cpu_python=$(pick_python "numpy" || true)
echo "gpu-run: peers' Python: GPU ${gpu_python:-none found}, CPU ${cpu_python:-none found}"
step bench-vulkan 300 "$bitcts" bench --backend vulkan "${bench[@]}" ${gpu_python:+--python "$gpu_python"} \
    --json "$out/bench-vulkan.json"
# The CPU bench, the last steps: its two parts (bench-cpu: AND, OR, XOR, NOT; bench-cpu-2:
# BIT_COUNT and the shifts, about half the rows each) share what is left of the run's budget
# (the first takes half of it when the second is to run too), and each has a time budget of its
# own inside its share (a tenth less, at least 15 s less, kept for what runs past the budget: the
# row at hand, the small tensors, the peers' last job), so that it ends with the rows it
# measured and names the others, rather than being killed.
# No interpreter with NumPy: no CPU peers. (With them, they run inside the rows, between the
# backend's calls on its buffers, and the rows keep the whole budget.)
[ -n "$cpu_python" ] || bench_cpu+=(--no-peers)
cpu_part() { # NAME OPS SHARE_DIVISOR
    local name=$1 ops=$2 parts=$3
    local share=$(((budget - ($(date +%s) - started)) / parts))
    [ "$budget" -gt 0 ] || share=0
    local margin=$((share / 10 > 15 ? share / 10 : 15))
    local own=()
    if [ "$budget" -gt 0 ] && [ "$share" -gt "$margin" ]; then
        own=(--budget-s "$((share - margin))")
    fi
    step "$name" "$share" "$bitcts" bench --backend cpu --ops "$ops" \
        ${bench_cpu[@]+"${bench_cpu[@]}"} ${own[@]+"${own[@]}"} ${cpu_python:+--python "$cpu_python"} \
        --json "$out/$name.json"
}
second_runs=1
[ -z "${kept[bench-cpu-2]:-}" ] && [[ "$skip" != *",bench-cpu-2,"* ]] || second_runs=0
[ "$budget" -gt 0 ] || second_runs=0 # no limit: nothing to share
cpu_part bench-cpu and,or,xor,not "$((1 + second_runs))"
cpu_part bench-cpu-2 count,shl,shr 1

# 5. The summary beside the raw JSON.
summary_python=$(pick_python "json" || true)
if [ -n "$summary_python" ] && "$summary_python" "$here/gpu_summary.py" "$out" "$("$bitcts" --version)" \
    "$([ "$quick" = 1 ] && echo quick || echo full)" >"$out/logs/summary.log" 2>&1; then
    echo "gpu-run: summary in $out/gpu-summary.md"
else
    { echo "# bitcts GPU run"; echo; echo '```'; cat "$steps"; echo '```'; } >"$out/gpu-summary.md"
    echo "gpu-run: no Python for the summary ($(tail -n 1 "$out/logs/summary.log" 2>/dev/null)); steps only in $out/gpu-summary.md"
    failed=1
fi
total=$(($(date +%s) - started))
if [ "$failed" = 0 ]; then
    echo "gpu-run: every step passed in ${total} s"
else
    echo "gpu-run: some steps failed (see $out/steps.tsv and $out/logs/), ${total} s"
fi
exit "$failed"
