# SPDX-License-Identifier: MIT
"""The tables of bitcts's docs that programs read: a Markdown table that follows a line
`<!-- bitcts:NAME -->`. Cells come back as text with the backquotes removed and `\\|` as `|`.
Used by rebuild_from_docs.py and check_doc_claims.py; nothing here knows bitcts's code."""
import os
import re

_ROW_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line):
    parts = _ROW_SPLIT.split(line.strip())[1:-1]
    return [p.strip().replace("\\|", "|").replace("`", "") for p in parts]


def tables(path):
    """{name: [row, ...]} where each row is {header: cell}, for every marked table of a page."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = {}
    i = 0
    while i < len(lines):
        m = re.match(r"\s*<!--\s*bitcts:([a-z0-9-]+)\s*-->\s*$", lines[i])
        i += 1
        if not m:
            continue
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i + 1 >= len(lines) or not lines[i].lstrip().startswith("|"):
            raise SystemExit(f"{path}: bitcts:{m.group(1)} is not followed by a table")
        header = _cells(lines[i])
        i += 2  # the header and the |---| line
        rows = []
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            cells = _cells(lines[i])
            if len(cells) != len(header):
                raise SystemExit(f"{path}:{i + 1}: {len(cells)} cells, the header has {len(header)}")
            rows.append(dict(zip(header, cells)))
            i += 1
        found[m.group(1)] = rows
    return found


def load(docs_dir):
    """Every marked table of the pages the plan is described on, by name."""
    out = {}
    for page in ("case-plan.md", "spec/operators.md", "spec/validation.md"):
        for name, rows in tables(os.path.join(docs_dir, page)).items():
            if name in out:
                raise SystemExit(f"bitcts:{name} is marked twice")
            out[name] = rows
    return out


def int_list(text):
    """"1, 2, 3" -> [1, 2, 3]."""
    return [int(x) for x in text.replace(" ", "").split(",") if x]


def ranks(text):
    """"1-8" -> [1..8]; "2" -> [2]; "1, 3" -> [1, 3]."""
    out = []
    for part in text.replace(" ", "").split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out
