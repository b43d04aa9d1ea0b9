"""Specialised handlers beyond the oracle's standard request: llama.cpp's own outputs.

The oracle applies one request per template. Here every template llama.cpp routes to a
specialised handler gets 58 requests: no tools, or two tools (one with a mixed-type, an
object and an array parameter) with each tool_choice and with and without parallel calls;
with and without a JSON-schema response format; reasoning_format deepseek and none;
thinking on and off; plus a multi-turn conversation with a tool call, a tool result and a
system message. The expected values were produced by llama.cpp itself (commit
0c1e5709's common/ built unmodified, a driver calling ``common_chat_templates_init`` and
``common_chat_templates_apply`` with now = 29 Nov 2026, as the oracle), which left us short
digests: the serialized parser, the grammar, and the other fields together (format,
prompt, generation prompt, laziness, triggers, preserved tokens, stops, thinking fields),
or ``x`` where llama.cpp threw.

Those digests stay the authority, one per case in tests/data/golden/ (handlers/,
autoparser/ and parse/, one file per template; format in tests/golden.py). Beside each is
the readable value of every field it covers, so a failure names the fields that changed
and shows their diff. ``pytest --update-golden`` rewrites the readable values from our
output where our digest equals llama.cpp's, and refuses, failing, where it does not.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from canitoolcall.fixtures import load_fixtures

from explorer.apply import Request
from explorer.apply.pipeline import apply_template
from explorer.cli.batch import replay_row
from golden import GOLDEN_DIR, GoldenError, GoldenFile, Part, judge, short_diff
from oracle_data import ORACLE, requires_oracle

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "unit": {"type": "string", "enum": ["c", "f"]}},
                   "required": ["city"]}}}
SEARCH = {"type": "function", "function": {
    "name": "search", "description": "Search the web.",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "limit": {"type": "integer"},
        "mode": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        "filters": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}},
                                                     "min": {"type": "number"}}, "required": ["tags"]}},
        "required": ["query", "filters"]}}}
INVOICE = {"type": "object", "properties": {"amount": {"type": "number"}, "date": {"type": "string"}},
           "required": ["amount"]}
HELLO = [{"role": "user", "content": "Hello"}]
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "", "reasoning_content": "Need the tool.", "tool_calls": [
        {"id": "call00001", "type": "function",
         "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call00001", "content": "{\"temp\": 21}"},
    {"role": "user", "content": "And tomorrow?"},
]

TEMPLATES = (
    "Cohere2MoE", "GigaChat3-10B-A1.8B", "Kimi-K2-Instruct", "Kimi-K2-Thinking", "Kimi-K3", "LFM2-8B-A1B",
    "LFM2.5-8B-A1B", "LFM2.5-Instruct", "MiniMax-M3", "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "Qwen3-Coder",
    "Qwen3.5-4B", "StepFun3.5-Flash", "deepseek-ai-DeepSeek-V3.2", "deepseek-ai-DeepSeek-V4-Flash-0731",
    "deepseek-ai-DeepSeek-V4", "google-gemma-4-31B-it-interleaved", "google-gemma-4-31B-it",
    "inclusionai-ling-3.0-flash", "meetkai-functionary-medium-v3.2", "mistralai-Ministral-3-14B-Reasoning-2512",
    "moonshotai-Kimi-K2", "muse-glimmer", "openai-gpt-oss-120b", "openbmb-MiniCPM5-1B",
    "unsloth-mistral-Devstral-Small-2507",
)

# Templates whose rendering differs from llama.cpp's for these requests (explorer.render's
# area), with the cause; their rows where llama.cpp threw and we did not are reported, not failed.
# Empty now: Seed-OSS's `t in (...)` with an undefined `t` (the anyOf parameter) raises
# 'Cannot perform operation in on undefined values' in explorer.render as in llama.cpp.
KNOWN_RENDER_GAPS: dict[str, str] = {}


def cases(template: str) -> Iterator[dict[str, Any]]:
    tool_cfgs = [(None, "auto", False)] + [([WEATHER, SEARCH], choice, par)
                                           for choice in ("auto", "required", "none") for par in (True, False)]
    for (tools, choice, par), schema, fmt, thinking in itertools.product(
            tool_cfgs, (None, INVOICE), ("deepseek", "none"), (False, True)):
        yield {"messages": HELLO, "tools": tools, "tool_choice": choice, "parallel": par, "thinking": thinking,
               "reasoning_format": fmt, "json_schema": schema,
               "id": f"{template}|{'T' if tools else '-'}|{choice}|{int(par)}|{'rf' if schema else '-'}|{fmt}|"
                     f"{int(thinking)}|hello"}
    for thinking in (False, True):
        yield {"messages": HISTORY, "tools": [WEATHER, SEARCH], "tool_choice": "auto", "parallel": True,
               "thinking": thinking, "reasoning_format": "deepseek", "json_schema": None,
               "id": f"{template}|T|auto|1|-|deepseek|{int(thinking)}|history"}


def request(case: dict[str, Any]) -> Request:
    return Request(
        messages=tuple(case["messages"]), tools=tuple(case["tools"]) if case["tools"] else None,
        tool_choice=case["tool_choice"], parallel_tool_calls=case["parallel"], enable_thinking=case["thinking"],
        reasoning_format=case["reasoning_format"], json_schema=case["json_schema"],
        chat_template_kwargs={"enable_thinking": case["thinking"], "thinking": case["thinking"]})


REST = ("format", "generation_prompt", "prompt", "grammar_lazy", "grammar_triggers", "preserved_tokens",
        "additional_stops", "supports_thinking", "thinking_start_tag", "thinking_end_tags")

# What each llama.cpp digest covers, in the order its 8-hex parts are concatenated.
HANDLER_PARTS = (Part("parser", ("parser",), "value"), Part("grammar", ("grammar",), "value"),
                 Part("other fields", REST))
AUTOPARSER_PARTS = (Part("fields", REST + ("parser", "grammar")),)
PARSE_PARTS = (Part("parse", ("result", "threw", "streaming_final"), "list"),)
TEMPLATE_RAISED = "-" * 8  # parse cases: llama.cpp's template raised for these tools (rendering, not parsing)


def _source(template: str) -> str:
    return (ORACLE / "templates" / f"{template}.jinja").read_text(encoding="utf-8")


class GoldenRun:
    """Every case of one golden folder judged; with --update-golden, the verified values written."""

    def __init__(self, folder: str, update: bool) -> None:
        self.folder, self.update = folder, update
        self.files: dict[str, GoldenFile] = {}
        self.total = self.matched = self.explained = 0
        self.mismatches: list[str] = []
        self.refused: list[str] = []
        self.written: list[str] = []

    def file(self, template: str) -> GoldenFile:
        if template not in self.files:
            self.files[template] = GoldenFile.load(GOLDEN_DIR / self.folder / f"{template}.json")
        return self.files[template]

    def check(self, template: str, index: int, case_id: str, parts: tuple[Part, ...],
              ours: dict[str, Any] | None, error: str = "", explained: bool = False) -> None:
        golden = self.file(template)
        case = golden.cases[index]
        assert case["id"] == case_id, f"{golden.path.name}: case {index} is {case['id']}, the test made {case_id}"
        self.total += 1
        verdict = judge(case["llama_cpp"], golden.values(case), ours, parts, error)
        if self.update and verdict.writable:
            golden.set_values(case, verdict.writable, replace=not verdict.refused)
        if verdict.refused:
            self.refused.append(f"{case_id} ({', '.join(verdict.refused)})")
        if verdict.ok or (self.update and not verdict.refused):
            self.matched += 1
        elif explained and set(case["llama_cpp"]) == {"x"}:
            self.explained += 1
        else:
            self.mismatches.append(verdict.report(case_id))

    def finish(self, label: str) -> None:
        if self.update:
            self.written = [name for name, f in self.files.items() if f.save()]
        print(f"\n{label}: {self.matched}/{self.total} identical to llama.cpp"
              + (f", {self.explained} explained by known rendering gaps" if self.explained else ""))
        for template, cause in KNOWN_RENDER_GAPS.items():
            if template in self.files:
                print(f"  known gap {template}: {cause}")
        if self.update:
            print(f"  --update-golden: {len(self.written)} files of tests/data/golden/{self.folder} rewritten")
            assert self.refused == [], (
                f"--update-golden refused to write the values of {len(self.refused)} cases whose digest differs "
                "from llama.cpp's: " + ", ".join(self.refused[:20]))
        for line in self.mismatches[:10]:
            print("  ", line)
        assert self.mismatches == [], f"{len(self.mismatches)} cases differ from llama.cpp; the first:\n" + \
            "\n".join(self.mismatches[:3])


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def _apply_golden(folder: str, label: str, templates: tuple[str, ...], parts: tuple[Part, ...],
                  update: bool) -> None:
    run = GoldenRun(folder, update)
    for template in templates:
        source = _source(template)
        rows = list(cases(template))
        assert len(rows) == len(run.file(template).cases) == 58, template
        for index, case in enumerate(rows):
            try:
                ours, error = apply_template(source, request(case)).to_oracle_json(), ""
            except Exception as exc:  # noqa: BLE001 - llama.cpp threw too, or it is reported
                ours, error = None, f"{type(exc).__name__}: {exc}"
            run.check(template, index, case["id"], parts, ours, error, explained=template in KNOWN_RENDER_GAPS)
    run.finish(f"{label}, {len(templates)} templates x 58 requests")


@requires_oracle
def test_handlers_match_llama_cpp_on_58_requests_per_template(update_golden: bool) -> None:
    _apply_golden("handlers", "specialised handlers", TEMPLATES, HANDLER_PARTS, update_golden)


def autoparser_templates() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in (ORACLE / "templates").glob("*.jinja") if p.stem not in TEMPLATES))


@requires_oracle
def test_autoparser_route_matches_llama_cpp_on_58_requests_per_template(update_golden: bool) -> None:
    """The same requests on every other template: apply_template's autoparser route."""
    names = autoparser_templates()
    assert len(names) == 44
    _apply_golden("autoparser", "autoparser route", names, AUTOPARSER_PARTS, update_golden)


