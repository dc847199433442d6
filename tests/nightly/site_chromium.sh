#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The nightly site and the report at scale in headless Chromium, checked by their content: the
# site nightly.site left (matrix, history, flakes), then a night of a plugin that fails nearly
# every case of the default tier (over 11,000 failures): its front page, a failure page, and
# its report.html grouped and searched over every failure (#q= in the address runs the search
# as a person typing would). Screenshots stay in OUT. Skips (77) without Chromium.
# Usage: site_chromium.sh BITCTS SITE WRITES_NOTHING_LIB OUT
set -u
bitcts=$1
site=$2
lib=$3
out=$4
here=$(cd "$(dirname "$0")" && pwd)
browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
        browser=$candidate
        break
    fi
done
[ -n "$browser" ] || { echo "skip: no chromium installed"; exit 77; }
[ -f "$site/index.html" ] || { echo "FAIL: no site at $site (nightly.site runs first)"; exit 1; }
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
browse() { # browse PROFILE args...: one headless Chromium run, offline, in its own profile
    local profile=$1
    shift
    timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/$profile" "$@" 2>>"$work/browser.log"
}
shot() { # shot URL PNG: a screenshot that must be a PNG
    browse "shot-$(basename "$2")" --screenshot="$2" --window-size=1400,2400 "$1" >/dev/null
    [ "$(head -c 4 "$2" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] ||
        { echo "FAIL: no screenshot of $1"; fail=1; }
}
need() { # need FILE TEXT: the DOM dump holds TEXT
    grep -qF -- "$2" "$1" || { echo "FAIL: $(basename "$1") lacks: $2"; fail=1; }
}

# The site of nightly.site: matrix, history of four nights, flakes.
shot "file://$site/index.html" "$out/site-index.png"
browse dom1 --dump-dom "file://$site/index.html" >"$work/index.html"
need "$work/index.html" '<table id="matrix-table">'
need "$work/index.html" '<table id="history-table">'
need "$work/index.html" '<svg id="chart-pass-rate"'
need "$work/index.html" '<table id="flakes-table">'
for n in n2 n3 n4; do
    need "$work/index.html" "href=\"nights/$n/index.html\">$n</a>"
done

# A night with over 11,000 failures.
cat >"$work/big.conf" <<EOF
[nightly]
tier = default
cpu_variants = none
vulkan = no
repeat = 1

[plugin writes_nothing]
path = $lib
EOF
python3 "$here/../../tools/nightly.py" run --bitcts "$bitcts" --config "$work/big.conf" \
    --site "$out/site-big" --night big --no-verify >"$work/big.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: the failing night exit $rc, want 1"; tail -5 "$work/big.log"; fail=1; }
night="$out/site-big/nights/big/writes_nothing"
total=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for c in r['cases'] if c['verdict'] not in ('pass','recorded','not_supported')))" "$night/report.json")
want=$(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
rows = [c for c in r['cases'] if c['verdict'] not in ('pass', 'recorded', 'not_supported')]
print(sum(1 for c in rows if 'bit_xor' in c['id'] and '.uint16.' in c['id'] and '.r3.' in c['id']))
" "$night/report.json")
echo "the failing night: $total listed failures; search 'bit_xor .uint16. .r3.' should show $want"
[ "$total" -gt 10000 ] || { echo "FAIL: only $total failures, want over 10000"; fail=1; }
shot "file://$out/site-big/index.html" "$out/site-big-index.png"
shot "file://$night/report.html" "$out/report-grouped.png"
shot "file://$night/report.html#q=bit_xor%20.uint16.%20.r3." "$out/report-search.png"
browse dom2 --dump-dom "file://$night/report.html#q=bit_xor%20.uint16.%20.r3." >"$work/report.html"
need "$work/report.html" "id=\"f-count\" class=\"note\">$want of $total shown<"
need "$work/report.html" '<details class="group fail"'
need "$work/report.html" '<div class="facet" id="facet-type">'
rows=$(grep -o '<tr class="case-row"' "$work/report.html" | wc -l)
[ "$rows" -eq "$total" ] || { echo "FAIL: $rows case rows in the DOM, want $total"; fail=1; }
groups=$(grep -o '<details class="group ' "$work/report.html" | wc -l)
[ "$groups" -ge 7 ] && [ "$groups" -lt 100 ] || { echo "FAIL: $groups groups"; fail=1; }
# A failure page.
page=$(ls "$night/cases/" | grep -v index.html | head -1)
shot "file://$night/cases/$page" "$out/failure-page.png"
browse dom3 --dump-dom "file://$night/cases/$page" >"$work/page.html"
need "$work/page.html" '<pre id="repro">/'
need "$work/page.html" '/bitcts run --backend'
need "$work/page.html" 'Provenance'
need "$work/page.html" '<b id="verdict">fail</b>'
pages=$(ls "$night/cases/" | grep -vc index.html)
[ "$pages" -eq "$total" ] || { echo "FAIL: $pages failure pages, want $total"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $browser: site, $groups groups, search over $total failures; screenshots in $out"
exit $fail
