#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the committed regression set (vectors/regressions/, docs/regressions.md): each
# broken plugin of tests/plugins explored under the suite's default seed and a fixed budget
# (cases, not seconds), its failures shrunk and saved. Deterministic: the same bitcts and
# plugins give the same files, byte for byte (CTest's regressions.regenerate compares them).
# usage: regressions_generate.sh BITCTS OUT_DIR WORK_DIR name=plugin...
set -euo pipefail
bitcts=$1
out=$2
work=$3
shift 3
# The plugins and their budgets: explore.0 .. explore.<cases-1>, at most <max> shrunk.
budget=(
    broken_ignores_strides:64:2
    broken_zero_stride:64:2
    broken_skip_last_odd:64:1
    broken_write_past_end:64:1
    broken_nan_canonicalise:200:1
    broken_fp16_denormal_flush:200:1
    broken_popcount_top_bit:200:1
    broken_count_input_width:200:1
    broken_corrupt_input:64:2
    broken_broken_in_place:200:1
    broken_crash_rank8:200:1
    broken_abort_count:200:1
    broken_writes_nothing:64:1
    broken_permuted_padded:64:2
)
declare -A plugin
for a in "$@"; do plugin[${a%%=*}]=${a#*=}; done
rm -rf "$out" "$work"
mkdir -p "$out" "$work"
for b in "${budget[@]}"; do
    IFS=: read -r name cases max <<<"$b"
    [ -n "${plugin[$name]:-}" ] || { echo "no plugin $name given" >&2; exit 2; }
    rc=0
    "$bitcts" explore --backend "${plugin[$name]}" --cases "$cases" --jobs 2 --quiet \
        --report "$work/$name" --shrink-max "$max" --shrink-seconds 3600 --save "$out" \
        >"$work/$name.log" 2>&1 || rc=$?
    if [ "$rc" != 1 ]; then
        cat "$work/$name.log" >&2
        echo "explore over $name exited $rc, not 1 (failures found)" >&2
        exit 1
    fi
    echo "$name: $(grep -c '      saved: ' "$work/$name.log") saved"
done
echo "$(ls "$out" | wc -l) cases, $(cat "$out"/*.json | wc -c) bytes in $out"
