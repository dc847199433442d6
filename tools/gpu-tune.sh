#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tuning the Vulkan backend's options on a GPU: `bitcts bench --backend vulkan` (no peers) once
# per variant. Variants: u1, u2, u4, u8 (strided_unroll) and strided (path=strided, the
# general shader also for what the rows and tile shaders take) over the padded and transposed
# layouts; t256, t512, t1024 (tile_threads) and s1, s2, s4, s8, s16 (tile_span: tiles a
# workgroup) over the transposed layout; p1, p2, p4
# (packed_unroll) and w256, w1024 (packed_threads) over the packed layout; g4096 (max_groups:
# the grid the backend used to bound every dispatch to) and gauto (grids as large as the work)
# over all four layouts; c4, c8, c16 and cauto (packed_chunk: output bytes per invocation) over
# the packed, padded and broadcast layouts. Each row is read against the copy kernel timed right after it in the
# same run, so the variants compare even if the device's clocks drift between runs (max_groups
# packed_threads and packed_chunk change that kernel too: compare those variants by GB/s). Writes OUTDIR/<variant>.json and .log and prints OUTDIR/tune.md: per layout group, per
# row, GB/s and the ratio to that kcopy for each variant, the best marked.
#
# usage: tools/gpu-tune.sh [--bitcts PATH] [--size-mib N | --quick] [--variants LIST] [--reps N] OUTDIR
#   --bitcts PATH     the bitcts executable (default $BITCTS, else build/bitcts)
#   --size-mib N      MiB per input (default 256)
#   --quick           the bench's --quick size instead (a device's smoke test: the script's own
#                     test on lavapipe, which runs the shaders on the CPU)
#   --variants LIST   comma-separated (default: all of the above)
#   --reps N          timed repetitions per row, the median reported (default 7)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bitcts=${BITCTS:-$here/../build/bitcts}
size=256
reps=7
variants="u1,u2,u4,u8,strided,t256,t512,t1024,s1,s2,s4,s8,s16,p1,p2,p4,w256,w1024,g4096,gauto,c4,c8,c16,cauto"
out=""
. "$here/script-options.sh"
quick=0
script_options gpu-tune 2,22 --bitcts:bitcts --size-mib:size --quick:quick=1 --variants:variants \
    --reps:reps -- "$@"
[ -n "$out" ] || { echo "gpu-tune: OUTDIR is required (see --help)" >&2; exit 2; }
[ -x "$bitcts" ] || { echo "gpu-tune: no bitcts executable at $bitcts (give --bitcts)" >&2; exit 2; }
mkdir -p "$out" || exit 2
status=0
names=()
IFS=',' read -r -a wanted <<<"$variants"
# variant_args V: the bench options and layouts of variant V in opts and layouts; 1 if unknown.
variant_args() {
    layouts=padded,transposed
    case "$1" in
    u[1248]) opts=(--backend-option "strided_unroll=${1#u}") ;;
    strided) opts=(--backend-option path=strided) ;;
    t256 | t512 | t1024) opts=(--backend-option "tile_threads=${1#t}"); layouts=transposed ;;
    s1 | s2 | s4 | s8 | s16) opts=(--backend-option "tile_span=${1#s}"); layouts=transposed ;;
    p[124]) opts=(--backend-option "packed_unroll=${1#p}"); layouts=packed ;;
    w256 | w1024) opts=(--backend-option "packed_threads=${1#w}"); layouts=packed ;;
    g4096 | gauto) opts=(--backend-option "max_groups=${1#g}"); layouts=packed,padded,transposed,bcast ;;
    c4 | c8 | c16 | cauto) opts=(--backend-option "packed_chunk=${1#c}"); layouts=packed,padded,bcast ;;
    *) return 1 ;;
    esac
}
# Every name is checked before the first bench: a typo costs nothing.
for v in "${wanted[@]}"; do
    variant_args "$v" || { echo "gpu-tune: unknown variant $v (u1, u2, u4, u8, strided, t256, t512, t1024, s1, s2, s4, s8, s16, p1, p2, p4, w256, w1024, g4096, gauto, c4, c8, c16, cauto)" >&2; exit 2; }
done
case $reps in '' | *[!0-9]* | 0) echo "gpu-tune: --reps takes a positive number" >&2; exit 2 ;; esac
sizing=(--size-mib "$size")
[ "$quick" = 0 ] || sizing=(--quick)
for v in "${wanted[@]}"; do
    variant_args "$v"
    echo "gpu-tune: $v" >&2
    if "$bitcts" bench --backend vulkan "${opts[@]}" "${sizing[@]}" --reps "$reps" \
        --layouts "$layouts" --no-peers --json "$out/$v.json" >"$out/$v.log" 2>&1; then
        names+=("$v")
    else
        echo "gpu-tune: $v failed (see $out/$v.log)" >&2
        status=1
    fi
done
[ ${#names[@]} -gt 0 ] || exit 1
python3 - "$out" "${names[@]}" >"$out/tune.md" <<'EOF' || status=1
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
runs = {n: json.load(open(os.path.join(out, n + ".json"), encoding="utf-8")) for n in names}
print("# Variants (GB/s, and / the copy kernel timed right after the row)\n")
for n in names:
    lim = runs[n].get("limits", {})
    print("- %s: kcopy %s to %s GB/s over the run%s" % (
        n, lim.get("copy_kernel_min_gbps"), lim.get("copy_kernel_max_gbps"),
        " (drifted)" if lim.get("drift") else ""))
# Rows by (op, types, layout); one table per set of variants that measured the same rows.
def key(r):
    return (r["op"], r["in_type"], r["out_type"], r["layout"])
groups = {}
for n in names:
    sig = tuple(key(r) for r in runs[n]["results"])
    groups.setdefault(sig, []).append(n)
for sig, group in groups.items():
    print()
    print("| op | in | out | layout | " + " | ".join(group) + " | best |")
    print("|---|---|---|---|" + "---:|" * len(group) + "---|")
    for i, k in enumerate(sig):
        cells, best, best_ratio = [], "-", -1.0
        for n in group:
            r = runs[n]["results"][i]
            g, kc = r.get("gbps"), r.get("copy_kernel_gbps")
            if g is None or not kc:
                cells.append("-")
                continue
            ratio = g / kc
            cells.append("%.4g (%.2f)" % (g, ratio))
            if ratio > best_ratio:
                best, best_ratio = n, ratio
        print("| %s | %s | %s | %s | %s | %s |" % (k + (" | ".join(cells), best)))
EOF
cat "$out/tune.md"
exit $status
