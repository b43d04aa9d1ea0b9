"""The Fixtures page's upload: a JSONL file of the user's own canitoolcall fixtures.

Input: the uploaded bytes. Output: ``UploadedFixtures``: canitoolcall ``Fixture`` objects
(built by the package's own ``Fixture.from_dict``) for every line that is valid under the
package's own fixture schema, and one ``UploadProblem`` per line that is not, naming the
line and what was expected and found. The size cap is checked before anything is decoded.

canitoolcall's ``validate`` needs a fixtures directory with a ``family.json``; an upload
has none, so each line is checked against the same JSON Schema here, plus the checks a
record needs to be run (exactly one of expected/expected_error, unique ids).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_BYTES = 5 * 1024 * 1024
MAX_LINES = 2000
MAX_PROBLEMS = 20  # listed; the rest are counted
CAP_TEXT = "at most 5 MB and 2,000 lines"


# One record in the format, for the page to offer as a starting point (a Hermes-style call).
EXAMPLE_RECORD: Mapping[str, Any] = {
    "id": "my-family/one-call", "family": "my-family", "models": ["my-org/my-model"], "spec_version": "0.1",
    "provenance": {"kind": "recorded", "source_url": "https://example.com/where-it-came-from", "revision": "1",
                   "license": "MIT"},
    "tools": [{"type": "function", "function": {
        "name": "get_weather", "description": "Get the current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
    "raw_output": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "thinking": False,
    "expected": {"content": None, "reasoning_content": None,
                 "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    "tags": ["single-call"],
}


def example_jsonl() -> str:
    """A one-line file in the upload format (EXAMPLE_RECORD)."""
    return json.dumps(EXAMPLE_RECORD, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class UploadProblem:
    line: int | None  # 1-based; None for the whole file
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line is not None else self.message


@dataclass(frozen=True)
class UploadedFixtures:
    fixtures: tuple[Any, ...]  # canitoolcall.fixtures.Fixture
    problems: tuple[UploadProblem, ...]
    sha256: str
    refused: bool = False  # over the cap or not text: nothing was parsed
    records: int = 0  # non-blank lines read

    def problem_text(self, limit: int = MAX_PROBLEMS) -> str:
        shown = [str(p) for p in self.problems[:limit]]
        more = len(self.problems) - len(shown)
        return "\n".join(f"- {s}" for s in shown) + (f"\n- … and {more} more" if more > 0 else "")


def json_type(value: Any) -> str:
    """The JSON name of a decoded value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, Mapping) else type(value).__name__


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def size_problem(data: bytes) -> UploadProblem | None:
    """The cap, checked on the raw bytes before any decoding."""
    if len(data) > MAX_BYTES:
        return UploadProblem(None, f"the file is {len(data) / 1024 / 1024:.1f} MB; uploads are limited to {CAP_TEXT}")
    lines = line_count(data)
    if lines > MAX_LINES:
        return UploadProblem(None, f"the file has {lines:,} lines; uploads are limited to {CAP_TEXT}")
    return None


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema
    from canitoolcall.fixtures import spec_dir

    schema = json.loads((spec_dir() / "fixture.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def _path(parts: Any) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _schema_message(error: Any) -> str | None:
    """A schema error in words: missing field X; field Y: expected T, found U; unknown field Z."""
    where = _path(error.absolute_path)
    inside = f" in {where}" if where else ""
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        return f"missing field {', '.join(repr(k) for k in missing)}{inside}"
    if error.validator == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return f"field {where or '(record)'}: expected {' or '.join(wanted)}, found {json_type(error.instance)}"
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in known]
        return f"unknown field {', '.join(repr(k) for k in extra)}{inside}"
    if error.validator == "oneOf" and not where:
        return None  # expected / expected_error: said in words by _outcome_problem
    return f"field {where or '(record)'}: {error.message}"


def _outcome_problem(record: Mapping[str, Any]) -> str | None:
    has_expected, has_error = "expected" in record, "expected_error" in record
    if has_expected and has_error:
        return "has both 'expected' and 'expected_error'; a fixture has exactly one of them"
    if not has_expected and not has_error:
        return "missing field 'expected' (or 'expected_error' for an output that must fail gracefully)"
    return None


def record_problems(record: Any) -> list[str]:
    """What is wrong with one decoded line, under canitoolcall's fixture schema."""
    if not isinstance(record, Mapping):
        return [f"expected a JSON object (one fixture per line), found {json_type(record)}"]
    problems = []
    outcome = _outcome_problem(record)
    if outcome:
        problems.append(outcome)
    errors = sorted(_validator().iter_errors(record), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    for error in errors:
        message = _schema_message(error)
        if message and message not in problems:
            problems.append(message)
    return problems


def _decode(data: bytes) -> str | UploadProblem:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return UploadProblem(line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})")
    return text.removeprefix("\ufeff")


def parse_upload(data: bytes) -> UploadedFixtures:
    """Every valid line as a canitoolcall Fixture, every invalid one as a problem."""
    from canitoolcall.fixtures import Fixture

    digest = hashlib.sha256(data).hexdigest()
    refused = size_problem(data)
    if refused is not None:
        return UploadedFixtures((), (refused,), digest, refused=True)
    text = _decode(data)
    if isinstance(text, UploadProblem):
        return UploadedFixtures((), (text,), digest, refused=True)
    fixtures: list[Fixture] = []
    problems: list[UploadProblem] = []
    seen: dict[str, int] = {}  # id -> the line it was first at
    records = 0
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        records += 1
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(UploadProblem(n, f"not JSON: {exc.msg} at column {exc.colno}"))
            continue
        found = record_problems(record)
        if not found and record["id"] in seen:
            found = [f"duplicate id {record['id']!r} (first at line {seen[record['id']]})"]
        if found:
            problems += [UploadProblem(n, p) for p in found]
            continue
        seen[record["id"]] = n
        try:
            fixtures.append(Fixture.from_dict(record, line=n))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:  # schema-valid, so not expected
            problems.append(UploadProblem(n, f"canitoolcall could not read the record ({type(exc).__name__}: {exc})"))
    if records == 0:
        problems.append(UploadProblem(None, "the file holds no fixtures (every line is blank)"))
    return UploadedFixtures(tuple(fixtures), tuple(problems), digest, records=records)
