# SPDX-License-Identifier: MIT
"""The pages of the nightly site (tools/nightly.py): a night's summary from its reports, the
diff against the previous night, and the static pages (index, night, case pages, JUnit,
Markdown) with inline SVG charts. Layout and formats: docs/nightly.md."""
import html
import json
import os
import re
import shutil
import tempfile

FLAKE = "flake"
# The meaning of a verdict is bitcts's alone (bitcts report verdicts): use_verdicts() fills these
# before a night is summarised; the nightly orders, counts and classifies by them and by
# bitcts report diff, never by rules of its own.
FAILING = set()
HEALTHY = set()
VERDICT_ORDER = []
CHANGES = {}


def use_verdicts(table):
    """Takes bitcts's verdict table (bitcts report verdicts)."""
    verdicts = sorted(table["verdicts"], key=lambda v: v["value"])
    FAILING.clear()
    FAILING.update(v["name"] for v in verdicts if v["failure"])
    HEALTHY.clear()
    HEALTHY.update(v["name"] for v in verdicts if v["healthy"])
    VERDICT_ORDER[:] = [v["name"] for v in verdicts]
    CHANGES.clear()
    CHANGES.update(table["changes"])
PALETTE = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#1b7c83", "#e16f24",
           "#6e7781", "#d63384", "#116329"]


def esc(s):
    return html.escape(str(s), quote=True)


def facets(case_id):
    """(operator, type) of a plan id <op>.<in>[.<out>].r<rank>.<pattern>.<n>."""
    parts = case_id.split(".")
    for i in range(1, len(parts) - 1):
        if re.fullmatch(r"r\d+", parts[i]):
            return parts[0], ">".join(parts[1:i])
    return (parts[0] if len(parts) > 1 else ""), ""


def case_file(case_id):
    """A case page's file name: the id with anything but [A-Za-z0-9._-] as _xx."""
    return re.sub(r"[^A-Za-z0-9._-]", lambda m: "_%02x" % ord(m.group()), case_id) + ".html"


# ---- the night's summary (the history entry) ----

def backend_summary(name, r):
    be = r.get("backend", {})
    by_verdict = {}
    ops = {}
    matrix = {}
    for c in r["cases"]:
        v = c.get("verdict", "")
        by_verdict[v] = by_verdict.get(v, 0) + 1
        op, typ = facets(c.get("id", ""))
        op = c.get("operator") or op
        row = ops.setdefault(op, [0, 0, 0])
        cell = matrix.setdefault(op, {}).setdefault(typ, [0, 0, 0])
        for t in (row, cell):
            t[0] += 1
            t[1] += v in FAILING and v != FLAKE  # flakes are failures, counted apart
            t[2] += v == FLAKE
    total = len(r["cases"])
    healthy = sum(by_verdict.get(v, 0) for v in HEALTHY | {"expected_fail"})
    return {
        "name": name,
        "identity": {k: be.get(k, "") for k in ("name", "vendor", "version", "build_id", "spec",
                                                "library_xxh3_128", "feature_level")},
        "info": be.get("info", {}),
        "suite_version": r.get("suite_version", ""),
        "generator_version": r.get("generator_version", ""),
        "seed": r.get("seed", ""),
        "host": r.get("host", {}),
        "command_line": r.get("command_line", []),
        "duration_s": r.get("duration_s", 0),
        "cases": total,
        "by_verdict": by_verdict,
        "failing": sum(by_verdict.get(v, 0) for v in FAILING if v != FLAKE),
        "flakes": by_verdict.get(FLAKE, 0),
        "pass_rate": round(100.0 * healthy / total, 3) if total else 0.0,
        "ops": ops,
        "_matrix": matrix,
    }


def add_diff(name, d, out):
    """Appends one backend's bitcts report diff (its classes, its groups of regressions and what
    changed in its identity, as bitcts gives them) to out."""
    for key in ("regressions", "fixes", "changed"):
        out[key] += [{"backend": name, "id": e["id"], "from": e["from"], "to": e["to"],
                      "detail": e.get("detail", "")} for e in d.get(key, [])]
    out["groups"] += [dict(g, backend=name) for g in d.get("groups", [])]
    if d.get("provenance"):
        out["changes"]["backends"][name] = d["provenance"]
    out["digest_changed"] += [dict(e, backend=name) for e in d.get("digest_changed", [])]
    out["added_cases"] += len(d.get("added", []))
    out["removed_cases"] += len(d.get("removed", []))


# What of the night itself can explain a change (the backends' own: bitcts report diff's).
NIGHT_PROVENANCE = ("commit", "config_sha256", "tier", "filter", "seed", "repeat", "retry",
                    "host")


