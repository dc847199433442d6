#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every CPU variant this machine supports passes the default, large and exhaustive tiers
# bit-exactly under the harness; forcing a variant the CPU lacks is an error, never a fallback.
set -u
bitcts=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
ran=0
for v in scalar sse2 avx2 avx512 avx512pop neon; do
    "$bitcts" run --backend "cpu:$v" --tier default,large,exhaustive --report "$work/$v" --quiet >"$work/$v.out" 2>"$work/$v.err"
    rc=$?
    # A variant this CPU lacks or this build left out: the environment's limit (exit 3), named.
    if [ $rc -eq 3 ] && grep -q "lacks\|not built\|needs" "$work/$v.err"; then
        echo "cpu:$v: not available here: $(cat "$work/$v.err")"
        continue
    fi
    ran=$((ran + 1))
    if [ $rc -ne 0 ]; then
        echo "FAIL: cpu:$v exit $rc"; grep -A3 "failures:" "$work/$v.out" | head; cat "$work/$v.err"; fail=1
        continue
    fi
    variant=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['backend']['info']['variant'], r['summary']['total'], r['summary']['by_verdict'])" "$work/$v/report.json")
    echo "cpu:$v: ran as $variant"
    case "$variant" in "$v "*) ;; *) echo "FAIL: cpu:$v ran as another variant"; fail=1 ;; esac
done
[ $ran -ge 1 ] || { echo "no variant could run"; exit 77; }
exit $fail