def test_golden_files_are_the_templates_cases() -> None:
    """One file per template and folder, none left over (our own data: no oracle needed)."""
    for folder in ("handlers", "parse"):
        assert sorted(p.stem for p in (GOLDEN_DIR / folder).glob("*.json")) == sorted(TEMPLATES), folder
    assert len(list((GOLDEN_DIR / "autoparser").glob("*.json"))) == 44


# --- conformance outputs through every handler ------------------------------------------------------

PARSE_SAMPLE = 20  # every 20th (template, fixture, reasoning format) case


def parse_cases() -> Iterator[tuple[str, dict[str, Any], str]]:
    """Every handler template x every conformance fixture x reasoning format, sampled."""
    rows = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    n = 0
    for template in TEMPLATES:
        for row in rows:
            for fmt in ("deepseek", "none"):
                if n % PARSE_SAMPLE == 0:
                    yield template, row, fmt
                n += 1


@requires_oracle
def test_fixture_outputs_parse_like_llama_cpp_through_every_handler(update_golden: bool) -> None:
    """Each conformance fixture's raw output, parsed with the parser each handler template
    builds for the fixture's tools (not only its own family's template)."""
    fixtures = {f.id: f for f in load_fixtures()}
    run = GoldenRun("parse", update_golden)
    built: dict[tuple, Any] = {}
    index: dict[str, int] = {}
    for template, row, fmt in parse_cases():
        i = index[template] = index.get(template, -1) + 1
        case_id = f"{template}|{row['id']}|{fmt}"
        if run.file(template).cases[i]["llama_cpp"] == TEMPLATE_RAISED:
            assert run.file(template).cases[i]["id"] == case_id
            continue
        fixture = fixtures[row["id"]]
        thinking = True if row["fixture_thinking"] is None else row["fixture_thinking"]
        key = (template, row["id"] if fixture.tools else "", thinking, fmt)
        if key not in built:
            built[key] = apply_template(_source(template), Request(
                messages=({"role": "user", "content": "Hello"},), tools=tuple(fixture.tools) or None,
                parallel_tool_calls=True, enable_thinking=thinking, reasoning_format=fmt,
                chat_template_kwargs={"enable_thinking": thinking, "thinking": thinking}))
        params = built[key]
        ours = replay_row({"id": row["id"], "raw_output": fixture.raw_output, "parser": params.parser,
                           "generation_prompt": params.generation_prompt, "format": params.format})
        run.check(template, i, case_id, PARSE_PARTS, {
            "result": ours["result"], "threw": ours["exception"] is not None,
            "streaming_final": ours["streaming_final"]})
    assert {t: len(run.file(t).cases) for t in index} == {t: n + 1 for t, n in index.items()}
    assert run.total > 1000
    run.finish(f"fixture outputs through every handler (1 in {PARSE_SAMPLE} sampled)")