def night_changes(identity, prev):
    """What changed in the night's own identity since prev: [{"what", "from", "to"}]."""
    return [{"what": k, "from": prev.get(k), "to": identity.get(k)} for k in NIGHT_PROVENANCE
            if k in prev and prev.get(k) != identity.get(k)]


def failing_since(night_id, reports, before):
    """Each failing case (a failing verdict from bitcts, flakes apart) with the night it has
    failed since: before's night where it failed then and since, else this one. A backend that
    did not run keeps what it had."""
    out = {name: dict(m) for name, m in before.items() if name not in reports}
    for name, r in reports.items():
        had = before.get(name, {})
        out[name] = {c["id"]: had.get(c["id"], night_id) for c in r["cases"]
                     if c.get("verdict") in FAILING and c.get("verdict") != FLAKE}
    return out


def summarize_night(identity, reports, prev, prev_reports, problems, notes, bench, diffs,
                    since=None, retry=()):
    """diffs: bitcts report diff of each backend against its previous report, by name; since:
    failing_since() of this night; retry: shards whose environment failed (run exit 3)."""
    backends = {name: backend_summary(name, r) for name, r in reports.items()}
    diff = {"previous": prev["id"] if prev else "", "regressions": [], "fixes": [],
            "changed": [], "digest_changed": [], "added_cases": 0, "removed_cases": 0,
            "backends_added": [], "backends_removed": [], "not_compared": [],
            "compared_with": {}, "groups": [],
            "changes": {"night": night_changes(identity, prev) if prev else [], "backends": {}}}
    if prev is not None:
        for name in sorted(reports):
            if name in prev_reports and name in diffs and diffs[name] is not None:
                add_diff(name, diffs[name], diff)
                if prev_reports[name][0] != prev["id"]:
                    diff["compared_with"][name] = prev_reports[name][0]
            elif name in prev.get("backends", {}):
                diff["not_compared"].append(name)  # its report was pruned or unreadable
            else:
                diff["backends_added"].append(name)
                diff["added_cases"] += len(reports[name]["cases"])
        diff["backends_removed"] = sorted(n for n in prev.get("backends", {}) if n not in reports)
    flakes = []
    for name, r in sorted(reports.items()):
        for c in r["cases"]:
            if c.get("verdict") == FLAKE:
                flakes.append({"backend": name, "id": c["id"], "detail": c.get("detail", ""),
                               "runs": [x.get("verdict", "") for x in c.get("repeats", [])]})
    failing = sum(b["failing"] for b in backends.values())
    night = dict(identity)
    for e in diff["regressions"]:
        e["since"] = (since or {}).get(e["backend"], {}).get(e["id"], "")
    night.update({
        "status": "red" if failing else "retry" if retry else "green",
        "retry_shards": list(retry),
        "since": since or {},
        "problems": list(problems),
        "notes": list(notes),
        "backends": backends,
        "totals": {"backends": len(backends), "cases": sum(b["cases"] for b in backends.values()),
                   "failing": failing, "flakes": len(flakes),
                   "regressions": len(diff["regressions"])},
        "diff": diff,
        "flakes": flakes,
        "bench": bench,
    })
    return night


def strip_private(night):
    """The history entry: the night without its per-type matrix and its long lists."""
    h = {k: v for k, v in night.items() if k not in ("diff", "flakes", "since")}
    h["backends"] = {n: {k: v for k, v in b.items() if not k.startswith("_")}
                     for n, b in night["backends"].items()}
    d = night["diff"]
    h["diff_counts"] = {k: (len(v) if isinstance(v, (list, dict)) else v)
                        for k, v in d.items() if k not in ("previous", "changes")}
    h["changes"] = d["changes"]  # small: what changed in the night's and backends' identity
    h["previous"] = d["previous"]
    return h


