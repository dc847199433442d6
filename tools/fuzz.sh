#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the libFuzzer targets of tests/fuzz (docs/fuzzing.md).
# Usage: tools/fuzz.sh [--merge] SECONDS [TARGET...]
#   Configures build-fuzz with clang and BITCTS_ENABLE_FUZZING=ON (ASan + UBSan), builds the
#   targets, then runs each one (all by default: baseline report run_log plugin_negotiation
#   eval manifest results) for SECONDS, one after the other, starting from
#   tests/fuzz/corpus/TARGET. New inputs go to build-fuzz/corpus/TARGET, never into the
#   committed corpus; --merge then adds those that reach new coverage to
#   tests/fuzz/corpus/TARGET (libFuzzer -merge=1).
#   Prints, per target: executions, coverage (cov and ft of libFuzzer's final line), corpus
#   size and any crash, leak or timeout file (build-fuzz/artifacts/TARGET/). Exit 1 when any
#   target crashed, leaked or timed out; 2 for bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."
all_targets=(baseline report run_log plugin_negotiation eval manifest results)
merge=0
if [ "${1:-}" = "--merge" ]; then
    merge=1
    shift
fi
seconds=${1:-}
case "$seconds" in
'' | *[!0-9]*)
    echo "usage: tools/fuzz.sh [--merge] SECONDS [TARGET...] (targets: ${all_targets[*]})" >&2
    exit 2
    ;;
esac
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
    [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "fuzz: no target '$t' (${all_targets[*]})" >&2; exit 2; }
done
command -v clang >/dev/null || { echo "fuzz: clang is missing (tools/setup.sh --with-lanes installs it)" >&2; exit 2; }

build=build-fuzz
CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" -DBITCTS_ENABLE_FUZZING=ON >/dev/null
cmake --build "$build" -j"${BITCTS_FUZZ_BUILD_JOBS:-2}" --target "${targets[@]/#/fuzz_}"

# Leaks count as failures; a finding stops the run (-fno-sanitize-recover builds already do).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
summary=()
for t in "${targets[@]}"; do
    scratch="$build/corpus/$t"
    artifacts="$build/artifacts/$t/"
    log="$build/fuzz-$t.log"
    mkdir -p "$scratch" "$artifacts"
    stamp="$build/artifacts/.started-$t"
    touch "$stamp"
    dict=()
    case "$t" in
    report | run_log | manifest | results) dict=(-dict=tests/fuzz/json.dict) ;;
    *) [ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict") ;;
    esac
    echo "fuzz: $t for $seconds s (log: $log)"
    rc=0
    "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
        -rss_limit_mb=2048 -artifact_prefix="$artifacts" "${dict[@]}" \
        "$scratch" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED)' "$log" | tail -1 || true)
    execs=$(sed -n 's/^stat::number_of_executed_units:[[:space:]]*//p' "$log" | tail -1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$done_line")
    found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' \) -newer "$stamp" -print 2>/dev/null | head -5 || true)
    line="$t: ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
    if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
        failed=1
        line="$line, FAILED (exit $rc): ${found:-see $log}"
        grep -E 'ERROR|invariant broken|SUMMARY' "$log" | head -5 || true
    fi
    summary+=("$line")
    if [ "$merge" = 1 ] && [ "$rc" -eq 0 ]; then
        "$build/tests/fuzz/fuzz_$t" -merge=1 "tests/fuzz/corpus/$t" "$scratch" >>"$log" 2>&1
        echo "fuzz: merged into tests/fuzz/corpus/$t ($(ls "tests/fuzz/corpus/$t" | wc -l) files)"
    fi
done
echo "fuzz summary ($seconds s per target):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
