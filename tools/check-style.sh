#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The one code dialect of bitcts (docs/layout.md, "House style"), checked on every C file:
#  1. clang-format with the checked-in .clang-format (whitespace, line length);
#  2. braces on every if/else/for/while/do body (clang-tidy readability-braces-around-statements);
#  3. a pointer is compared with NULL, never used as a truth value (!p, if (p), p && q, p ? :),
#     found by clang-query on the compiled code;
#  4. ++i, not i++, where the value is not used (statements and for-loop increments).
# Usage: tools/check-style.sh BUILD_DIR [SOURCE_DIR]
#   BUILD_DIR holds compile_commands.json (CMake exports it). Exit 0: clean; 1: a line each.
set -euo pipefail
build=$(cd "$1" && pwd)
root=$(cd "${2:-$(dirname "$0")/..}" && pwd)
cd "$root"
db="$build/compile_commands.json"
[ -f "$db" ] || { echo "check-style: no $db (configure with CMake first)"; exit 2; }
for tool in clang-format clang-tidy clang-query; do
    command -v "$tool" >/dev/null || { echo "check-style: $tool is missing (tools/setup.sh installs it)"; exit 2; }
done
problems=0
report() {
    echo "check-style: $1"
    problems=$((problems + 1))
}

mapfile -t sources < <(git ls-files -- '*.c' '*.h' | grep -v '^build')
mapfile -t compiled < <(python3 -c "
import json, os, sys
root = sys.argv[2]
seen = sorted({os.path.relpath(e['file'], root) for e in json.load(open(sys.argv[1]))
               if os.path.realpath(e['file']).startswith(root + '/')})
print('\n'.join(seen))" "$db" "$root")
# C files the build does not compile here (another architecture's kernels, a backend whose
# library is missing, the out-of-tree consumer) are still formatted; they are named below.
declare -A in_db
for f in "${compiled[@]}"; do in_db[$f]=1; done

# 1. clang-format, one process over every file; each file it names is reported once (and if it
#    fails without naming one, each file is tried alone).
if ! format_out=$(clang-format --dry-run --Werror "${sources[@]}" 2>&1 >/dev/null); then
    mapfile -t unformatted < <(sed -nE 's/^([^ :]+):[0-9]+:[0-9]+: (error|warning): .*/\1/p' \
        <<<"$format_out" | sort -u)
    if [ ${#unformatted[@]} -eq 0 ]; then
        for f in "${sources[@]}"; do
            clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
        done
    fi
    for f in "${unformatted[@]}"; do
        report "$f: not clang-formatted (clang-format -i $f)"
    done
fi

extra=(--extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-error)
# 2. Braces, on every compiled file and the headers it includes from the tree.
tidy_out=$(run-clang-tidy -quiet -p "$build" -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option \
    -extra-arg=-Wno-error -checks='-*,readability-braces-around-statements' \
    -header-filter="^$root/" "^$root/" 2>/dev/null | sed 's/\x1b\[[0-9;]*m//g' |
    grep -E "^$root/.*warning: " | sort -u || true)
while IFS= read -r line; do
    [ -n "$line" ] && report "${line#"$root/"}"
done <<<"$tidy_out"

# 3. Pointers as truth values.
query=$(mktemp)
trap 'rm -f "$query"' EXIT
ptr='ignoringParenImpCasts(expr(hasType(pointerType())))'
cat >"$query" <<EOF
set output diag
match unaryOperator(hasOperatorName("!"), hasUnaryOperand($ptr))
match ifStmt(hasCondition($ptr))
match whileStmt(hasCondition($ptr))
match doStmt(hasCondition($ptr))
match forStmt(hasCondition($ptr))
match binaryOperator(hasAnyOperatorName("&&", "||"), hasEitherOperand($ptr))
match conditionalOperator(hasCondition($ptr))
EOF
query_out=$(clang-query -p "$build" "${extra[@]}" -f "$query" "${compiled[@]/#/$root/}" 2>/dev/null |
    grep -E '"root" binds here' | grep "^$root/" | sort -u || true)
# A match inside a third-party macro's expansion (jansson's json_is_object(x) is
# ((x) && ...)) is reported at the macro's name: that code is not ours to change.
while IFS= read -r line; do
    [ -n "$line" ] || continue
    loc=${line%%: note*}
    IFS=: read -r qfile qline qcol <<<"$loc"
    text=$(sed -n "${qline}p" "$qfile" | cut -c"$qcol"-)
    [[ $text == json_* ]] && continue
    sed -n "${qline}p" "$qfile" | grep -qE 'json_(object|array)_foreach' && continue
    report "${loc#"$root/"}: a pointer used as a truth value: compare it with NULL"
done <<<"$query_out"

# 4. Postfix increments whose value is unused: `i++;` statements and `; i++)` increments; one
#    perl over every file ($. restarts at each file's first line).
while IFS=: read -r f n text; do
    report "$f:$n: postfix ++/-- whose value is unused: write ++x/--x ($text)"
done < <(perl -ne 's{"(?:[^"\\]|\\.)*"}{""}g; s{/\*.*?\*/}{}g; s{//.*}{};
    print "$ARGV:$.:$_" if /^\s*[\w.\->\[\]]+(\+\+|--)\s*;/ || /;\s*[\w.\->\[\]]+(\+\+|--)\s*\)/ ||
                     /,\s*[\w.\->\[\]]+(\+\+|--)\s*\)\s*\{?\s*$/;
    close ARGV if eof' "${sources[@]}" | sed 's/[[:space:]]\+/ /g')

for f in "${sources[@]}"; do
    case "$f" in *.c) [ -n "${in_db[$f]:-}" ] || echo "check-style: note: $f is not compiled in $build; only its format and increments were checked" ;; esac
done
if [ "$problems" -gt 0 ]; then
    echo "check-style: $problems problems"
    exit 1
fi
echo "check-style: ${#sources[@]} files follow the dialect"