# --- the golden machinery itself (tests/golden.py), on made-up values -------------------------------

PARTS = (Part("parser", ("parser",), "value"), Part("grammar", ("grammar",), "value"), Part("other fields", ("prompt",)))
PARSER = '{"parsers":[{"type":"literal","literal":"<tool_call>"},{"type":"epsilon"}],"rules":{},"root":0}'


def _reference(values: dict[str, Any]) -> str:
    return "".join(part.digest(values) for part in PARTS)


def test_a_changed_field_is_named_with_its_diff() -> None:
    want = {"parser": PARSER, "grammar": "root ::= a\na ::= \"x\"", "prompt": "<|user|>\nHi\n<|assistant|>\n"}
    ours = dict(want, grammar="root ::= a\na ::= \"y\"", parser=PARSER.replace("<tool_call>", "<call>"))
    verdict = judge(_reference(want), want, ours, PARTS)
    assert verdict.refused == ["parser", "grammar"] and set(verdict.writable) == {"prompt"}
    assert verdict.problems[-1] == "changed: parser, grammar"
    text = verdict.report("c")
    assert text.startswith(f"c: parser digest {PARTS[0].digest(ours)} != llama.cpp's {PARTS[0].digest(want)}; ")
    assert '-a ::= "x"' in text and '+a ::= "y"' in text and "prompt" not in text
    assert '-0: {"type": "literal", "literal": "<tool_call>"}' in text
    assert '+0: {"type": "literal", "literal": "<call>"}' in text


