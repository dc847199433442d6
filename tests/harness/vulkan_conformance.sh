#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Vulkan backend through the harness: the default and large tiers, and the default tier
# again through the general (strided) shader alone, path=strided (or, with --validation,
# the smoke tier under VK_LAYER_KHRONOS_validation), each of which must exit 0 with every
# out-of-range shift recorded as saturated (the backend's policy), and (the default and large
# tiers at the default path) give the same report, case for case, with --batch-cases 1 (one
# call per case; path=strided runs the same batches through another shader). Prints wall
# time and cases/s per tier. Exit 77 when the backend has no loader, no device or (with --validation)
# no validation layer.
# usage: vulkan_conformance.sh BITCTS PLUGIN WORKDIR [--validation]
set -euo pipefail
bitcts=$1
plugin=$2
work=$3
mode=${4:-}
rm -rf "$work"
mkdir -p "$work"

options=()
tiers=(default large default:strided)
if [ "$mode" = "--validation" ]; then
    options=(--backend-option validation=1)
    tiers=(smoke)
fi

# Probe with one case: a backend that cannot create an instance says why, and status 200
# (not supported) means no loader, no device or no validation layer here.
probe=$("$bitcts" run --backend "$plugin" "${options[@]}" --tier smoke \
    --filter 'bit_not.uint8.r1.packed.0' --report "$work/probe" --quiet 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
    if grep -q "status 200" <<<"$probe"; then
        echo "skipped: $probe"
        exit 77
    fi
    echo "$probe" >&2
    exit 1
fi

status=0
for entry in "${tiers[@]}"; do
    tier=${entry%%:*} # "default:strided": the default tier with path=strided
    name=$tier
    extra=()
    if [ "$entry" != "$tier" ]; then
        extra=(--backend-option "path=${entry#*:}")
        name=$tier-${entry#*:}
    fi
    start=$(date +%s.%N)
    "$bitcts" run --backend "$plugin" "${options[@]}" ${extra[@]+"${extra[@]}"} --tier "$tier" --report "$work/$name" \
        --quiet >"$work/$name.log" 2>&1 && rc=0 || rc=$?
    end=$(date +%s.%N)
    cat "$work/$name.log"
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: tier $name exited $rc" >&2
        status=1
        continue
    fi
    python3 - "$work/$name/report.json" "$name" "$start" "$end" <<'PY' || status=1
import json, sys
report = json.load(open(sys.argv[1]))
cases = report["cases"]
bad = [c["id"] for c in cases if c["verdict"] not in ("pass", "recorded", "warn")]
policies = {c["policy"] for c in cases if c["verdict"] == "recorded"}
wall = float(sys.argv[4]) - float(sys.argv[3])
print(f"vulkan tier {sys.argv[2]}: {len(cases)} cases in {wall:.1f} s wall "
      f"({len(cases) / wall:.0f} cases/s); recorded shift policies: {sorted(policies)}")
if bad:
    print(f"FAIL: {len(bad)} cases neither pass nor recorded, e.g. {bad[:5]}", file=sys.stderr)
    sys.exit(1)
if not policies <= {"saturate", "mask_or_saturate"}:
    print(f"FAIL: out-of-range shifts must saturate, got {sorted(policies)}", file=sys.stderr)
    sys.exit(1)
PY
    # Batching changes no verdict and no digest: the same tier with one call per case.
    if [ "$mode" != "--validation" ] && [ "$entry" = "$tier" ]; then
        "$bitcts" run --backend "$plugin" ${extra[@]+"${extra[@]}"} --tier "$tier" \
            --batch-cases 1 --report "$work/$name-one-call" --quiet >/dev/null 2>&1 || true
        python3 "$(dirname "$0")/compare_reports.py" "$work/$name/report.json" \
            "$work/$name-one-call/report.json" || status=1
    fi
done
exit $status
