#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares the cases of a subset export with the same cases of a full export (format 2.0):
every case of SUBSET is in FULL with the same entry (the places of its blobs, path and offset,
aside: they depend on the other cases selected) and every blob holds the same bytes.

usage: export_subset.py SUBSET FULL    prints the number of cases compared; exit 1 on a difference"""
import json
import os
import sys

PLACES = ("path", "offset")


def records(entry):
    """(name, record) of every blob and digest record of an entry."""
    out = [("files." + k, v) for k, v in entry.get("files", {}).items()]
    out += [(k, entry[k]) for k in ("initial", "expected") if k in entry]
    out += [("expected_by_policy." + k, v) for k, v in entry.get("expected_by_policy", {}).items()]
    return out


def without_places(entry):
    e = json.loads(json.dumps(entry))
    for _, rec in records(e):
        for k in PLACES:
            rec.pop(k, None)
    return e


class Export:
    def __init__(self, root):
        self.root, self.files = root, {}
        with open(os.path.join(root, "manifest.json")) as f:
            self.cases = {c["id"]: c for c in json.load(f)["cases"]}

    def blob(self, rec):
        if rec["path"] not in self.files:
            with open(os.path.join(self.root, rec["path"]), "rb") as f:
                self.files[rec["path"]] = f.read()
        return self.files[rec["path"]][rec["offset"]:rec["offset"] + rec["bytes"]]


def main():
    sub, full = Export(sys.argv[1]), Export(sys.argv[2])
    bad = 0
    for cid, entry in sub.cases.items():
        other = full.cases.get(cid)
        if other is None or without_places(entry) != without_places(other):
            print("differs: %s: %s" % (cid, "absent from the full export" if other is None
                                        else "its entry"))
            bad += 1
            continue
        for (name, rec), (_, rec2) in zip(records(entry), records(other)):
            if "path" in rec and sub.blob(rec) != full.blob(rec2):
                print("differs: %s: %s" % (cid, name))
                bad += 1
    print(len(sub.cases))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
