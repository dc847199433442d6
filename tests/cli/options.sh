#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every command's options against its --help (both come from one table): every option --help
# names is accepted (a valued one asks for its value, a flag lets the parser go on), every option
# of another command that --help does not name is refused, an unknown option and a repeated
# non-repeatable one get one line and exit code 2. Then -j for run, and a repeated --filter is
# the union (run and list count the cases of both globs).
set -u
bitcts=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
fail=0
commands=("list" "eval" "vectors export" "vectors regen" "vectors verify" "run" "explore"
    "sweep" "bench" "check" "debug" "report diff" "report merge" "report render" "report matrix"
    "baseline update")

# Every command bitcts --help lists is here (with its actions for vectors and report).
for c in $("$bitcts" --help | awk '/^commands:/ {on = 1; next} on && !NF {exit} on {print $1}'); do
    printf '%s\n' "${commands[@]}" | grep -q "^$c\( \|$\)" || { echo "FAIL: command $c is not tested"; fail=1; }
done

# refused WANT ARGS...: exit code 2, one line on stderr, containing WANT.
refused() {
    local want=$1
    shift
    "$bitcts" "$@" >"$work/out" 2>"$work/err" </dev/null
    local rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$want" "$work/err"; then
        echo "FAIL: bitcts $* -> rc=$rc, stderr: $(cat "$work/err"), wanted: $want"
        fail=1
        return 1
    fi
}

# The options of a command's --help: from the usage line "NAME VALUE" or "NAME" (a flag), with
# "R" for a repeatable one ("[--filter GLOB]..."); from the option list, the names.
usage_options() { # usage_options CMD...: lines "NAME VALUE|- R|-"
    "$bitcts" "$@" --help | awk '!NF {exit} {print}' | tr '\n' ' ' | sed 's/^usage: bitcts [a-z]* \([a-z]* \)\?//' |
        awk '{ for (i = 1; i <= NF; ++i) {
                 t = $i; if (t !~ /^\[?--/) continue
                 rep = (t ~ /\]\.\.\.$/ ? "R" : "-"); name = t; gsub(/[][]|\.\.\./, "", name)
                 val = "-"
                 if (t !~ /\]/ && i < NF && $(i + 1) !~ /^\[?--/) { val = $(i + 1); rep = (val ~ /\]\.\.\.$/ ? "R" : rep); gsub(/[][]|\.\.\./, "", val); ++i }
                 print name, val, rep } }'
}
list_options() { # list_options CMD...: the long names in the option list, --help included
    "$bitcts" "$@" --help | awk '/^options:/ {on = 1; next} on && /^  -/ {print}' |
        sed -n 's/^  \(-[a-zA-Z], \)\?\(--[a-z0-9-]*\).*/\2/p'
}

all_options=$(for c in "${commands[@]}"; do
    # shellcheck disable=SC2086 # the words of c are separate arguments
    list_options $c
done | sort -u)
for c in "${commands[@]}"; do
    # shellcheck disable=SC2086
    set -- $c
    "$bitcts" "$@" --help >"$work/help" 2>"$work/err" && [ ! -s "$work/err" ] || { echo "FAIL: $c --help"; fail=1; }
    listed=$(list_options "$@" | sort)
    usage_options "$@" >"$work/usage"
    # The usage line and the option list name the same options.
    if [ "$(cut -d' ' -f1 "$work/usage" | sort)" != "$(grep -vx -- --help <<<"$listed")" ]; then
        echo "FAIL: $c: the usage line and the option list differ: $(cut -d' ' -f1 "$work/usage" | tr '\n' ' ') / $(tr '\n' ' ' <<<"$listed")"
        fail=1
    fi
    grep -qx -- --help <<<"$listed" || { echo "FAIL: $c --help does not list --help"; fail=1; }
    while read -r name val rep; do
        # Accepted: a valued option asks for its value; a flag lets the parser reach the next.
        if [ "$val" != - ]; then
            refused "$name needs a value" "$@" "$name"
            refused "$name needs a value" "$@" "$name="
        else
            refused "unknown option '--zz-next'" "$@" "$name" --zz-next
            refused "$name takes no value" "$@" "$name=1"
        fi
        # Repeated: refused unless repeatable; a repeatable one is not refused for the repeat.
        if [ "$rep" = R ]; then
            "$bitcts" "$@" "$name" x "$name" x >/dev/null 2>"$work/err" </dev/null
            ! grep -q "given twice" "$work/err" || { echo "FAIL: $c $name (repeatable) refused twice"; fail=1; }
        elif [ "$val" != - ]; then
            refused "$name given twice" "$@" "$name" x "$name" x
        else
            refused "$name given twice" "$@" "$name" "$name"
        fi
    done <"$work/usage"
    # Another command's option that this one does not list is refused, naming it.
    for other in $all_options; do
        grep -qx -- "$other" <<<"$listed" && continue
        "$bitcts" "$@" "$other" x >"$work/out" 2>"$work/err" </dev/null
        rc=$?
        if [ $rc -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] ||
            ! grep -qF -e "unknown option '$other' (see bitcts $c --help)" -e "$other is run's, not $c's" "$work/err"; then
            echo "FAIL: bitcts $c $other x -> rc=$rc, stderr: $(cat "$work/err")"
            fail=1
        fi
    done
    refused "unknown option '--no-such-option' (see bitcts $c --help)" "$@" --no-such-option
    refused "unknown option '--no-such-option' (see bitcts $c --help)" "$@" --no-such-option=3
done
echo "checked the options of ${#commands[@]} commands against their --help"

# -j is --jobs.
refused "--jobs: '0' is not a number from 1 to 256" run --backend cpu -j 0
refused "--jobs given twice" run --backend cpu -j 2 --jobs 2
sel_a='bit_not.uint8.r1.*'
sel_b='bit_and.uint8.r1.*'
count() { # count ARGS...: total cases of bitcts list ARGS --count
    "$bitcts" list "$@" --count | sed -n 's/^total cases: //p'
}
n_a=$(count --filter "$sel_a")
n_b=$(count --filter "$sel_b")
n_ab=$(count --filter "$sel_a" --filter "$sel_b")
if [ -z "$n_a" ] || [ "$n_a" -eq 0 ] || [ -z "$n_b" ] || [ "$n_b" -eq 0 ] || [ "$n_ab" != $((n_a + n_b)) ]; then
    echo "FAIL: list --filter A --filter B --count: $n_ab, not $n_a + $n_b"
    fail=1
fi
[ "$("$bitcts" list --filter "$sel_a" --filter "$sel_b" | wc -l)" = "$n_ab" ] || { echo "FAIL: list --filter A --filter B"; fail=1; }
"$bitcts" run --backend cpu -j 2 --filter "$sel_a" --filter "$sel_b" --report "$work/ab" --quiet >"$work/out" 2>"$work/err"
rc=$?
ran=$(sed -n 's/^\([0-9]*\) cases in .*/\1/p' "$work/out")
if [ $rc -ne 0 ] || [ "$ran" != "$n_ab" ] || ! grep -qF "\"filter\": \"$sel_a,$sel_b\"" "$work/ab/report.json"; then
    echo "FAIL: run -j 2 --filter A --filter B: rc=$rc, $ran cases, not $n_ab: $(cat "$work/err")"
    fail=1
fi
# A selection that matches nothing names every filter.
refused "the selection matches no case: --filter 'no_a*', --filter 'no_b*', --tier default" \
    run --backend cpu --filter 'no_a*' --filter 'no_b*' --report "$work/none"
[ $fail -eq 0 ] && echo "options: every check passed"
exit $fail
