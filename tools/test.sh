#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tests: set up, build with warnings as errors, run every CTest test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh --with-browser
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBITCTS_WERROR=ON >/dev/null
cmake --build build-test -j"$(nproc)"
cd build-test
ctest --output-on-failure -j"$(nproc)" --timeout 900
