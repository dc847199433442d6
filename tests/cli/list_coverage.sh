#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `bitcts list --tier default --count`: no empty cell among operator x type (x output type) x
# rank 1-8 x applicable pattern, at least 10,000 cases, and the feature-level gating visible.
set -u
bitcts=$1
fail=0
summary=$("$bitcts" list --tier default --count) || exit 1
echo "$summary" | tail -4
echo "$summary" | grep -q 'cells: [0-9]*, empty: 0$' || { echo "FAIL: empty cells"; fail=1; }
total=$(echo "$summary" | sed -n 's/^total cases: //p')
[ "${total:-0}" -ge 10000 ] || { echo "FAIL: only $total cases"; fail=1; }
n=$("$bitcts" list --tier default | wc -l)
[ "$n" = "$total" ] || { echo "FAIL: list gives $n ids, --count says $total"; fail=1; }
# Feature level 2_1: shifts only, exactly 4 dimensions, UINT8/16/32 (spec 4.2).
bad21=$("$bitcts" list --tier all --feature-level 2_1 | grep -v -E '^bit_shift_(left|right)\.uint(8|16|32)\.r4\.' | head -3)
[ -z "$bad21" ] || { echo "FAIL: at 2_1: $bad21"; fail=1; }
[ "$("$bitcts" list --feature-level 2_1 | wc -l)" -gt 0 ] || { echo "FAIL: nothing at 2_1"; fail=1; }
# Feature level 3_0: no signed, float or 64-bit type anywhere.
bad30=$("$bitcts" list --tier all --feature-level 3_0 | grep -E '\.(int|float|uint64)' | head -3)
[ -z "$bad30" ] || { echo "FAIL: at 3_0: $bad30"; fail=1; }
# A filter selects by glob, and the tiers are disjoint where they should be.
[ "$("$bitcts" list --filter 'bit_count.int64.uint8.r3.permuted.*' | wc -l)" = 2 ] || { echo "FAIL: filter"; fail=1; }
[ "$("$bitcts" list --tier large | wc -l)" -ge 7 ] || { echo "FAIL: large tier"; fail=1; }
[ "$("$bitcts" list --tier exhaustive | grep -c '^bit_not.uint16.r1.exhaustive')" = 1 ] || { echo "FAIL: exhaustive"; fail=1; }
# --coverage: every required pair of per-tensor layouts covered (tests/vectors/layout_pairs.py
# proves it from the descriptions); with --count it is refused.
cov=$("$bitcts" list --coverage | tail -1)
echo "$cov" | grep -q '^pairs: [0-9]*, covered: [0-9]*, missing: 0$' || { echo "FAIL: $cov"; fail=1; }
"$bitcts" list --coverage --count >/dev/null 2>&1
[ $? = 2 ] || { echo "FAIL: --coverage --count not refused with exit 2"; fail=1; }
[ "$("$bitcts" list --coverage --filter 'bit_not.*' | tail -1 | sed 's/.*missing: //')" -gt 0 ] ||
    { echo "FAIL: a selection without the binary cases leaves no pair missing"; fail=1; }
exit $fail
