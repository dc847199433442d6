#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Harness overhead: the whole default tier through a plugin that costs nothing (it writes
# nothing, so every case fails: the harness does all its work), with 1 and 2 jobs; then the
# example plugin and the built-in cpu backend with --jobs 2. Three runs each, wall seconds.
# Usage: tools/bench-harness.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cases=$("$build/bitcts" list --tier default | wc -l)
measure() { # label, args...
    local label=$1
    shift
    local times=()
    for run in 1 2 3; do
        local start end
        start=$(date +%s.%N)
        "$build/bitcts" run "$@" --tier default --quiet --report "$work/r" >/dev/null || true
        end=$(date +%s.%N)
        times+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')")
    done
    local median
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    awk -v l="$label" -v m="$median" -v n="$cases" -v t="${times[*]}" \
        'BEGIN { printf "%-44s median %6.2f s (%s)  %7.0f cases/s\n", l, m, t, n / m }'
}
measure "no-op plugin (writes nothing), --jobs 1" --backend "$build/tests/plugins/libbitcts_broken_writes_nothing.so" --jobs 1
measure "no-op plugin (writes nothing), --jobs 2" --backend "$build/tests/plugins/libbitcts_broken_writes_nothing.so" --jobs 2
measure "example plugin, --jobs 2" --backend "$build/backends/example/libbitcts_example.so" --jobs 2
measure "built-in cpu backend, --jobs 2" --backend cpu --jobs 2
