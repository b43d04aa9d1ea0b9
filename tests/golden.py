"""Golden data kept as readable JSON beside the reference's own digests (tests/data/golden/).

A golden file holds one record per case, in order: ``id``; ``llama_cpp``, the digest of
the reference's output (what llama.cpp itself produced; never rewritten here); and
``values``, the readable fields that digest covers. ``pytest --update-golden`` writes the
values from our output, and only for the parts whose digest equals the reference's, so
every readable value is one the reference produced too. Large text is stored once per file
in a table keyed by the digest of the value, and the case names the key: ``prompt`` and
``grammar`` as lists of lines (the text split at "\\n"), ``parser`` (a serialized PEG
arena) as its JSON, one node a line.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oracle_data import DATA_DIR

GOLDEN_DIR = DATA_DIR / "golden"
UPDATE_HINT = "run pytest --update-golden"

# field -> the file's table that holds its values
TABLES = {"parser": "parsers", "grammar": "grammars", "prompt": "prompts"}


class GoldenError(AssertionError):
    """A golden value cannot be stored or read back exactly."""


def digest(value: Any) -> str:
    """8 hex digits of the sha256 of the value's JSON (sorted keys, UTF-8)."""
    return hashlib.sha256(json.dumps(value, ensure_ascii=False, sort_keys=True).encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Part:
    """One digest of a reference record: ``fields`` hashed as one value, a dict or a list."""

    name: str
    fields: tuple[str, ...]
    shape: str = "dict"  # "value" (a single field's value), "dict" or "list"

    def digest(self, values: dict[str, Any]) -> str:
        if self.shape == "value":
            return digest(values[self.fields[0]])
        if self.shape == "list":
            return digest([values[f] for f in self.fields])
        return digest({f: values[f] for f in self.fields})


# --- encoding of the tabled fields -------------------------------------------------------------


def _encode(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        raise GoldenError(f"{name} is not a string: {value!r:.80}")
    if name == "parser":
        try:
            arena = json.loads(value)
        except json.JSONDecodeError as exc:
            raise GoldenError(f"the parser is not JSON, cannot store it readably: {exc}") from None
        if _decode(name, arena) != value:
            raise GoldenError("the parser's JSON does not serialize back to the same text")
        return arena
    return value.split("\n")


def _decode(name: str, stored: Any) -> str:
    if name == "parser":
        return json.dumps(stored, ensure_ascii=False, separators=(",", ":"))
    return "\n".join(stored)


def display_lines(name: str, value: Any) -> list[str]:
    """A value as lines to diff: text by line, a parser by arena node, the rest as JSON."""
    if name == "parser" and isinstance(value, str):
        try:
            arena = json.loads(value)
        except json.JSONDecodeError:
            return [value]
        nodes = arena.get("parsers") if isinstance(arena, dict) else None
        if isinstance(nodes, list):
            rest = {k: v for k, v in arena.items() if k != "parsers"}
            return [f"{i}: {json.dumps(n, ensure_ascii=False)}" for i, n in enumerate(nodes)] + [
                json.dumps(rest, ensure_ascii=False)]
        return [value]
    if isinstance(value, str):
        return value.split("\n")
    return json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True).splitlines()


def _around(line: str, at: int, window: int) -> str:
    start = max(1, at - window)
    return line[0] + ("…" if start > 1 else "") + line[start:at + window] + ("…" if len(line) > at + window else "")


def short_diff(name: str, want: Any, got: Any, limit: int = 12, window: int = 60) -> str:
    """A unified diff of the two values (golden first), cut to ``limit`` lines; a long line
    replaced by another is cut to the part around its first change."""
    a, b = display_lines(name, want), display_lines(name, got)
    lines = list(difflib.unified_diff(a, b, "golden", "ours", n=1, lineterm=""))[2:]
    for i in range(len(lines) - 1):
        old, new = lines[i], lines[i + 1]
        alone = (i == 0 or lines[i - 1][:1] != "-") and (i + 2 == len(lines) or lines[i + 2][:1] != "+")
        if old[:1] == "-" and new[:1] == "+" and alone and max(len(old), len(new)) > 2 * window:
            at = next((j for j, (x, y) in enumerate(zip(old, new)) if j and x != y), min(len(old), len(new)))
            lines[i], lines[i + 1] = _around(old, at, window), _around(new, at, window)
    cut = [line if len(line) <= 200 else line[:200] + "…" for line in lines[:limit]]
    if len(lines) > limit:
        cut.append(f"… {len(lines) - limit} more diff lines")
    return "\n".join("      " + line for line in cut)


# --- the file ------------------------------------------------------------------------------------


@dataclass
class GoldenFile:
    path: Path
    data: dict[str, Any]
    _decoded: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> GoldenFile:
        return cls(path, json.loads(path.read_text(encoding="utf-8")))

    @property
    def cases(self) -> list[dict[str, Any]]:
        return self.data["cases"]

    def values(self, case: dict[str, Any]) -> dict[str, Any]:
        """The case's readable values, tabled fields resolved to their text."""
        out = {}
        for name, stored in case.get("values", {}).items():
            if name in TABLES:
                key = (name, stored)
                if key not in self._decoded:
                    self._decoded[key] = _decode(name, self.data[TABLES[name]][stored])
                out[name] = self._decoded[key]
            else:
                out[name] = stored
        return out

    def set_values(self, case: dict[str, Any], values: dict[str, Any], *, replace: bool = False) -> None:
        stored = {} if replace else dict(case.get("values", {}))
        for name, value in values.items():
            if name in TABLES:
                encoded = _encode(name, value)
                key = digest(value)
                table = self.data.setdefault(TABLES[name], {})
                if key in table and _decode(name, table[key]) != value:
                    raise GoldenError(f"two {name} values share the key {key} in {self.path.name}")
                table[key] = encoded
                self._decoded[(name, key)] = value
                stored[name] = key
            else:
                stored[name] = value
        case["values"] = stored

    def save(self) -> bool:
        """Write the file (tables pruned to what the cases name, in order of first use); False if unchanged."""
        for name, table_name in TABLES.items():
            table = self.data.get(table_name, {})
            used = [c["values"][name] for c in self.cases if name in c.get("values", {})]
            self.data.pop(table_name, None)
            if used:
                self.data[table_name] = {k: table[k] for k in dict.fromkeys(used)}
        text = dumps(self.data) + "\n"
        if self.path.is_file() and self.path.read_text(encoding="utf-8") == text:
            return False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(text, encoding="utf-8")
        return True


def dumps(value: Any, indent: str = "", width: int = 120) -> str:
    """JSON with a container on one line when it fits in ``width``, else one item a line."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or not value or len(indent) + len(flat) <= width:
        return flat
    inner = indent + " "
    if isinstance(value, list):
        items: Iterable[str] = (inner + dumps(v, inner, width) for v in value)
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    items = (inner + json.dumps(k, ensure_ascii=False) + ": " + dumps(v, inner, width) for k, v in value.items())
    return "{\n" + ",\n".join(items) + "\n" + indent + "}"


# --- judging one case ----------------------------------------------------------------------------

RAISED = "raised"  # the value a case holds when the reference raised (and we did too)


@dataclass
class Verdict:
    problems: list[str]  # empty: our output is the reference's, and the readable values say so
    writable: dict[str, Any]  # the values --update-golden may write (their digests matched)
    refused: list[str]  # parts whose digest differs from the reference's: never written
    diffs: dict[str, str]  # field -> its diff, golden vs ours

    @property
    def ok(self) -> bool:
        return not self.problems

    def report(self, case_id: str) -> str:
        lines = [f"{case_id}: " + "; ".join(self.problems)]
        for name, diff in self.diffs.items():
            lines += [f"    {name}:", diff]
        return "\n".join(lines)


def judge(reference: str, golden: dict[str, Any], ours: dict[str, Any] | None, parts: tuple[Part, ...],
          ours_error: str = "") -> Verdict:
    """Our output (None: we raised) against the reference's digest and the readable golden values.

    ``reference`` is the parts' 8-hex digests concatenated, or all "x" where the reference raised.
    """
    problems: list[str] = []
    if len(reference) != 8 * len(parts):
        raise GoldenError(f"a reference digest of {len(reference)} characters for {len(parts)} parts")
    if set(reference) == {"x"} or ours is None:
        if set(reference) == {"x"} and ours is None:
            if golden.get(RAISED) is not True:
                problems.append(f"no readable values ({UPDATE_HINT})")
            return Verdict(problems, {RAISED: True}, [], {})
        if ours is None:
            problems.append(f"we raised, llama.cpp did not: {ours_error}")
        else:
            problems.append("llama.cpp raised, we did not")
        return Verdict(problems, {}, [part.name for part in parts], {})
    if golden.get(RAISED):
        problems.append("the golden values say llama.cpp raised, its digest says it did not (edited by hand?)")
    writable: dict[str, Any] = {}
    refused: list[str] = []
    diffs: dict[str, str] = {}
    for i, part in enumerate(parts):
        want = reference[8 * i:8 * i + 8]
        got = part.digest(ours)
        have = all(f in golden for f in part.fields)
        if got == want:
            writable.update({f: ours[f] for f in part.fields})
        else:
            refused.append(part.name)
            problems.append(f"{part.name} digest {got} != llama.cpp's {want}")
        if not have:
            if got == want:
                problems.append(f"no readable {part.name} values ({UPDATE_HINT})")
            continue
        if part.digest(golden) != want:
            problems.append(f"the golden {part.name} values do not hash to llama.cpp's digest {want} (edited by hand?)")
        diffs.update({name: short_diff(name, golden[name], ours[name]) for name in part.fields
                      if golden[name] != ours[name]})
    if diffs:
        problems.append("changed: " + ", ".join(diffs))
    return Verdict(problems, writable, refused, diffs)
