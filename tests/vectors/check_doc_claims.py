#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The docs' checkable claims against the plan: `bitcts list --tier all --json` on one side, the
marked tables of docs/case-plan.md, docs/spec/operators.md and docs/spec/validation.md (and the
case counts quoted in README.md) on the other. A doc edit that says something the plan does not
do fails here.

Checked: tier counts; the pattern table (which patterns apply to which operators, ranks and
tiers, exactly, for the default tier); the element caps; the value classes per operator; the
hex tables of constant edge and float-special values against their formulas; the large and
exhaustive tiers' cases and sizes; the negative cases against the negative-case table; the rule
list against the negative cases and the rules said to have none; operator and type numbers.

Usage: check_doc_claims.py BITCTS SOURCE_DIR"""
import collections
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_tables  # noqa: E402

M64 = (1 << 64) - 1
problems = []


def claim(ok, text):
    if not ok:
        problems.append(text)


def elements(tensor):
    n = 1
    for s in tensor["Sizes"]:
        n *= s
    return n


def evaluate(formula, **v):
    """A table formula on Python integers, wrapped to 64 bits."""
    return eval(formula, {}, v) & M64  # noqa: S307 - the docs' own formulas


def check_tiers(t, cases, readme):
    by_tier = collections.Counter(tier for c in cases for tier in c["tiers"])
    for row in t["tiers"]:
        claim(by_tier[row["Tier"]] == int(row["Cases"]),
              f"tiers: {row['Tier']} has {by_tier[row['Tier']]} cases, the table says {row['Cases']}")
    page = open(os.path.join(SRC, "docs", "case-plan.md")).read()
    m = re.search(r"`all` selects every tier \(([\d,]+) cases", page)
    claim(m is not None and int(m.group(1).replace(",", "")) == len(cases),
          f"case-plan.md: 'all' has {len(cases)} cases, the page says {m and m.group(1)}")
    m = re.search(r"the case plan \(([\d,]+) default-tier cases", readme)
    claim(m is not None and int(m.group(1).replace(",", "")) == by_tier["default"],
          f"README.md: the default tier has {by_tier['default']} cases, README says {m and m.group(1)}")


def applies(row, op, arity):
    who = row["Operators"]
    return (who == "all" or (who == "binary" and arity == 2) or (who == "unary" and arity == 1)
            or op in [o.strip() for o in who.split(",")])


def check_patterns(t, cases, arity):
    rows = {r["Pattern"]: r for r in t["patterns"]}
    seen = collections.defaultdict(set)  # (tier, op, rank) -> patterns
    for c in cases:
        if c["pattern"] in ("invalid", "mixed"):  # mixed: check_mixed
            continue
        row = rows.get(c["pattern"])
        if row is None:
            claim(False, f"patterns: {c['pattern']} ({c['id']}) is not in the pattern table")
            continue
        tier = "default" if "default" in c["tiers"] else c["tiers"][0]
        claim(row["Tier"] == tier, f"patterns: {c['id']} is in tier {tier}, the table says {row['Tier']}")
        claim(applies(row, c["operator"], arity[c["operator"]]),
              f"patterns: {c['pattern']} is used by {c['operator']}, the table says {row['Operators']}")
        claim(c["rank"] in doc_tables.ranks(row["Ranks"]),
              f"patterns: {c['id']} has rank {c['rank']}, the table says {row['Ranks']}")
        seen[(tier, c["operator"], c["rank"])].add(c["pattern"])
    for op in arity:
        for rank in range(1, 9):
            want = {p for p, r in rows.items() if r["Tier"] == "default" and applies(r, op, arity[op])
                    and rank in doc_tables.ranks(r["Ranks"])}
            got = seen[("default", op, rank)]
            claim(got == want, f"patterns: {op} rank {rank}: the plan has {sorted(got)}, "
                               f"the table says {sorted(want)}")
    for p, r in rows.items():
        if r["Tier"] != "default" and r["Operators"] not in ("all", "binary", "unary"):
            for op in r["Operators"].split(","):
                claim(any(op.strip() == o and p in s for (tier, o, _), s in seen.items()),
                      f"patterns: the table names {op.strip()} for {p}, the plan has no such case")


def check_caps(t, cases, budget):
    largest = collections.Counter()
    for c in cases:
        if "default" in c["tiers"] and c["pattern"] != "invalid":
            largest[c["pattern"]] = max(largest[c["pattern"]], elements(c["tensors"][-1]))
    covered = set()
    for row in t["caps"]:
        pats = [p.strip() for p in row["Patterns"].split(",")]
        covered.update(pats)
        got = max(largest[p] for p in pats)
        claim(got == int(row["Largest in the default tier"]),
              f"caps: {row['Patterns']}: the largest case has {got} elements, the table says "
              f"{row['Largest in the default tier']}")
        claim(got <= int(row["Largest possible"]), f"caps: {row['Patterns']} exceed their bound")
    claim(covered == set(largest), f"caps: patterns without a row: {sorted(set(largest) - covered)}")
    bounds = sorted(int(r["Largest possible"]) for r in t["caps"])
    claim(bounds == [budget, 3 * budget, 9 * budget],
          f"caps: the bounds {bounds} are not the budget times 1, 3 and 9")


def check_classes(t, cases):
    names = {}
    for row in t["value-classes"]:
        names.setdefault(row["n"], (row["Class"], set()))[1].add(row["Operators"])
    for c in cases:
        if c["pattern"] in ("invalid", "mixed") or "default" not in c["tiers"]:
            continue
        n = c["id"].rsplit(".", 1)[1]
        cls, who = names.get(n, (None, set()))
        shift = c["operator"].startswith("bit_shift")
        claim(cls == c["values"] and ("all" in who or (shift and "shifts" in who)),
              f"value classes: {c['id']} has class {c['values']}, the table says {cls} for {who}")


def check_mixed(t, cases):
    """The mixed family's table: its ids in plan order, their value classes, tier default only,
    and the count the page quotes (its layouts are checked byte for byte by
    rebuild_from_docs.py)."""
    mixed = [c for c in cases if c["pattern"] == "mixed"]
    rows = t["mixed"]
    claim([c["id"] for c in mixed] == [r["Id"] for r in rows],
          f"mixed: the table has {len(rows)} ids, the plan {len(mixed)}, or in another order")
    for c, r in zip(mixed, rows):
        claim(c["values"] == r["Values"], f"mixed: {c['id']} has class {c['values']}, the table "
                                          f"says {r['Values']}")
        claim(c["tiers"] == ["default"], f"mixed: {c['id']} is in tiers {c['tiers']}")
    page = open(os.path.join(SRC, "docs", "case-plan.md")).read()
    m = re.search(r"The result, (\d+) cases", page)
    claim(m is not None and int(m.group(1)) == len(mixed),
          f"case-plan.md: the mixed family has {len(mixed)} cases, the page says {m and m.group(1)}")
    names = [r["Layout"] for r in t["mixed-layouts"]]
    used = {r[k] for r in rows for k in ("A or Input", "B", "Output")} - {"-"}
    claim(used <= set(names), f"mixed: layouts outside the layout table: {sorted(used - set(names))}")


def check_value_tables(t):
    for table, width_cols in (("edge", {"8 bits": 8, "16 bits": 16, "32 bits": 32, "64 bits": 64}),
                              ("special", {"FLOAT16": 16, "FLOAT32": 32, "FLOAT64": 64})):
        formulas = {r["i"]: r["Formula"] for r in t[table]}
        claim(list(formulas) == [str(i) for i in range(len(formulas))], f"{table}: rows not 0..n-1")
        listed = {r["i"] for r in t[table + "-values"]}
        constant = {i for i, f in formulas.items() if not re.search(r"\b[rP]\b", f)}
        claim(listed == constant, f"{table}-values: rows {sorted(listed, key=int)}, the constant "
                                  f"entries are {sorted(constant, key=int)}")
        for row in t[table + "-values"]:
            for col, w in width_cols.items():
                f = {16: 10, 32: 23, 64: 52}.get(w, 0)
                v = dict(W=w, M=(1 << w) - 1, F=f, S=1 << (w - 1),
                         X=((1 << (w - 1 - f)) - 1) << f if f else 0, Q=1 << (f - 1) if f else 0,
                         ONE=((1 << (w - f - 2)) - 1) << f if f else 0)
                got = evaluate(formulas[row["i"]], **v)
                claim(got == int(row[col], 16), f"{table}-values: entry {row['i']} at {col} is "
                                                f"{row[col]}, its formula gives {got:#x}")


def check_fixed_tiers(t, cases, arity, types):
    large = [c for c in cases if "large" in c["tiers"]]
    claim([c["id"] for c in large] == [r["Id"] for r in t["large"]],
          "large: the table's ids are not the large tier's, in order")
    for c, r in zip(large, t["large"]):
        claim(c["tensors"][-1]["Sizes"] == doc_tables.int_list(r["Sizes"]),
              f"large: {c['id']} has Sizes {c['tensors'][-1]['Sizes']}, the table says {r['Sizes']}")
    want = set()
    for r in t["exhaustive"]:
        for op in r["Operators"].split(","):
            for ty in r["Input types"].split(","):
                outs = [ty.strip()] if r["Output types"] == "the input type" else r["Output types"].split(",")
                for out in outs:
                    ty, out = ty.strip(), out.strip()
                    want.add(f"{op.strip()}.{ty}.{out}.r1.exhaustive.0" if op.strip() == "bit_count"
                             else f"{op.strip()}.{ty}.r1.exhaustive.0")
        claim(int(r["Cases"]) == len(r["Operators"].split(",")) * len(r["Input types"].split(","))
              * (1 if r["Output types"] == "the input type" else len(r["Output types"].split(","))),
              f"exhaustive: the row for {r['Operators']} miscounts its cases")
    exhaustive = [c for c in cases if "exhaustive" in c["tiers"]]
    claim({c["id"] for c in exhaustive} == want, "exhaustive: the table's cases are not the tier's")
    for c in exhaustive:
        bits = types[c["input_type"].upper()][1]
        n = 65536 if arity[c["operator"]] == 2 or bits == 16 else 256
        claim(c["tensors"][-1]["Sizes"] == [n], f"exhaustive: {c['id']} does not have {n} elements")


def check_negative(t, cases, ops):
    want = []
    for op, _, _ in ops:
        for r in t["negative"]:
            who = r["Operators"]
            if (who == "all" or (who == "shifts" and op.startswith("bit_shift"))
                    or (who == "all but bit_count" and op != "bit_count") or who == op):
                types = "uint8.uint8" if op == "bit_count" else "uint8"
                want.append(f"{op}.{types}.r4.invalid_{r['Rule']}.{r['n']}")
    got = [c["id"] for c in cases if c["pattern"] == "invalid"]
    claim(got == want, f"negative: the plan has {len(got)} negative cases, the table gives {len(want)}; "
                       f"e.g. {sorted(set(got) ^ set(want))[:3]}")
    numbers = {}
    for r in t["rules"]:
        for rule in re.findall(r"[a-z_]+", r["Rule id"]):
            numbers.setdefault(rule, int(r["#"]))
    all_numbers = {int(r["#"]) for r in t["rules"]}
    with_cases = {numbers.get(c["rule"], -1) for c in cases if c["pattern"] == "invalid"}
    claim(-1 not in with_cases, "negative: a case names a rule the rule table does not have")
    without = {int(re.search(r"\((\d+)\)", r["Rule"]).group(1)) for r in t["no-negative"]}
    claim(with_cases | without == all_numbers and not with_cases & without,
          f"rules: with negative cases {sorted(with_cases)}, said to have none {sorted(without)}, "
          f"all {sorted(all_numbers)}")


def check_numbers(t, cases, ops, types):
    for c in cases:
        if c["pattern"] == "invalid":
            continue
        want = next(v for name, v, _ in ops if name == c["operator"])
        claim(c["operator_type"] == want, f"operators: {c['id']} has type {c['operator_type']}, not {want}")
        for x in c["tensors"]:
            claim(types[x["DataType"]][0] == x["DataTypeValue"],
                  f"types: {x['DataType']} is {x['DataTypeValue']}, the table says {types[x['DataType']][0]}")


def main():
    global SRC
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bitcts, SRC = sys.argv[1:]
    t = doc_tables.load(os.path.join(SRC, "docs"))
    text = subprocess.run([bitcts, "list", "--tier", "all", "--json"], check=True,
                          stdout=subprocess.PIPE, text=True).stdout
    cases = [json.loads(line) for line in text.splitlines()]
    ops = [(r["Operator"].lower(), int(r["DML_OPERATOR_TYPE"]), 2 if r["Inputs"].startswith("A") else 1)
           for r in t["operators"]]
    arity = {name: n for name, _, n in ops}
    types = {r["Type"]: (int(r["DML_TENSOR_DATA_TYPE"]), int(r["Bits"])) for r in t["types"]}
    budget = int({r["List"]: r["Values"] for r in t["sizes"]}["budget"])
    with open(os.path.join(SRC, "README.md")) as f:
        readme = f.read()
    check_tiers(t, cases, readme)
    check_patterns(t, cases, arity)
    check_caps(t, cases, budget)
    check_classes(t, cases)
    check_mixed(t, cases)
    check_value_tables(t)
    check_fixed_tiers(t, cases, arity, types)
    check_negative(t, cases, ops)
    check_numbers(t, cases, ops, types)
    print(f"{len(cases)} cases against {sum(len(v) for v in t.values())} rows of "
          f"{len(t)} tables in the docs")
    if problems:
        print("\n".join("FAIL: " + p for p in problems[:30]))
        sys.exit(1)
    print("every checked claim of the docs holds")


if __name__ == "__main__":
    main()