def test_update_writes_only_what_matches_the_reference(tmp_path) -> None:
    want = {"parser": PARSER, "grammar": "root ::= a", "prompt": "Hi\nthere"}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"cases": [{"id": "c", "llama_cpp": _reference(want)}]}), encoding="utf-8")
    golden = GoldenFile.load(path)
    ours = dict(want, grammar="root ::= b")
    verdict = judge(golden.cases[0]["llama_cpp"], golden.values(golden.cases[0]), ours, PARTS)
    assert verdict.refused == ["grammar"]
    golden.set_values(golden.cases[0], verdict.writable)
    assert golden.save()
    again = GoldenFile.load(path)
    assert again.values(again.cases[0]) == {"parser": PARSER, "prompt": "Hi\nthere"}  # no grammar: refused
    assert again.data["prompts"] == {Part("p", ("prompt",), "value").digest(want): ["Hi", "there"]}
    assert again.data["parsers"][again.cases[0]["values"]["parser"]]["parsers"][0]["literal"] == "<tool_call>"
    # our grammar fixed: all verified, nothing to report
    verdict = judge(again.cases[0]["llama_cpp"], again.values(again.cases[0]), dict(want), PARTS)
    assert verdict.problems == ["no readable grammar values (run pytest --update-golden)"] and not verdict.refused


def test_hand_edited_golden_values_are_caught() -> None:
    want = {"parser": PARSER, "grammar": "root ::= a", "prompt": "Hi"}
    edited = dict(want, prompt="Hello")
    verdict = judge(_reference(want), edited, dict(want), PARTS)
    assert any("do not hash to llama.cpp's digest" in p for p in verdict.problems)


def test_a_raise_on_either_side() -> None:
    assert judge("x" * 24, {"raised": True}, None, PARTS).ok
    assert judge("x" * 24, {}, None, PARTS).problems == ["no readable values (run pytest --update-golden)"]
    assert judge("x" * 24, {}, {"parser": PARSER, "grammar": "", "prompt": ""}, PARTS).problems == [
        "llama.cpp raised, we did not"]
    verdict = judge(_reference({"parser": PARSER, "grammar": "", "prompt": ""}), {}, None, PARTS, "ValueError: boom")
    assert verdict.problems == ["we raised, llama.cpp did not: ValueError: boom"] and not verdict.writable


def test_a_parser_that_does_not_serialize_back_is_refused(tmp_path) -> None:
    golden = GoldenFile(tmp_path / "t.json", {"cases": [{"id": "c", "llama_cpp": "-"}]})
    with pytest.raises(GoldenError, match="does not serialize back"):
        golden.set_values(golden.cases[0], {"parser": '{"root": 0, "parsers": []}'.replace(": ", ":  ")})


def test_a_long_changed_line_is_shown_around_its_change() -> None:
    want = "<|user|>" + "x" * 300 + "Hello" + "y" * 300
    diff = short_diff("prompt", want, want.replace("Hello", "Hallo"))
    minus, plus = (line.strip() for line in diff.splitlines()[1:3])
    assert minus.startswith("-…") and minus.endswith("…") and "x" * 50 + "Hello" + "y" * 50 in minus
    assert plus.startswith("+…") and plus.endswith("…") and "x" * 50 + "Hallo" + "y" * 50 in plus
    assert len(minus) == len(plus) < 130
