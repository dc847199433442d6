#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Exports are byte-identical across runs, across --filter subsets (a case's entry and bytes do
# not depend on which other cases were selected), and between a -O0 and an -O2 build.
# The default tier is exported twice, not three times: EXPORT (this build's, written by another
# process: the fixture vectors.export_default) and the -O0 build's. Those are two runs; their
# equality also proves that two runs of this build agree, and when they differ a second export
# of this build tells a nondeterministic export from one that depends on the optimisation.
# Without a C compiler, this build exports the default tier a second time instead.
# Usage: export_determinism.sh BITCTS SOURCE_DIR C_COMPILER EXPORT
set -u
bitcts=$1
src=$2
cc=$3
full=$4
[ -f "$full/manifest.json" ] || { echo "FAIL: $full holds no export (vectors.export_default)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
same() { # same DIR_A DIR_B: the two folders hold the same files, byte for byte
    diff -r -q "$1" "$2" >/dev/null
}
# A second export of this build, compared with EXPORT.
second_run() {
    "$bitcts" vectors export --out "$work/run2" --tier default 2>/dev/null || exit 1
    if same "$full" "$work/run2"; then echo "ok: two runs identical"; else echo "FAIL: two runs differ"; fail=1; fi
}
# Subsets: every case's entry and blobs equal those of the full export (the blobs' places in
# the data files aside: they depend on the other cases selected).
for filter in 'bit_xor.*' '*.r7.*' 'bit_count.*.uint8.r2.*' '*.inplace*'; do
    rm -rf "$work/sub"
    "$bitcts" vectors export --out "$work/sub" --filter "$filter" 2>/dev/null || exit 1
    if ! python3 "$(dirname "$0")/export_subset.py" "$work/sub" "$full" >"$work/cmp"; then
        sed "s/^/FAIL: under --filter '$filter': /" "$work/cmp" | grep differs
        fail=1
    fi
    n=$(tail -1 "$work/cmp")
    [ "$n" -gt 0 ] || { echo "FAIL: '$filter' selected nothing"; fail=1; }
    echo "ok: --filter '$filter': $n cases identical to the full export"
done
rm -rf "$work/sub"
# -O0 against this build: configure and build bitcts alone (no Vulkan backend: an export does
# not reach a backend), export the same selection.
if [ -n "$src" ] && [ -x "$cc" ] || command -v "$cc" >/dev/null; then
    if cmake -S "$src" -B "$work/o0" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0 \
        -DCMAKE_C_COMPILER="$cc" -DBITCTS_BUILD_TESTS=OFF -DBITCTS_ENABLE_VULKAN=OFF \
        >"$work/o0.log" 2>&1 &&
        cmake --build "$work/o0" --target bitcts -j2 >>"$work/o0.log" 2>&1; then
        "$work/o0/bitcts" vectors export --out "$work/o0run" --tier default 2>/dev/null || exit 1
        if same "$full" "$work/o0run"; then
            echo "ok: -O0 export identical to this build's (two runs, two builds)"
        else
            echo "FAIL: -O0 export differs"
            fail=1
            rm -rf "$work/o0run"
            second_run
        fi
    else
        echo "FAIL: the -O0 build failed:"; tail -20 "$work/o0.log"; fail=1
    fi
else
    second_run
fi
exit $fail
