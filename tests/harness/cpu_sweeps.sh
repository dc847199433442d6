#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The exhaustive sweeps a fast backend makes practical, on the CPU backend's best variant:
# NOT and BIT_COUNT over all 2^32 UINT32 values, every 16-bit value shifted by every count.
set -u
bitcts=$1
fail=0
for args in "--op bit_not --type uint32" "--op bit_count --type uint32 --out-type uint8" \
            "--op bit_shift_left --type uint16" "--op bit_shift_right --type uint16"; do
    "$bitcts" sweep --backend cpu $args || fail=1
done
exit $fail
