#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The default tier exported once (CTest fixture bitcts_export_default) for the tests that read
# it: cli.export_determinism, vectors.rebuild_from_docs and check.results. None of them writes
# into it. An export is about 380 MB on disk (format 2.0: 8 files; 1.x took about 500 MB in
# 32,000 files): writing it once instead of five times is most of what those tests used to spend.
# usage: export_default.sh BITCTS OUT
set -eu
bitcts=$1
out=$2
rm -rf "$out"
"$bitcts" vectors export --out "$out" --tier default 2>/dev/null
echo "export_default: $(grep -c '"id":' "$out/manifest.json") cases in $out"
