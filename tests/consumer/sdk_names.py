#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lists every name the plugin SDK (include/bitcts/*.h) declares and checks that a source file
uses each one: macros, typedefs, static inline functions. Names a header defines and then
#undefs (X-macro helpers) and include guards are not part of the SDK's surface.
Usage: sdk_names.py INCLUDE_DIR SOURCE [--list]"""
import pathlib
import re
import sys


def sdk_names(include_dir):
    names = {}
    for header in sorted(pathlib.Path(include_dir, "bitcts").glob("*.h")):
        text = header.read_text()
        undefined = set(re.findall(r"^\s*#\s*undef\s+(\w+)", text, re.M))
        found = set(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M))
        found -= undefined
        found = {n for n in found if not re.fullmatch(r"BITCTS_INCLUDE_\w+_H", n)}
        found |= set(re.findall(r"^}\s*(\w+)\s*;", text, re.M))  # typedef struct ... } name;
        found |= set(re.findall(r"^typedef enum \w+ \{.*\}\s*(\w+)\s*;", text, re.M))
        found |= set(re.findall(r"^typedef\s[^;{]*?\(\s*\w*\s*\*\s*(\w+)\)\s*\(", text, re.M))
        found |= set(re.findall(r"^static inline [\w\s\*]*?\b(\w+)\s*\(", text, re.M))
        for name in found:
            names.setdefault(name, header.name)
    return names


def external_declarations(include_dir):
    """Function declarations with external linkage: a header-only SDK must have none."""
    found = []
    for header in sorted(pathlib.Path(include_dir, "bitcts").glob("*.h")):
        text = header.read_text()
        for m in re.finditer(r"^(?!typedef|static|#|extern \"C\")[A-Za-z_][\w \*]*?\b(\w+)\s*\(",
                             text, re.M):
            if m.group(1).isupper():  # a macro call such as a static assertion
                continue
            found.append(f"{header.name}: {m.group(1)}")
    return found


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    names = sdk_names(sys.argv[1])
    if "--list" in sys.argv[3:]:
        for name in sorted(names):
            print(f"{names[name]}: {name}")
        return 0
    declared = external_declarations(sys.argv[1])
    for name in declared:
        print(f"sdk_names: {name} is declared with external linkage; the SDK defines all it "
              "declares (static inline)", file=sys.stderr)
    if declared:
        return 1
    source = pathlib.Path(sys.argv[2]).read_text()
    used = set(re.findall(r"\w+", source))
    missing = sorted(n for n in names if n not in used)
    if len(names) < 40:
        print(f"sdk_names: only {len(names)} names found in {sys.argv[1]}: the scan is broken",
              file=sys.stderr)
        return 1
    if missing:
        for name in missing:
            print(f"sdk_names: {sys.argv[2]} does not use {name} ({names[name]})", file=sys.stderr)
        return 1
    print(f"sdk_names: {sys.argv[2]} uses all {len(names)} SDK names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
