#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Vulkan backend through the harness, one part per CTest test (they run side by side; the
# first, `default`, is the fixture the others wait for, so that the driver's shader cache holds
# the default tier's pipelines before they start: on lavapipe a pipeline compiled cold costs a
# quarter of a second, and parts started together each compiled every one of them):
#   default           the default tier, which must exit 0 with every out-of-range shift recorded
#                     as saturated (the backend's policy)
#   default:one-call  the default tier with --batch-cases 1 (one call per case): the same report
#                     as `default`'s, case for case (batching changes no verdict and no digest)
#   default:strided   the default tier through the general (strided) shader alone, path=strided
#   large             the large tier, then again with --batch-cases 1: the same report
#   validation        the smoke tier under VK_LAYER_KHRONOS_validation
# Each part prints its wall time and cases/s. Exit 77 when the backend has no loader, no device
# or (validation) no validation layer. Each part writes WORKDIR/<part> and nothing else.
# usage: vulkan_conformance.sh BITCTS PLUGIN WORKDIR PART
set -euo pipefail
bitcts=$1
plugin=$2
work=$3
entry=$4
here=$(cd "$(dirname "$0")" && pwd)

options=()
tier=${entry%%:*} # "default:strided": the default tier with path=strided
variant=
[ "$entry" = "$tier" ] || variant=${entry#*:}
case "$entry" in
default | large | default:one-call | default:strided) ;;
validation)
    options=(--backend-option validation=1)
    tier=smoke
    ;;
*) echo "vulkan_conformance.sh: unknown part '$entry'" >&2; exit 2 ;;
esac
name=${entry//:/-}
part=$work/$name
rm -rf "$part"
mkdir -p "$part"

# Probe with one case: a backend that cannot create an instance says why, and status 200
# (not supported) means no loader, no device or no validation layer here.
probe=$("$bitcts" run --backend "$plugin" ${options[@]+"${options[@]}"} --tier smoke \
    --filter 'bit_not.uint8.r1.packed.0' --report "$part/probe" --quiet 2>&1) && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
    if grep -q "status 200" <<<"$probe"; then
        echo "skipped: $probe"
        exit 77
    fi
    echo "$probe" >&2
    exit 1
fi

extra=()
case "$variant" in
strided) extra=(--backend-option path=strided) ;;
one-call) extra=(--batch-cases 1) ;;
esac
start=$(date +%s.%N)
"$bitcts" run --backend "$plugin" ${options[@]+"${options[@]}"} ${extra[@]+"${extra[@]}"} \
    --tier "$tier" --report "$part/report" --quiet >"$part/run.log" 2>&1 && rc=0 || rc=$?
end=$(date +%s.%N)
cat "$part/run.log"
if [ "$rc" -ne 0 ]; then
    echo "FAIL: $entry exited $rc" >&2
    exit 1
fi
python3 - "$part/report/report.json" "$entry" "$start" "$end" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
cases = report["cases"]
bad = [c["id"] for c in cases if c["verdict"] not in ("pass", "recorded", "warn")]
policies = {c["policy"] for c in cases if c["verdict"] == "recorded"}
wall = float(sys.argv[4]) - float(sys.argv[3])
print(f"vulkan {sys.argv[2]}: {len(cases)} cases in {wall:.1f} s wall "
      f"({len(cases) / wall:.0f} cases/s); recorded shift policies: {sorted(policies)}")
if bad:
    print(f"FAIL: {len(bad)} cases neither pass nor recorded, e.g. {bad[:5]}", file=sys.stderr)
    sys.exit(1)
if not policies <= {"saturate", "mask_or_saturate"}:
    print(f"FAIL: out-of-range shifts must saturate, got {sorted(policies)}", file=sys.stderr)
    sys.exit(1)
PY
# Batching changes no verdict and no digest: one call per case gives the same report.
case "$entry" in
default:one-call)
    # `default`'s report: the fixture this part requires.
    [ -f "$work/default/report/report.json" ] ||
        { echo "FAIL: no report of the part 'default' in $work/default" >&2; exit 1; }
    python3 "$here/compare_reports.py" "$work/default/report/report.json" "$part/report/report.json"
    ;;
large)
    "$bitcts" run --backend "$plugin" --tier large --batch-cases 1 --report "$part/one-call" \
        --quiet >"$part/one-call.log" 2>&1 || { cat "$part/one-call.log"; echo "FAIL: large --batch-cases 1" >&2; exit 1; }
    python3 "$here/compare_reports.py" "$part/report/report.json" "$part/one-call/report.json"
    ;;
esac