# ---- page parts ----

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;color:#1f2328}
header{background:#24292f;color:#fff;padding:14px 24px}header h1{margin:0;font-size:22px}
header a{color:#9ecbff}main{padding:8px 24px 40px;max-width:1500px}
h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
.status{display:inline-block;padding:2px 12px;border-radius:12px;font-size:15px;margin-left:12px}
.green,.pass{background:#1a7f37}.retry{background:#6e7781}.red,.fail,.timeout,.crash,.missing,.internal_error,
.unexpected_pass{background:#cf222e}.problems,.flake,.warn{background:#9a6700}
table{border-collapse:collapse;margin:8px 0 12px}
th,td{border:1px solid #d0d7de;padding:3px 9px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.ok{background:#dafbe1}td.bad{background:#ffebe9}td.flaky{background:#fff8c5}
td.none{color:#afb8c1}code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
font-size:12.5px}pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;
padding:6px 10px;white-space:pre;overflow-x:auto}
.problem{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:8px 14px;margin:10px 0}
.note{color:#57606a}dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}
dl.meta dt{font-weight:600;color:#57606a}dl.meta dd{margin:0;word-break:break-all}
svg text{font:11px system-ui,sans-serif;fill:#57606a}
"""


def page(title, status, body, prov):
    badge = f'<span class="status {esc(status)}">{esc(status.upper())}</span>' if status else ""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n'
            f'<header><h1>{esc(title)}{badge}</h1></header>\n<main>\n{body}\n'
            f'<h2 id="provenance">Provenance</h2>\n{prov}\n</main>\n</body>\n</html>\n')


def provenance(night):
    rows = [("Night", night["id"]), ("Suite version", ", ".join(sorted(
        {b["suite_version"] for b in night["backends"].values()})) or "\u2014"),
        ("Commit", night.get("commit") or "\u2014"),
        ("Seed", ", ".join(sorted({b["seed"] for b in night["backends"].values()})) or "\u2014"),
        ("Tier", f"{night['tier']} (filter {night['filter'] or '*'}, --repeat {night['repeat']})"),
        ("Host", "{hostname} \u2014 {os}, {machine}".format(**night["host"])),
        ("Started / finished", f"{night['started']} \u2192 {night['finished']}"),
        ("Command line", " ".join(night["command_line"])), ("Config", night["config"])]
    out = ['<dl class="meta">']
    for k, v in rows:
        out.append(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>")
    for name, b in sorted(night["backends"].items()):
        i = b["identity"]
        lib = i["library_xxh3_128"] or "built-in"
        out.append(f"<dt>Backend {esc(name)}</dt><dd>{esc(i['name'])} \u2014 {esc(i['vendor'])} "
                   f"{esc(i['version'])}, build {esc(i['build_id'])}, feature level "
                   f"{esc(i['feature_level'])}, library <code>{esc(lib)}</code>; "
                   f"<code>{esc(' '.join(b['command_line']))}</code></dd>")
    out.append("</dl>")
    return "\n".join(out)


def problems_html(night):
    out = []
    for p in night["problems"]:
        out.append(f'<div class="problem"><b>Problem:</b> {esc(p)}</div>')
    for r in night.get("retry_shards", []):
        out.append(f'<div class="problem retry-shard"><b>Retry</b> (the environment failed, '
                   f'not the backend): {esc(r)}</div>')
    for n in night["notes"]:
        out.append(f'<p class="note">Note: {esc(n)}</p>')
    return "\n".join(out)


def cell_class(total, failing, flaky):
    return "none" if total == 0 else "bad" if failing else "flaky" if flaky else "ok"


def matrix_html(night, prefix):
    bs = night["backends"]
    names = sorted(bs)
    ops = []
    for b in bs.values():
        ops += [o for o in b["ops"] if o not in ops]
    out = ['<h2 id="matrix">Backends by operator</h2>',
           '<p class="note">Each cell: cases that did not fail / cases (failing, flakes). '
           'Green: nothing failed; yellow: flakes only; red: failures.</p>',
           '<table id="matrix-table"><tr><th>backend</th>']
    out += [f"<th>{esc(o)}</th>" for o in ops]
    out.append('<th class="n">pass rate</th><th>report</th></tr>')
    for n in names:
        b = bs[n]
        out.append(f"<tr><td><code>{esc(n)}</code></td>")
        for o in ops:
            t, f, fl = b["ops"].get(o, [0, 0, 0])
            extra = f" ({f} failing{', %d flaky' % fl if fl else ''})" if f or fl else ""
            out.append(f'<td class="n {cell_class(t, f, fl)}">{t - f - fl}/{t}{extra}</td>')
        out.append(f'<td class="n">{b["pass_rate"]:.2f}%</td><td><a href="{prefix}{esc(n)}/'
                   f'report.html">report</a> \u00b7 <a href="{prefix}{esc(n)}/cases/index.html">'
                   f'failing cases</a></td></tr>')
    out.append("</table>")
    # operator x type x backend
    out.append('<details id="by-type"><summary>By operator and type</summary>'
               '<table><tr><th>operator</th><th>type</th>')
    out += [f"<th>{esc(n)}</th>" for n in names]
    out.append("</tr>")
    for o in ops:
        types = []
        for b in bs.values():
            types += [t for t in b.get("_matrix", {}).get(o, {}) if t not in types]
        for t in types:
            out.append(f"<tr><td><code>{esc(o)}</code></td><td><code>{esc(t)}</code></td>")
            for n in names:
                tot, f, fl = bs[n].get("_matrix", {}).get(o, {}).get(t, [0, 0, 0])
                out.append(f'<td class="n {cell_class(tot, f, fl)}">{tot - f - fl}/{tot}</td>')
            out.append("</tr>")
    out.append("</table></details>")
    return "\n".join(out)


def case_link(prefix, e):
    return f'<a href="{prefix}{esc(e["backend"])}/cases/{esc(case_file(e["id"]))}"><code>' \
           f'{esc(e["id"])}</code></a>'


def diff_html(night, prefix, limit=500):
    d = night["diff"]
    out = ['<h2 id="diff">Changes since the previous night</h2>']
    if not d["previous"]:
        out.append('<p id="diff-none">No previous night to compare with.</p>')
        return "\n".join(out)
    total = len(d["regressions"]) + len(d["fixes"]) + len(d["digest_changed"]) + \
        len(d.get("changed", []))
    out.append(f'<p id="diff-summary">Against night {esc(d["previous"])}: '
               f'<b>{len(d["regressions"])} regressions</b>, {len(d["digest_changed"])} output '
               f'hash changes, {len(d["fixes"])} fixes, {d["added_cases"]} cases added, '
               f'{d["removed_cases"]} removed.</p>')
    for key, label in (("backends_added", "New backends"), ("backends_removed",
                                                            "Backends gone"),
                       ("not_compared", "Not compared (no previous report kept)")):
        if d[key]:
            out.append(f"<p>{label}: {esc(', '.join(d[key]))}</p>")
    for name, nid in sorted(d.get("compared_with", {}).items()):
        out.append(f"<p>{esc(name)} did not run in {esc(d['previous'])}: compared with night "
                   f"{esc(nid)}.</p>")
    out.append(changes_html(d))
    if total == 0:
        out.append('<p id="diff-empty">No case changed verdict or output hash.</p>')
    out.append(groups_html(d, prefix))
    sections = (("digest_changed", "Output hash changes", False), ("fixes", "Fixes", True),
                ("changed", "Other verdict changes", True))
    for key, label, verdicts in sections:
        rows = d.get(key, [])
        if not rows:
            continue
        out.append(f'<h3 id="{key}">{label} ({len(rows)})</h3>')
        by = {}
        for e in rows:
            by[e["backend"]] = by.get(e["backend"], 0) + 1
        out.append('<p class="note">' + ", ".join(f"{esc(b)}: {n}" for b, n in
                                                  sorted(by.items(), key=lambda x: -x[1]))
                   + "</p>")
        out.append(f'<table id="{key}-table"><tr><th>backend</th><th>case</th>' +
                   ("<th>from</th><th>to</th><th>detail</th>" if verdicts else
                    "<th>verdict</th><th>from</th><th>to</th>") + "</tr>")
        for e in rows[:limit]:
            if verdicts:
                out.append(f"<tr><td>{esc(e['backend'])}</td><td>{case_link(prefix, e)}</td>"
                           f"<td>{esc(e['from'])}</td><td>{esc(e['to'])}</td>"
                           f"<td>{esc(e['detail'])}</td></tr>")
            else:
                out.append(f"<tr><td>{esc(e['backend'])}</td><td><code>{esc(e['id'])}</code>"
                           f"</td><td>{esc(e['verdict'])}</td><td><code>{esc(e['from'])}</code>"
                           f"</td><td><code>{esc(e['to'])}</code></td></tr>")
        out.append("</table>")
        if len(rows) > limit:
            out.append(f'<p class="note">{len(rows) - limit} more: every one is in diff.json '
                       f'and in each backend\'s report (searchable).</p>')
    return "\n".join(out)


def show_value(v):
    return "\u2014" if v is None or v == "" else v if isinstance(v, str) else \
        json.dumps(v, sort_keys=True)


def changes_html(d):
    """What changed between the two nights, at the top: where a cause would be."""
    rows = [("night", c) for c in d["changes"]["night"]]
    rows += [(name, c) for name, cs in sorted(d["changes"]["backends"].items()) for c in cs]
    out = [f'<h3 id="what-changed">What changed since {esc(d["previous"])}</h3>']
    if not rows:
        out.append('<p id="nothing-changed">Nothing: the same bitcts commit, config, seed and '
                   'host, and every backend with the same library, device and driver.</p>')
        return "\n".join(out)
    out.append('<table id="what-changed-table"><tr><th>where</th><th>what</th><th>before</th>'
               '<th>now</th></tr>')
    for where, c in rows:
        out.append(f"<tr><td>{esc(where)}</td><td>{esc(c['what'])}</td><td><code>"
                   f"{esc(show_value(c['from']))}</code></td><td><code>"
                   f"{esc(show_value(c['to']))}</code></td></tr>")
    out.append("</table>")
    return "\n".join(out)


SEARCH_JS = """<script>
function bitctsFilter(q){q=q.toLowerCase();var n=0;
document.querySelectorAll('#regressions tr.r').forEach(function(r){
var on=r.textContent.toLowerCase().indexOf(q)>=0;r.style.display=on?'':'none';n+=on;});
document.querySelectorAll('#regressions details').forEach(function(g){
g.open=q!==''&&g.querySelector('tr.r:not([style*="none"])')!==null||g.dataset.first==='1';});
document.getElementById('regressions-shown').textContent=n;}
</script>"""


def groups_html(d, prefix):
    """Every regression, in the groups bitcts report diff gave (one verdict, operator and
    message), each with the night it has failed since; a search over all of them."""
    regs = {(e["backend"], e["id"]): e for e in d["regressions"]}
    if not regs:
        return ""
    out = [f'<section id="regressions"><h3>Regressions ({len(regs)}, in '
           f'{len(d["groups"])} groups)</h3>', SEARCH_JS,
           '<p><input id="regressions-search" type="search" size="50" '
           'placeholder="search: a case id, a type, a verdict, a night" '
           'oninput="bitctsFilter(this.value)"> <span id="regressions-shown">'
           f'{len(regs)}</span> shown</p>']
    for i, g in enumerate(d["groups"]):
        sp = g.get("spread", {})
        facets = ", ".join(f"{k} {v.get('top', '')}" + (f" (+{v['distinct'] - 1} more)"
                                                          if v.get("distinct", 0) > 1 else "")
                           for k, v in sp.items() if k != "operator")
        was = ", ".join(f"{k} {n}" for k, n in sorted(g.get("from", {}).items()))
        out.append(f'<details data-first="{1 if i == 0 else 0}"{" open" if i == 0 else ""}>'
                   f'<summary><b>{esc(g["backend"])}</b>: {g["count"]} to <b>'
                   f'{esc(g["verdict"])}</b> in {esc(g["operator"])}: '
                   f'&ldquo;{esc(g["signature"])}&rdquo; (was {esc(was)}; {esc(facets)})'
                   f'</summary>\n<table class="group"><tr><th>case</th><th>from</th><th>to</th>'
                   '<th>failing since</th><th>detail</th></tr>')
        for cid in g["ids"]:
            e = regs.get((g["backend"], cid))
            if e is None:
                continue
            out.append(f'<tr class="r"><td>{case_link(prefix, e)}</td><td>{esc(e["from"])}</td>'
                       f'<td>{esc(e["to"])}</td><td>{esc(e.get("since", ""))}</td>'
                       f'<td>{esc(e["detail"])}</td></tr>')
        out.append("</table></details>")
    out.append("</section>")
    return "\n".join(out)


def flakes_html(night, prefix):
    fl = night["flakes"]
    out = [f'<h2 id="flakes">Flakes ({len(fl)})</h2>',
           f'<p class="note">Cases whose runs disagreed under --repeat {night["repeat"]}: listed '
           f'here, not counted as failures of the night.</p>']
    if not fl:
        out.append("<p>None.</p>")
        return "\n".join(out)
    by = {}
    for e in fl:
        by[e["backend"]] = by.get(e["backend"], 0) + 1
    out.append(f'<details id="flakes-list"{" open" if len(fl) <= 20 else ""}><summary>'
               + ", ".join(f"{esc(b)}: {n}" for b, n in sorted(by.items())) + '</summary>')
    out.append('<table id="flakes-table"><tr><th>backend</th><th>case</th><th>runs</th>'
               '<th>detail</th></tr>')
    for e in fl:
        out.append(f"<tr><td>{esc(e['backend'])}</td><td>{case_link(prefix, e)}</td>"
                   f"<td>{esc(', '.join(e['runs']))}</td><td>{esc(e['detail'])}</td></tr>")
    out.append("</table></details>")
    return "\n".join(out)


def line_chart(series, labels, ylabel, ymax=None, ident="chart"):
    """An inline SVG line chart: series {name: [value or None per label]}."""
    w, h, left, bottom, top, right = 760, 240, 50, 30, 12, 170
    values = [v for s in series.values() for v in s if v is not None]
    if not values or not labels:
        return f'<p class="note" id="{ident}">Nothing to plot yet.</p>'
    hi = ymax if ymax is not None else max(values) * 1.1 or 1.0
    lo = 0.0 if ymax is None else min(0.0, min(values))
    if ymax is not None and min(values) > 50:
        lo = max(0.0, (min(values) // 10) * 10 - 10)
    n = len(labels)

    def x(i):
        return left + (w - left - right) * (i / (n - 1) if n > 1 else 0.5)

    def y(v):
        return top + (h - top - bottom) * (1 - (v - lo) / ((hi - lo) or 1))

    out = [f'<svg id="{ident}" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'role="img" aria-label="{esc(ylabel)}">',
           f'<rect x="{left}" y="{top}" width="{w - left - right}" height="{h - top - bottom}" '
           f'fill="#fff" stroke="#d0d7de"/>']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        out.append(f'<line x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="#eaeef2"/><text x="{left - 4}" y="{y(v) + 4:.1f}" '
                   f'text-anchor="end">{v:.3g}</text>')
    step = max(1, n // 6)
    for i in range(0, n, step):
        out.append(f'<text x="{x(i):.1f}" y="{h - 10}" text-anchor="middle">'
                   f'{esc(labels[i][:10])}</text>')
    for k, (name, vals) in enumerate(sorted(series.items())):
        color = PALETTE[k % len(PALETTE)]
        pts = [(x(i), y(v)) for i, v in enumerate(vals) if v is not None]
        if len(pts) > 1:
            out.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="' +
                       " ".join(f"{a:.1f},{b:.1f}" for a, b in pts) + '"/>')
        for a, b in pts:
            out.append(f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{color}"/>')
        out.append(f'<text x="{w - right + 10}" y="{top + 14 * k + 10}" fill="{color}" '
                   f'style="fill:{color}">\u25a0 {esc(name)}</text>')
    out.append(f'<text x="12" y="{top + 10}">{esc(ylabel)}</text></svg>')
    return "\n".join(out)


def history_html(history, prefix_site):
    nights = history["nights"]
    labels = [n["id"] for n in nights]
    names = sorted({b for n in nights for b in n.get("backends", {})})
    rates = {b: [n["backends"][b]["pass_rate"] if b in n.get("backends", {}) else None
                 for n in nights] for b in names}
    out = [f'<h2 id="history">History ({len(nights)} nights)</h2>',
           "<p>Pass rate per backend (cases that did not fail or flake):</p>",
           line_chart(rates, labels, "pass rate %", ymax=100.0, ident="chart-pass-rate")]
    ops = sorted({op for n in nights for op in n.get("bench", {})})
    if ops:
        ratios = {op: [n.get("bench", {}).get(op) for n in nights] for op in ops}
        out.append("<p>Benchmark: median ratio of GB/s to the measured memory limit "
                   "(bitcts bench --quick):</p>")
        out.append(line_chart(ratios, labels, "ratio to limit", ident="chart-bench"))
    out.append('<table id="history-table"><tr><th>night</th><th>status</th><th class="n">cases'
               '</th><th class="n">failing</th><th class="n">flakes</th><th class="n">'
               'regressions</th><th>problems</th><th>commit</th></tr>')
    for n in reversed(nights):
        link = f'<a href="{prefix_site}nights/{esc(n["id"])}/index.html">{esc(n["id"])}</a>'
        t = n.get("totals", {})
        out.append(f'<tr><td>{link}</td><td class="{ "ok" if n.get("status") == "green" else "bad"}'
                   f'">{esc(n.get("status", ""))}</td><td class="n">{t.get("cases", 0)}</td>'
                   f'<td class="n">{t.get("failing", 0)}</td><td class="n">{t.get("flakes", 0)}'
                   f'</td><td class="n">{t.get("regressions", 0)}</td><td>'
                   f'{len(n.get("problems", []))}</td><td><code>{esc(n.get("commit", "")[:12])}'
                   f'</code></td></tr>')
    out.append("</table>")
    return "\n".join(out)


def night_body(night, history, prefix, prefix_site):
    t = night["totals"]
    head = (f'<p id="overview">Night <b>{esc(night["id"])}</b>: {t["backends"]} backends, '
            f'{t["cases"]} cases, <b>{t["failing"]} failing</b>, {t["flakes"]} flakes, '
            f'{t["regressions"]} regressions. Downloads: <a href="{prefix}junit.xml">junit.xml'
            f'</a>, <a href="{prefix}summary.md">summary.md</a>, <a href="{prefix}diff.json">'
            f'diff.json</a>, <a href="{prefix_site}history.json">history.json</a>.</p>')
    return "\n".join([problems_html(night), head, diff_html(night, prefix),
                      matrix_html(night, prefix), flakes_html(night, prefix),
                      history_html(history, prefix_site)])


def night_status(night):
    """red (a case failed) > retry (a shard's environment failed: run it again) > problems >
    green."""
    return "problems" if night["problems"] and night["status"] == "green" else night["status"]


# ---- case pages ----

def hex_to_bin(text):
    """"0x0f" -> "00001111"; "" for anything else."""
    if not isinstance(text, str) or not re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
        return ""
    return "".join(format(int(d, 16), "04b") for d in text[2:])


def case_page(night, backend, c, prov):
    f = c.get("failure") or {}
    first = f.get("first") or {}
    body = [f'<p><a href="../../index.html">night {esc(night["id"])}</a> \u203a '
            f'<a href="index.html">{esc(backend)}: failing cases</a> \u203a '
            f'<a href="../report.html#q={esc(c["id"])}">in the grouped report</a></p>',
            f'<h2>{esc(c["id"])}</h2>', f'<p>verdict <b id="verdict">{esc(c.get("verdict"))}'
            f'</b> on <code>{esc(backend)}</code>, {c.get("duration_ms", 0):.3f} ms</p>']
    if c.get("detail"):
        body.append(f'<p id="detail">{esc(c["detail"])}</p>')
    if first:
        body.append(f'<p>{f.get("mismatches")} of {f.get("elements")} elements differ; the first '
                    f'at index {first.get("index")}, coordinates {esc(first.get("coords"))}:</p>')
        body.append("<table><tr><th></th><th>hex</th><th>binary</th></tr>")
        inputs = first.get("inputs", [])
        for i, v in enumerate(inputs):
            label = "input" if len(inputs) == 1 else "input " + "ABCD"[i % 4]
            body.append(f"<tr><th>{label}</th><td><code>{esc(v)}</code></td><td><code>"
                        f"{esc(hex_to_bin(v))}</code></td></tr>")
        for k in ("expected", "actual"):
            body.append(f"<tr><th>{k}</th><td><code>{esc(first.get(k, ''))}</code></td>"
                        f"<td><code>{esc(first.get(k + '_bin', ''))}</code></td></tr>")
        body.append("</table>")
    runs = c.get("repeats") or []
    if runs:
        body.append("<p>runs: " + ", ".join(esc(r.get("verdict", "")) for r in runs) + "</p>")
    for w in c.get("warnings") or []:
        body.append(f"<p>warning: {esc(w)}</p>")
    if c.get("baseline"):
        body.append(f"<p>baseline: {esc(c['baseline'])}</p>")
    since = night.get("since", {}).get(backend, {}).get(c["id"])
    if since:
        body.append(f'<p id="since">failing since night <b>{esc(since)}</b>'
                    + (" (tonight)" if since == night["id"] else "") + "</p>")
    body.append(f'<h3>Reproduce</h3><pre id="repro">{esc(c.get("repro", ""))}</pre>')
    return page(f"{c['id']} \u2014 {backend}", c.get("verdict", ""), "\n".join(body), prov)


def write_case_pages(night_dir, night, name, report, prov):
    d = os.path.join(night_dir, name, "cases")
    os.makedirs(d, exist_ok=True)
    listed = [c for c in report["cases"] if c.get("verdict") in FAILING | {FLAKE}]
    rows = []
    for c in listed:
        with open(os.path.join(d, case_file(c["id"])), "w", encoding="utf-8") as f:
            f.write(case_page(night, name, c, prov))
        since = night.get("since", {}).get(name, {}).get(c["id"], "")
        rows.append(f'<tr><td><a href="{esc(case_file(c["id"]))}"><code>{esc(c["id"])}</code>'
                    f'</a></td><td>{esc(c.get("verdict"))}</td><td>{esc(since)}</td><td>'
                    f'{esc(c.get("detail", ""))}</td></tr>')
    body = (f'<p><a href="../../index.html">night {esc(night["id"])}</a> \u203a {esc(name)}; '
            f'<a href="../report.html">the grouped, searchable report</a></p>'
            f'<h2>Failing and flaky cases ({len(listed)})</h2>'
            f'<table id="cases-table"><tr><th>case</th><th>verdict</th><th>failing since</th>'
            f'<th>detail</th></tr>'
            + "\n".join(rows) + "</table>")
    with open(os.path.join(d, "index.html"), "w", encoding="utf-8") as f:
        f.write(page(f"{name}: failing cases \u2014 night {night['id']}", "", body, prov))


# ---- JUnit and Markdown ----

def junit(night):
    """One test suite per backend, one test per operator and type; flakes are not failures."""
    cells_all = [c for b in night["backends"].values() for t in b["_matrix"].values()
                 for c in t.values()]
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="bitcts nightly {esc(night["id"])}" tests="{len(cells_all)}" '
           f'failures="{sum(1 for c in cells_all if c[1])}">']
    for name, b in sorted(night["backends"].items()):
        cells = [(o, t, c) for o, ts in b["_matrix"].items() for t, c in ts.items()]
        out.append(f'<testsuite name="{esc(name)}" tests="{len(cells)}" failures="'
                   f'{sum(1 for _, _, c in cells if c[1])}" time="{b["duration_s"]:.3f}">')
        for o, t, c in cells:
            out.append(f'<testcase classname="{esc(name)}.{esc(o)}" name="{esc(o)}.{esc(t)}">')
            if c[1]:
                out.append(f'<failure message="{c[1]} of {c[0]} cases failed">see '
                           f'nights/{esc(night["id"])}/{esc(name)}/report.html</failure>')
            if c[2]:
                out.append(f"<system-out>{c[2]} flaky cases (not failures)</system-out>")
            out.append("</testcase>")
        out.append("</testsuite>")
    out.append("</testsuites>")
    return "\n".join(out) + "\n"


def markdown(night):
    t = night["totals"]
    d = night["diff"]
    out = [f"# bitcts nightly {night['id']}: {night_status(night).upper()}", "",
           f"{t['backends']} backends, {t['cases']} cases, **{t['failing']} failing**, "
           f"{t['flakes']} flakes, {t['regressions']} regressions; commit "
           f"`{night.get('commit') or '-'}`, tier {night['tier']}.", ""]
    for p in night["problems"]:
        out.append(f"- **Problem:** {p}")
    out += ["", "| backend | cases | failing | flakes | pass rate |", "|---|---:|---:|---:|---:|"]
    for name, b in sorted(night["backends"].items()):
        out.append(f"| `{name}` | {b['cases']} | {b['failing']} | {b['flakes']} | "
                   f"{b['pass_rate']:.2f}% |")
    for r in night.get("retry_shards", []):
        out.append(f"- **Retry (the environment failed):** {r}")
    if d["previous"]:
        out += ["", f"## Since {d['previous']}: {len(d['regressions'])} regressions, "
                f"{len(d['digest_changed'])} hash changes, {len(d['fixes'])} fixes", ""]
        changes = [("night", c) for c in d["changes"]["night"]] + \
            [(n, c) for n, cs in sorted(d["changes"]["backends"].items()) for c in cs]
        out.append("What changed: " + ("nothing (same commit, config, seed, host, libraries, "
                                       "devices)" if not changes else ""))
        out += [f"- {w}: `{c['what']}` {show_value(c['from'])} -> {show_value(c['to'])}"
                for w, c in changes]
        since = {(e["backend"], e["id"]): e.get("since", "") for e in d["regressions"]}
        for g in d["groups"]:
            out += ["", f"### `{g['backend']}`: {g['count']} to {g['verdict']} in "
                    f"{g['operator']}: \"{g['signature']}\"", ""]
            out += [f"- `{cid}` (failing since {since.get((g['backend'], cid)) or '-'})"
                    for cid in g["ids"][:10]]
            if len(g["ids"]) > 10:
                out.append(f"- ... {len(g['ids']) - 10} more: every one on the night's page "
                           "(searchable) and in diff.json")
    if night["flakes"]:
        out += ["", f"## Flakes ({len(night['flakes'])})", ""]
        out += [f"- `{e['backend']}` `{e['id']}`: {', '.join(e['runs'])}"
                for e in night["flakes"][:50]]
    return "\n".join(out) + "\n"


# ---- the site ----

def write_text(path, text):
    """path holds text whole or not at all: a temporary file beside it, then a rename."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".tmp-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_site(site, night_dir, history, night, reports):
    """Writes the night's folder and the site's front page; replaces the history entry."""
    prov = provenance(night)
    for name, r in reports.items():
        write_case_pages(night_dir, night, name, r, prov)
    title = f"{night['title']} \u2014 {night['id']}"
    write_text(os.path.join(night_dir, "diff.json"), json.dumps(night["diff"], indent=1) + "\n")
    write_text(os.path.join(night_dir, "junit.xml"), junit(night))
    write_text(os.path.join(night_dir, "summary.md"), markdown(night))
    write_text(os.path.join(night_dir, "index.html"),
               page(title, night_status(night), night_body(night, history, "", "../../"), prov))
    for f in ("junit.xml", "summary.md", "diff.json"):
        shutil.copyfile(os.path.join(night_dir, f), os.path.join(site, f))
    prefix = f"nights/{night['id']}/"
    write_text(os.path.join(site, "index.html"),
               page(title, night_status(night), night_body(night, history, prefix, ""), prov))
    history["nights"][-1] = strip_private(night)
