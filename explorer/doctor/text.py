"""The doctor's reports as text: one readable report, or a table of many.

Input: JSON lines as ``explorer.doctor.batch`` yields them (``DoctorReport.to_json()`` or
an error line), so a report read back from ``--json`` output prints the same. Output:
``report_text`` (route and why, verdict, findings worst first with where and template
line, the round trip per message, the fixture family, the fixes, the failure classes
without a sound fix and why) and ``summary_table`` (template, handler, verdict, round
trip, causes, warnings, fixes, classes without a sound fix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Line = Mapping[str, object]


def _s(data: object, key: str) -> str:
    value = data.get(key) if isinstance(data, Mapping) else None
    return "" if value is None else str(value)


def _items(data: object, key: str) -> list[Mapping[str, object]]:
    value = data.get(key) if isinstance(data, Mapping) else None
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _strings(data: object, key: str) -> list[str]:
    value = data.get(key) if isinstance(data, Mapping) else None
    return [str(v) for v in value] if isinstance(value, list) else []


def _count(line: Line, severity: str) -> int:
    return sum(1 for f in _items(line, "findings") if f.get("severity") == severity)


def roundtrip_cell(line: Line) -> str:
    """``equal/total``: assistant messages given back equal over both thinking settings."""
    rt = line.get("roundtrip")
    return f"{_s(rt, 'equal')}/{_s(rt, 'total')}" if isinstance(rt, Mapping) else "-"


def _where(f: Mapping[str, object]) -> str:
    parts = [f"fix in {f['where']}" if f.get("where") else "",
             f"field {f['field']}" if f.get("field") else "", f"probe {f['probe']}" if f.get("probe") else "",
             f"template line {f['template_line']}" if f.get("template_line") else ""]
    return ", ".join(p for p in parts if p)


def report_text(line: Line) -> str:
    """One template's report, readable."""
    name = _s(line, "template")
    if isinstance(line.get("error"), Mapping):
        return f"{name}: error ({_s(line['error'], 'kind')}): {_s(line['error'], 'message')}"
    out = [f"{name}", f"verdict: {_s(line, 'verdict')}"]
    losses = _strings(line, "losses")
    out += [f"  loses: {loss}" for loss in losses]
    route = line.get("route")
    out += ["", f"route: {_s(line, 'handler')}", f"  {_s(route, 'why')}"]
    out += [f"  patch: {p}" for p in _strings(route, "patches")]
    out += [f"  workaround: {w}" for w in _strings(route, "workarounds")]
    rt = line.get("roundtrip")
    model = line.get("roundtrip_as_a_model_writes")
    design = line.get("roundtrip_by_design")
    out += ["", f"round trip: {roundtrip_cell(line)} messages come back (both thinking settings)"
            + (f"; {model} more differ only as a model's own reply would" if model else "")
            + (f"; {design} more differ by the template's design" if design else "")]
    for case in _items(line, "cases"):
        losing = [x for x in _items(case, "losses") if x.get("severity") != "info"]
        if case.get("equal_trimmed") and not losing:
            continue
        flag = "true" if case.get("enable_thinking") else "false"
        head = f"  {_s(case, 'message')} (thinking {flag}): " + (", ".join(_strings(case, "diff")) or "-")
        out.append(head)
        for loss in _items(case, "losses"):
            where = f"{_s(loss, 'where')}" + (f", template line {loss['template_line']}" if loss.get("template_line")
                                             else "")
            out.append(f"      [{_s(loss, 'kind')} · {where}] {_s(loss, 'sentence')}")
    if not isinstance(rt, Mapping):
        out.append("  (no round trip)")
    findings = _items(line, "findings")
    shown = [f for f in findings if f.get("severity") != "info"]
    counted = (f"findings: {_count(line, 'cause')} cause(s), {_count(line, 'warning')} warning(s), "
               f"{_count(line, 'info')} note(s)")
    out += ["", counted]
    for f in shown:
        where = _where(f)
        out.append(f"  [{_s(f, 'severity')}] {_s(f, 'check')}: {_s(f, 'summary')}" + (f" ({where})" if where else ""))
        if f.get("source_line"):
            out.append(f"      line {_s(f, 'template_line')}: {_s(f, 'source_line')}")
        if f.get("fix_hint") and f.get("source") == "health":
            out.append(f"      fix: {_s(f, 'fix_hint')}")
    fixtures = line.get("fixtures")
    if isinstance(fixtures, Mapping):
        counts = fixtures.get("counts")
        models = ", ".join(_s(m, "model") for m in _items(fixtures, "models"))
        out += ["", f"fixtures: canitoolcall family {_s(fixtures, 'family')} ({models})"]
        if isinstance(counts, Mapping):
            out.append("  " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        for row in _items(fixtures, "failures")[:10]:
            out.append(f"  {_s(row, 'status')}: {_s(row, 'id')}: {_s(row, 'detail')[:140]}")
    else:
        out += ["", "fixtures: no canitoolcall family speaks this template's format"]
    design = _items(line, "design")
    if design:
        out += ["", f"by design: {len(design)} choice(s) the template makes on purpose (never fixed)"]
        for d in design:
            out.append(f"  [{_s(d, 'key')}] {_s(d, 'summary')}")
            lines, texts = d.get("lines"), _strings(d, "source_lines")
            for n, text in zip(lines if isinstance(lines, list) else [], texts):
                out.append(f"      line {n}: {text}")
    fixes = _items(line, "fixes")
    out += ["", f"fixes: {len(fixes)} (each passed every check of the acceptance standard; round trip in "
            "assistant messages over enable_thinking false and true)"]
    for fix in fixes:
        before, after = fix.get("roundtrip_before"), fix.get("roundtrip_after")
        out.append(f"  [{_s(fix, 'kind')}] {_s(fix, 'summary')} (round trip {_s(before, 'equal')}/{_s(before, 'total')}"
                   f" -> {_s(after, 'equal')}/{_s(after, 'total')})")
        out += [f"      --set {s}" for s in _strings(fix, "set")]
        if fix.get("uniqueness"):
            out.append(f"      substring {fix.get('substring')!r}: {_s(fix, 'uniqueness')}")
        out += [f"      check {_s(c, 'check')}: {_s(c, 'status')}" + (f" ({_s(c, 'detail')})" if c.get("detail") else "")
                for c in _items(fix, "checks")]
        out += [f"      note: {n}" for n in _strings(fix, "notes")]
    withdrawn = _items(line, "withdrawn")
    if withdrawn:
        out += ["", f"withdrawn: {len(withdrawn)} fix(es) that failed a check of the acceptance standard"]
        for t in withdrawn:
            label = "changes the model's format" if t.get("check") == "keeps-format" else f"failed {_s(t, 'check')}"
            out.append(f"  [{_s(t, 'kind')}] {_s(t, 'summary')}: {label}: {_s(t, 'why')}")
    by_design = [c for c in _items(line, "fix_classes") if c.get("by_design")]
    if by_design:
        out += ["", f"by-design losses: {len(by_design)} failure class(es), not in the verdict's losses"]
        for c in by_design:
            cases = _strings(c, "cases")
            out.append(f"  [{_s(c, 'key')}] {_s(c, 'by_design')}" + (f" ({', '.join(cases[:6])})" if cases else ""))
    unfixed = [c for c in _items(line, "fix_classes") if c.get("no_fix") and not c.get("by_design")]
    if unfixed:
        out += ["", f"no sound fix: {len(unfixed)} failure class(es)"]
        for c in unfixed:
            cases = _strings(c, "cases")
            out.append(f"  [{_s(c, 'key')}] {_s(c, 'title')}" + (f" ({', '.join(cases[:6])})" if cases else ""))
            out.append(f"      why: {_s(c, 'no_fix')}")
    out += [f"skipped: {s}" for s in _strings(line, "skipped")]
    return "\n".join(out)


COLUMNS = ("template", "handler", "verdict", "round trip", "causes", "warnings", "fixes", "no fix")


def summary_row(line: Line) -> tuple[str, ...]:
    if isinstance(line.get("error"), Mapping):
        return (_s(line, "template"), "-", "error: " + _s(line["error"], "kind"), "-", "-", "-", "-", "-")
    return (_s(line, "template"), _s(line, "handler"), _s(line, "verdict"), roundtrip_cell(line),
            str(_count(line, "cause")), str(_count(line, "warning")), str(len(_items(line, "fixes"))),
            str(sum(1 for c in _items(line, "fix_classes") if c.get("no_fix") and not c.get("by_design"))))


def summary_table(lines: Sequence[Line]) -> str:
    """One row per template, then the verdicts' counts."""
    rows = [COLUMNS, *(summary_row(line) for line in lines)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    text = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    counts: dict[str, int] = {}
    for row in rows[1:]:
        counts[row[2]] = counts.get(row[2], 0) + 1
    text.append("")
    text.append(f"{len(lines)} template(s): " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return "\n".join(text)


__all__ = ["COLUMNS", "report_text", "roundtrip_cell", "summary_row", "summary_table"]
