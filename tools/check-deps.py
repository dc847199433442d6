#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The dependency rules of docs/layout.md, checked in one pass over the tree.

Every #include "..." of every C file is resolved to the folder that holds the header (file names
are unique across the tree), and an edge the rules forbid fails the check. Third-party and system
headers (#include <...>) are checked too: the SDK and the reference use the C standard library
alone; jansson, xxHash, volk/Vulkan and libdl only where the rules allow them. Library code does
not print, exit or have main(): only harness/cli does (rule 8). adapters/ holds Python programs
that import nothing of the tree (rule 10).

A file circle fails the check too: files of one folder that reach each other through the
functions and objects they define (a.c calls b.c's function and b.c, directly or through files
of the folder, calls a.c's); the shared function belongs in a file both use, or on one side.
--cycles also prints the count of circles when there are none. --overlay DIR reads a file from
DIR where DIR holds one at the same relative path, and checks DIR's other files as if they were
in the tree: the proof in tests/lint/check_deps.sh plants forbidden edges and a circle that
way, without a copy of the tree.

Usage: tools/check-deps.py [--cycles] [--overlay DIR] [SOURCE_DIR]
Exit 0: clean; 1: violations (forbidden edges and file circles), one line each; 2: usage.
"""

import argparse
import os
import re
import subprocess
import sys

C_STD = ("assert|ctype|errno|float|inttypes|limits|math|stdalign|stdarg|stdatomic|stdbool|"
         "stddef|stdint|stdio|stdlib|stdnoreturn|string|time|uchar|wchar|wctype")

# The layers a layer may include (itself always); "*" is anything, "backend:*" every backend.
ALLOWED = {
    "sdk": ["sdk"],
    "reference": ["sdk", "reference"],
    "generators": ["sdk", "reference", "generators"],
    "vectors": ["sdk", "reference", "generators", "vectors"],
    "reports": ["sdk", "reports"],
    "plugin": ["sdk", "plugin"],
    "builtin": ["sdk", "builtin", "backend:*"],
    # The harness's rooms, bottom to top: base < judge < sandbox < {run < explore, perf}. A
    # room may include the rooms below it; base and judge reach no backend (not even the host).
    "harness:base": ["sdk", "reference", "generators", "vectors", "reports"],
    "harness:judge": ["sdk", "reference", "generators", "vectors", "reports", "harness:base"],
    "harness:sandbox": ["sdk", "reference", "generators", "vectors", "reports", "plugin",
                        "builtin", "harness:base", "harness:judge"],
    "harness:run": ["sdk", "reference", "generators", "vectors", "reports", "plugin", "builtin",
                    "harness:base", "harness:judge", "harness:sandbox"],
    "harness:perf": ["sdk", "reference", "generators", "vectors", "reports", "plugin", "builtin",
                     "harness:base", "harness:judge", "harness:sandbox"],
    "harness:explore": ["sdk", "reference", "generators", "vectors", "reports", "plugin",
                        "builtin", "harness:base", "harness:judge", "harness:sandbox",
                        "harness:run"],
    "cli": ["sdk", "reference", "generators", "vectors", "reports", "plugin", "builtin",
            "harness:base", "harness:judge", "harness:sandbox", "harness:run", "harness:perf",
            "harness:explore", "cli"],
    "tests": ["*"],
}

# The rooms of harness/ (docs/layout.md): each folder is a layer of its own.
ROOMS = ("base", "judge", "sandbox", "run", "perf", "explore")

# Third-party and system headers a layer may include (a regex over the name in <...>), with the
# rule's words for the message. A layer without an entry may include any.
SYSTEM = {
    "sdk": (rf"^({C_STD})\.h$", "the C standard headers only"),
    "reference": (rf"^({C_STD})\.h$", "the C standard headers only"),
    "generators": (rf"^(({C_STD})\.h|xxhash\.h|fnmatch\.h)$", "the C standard headers, xxHash "
                   "and fnmatch"),
    "vectors": (rf"^(({C_STD})\.h|xxhash\.h|jansson\.h)$", "the C standard headers, xxHash and "
                "jansson"),
    "reports": (rf"^(({C_STD})\.h|jansson\.h)$", "the C standard headers and jansson"),
    "plugin": (rf"^(({C_STD})\.h|xxhash\.h|dlfcn\.h|unistd\.h|fcntl\.h|sys/stat\.h)$",
               "the C standard headers, xxHash, libdl and the POSIX file calls"),
    "backend:vulkan": (r"^(?!jansson\.h|xxhash\.h)", "no jansson or xxHash"),
    "backend": (r"^(?!jansson\.h|xxhash\.h|volk\.h|vulkan/)", "no jansson, xxHash or Vulkan"),
    "builtin": (r"^(?!jansson\.h|xxhash\.h|volk\.h|vulkan/)", "no jansson, xxHash or Vulkan"),
    "harness": (r"^(?!volk\.h|vulkan/|immintrin\.h|arm_neon\.h)", "no Vulkan and no SIMD "
                "intrinsics"),  # every room of harness/
    "cli": (r"^(?!volk\.h|vulkan/|immintrin\.h|arm_neon\.h)", "no Vulkan and no SIMD intrinsics"),
}

# SDK headers that are the backends' own: the layers that judge backends never use them (the
# reference keeps its own validation, so that a bug in the kit cannot hide the same bug).
BACKENDS_ONLY = {"bitcts_backend_kit.h": ("sdk", "reference", "generators", "vectors", "reports",
                                          "cli") + tuple("harness:" + r for r in ROOMS)}

# Headers the build generates, and the folder whose sources they belong to.
GENERATED = {
    "vk_spirv.h": "backends/vulkan",  # the embedded SPIR-V (backends/vulkan/vk_embed.cmake)
    "bench_peers_py.h": "harness/perf",  # the embedded peers script (bench_peers_embed.cmake)
}

INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*(?:"([^"]+)"|<([^>]+)>)')
# Rule 8, over code with comments and string literals blanked.
CALL_RE = re.compile(r"\b(printf|puts|putchar|exit|abort)\s*\("
                     r"|(fprintf\s*\(\s*(?:stdout|stderr))|\b(int\s+main)\s*\(")
ADAPTER_IMPORT_RE = re.compile(
    r"^\s*(?:import|from)\s+((?:tools|tests|harness|vectors|reports|generators)\b[A-Za-z_.]*)")


def layer_of(folder):
    """The layer of a folder: what the rules call it ("other" for folders they do not cover)."""
    fixed = {"include/bitcts": "sdk", "reference": "reference", "generators": "generators",
             "vectors": "vectors", "reports": "reports", "backends/plugin": "plugin",
             "backends": "builtin", "harness/cli": "cli"}
    if folder in fixed:
        return fixed[folder]
    if folder.startswith("harness/") and folder[len("harness/"):] in ROOMS:
        return "harness:" + folder[len("harness/"):]
    if folder.startswith("backends/"):
        return "backend:" + folder[len("backends/"):]
    if folder == "tests" or folder.startswith("tests/"):
        return "tests"
    return "other"


def allowed_layers(layer):
    if layer.startswith("backend:"):
        return ["sdk", layer]
    return ALLOWED.get(layer, ["*"])


def may_include(layer, target):
    allowed = allowed_layers(layer)
    if target == layer or "*" in allowed or target in allowed:
        return True
    return target.startswith("backend:") and "backend:*" in allowed


def system_rule(layer):
    if layer in SYSTEM:
        return SYSTEM[layer]
    if layer.startswith("harness:"):
        return SYSTEM["harness"]
    if layer.startswith("backend:"):
        return SYSTEM["backend"]
    return None


def walk(root):
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__")
                       and not (rel == "." and d.startswith("build"))]
        for name in filenames:
            files.append(os.path.normpath(os.path.join(rel, name)))
    return files


def list_files(root, overlay=None):
    """Every file of the tree, relative to root: git's list in a checkout, else a walk; and
    the overlay's files."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z"],
                             capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = walk(root)
    if overlay is not None:
        files += walk(overlay)
    return sorted(set(f for f in files if not f.startswith("build")))


def blank_comments_and_strings(text):
    """text with comments removed and string and character literals emptied; lines kept."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
        elif c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            j = i
            while j < n and text[j] not in "/\"'":
                j += 1
            out.append(text[i:j] if j > i else c)
            i = j if j > i else i + 1
    return "".join(out)


class Checker:
    def __init__(self, root, overlay):
        self.root = root
        self.overlay = overlay
        self.violations = []

    def read(self, rel):
        if self.overlay is not None:
            path = os.path.join(self.overlay, rel)
            if os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    return f.read()
        with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
            return f.read()

    def fail(self, message):
        self.violations.append(message)

    def run(self, want_cycles):
        files = list_files(self.root, self.overlay)
        c_files = [f for f in files if f.endswith((".c", ".h"))]
        header_dir = {}
        for h in (f for f in c_files if f.endswith(".h")):
            name = os.path.basename(h)
            if name in header_dir:
                print(f"check-deps: two headers named {name}: {header_dir[name]}/{name} and {h}")
                return 1
            header_dir[name] = os.path.dirname(h)
        header_dir.update(GENERATED)

        sources = {}  # the C sources of the libraries and the program, comments blanked
        for rel in c_files:
            layer = layer_of(os.path.dirname(rel))
            if layer == "other" and rel.startswith("harness/"):
                self.fail(f"{rel}: harness/'s C files live in its rooms ({', '.join(ROOMS)}) or "
                          "in harness/cli (docs/layout.md)")
            if layer == "other":
                continue
            text = self.read(rel)
            self.check_includes(rel, layer, text, header_dir)
            if layer == "tests":
                continue
            code = blank_comments_and_strings(text)
            if layer != "cli":
                self.check_calls(rel, layer, code)
            if rel.endswith(".c"):
                sources[rel] = code
        for rel in files:
            if rel.startswith("adapters/"):
                self.check_adapter(rel)

        self.violations += file_circles(sources)
        for v in self.violations:
            print(f"check-deps: {v}")
        if want_cycles:
            circles = sum(1 for v in self.violations if v.startswith("file circle in "))
            print(f"check-deps: {circles} file circles within a folder")
        if self.violations:
            print(f"check-deps: {len(self.violations)} forbidden edges (rules: docs/layout.md)")
            return 1
        print("check-deps: every include follows docs/layout.md")
        return 0

    def check_includes(self, rel, layer, text, header_dir):
        rule = system_rule(layer)
        for lineno, line in enumerate(text.split("\n"), 1):
            m = INCLUDE_RE.match(line)
            if m is None:
                continue
            inc, sysinc = m.group(1), m.group(2)
            if inc is not None:
                name = os.path.basename(inc)
                target = header_dir.get(name)
                if target is None:
                    self.fail(f'{rel}:{lineno}: includes "{inc}", which is no header of the tree')
                    continue
                tlayer = layer_of(target)
                if layer in BACKENDS_ONLY.get(name, ()) and layer != "sdk":
                    self.fail(f'{rel}:{lineno}: {layer} includes "{inc}": the backend kit is for '
                              f"backends and plugins; {layer} judges them with its own rules "
                              f"(docs/layout.md)")
                elif not may_include(layer, tlayer):
                    may = ", ".join(allowed_layers(layer))
                    self.fail(f'{rel}:{lineno}: {layer} includes "{inc}" ({tlayer}, {target}/): '
                              f"forbidden by docs/layout.md ({layer} may include {may})")
            elif rule is not None and re.search(rule[0], sysinc) is None:
                self.fail(f"{rel}:{lineno}: {layer} includes <{sysinc}>: forbidden by "
                          f"docs/layout.md ({layer} may use {rule[1]})")

    def check_calls(self, rel, layer, code):
        """Rule 8: libraries return statuses; only harness/cli prints for the user, exits and
        has main(). Backends may log through the host; tests and tools are programs of their
        own. code has its comments and string literals blanked: text about printing is fine."""
        for lineno, line in enumerate(code.split("\n"), 1):
            for m in CALL_RE.finditer(line):
                call = next(g for g in m.groups() if g is not None)
                self.fail(f"{rel}:{lineno}: {layer} calls {call}: only harness/cli prints, exits "
                          "or has main()")

    def check_adapter(self, rel):
        """adapters/ (docs/check.md): Python programs that speak the documented formats (the
        export, the result files) and nothing else: no C, no import of bitcts's tools or
        tests."""
        if not rel.endswith(".py"):
            self.fail(f"{rel}: adapters/ holds Python only (no C: the adapters never link bitcts)")
            return
        for lineno, line in enumerate(self.read(rel).split("\n"), 1):
            m = ADAPTER_IMPORT_RE.match(line)
            if m is not None:
                self.fail(f"{rel}:{lineno}: imports {m.group(1)}: adapters use only the "
                          "documented formats (bitcts_export.py)")


def top_level(code):
    """code with the text inside every outermost {...} dropped (the braces stay)."""
    out = []
    depth = 0
    for c in code:
        if c == "{":
            if depth == 0:
                out.append("{")
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                out.append("}")
        elif depth == 0:
            out.append(c)
    return "".join(out)


DEFINITION_SPLIT_RE = re.compile(r";|(?<=\))\s*\{\}")
FUNCTION_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*$")
OBJECT_RE = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=.*)?$", re.S)
NOT_EXTERNAL_RE = re.compile(r"\b(static|typedef|extern)\b")
IDENTIFIER_RE = re.compile(r"[A-Za-z_]\w*")


def definitions(code):
    """The names a C file defines with external linkage (functions and objects), and every
    identifier it names. code has its comments, strings and preprocessor lines blanked."""
    names = set()
    top = top_level(code)
    pos = 0
    for m in DEFINITION_SPLIT_RE.finditer(top):
        segment = top[pos:m.start()].strip()
        pos = m.end()
        if NOT_EXTERNAL_RE.search(segment) is not None:
            continue
        if m.group(0) != ";":
            found = FUNCTION_RE.search(segment)
        elif "(" not in segment.split("=")[0]:
            found = OBJECT_RE.search(segment)
        else:
            found = None
        if found is not None and found.group(1) not in ("struct", "union", "enum"):
            names.add(found.group(1))
    return names, set(IDENTIFIER_RE.findall(code))


def blank_directives(code):
    """code with its preprocessor lines blanked, a directive's continuation lines (a macro's
    body after a backslash) included; lines kept."""
    out = []
    directive = False
    for line in code.split("\n"):
        if not directive:
            directive = line.lstrip().startswith("#")
        out.append("" if directive else line)
        directive = directive and line.rstrip().endswith("\\")
    return "\n".join(out)


def file_circles(sources):
    """File circles: files of one folder that reach each other through the functions and
    objects they define (a.c calls b.c's function and b.c, through files of the folder, calls
    a.c's). One message per strongly connected set of files, with one circle through all of
    them, each step naming a function that makes it."""
    defined = {}
    named = {}
    for rel, code in sources.items():
        defined[rel], named[rel] = definitions(blank_directives(code))
    graph = {}
    why = {}
    for a in sources:
        graph[a] = set()
        for b in sources:
            if a == b or os.path.dirname(a) != os.path.dirname(b):
                continue
            shared = (named[a] & defined[b]) - defined[a]
            if shared:
                graph[a].add(b)
                why[a, b] = min(shared)
    messages = []
    for c in sorted(sorted(c) for c in strongly_connected(graph) if len(c) > 1):
        path = circle_through(graph, c)
        steps = [os.path.basename(path[0])]
        for a, b in zip(path, path[1:] + path[:1]):
            steps.append(f"({why[a, b]}) {os.path.basename(b)}")
        messages.append(f"file circle in {os.path.dirname(c[0])}/ ({len(c)} files): "
                        + " -> ".join(steps) + " (docs/layout.md: files of a folder call one way)")
    return messages


def strongly_connected(graph):
    """Tarjan's algorithm, iterative."""
    index = {}
    low = {}
    stack = []
    on_stack = set()
    result = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                result.append(component)
    return result


def circle_through(graph, component):
    """A closed walk that starts at the component's first module and visits all of its modules
    (shortest paths from one to the next, within the component)."""
    members = set(component)

    def shortest(a, b):
        prev = {a: None}
        queue = [a]
        for node in queue:
            for nxt in sorted(graph[node]):
                if nxt in members and nxt not in prev:
                    prev[nxt] = node
                    queue.append(nxt)
        path = []
        node = b
        while node != a:
            path.append(node)
            node = prev[node]
        return path[::-1]

    walk = [component[0]]
    for target in component[1:]:
        if target not in walk:
            walk += shortest(walk[-1], target)
    walk += shortest(walk[-1], component[0])[:-1]
    return walk


def main():
    parser = argparse.ArgumentParser(description="The dependency rules of docs/layout.md.")
    parser.add_argument("--cycles", action="store_true",
                        help="also print the count of file circles (each circle fails, with or "
                        "without this option)")
    parser.add_argument("--overlay", metavar="DIR",
                        help="check the tree as if DIR's files were written over it")
    parser.add_argument("root", nargs="?",
                        default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    return Checker(args.root, args.overlay).run(args.cycles)


if __name__ == "__main__":
    sys.exit(main())
