# SPDX-License-Identifier: MIT
# The option loop of the tools/ scripts, sourced by them: `. "$here/script-options.sh"`.

# script_options NAME HELP_LINES SPEC... -- ARG...
# Reads the script's arguments ARG...: -h/--help prints the script's own lines HELP_LINES (a sed
# range such as 2,24: its header comment, without the leading "# ") and exits 0; an option named
# in a SPEC sets a variable, "--opt:var" to the option's value (the next argument) and
# "--opt:var=value" to value; the argument that is not an option sets `out`; any other option is
# "NAME: unknown option X" on stderr and exit 2.
script_options() {
    local name=$1 help=$2 spec target known
    shift 2
    local -a specs=()
    while [ "$1" != "--" ]; do
        specs+=("$1")
        shift
    done
    shift
    while [ $# -gt 0 ]; do
        known=0
        for spec in "${specs[@]}"; do
            [ "${spec%%:*}" = "$1" ] || continue
            target=${spec#*:}
            if [[ $target == *=* ]]; then
                printf -v "${target%%=*}" '%s' "${target#*=}"
            else
                printf -v "$target" '%s' "$2"
                shift
            fi
            known=1
            break
        done
        if [ "$known" = 0 ]; then
            case "$1" in
            -h | --help) sed -n "${help}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            -*) echo "$name: unknown option $1" >&2; exit 2 ;;
            *) out=$1 ;;
            esac
        fi
        shift
    done
}
