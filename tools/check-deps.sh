#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The dependency rules of docs/layout.md, checked: every #include "..." of every C file is
# resolved to the folder that holds the header (file names are unique across the tree), and an
# edge the rules forbid fails the check. Third-party and system headers (#include <...>) are
# checked too: the SDK and the reference use the C standard library alone, jansson, xxHash,
# volk/Vulkan and libdl only where the rules allow them. And library code does not print,
# exit or parse argv: only harness/cli does (rule 8).
# Usage: tools/check-deps.sh [SOURCE_DIR]   (exit 0: clean; 1: violations, one line each)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# The layer of a folder: what the rules call it.
layer_of() {
    case "$1" in
    include/bitcts) echo sdk ;;
    reference) echo reference ;;
    generators) echo generators ;;
    vectors) echo vectors ;;
    reports) echo reports ;;
    backends/plugin) echo plugin ;;
    backends) echo builtin ;;
    backends/*) echo "backend:${1#backends/}" ;;
    harness) echo harness ;;
    harness/cli) echo cli ;;
    tests | tests/*) echo tests ;;
    *) echo other ;;
    esac
}

# The layers a layer may include (itself always).
allowed_layers() {
    case "$1" in
    sdk) echo "sdk" ;;
    reference) echo "sdk reference" ;;
    generators) echo "sdk reference generators" ;;
    vectors) echo "sdk reference generators vectors" ;;
    reports) echo "sdk reports" ;;
    plugin) echo "sdk plugin" ;;
    backend:*) echo "sdk $1" ;;
    builtin) echo "sdk builtin backend:*" ;;
    harness) echo "sdk reference generators vectors reports plugin builtin harness" ;;
    cli) echo "sdk reference generators vectors reports plugin builtin harness cli" ;;
    *) echo "*" ;;
    esac
}

# Third-party and system headers a layer may include beyond the C standard library.
c_std='assert|ctype|errno|float|inttypes|limits|math|stdalign|stdarg|stdatomic|stdbool|stddef|stdint|stdio|stdlib|stdnoreturn|string|time|uchar|wchar|wctype'
system_rule() { # layer -> regex of allowed <...> headers, "" for any
    case "$1" in
    sdk | reference) echo "^($c_std)\\.h\$" ;;
    generators) echo "^(($c_std)\\.h|xxhash\\.h|fnmatch\\.h)\$" ;;
    vectors) echo "^(($c_std)\\.h|xxhash\\.h|jansson\\.h)\$" ;;
    reports) echo "^(($c_std)\\.h|jansson\\.h)\$" ;;
    plugin) echo "^(($c_std)\\.h|xxhash\\.h|dlfcn\\.h|unistd\\.h|fcntl\\.h|sys/stat\\.h)\$" ;;
    backend:vulkan) echo '^(?!jansson\.h|xxhash\.h)' ;;
    backend:* | builtin) echo '^(?!jansson\.h|xxhash\.h|volk\.h|vulkan/)' ;;
    harness | cli) echo '^(?!volk\.h|vulkan/|immintrin\.h|arm_neon\.h)' ;;
    *) echo "" ;;
    esac
}

# The C files of the tree: git's list in a checkout, else every file below the root.
list_files() {
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git ls-files -co --exclude-standard -- "$@"
    else
        local patterns=()
        for p in "$@"; do patterns+=(-o -name "$p"); done
        find . -path ./.git -prune -o -type f \( "${patterns[@]:1}" \) -print | sed 's|^\./||'
    fi | grep -v '^build' | sort
}

# basename -> folder of every header.
declare -A header_dir
while IFS= read -r h; do
    name=$(basename "$h")
    if [ -n "${header_dir[$name]:-}" ]; then
        echo "check-deps: two headers named $name: ${header_dir[$name]}/$name and $h"
        exit 1
    fi
    header_dir[$name]=$(dirname "$h")
done < <(list_files '*.h')
# Headers the build generates, and the folder whose sources they belong to.
header_dir[vk_spirv.h]=backends/vulkan # the embedded SPIR-V (backends/vulkan/vk_embed.cmake)
header_dir[bench_peers_py.h]=harness   # the embedded peers script (harness/bench_peers_embed.cmake)

violations=0
fail() {
    echo "check-deps: $1"
    violations=$((violations + 1))
}

while IFS= read -r file; do
    dir=$(dirname "$file")
    layer=$(layer_of "$dir")
    [ "$layer" = other ] && continue
    allowed=" $(allowed_layers "$layer") "
    sysrule=$(system_rule "$layer")
    lineno=0
    while IFS= read -r line; do
        lineno=$((lineno + 1))
        if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
            inc=${BASH_REMATCH[1]}
            name=$(basename "$inc")
            target=${header_dir[$name]:-}
            if [ -z "$target" ]; then
                fail "$file:$lineno: includes \"$inc\", which is no header of the tree"
                continue
            fi
            tlayer=$(layer_of "$target")
            [ "$tlayer" = "$layer" ] && continue
            case "$allowed" in
            *" * "* | *" $tlayer "*) continue ;;
            esac
            if [[ $tlayer == backend:* && $allowed == *" backend:* "* ]]; then
                continue
            fi
            fail "$file:$lineno: $layer includes \"$inc\" ($tlayer, $target/): forbidden by docs/layout.md"
        elif [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
            inc=${BASH_REMATCH[1]}
            [ -z "$sysrule" ] && continue
            if ! grep -qP "$sysrule" <<<"$inc"; then
                fail "$file:$lineno: $layer includes <$inc>: forbidden by docs/layout.md"
            fi
        fi
    done <"$file"
    # Rule 8: libraries return statuses; only harness/cli prints for the user, exits and has
    # main(). Backends may log through the host; tests and tools are programs of their own.
    case "$layer" in
    cli | tests | other) ;;
    *)
        # Comments and string literals are blanked first, so that text about printing is fine.
        while IFS=: read -r n call; do
            fail "$file:$n: $layer calls $call: only harness/cli prints, exits or has main()"
        done < <(perl -0777 -ne '
            s{/\*.*?\*/}{ my $c = $&; $c =~ s/[^\n]//g; $c }gse;
            s{//[^\n]*}{}g;
            s{"(?:[^"\\\n]|\\.)*"}{""}g;
            my $n = 0;
            for my $l (split /\n/, $_, -1) {
                $n++;
                print "$n:$1\n" if $l =~ /\b(printf|puts|putchar|exit|abort)\s*\(/
                    || $l =~ /(fprintf\s*\(\s*(?:stdout|stderr))/ || $l =~ /\b(int\s+main)\s*\(/;
            }' "$file")
        ;;
    esac
done < <(list_files '*.c' '*.h')

# adapters/ (docs/check.md): Python programs that speak the documented formats (the export, the
# result files) and nothing else: no C, and no import of bitcts's tools or tests.
while IFS= read -r file; do
    case "$file" in
    adapters/*.py)
        while IFS=: read -r n mod; do
            fail "$file:$n: imports $mod: adapters use only the documented formats (bitcts_export.py)"
        done < <(grep -nE '^\s*(import|from)\s+(tools|tests|harness|vectors|reports|generators)\b' "$file" |
            sed -E 's/^([0-9]+):\s*(import|from)\s+([A-Za-z_.]+).*/\1:\3/')
        ;;
    adapters/*) fail "$file: adapters/ holds Python only (no C: the adapters never link bitcts)" ;;
    esac
done < <(list_files 'adapters/*')

if [ "$violations" -gt 0 ]; then
    echo "check-deps: $violations forbidden edges (rules: docs/layout.md)"
    exit 1
fi
echo "check-deps: every include follows docs/layout.md"
