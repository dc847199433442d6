#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lint.broken_plugins_derived: tests/plugins/broken_plugin.c is the example plugin's text plus
bugs. It strips from the broken plugin the block between /* BUG-DEFINITIONS-BEGIN */ and
/* BUG-DEFINITIONS-END */ and every bug block (an #if whose condition is only `BUG == BUG_<name>`
or `BUG != BUG_<name>` terms joined by ||, with #elif branches of the same kind), keeping an
#else branch's lines, then diffs the rest against backends/example/example_plugin.c: any
difference fails, printed as a unified diff. Every BUG_<name> a condition names must be defined
in the definitions block, and every bug defined there must be used.

With --self-test it also proves that the check is real: copies with one line of the example
changed, one shared line of the broken plugin changed, a line of an #else branch changed, a
misspelt bug name, or BUG used outside a bug block must each fail.

Usage: check_derived.py [--self-test] EXAMPLE BROKEN   (exit 0: derived; 1: not)"""
import difflib
import io
import os
import re
import sys
import tempfile

BEGIN = "/* BUG-DEFINITIONS-BEGIN */"
END = "/* BUG-DEFINITIONS-END */"
TERM = r"BUG\s*(?:==|!=)\s*BUG_\w+"
BUG_CONDITION = re.compile(rf"^\s*#\s*(if|elif)\s+({TERM}(?:\s*\|\|\s*{TERM})*)\s*(?:/\*.*\*/)?\s*$")
DIRECTIVE = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b")
DEFINED_BUG = re.compile(r"^\s*#\s*define\s+(BUG_\w+)\s+\d+")


class NotDerived(Exception):
    pass


def strip(lines, path):
    """The broken plugin's lines without its definitions block and bug blocks, as (line number,
    text, from an #else branch); and the bug names the conditions use and the definitions block
    defines."""
    begins = [i for i, line in enumerate(lines) if line.strip() == BEGIN]
    ends = [i for i, line in enumerate(lines) if line.strip() == END]
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise NotDerived(f"{path}: needs exactly one {BEGIN} ... {END} block")
    for i, line in enumerate(lines[:begins[0]]):
        if not re.match(r"^\s*(/\*.*\*/)?\s*$", line):
            raise NotDerived(f"{path}:{i + 1}: the definitions block must come before any code")
    defined = {m.group(1) for line in lines[begins[0]:ends[0]] if (m := DEFINED_BUG.match(line))}
    used = set()
    kept = []
    # A stack of the open conditionals: True for a bug block (with whether the current branch is
    # kept), False for any other #if, whose lines belong to the text around it.
    stack = []

    def keeping():
        return all(keep for is_bug, keep in stack if is_bug)

    for i, line in enumerate(lines):
        if begins[0] <= i <= ends[0]:
            continue
        where = f"{path}:{i + 1}"
        directive = DIRECTIVE.match(line)
        bug = BUG_CONDITION.match(line)
        if bug:
            used.update(re.findall(r"BUG_\w+", bug.group(2)))
        if directive is None:
            if re.search(r"\bBUG\b", line) and keeping():
                raise NotDerived(f"{where}: BUG outside a bug block: {line.strip()}")
            if keeping():
                kept.append((i + 1, line, any(is_bug for is_bug, _ in stack)))
            continue
        kind = directive.group(1)
        if kind in ("if", "ifdef", "ifndef"):
            if kind == "if" and bug is None and re.search(r"\bBUG\b", line):
                raise NotDerived(f"{where}: not a bug condition (BUG ==/!= BUG_<name> || ...): "
                                 f"{line.strip()}")
            if bug is not None:
                stack.append([True, False])
                continue
            stack.append([False, True])
        elif not stack:
            raise NotDerived(f"{where}: #{kind} without #if")
        elif stack[-1][0]:  # a branch of a bug block
            if kind == "elif":
                if bug is None:
                    raise NotDerived(f"{where}: #elif in a bug block must be a bug condition")
                continue
            if kind == "else":
                stack[-1][1] = True  # the example's own lines
                continue
            stack.pop()
            continue
        elif kind == "endif":
            stack.pop()
        if keeping():
            kept.append((i + 1, line, any(is_bug for is_bug, _ in stack)))
    if stack:
        raise NotDerived(f"{path}: {len(stack)} #if without #endif")
    return kept, used, defined


def check(example_path, broken_path, out=sys.stdout):
    """True when the broken plugin is derived from the example; prints why not."""
    with open(example_path) as f:
        example = f.read().splitlines()
    with open(broken_path) as f:
        broken = f.read().splitlines()
    try:
        kept, used, defined = strip(broken, broken_path)
    except NotDerived as e:
        print(f"FAIL: {e}", file=out)
        return False
    ok = True
    for name in sorted(used - defined - {"BUG_none"}):
        print(f"FAIL: {broken_path}: {name} is used in a condition but not defined", file=out)
        ok = False
    for name in sorted(defined - used - {"BUG_none"}):
        print(f"FAIL: {broken_path}: {name} is defined but no bug block uses it", file=out)
        ok = False
    text = [line for _, line, _ in kept]
    if text != example:
        diff = difflib.unified_diff(example, text, example_path,
                                    f"{broken_path} without its bug blocks", lineterm="")
        print(f"FAIL: {broken_path} is not {example_path} plus bug blocks:", file=out)
        print("\n".join(diff), file=out)
        ok = False
    if ok:
        print(f"ok: {broken_path} = {example_path} ({len(example)} lines) + "
              f"{len(broken) - len(example)} lines of definitions and bug blocks "
              f"({len(defined - {'BUG_none'})} bugs)", file=out)
    return ok


def self_test(example_path, broken_path):
    """Plants one change at a time in copies and requires the check to fail on each. The places
    are found, not named, so that edits to the example do not break the proof."""
    with open(example_path) as f:
        example = f.read().splitlines()
    with open(broken_path) as f:
        broken = f.read().splitlines()
    kept, _, _ = strip(broken, broken_path)
    shared = [n for n, line, from_else in kept if line.strip() and not from_else]
    in_else = [n for n, line, from_else in kept if line.strip() and from_else]
    conditions = [n for n, line in enumerate(broken, 1)
                  if BUG_CONDITION.match(line) and re.search(r"BUG_(?!none\b)\w+", line)]
    top = [n for n, _, from_else in kept if not from_else][:1]
    if not (shared and in_else and conditions and top):
        print("FAIL: self-test: the broken plugin has no shared line, #else branch or bug block")
        return False
    top = top[0]

    def changed(lines, n, new):
        return lines[:n - 1] + [new] + lines[n:]

    def planted(lines, n):
        return changed(lines, n, lines[n - 1] + " /* planted */")

    misspelt = re.sub(r"BUG_(?!none\b)(\w+)", r"BUG_\1x", broken[conditions[0] - 1], count=1)
    plants = [
        ("a line of the example", planted(example, len(example) // 2), broken),
        ("a shared line of the broken plugin", example, planted(broken, shared[len(shared) // 2])),
        ("an #else branch of the broken plugin", example, planted(broken, in_else[0])),
        ("a misspelt bug name", example, changed(broken, conditions[0], misspelt)),
        ("BUG used outside a bug block", example,
         broken[:top] + ["static const int planted = BUG;"] + broken[top:]),
    ]
    ok = True
    with tempfile.TemporaryDirectory() as work:
        paths = [os.path.join(work, os.path.basename(p)) for p in (example_path, broken_path)]
        for what, example_lines, broken_lines in plants:
            for path, lines in zip(paths, (example_lines, broken_lines)):
                with open(path, "w") as f:
                    f.write("\n".join(lines) + "\n")
            if check(paths[0], paths[1], out=io.StringIO()):
                print(f"FAIL: self-test: {what} was not caught")
                ok = False
            else:
                print(f"ok: self-test: {what} fails the check")
    return ok


def main(argv):
    args = [a for a in argv if a != "--self-test"]
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    ok = check(args[0], args[1])
    if ok and "--self-test" in argv:
        ok = self_test(args[0], args[1])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
