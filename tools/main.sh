#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: set up, build, then take the default tier through the reference: print its
# coverage summary and export it as vectors (out/vectors), timing each step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
./build/bitcts --version
./build/bitcts list --tier default --count
mkdir -p out
start=$(date +%s.%N)
./build/bitcts vectors export --tier default --out out/vectors
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN { printf "default tier exported to out/vectors in %.2f s (wall)\n", e - s }'
# The default tier through the example plugin and through the built-in CPU SIMD backend, in
# worker processes, with every report format.
./build/bitcts run --backend ./build/backends/example/libbitcts_example.so --tier default \
    --report out/report-example
./build/bitcts run --backend cpu --tier default --report out/report-cpu
echo "reports: out/report-example/report.html, out/report-cpu/report.html"
