#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exports are byte-identical across two runs, across --filter subsets (a case's files do not
# depend on which other cases were selected), and between a -O0 and an -O2 build.
# Usage: export_determinism.sh BITCTS SOURCE_DIR C_COMPILER
set -u
bitcts=$1
src=$2
cc=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
"$bitcts" vectors export --out "$work/run1" --tier default 2>/dev/null || exit 1
"$bitcts" vectors export --out "$work/run2" --tier default 2>/dev/null || exit 1
if diff -r -q "$work/run1" "$work/run2" >/dev/null; then echo "ok: two runs identical"; else echo "FAIL: two runs differ"; fail=1; fi
# Subsets: every case's files equal those of the full export.
for filter in 'bit_xor.*' '*.r7.*' 'bit_count.*.uint8.r2.*' '*.inplace*'; do
    rm -rf "$work/sub"
    "$bitcts" vectors export --out "$work/sub" --filter "$filter" 2>/dev/null || exit 1
    n=0
    for d in "$work/sub/cases/"*; do
        id=$(basename "$d")
        diff -r -q "$d" "$work/run1/cases/$id" >/dev/null || { echo "FAIL: $id differs under --filter '$filter'"; fail=1; }
        n=$((n + 1))
    done
    [ $n -gt 0 ] || { echo "FAIL: '$filter' selected nothing"; fail=1; }
    echo "ok: --filter '$filter': $n cases identical to the full export"
done
# -O0 against this build: configure and build bitcts alone, export the same selection.
if [ -n "$src" ] && [ -x "$cc" ] || command -v "$cc" >/dev/null; then
    if cmake -S "$src" -B "$work/o0" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 \
        -DCMAKE_C_COMPILER="$cc" -DBITCTS_BUILD_TESTS=OFF >"$work/o0.log" 2>&1 &&
        cmake --build "$work/o0" --target bitcts -j2 >>"$work/o0.log" 2>&1; then
        "$work/o0/bitcts" vectors export --out "$work/o0run" --tier default 2>/dev/null || exit 1
        if diff -r -q "$work/run1" "$work/o0run" >/dev/null; then echo "ok: -O0 export identical to this build's"; else echo "FAIL: -O0 export differs"; fail=1; fi
    else
        echo "FAIL: the -O0 build failed:"; tail -20 "$work/o0.log"; fail=1
    fi
fi
exit $fail
