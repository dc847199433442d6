#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `vectors verify` catches a moved reference and names exactly what moved: a test build whose
# reference flips bit 0 of one operator's results at one width must exit 1 and report "expected
# output changed" for every valid default-tier case of that operator and width, and nothing
# else (no input, description, added or removed line, no other case).
# Usage: golden_moved.sh BITCTS MOVED_BUILD MANIFEST ID_REGEX
set -u
bitcts=$1
moved=$2
manifest=$3
regex=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$moved" vectors verify --golden "$manifest" >"$work/out" 2>"$work/err"
rc=$?
fail=0
if [ "$rc" != 1 ]; then
    echo "FAIL: verify with the moved reference exited $rc, not 1"; cat "$work/err"; fail=1
fi
changed='^([^ :]+): expected output( \((mask|saturate)\))? changed: '
sed -n -E "s/$changed.*/\\1/p" "$work/out" | sort -u >"$work/got"
"$bitcts" list --tier default | grep -E "$regex" | grep -v '\.invalid_' | sort -u >"$work/want"
grep -v -E "$changed" "$work/out" >"$work/other"
if [ -s "$work/other" ]; then
    echo "FAIL: verify reported changes that are not the moved expected outputs:"; head -5 "$work/other"; fail=1
fi
if [ ! -s "$work/want" ]; then
    echo "FAIL: '$regex' selects no case"; fail=1
elif ! cmp -s "$work/got" "$work/want"; then
    echo "FAIL: verify named $(wc -l <"$work/got") cases, $(wc -l <"$work/want") moved; first differences:"
    diff "$work/want" "$work/got" | head -6; fail=1
fi
[ $fail = 0 ] && echo "ok: verify exited 1 and named exactly the $(wc -l <"$work/want") moved cases ($regex): $(tail -1 "$work/err" | cut -c1-160)"
exit $fail
