#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTML report in a real browser: report_test leaves a sample report folder, headless
# Chromium renders its report.html to a PNG and dumps the DOM, which must hold the verdict table
# and every failure, escaped. Usage: html_chromium.sh REPORT_TEST [BITCTS]; with BITCTS (once it
# has the report command), `bitcts report render` must re-create the views byte for byte.
# Skips (77) without Chromium. BITCTS_KEEP_PNG=FILE keeps the screenshot.
set -u
report_test=$1
bitcts=${2:-}
browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
        browser=$candidate
        break
    fi
done
[ -n "$browser" ] || { echo "skip: no chromium installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
if ! "$report_test" "$work/report" >"$work/test.log" 2>&1; then
    echo "FAIL: $report_test did not pass"; tail -20 "$work/test.log"; exit 1
fi
page="file://$work/report/report.html"
browse() { # browse PROFILE args...: one headless Chromium run, offline, in its own profile
    local profile=$1
    shift
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/$profile" "$@"
}
browse shot --screenshot="$work/report.png" --window-size=1400,2000 "$page" >"$work/shot.log" 2>&1
if [ "$(head -c 4 "$work/report.png" 2>/dev/null | od -An -c | tr -d ' ')" != "211PNG" ]; then
    echo "FAIL: no screenshot"; tail -5 "$work/shot.log"; fail=1
elif [ -n "${BITCTS_KEEP_PNG:-}" ]; then
    cp "$work/report.png" "$BITCTS_KEEP_PNG"
fi
browse dom --dump-dom "$page" >"$work/dom.html" 2>"$work/dom.log"
need() { # need "<text the DOM must contain>"
    grep -qF -- "$1" "$work/dom.html" || { echo "FAIL: the DOM lacks: $1"; fail=1; }
}
need '<table id="verdict-table" class="verdicts">'
need '<th class="n">unexpected_pass</th>'
need '<td class="n v-pass">206</td>'
need '<code>bit_and.uint16.r2.b.0</code>'
need '<code>bit_count.uint32.r2.a.0</code>'
need "<code>bit_xor.uint8.r1.odd&lt;&amp;\"'&gt;.0</code>"
need '&lt;script&gt;alert(1)&lt;/script&gt;'
need 'FAILED'
if grep -q '<script>alert' "$work/dom.html"; then
    echo "FAIL: a detail became markup"; fail=1
fi
cases=$(grep -o '<div class="case ' "$work/dom.html" | wc -l)
[ "$cases" -eq 10 ] || { echo "FAIL: $cases failure entries, want 10"; fail=1; }
# Re-rendering from report.json gives the same views.
if [ -n "$bitcts" ] && "$bitcts" report --help >/dev/null 2>&1; then
    cp -r "$work/report" "$work/rerender"
    rm "$work/rerender/junit.xml" "$work/rerender/report.html" "$work/rerender/summary.md"
    "$bitcts" report render "$work/rerender" || fail=1
    for f in junit.xml report.html summary.md; do
        cmp -s "$work/report/$f" "$work/rerender/$f" || { echo "FAIL: render changed $f"; fail=1; }
    done
fi
[ $fail -eq 0 ] && echo "ok: $browser rendered the report; verdict table and $cases failures in the DOM"
exit $fail
