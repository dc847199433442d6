#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark of the scalar reference (elements/s, packed and permuted) and of the default-tier
# vector export's wall time, three runs each. Usage: tools/bench-reference.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
"$build/tests/bitcts_ref_bench" 24 7
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for run in 1 2 3; do
    start=$(date +%s.%N)
    "$build/bitcts" vectors export --tier default --out "$work/v$run" 2>/dev/null
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v r="$run" 'BEGIN { printf "default-tier export, run %d: %.2f s\n", r, e - s }'
done
