#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `bitcts eval` reproduces every example of the DirectML docs (spec 1.4, 1.6) and bitcts's own
# XOR example, exactly.
set -u
bitcts=$1
fail=0
expect() { # expect "<wanted output>" args...
    local want=$1
    shift
    local got
    got=$("$bitcts" eval "$@" 2>/dev/null)
    if [ "$got" != "$want" ]; then
        echo "FAIL: bitcts eval $*: got '$got', want '$want'"
        fail=1
    else
        echo "ok: bitcts eval $* -> $got"
    fi
}
# [NOT] UINT8 {{0,128},{42,255}} -> {{255,127},{213,0}}.
expect "255,127,213,0" bit_not --type uint8 --sizes 2,2 --input 0,128,42,255
# [XOR] shows the same data: NOT's example. XOR of it with itself would be zeros; bitcts's XOR example:
expect "255,0,37,254" bit_xor --type uint8 --sizes 2,2 --a 0,128,42,255 --b 255,128,15,1
expect "0x00,0x00,0x00,0x00" bit_xor --type uint8 --sizes 2,2 --a 0,128,42,255 --b 0,128,42,255 --format hex
# [COUNT] UINT32 {0,123,456,789} -> {0,6,4,5}, output UINT32.
expect "0,6,4,5" bit_count --type uint32 --out-type uint32 --sizes 4 --input 0,123,456,789
# Spec 1.6: INT8 -1 -> 8; FLOAT32 -0.0 -> 1; FLOAT16 +inf -> 5.
expect "8" bit_count --type int8 --out-type uint8 --sizes 1 --input -1
expect "1" bit_count --type float32 --out-type uint8 --sizes 1 --input -0.0
expect "5" bit_count --type float16 --out-type uint8 --sizes 1 --input inf
# AND / OR / shifts, raw float bits, broadcast through zero strides.
expect "0x0f,0x30" bit_and --type uint8 --sizes 2 --a 0x3f,0xf0 --b 0x0f,0x3c --format hex
expect "0x7fc00001" bit_or --type float32 --sizes 1 --a 0x7f800001 --b 0x00400000
expect "2,4,8,16" bit_shift_left --type uint16 --sizes 4 --a 1,2,4,8 --b 1 --b-strides 0
expect "0b01000000" bit_shift_right --type uint8 --sizes 1 --a 0x80 --b 1 --format bin
expect "0x83fe,0xc1ff,0x7fff" bit_not --type float16 --sizes 3 --input 0x7c01,1.5,-0 --format hex
# Counts >= width: both policies are shown, each named.
got=$("$bitcts" eval bit_shift_left --type uint32 --sizes 2 --a 1,1 --b 33,3 2>/dev/null)
want=$'mask: 2,8\nsaturate: 0,8'
[ "$got" = "$want" ] && echo "ok: out-of-range shift policies" || { echo "FAIL: policies: $got"; fail=1; }
exit $fail
