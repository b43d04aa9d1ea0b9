"""What the differential tests (tests/llama_cpp/) feed the port and the real build.

The corpus: our own example templates, and llama.cpp's 70 when ``../shared`` is there. The
outputs: every fixture's raw output (with the parser llama.cpp used for it) and every
corpus template's own replies (the oracle's round-trip replies, and the replies our own
templates render). The mutations a model's output suffers, as hypothesis strategies: a
cut at each kind of point, a character dropped, a piece doubled, a tag misspelt, unicode
inserted, whitespace changed; and the template mutations: a marker changed, a line removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from hypothesis import strategies as st

from explorer.apply import GET_WEATHER_TOOL, Request, thinking_kwargs
from explorer.errors import ExplorerError
from explorer.sources.examples import from_example, list_examples
from oracle_data import ORACLE, load_oracle_template, oracle_available, oracle_template_names

SEARCH_TOOL = {"type": "function", "function": {
    "name": "search", "description": "Search the web.",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
                   "required": ["query"]}}}
NO_ARGS_TOOL = {"type": "function", "function": {"name": "now", "description": "The time.",
                                                 "parameters": {"type": "object", "properties": {}}}}
USER = {"role": "user", "content": "Hello"}


@lru_cache(maxsize=1)
def corpus() -> tuple[tuple[str, str], ...]:
    """(name, text) of every corpus template: ours first, then llama.cpp's."""
    own = tuple((f"example:{n}", from_example(n).text) for n in list_examples())
    theirs = tuple((n, load_oracle_template(n)) for n in oracle_template_names()) if oracle_available() else ()
    return own + theirs


@dataclass(frozen=True)
class OutputCase:
    """A real output, and how llama-server parses it: a template and request (the parser is
    the build's own), or a serialized parser (a fixture's: the one llama.cpp used)."""

    label: str
    text: str
    template: str | None = None
    request: Request | None = None
    parser: str = ""
    format: str = "peg-native"
    generation_prompt: str = ""


@lru_cache(maxsize=1)
def fixture_cases() -> tuple[OutputCase, ...]:
    """The 469 fixtures with the parser llama.cpp 0c1e5709 used for each (the oracle's rows)."""
    if not oracle_available():
        return ()
    from explorer.cli.batch import raw_output_for

    found: list[OutputCase] = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            found.append(OutputCase(f"fixture {row['id']}", raw_output_for(row), parser=row["parser"],
                                    format=row["format"], generation_prompt=row["generation_prompt"]))
    return tuple(found)


def roundtrip_request(row: dict[str, object]) -> Request:
    tools = row.get("tools")
    kwargs = row.get("chat_template_kwargs")
    return Request(messages=(dict(USER),), tools=tuple(tools) if isinstance(tools, list) else None,
                   parallel_tool_calls=bool(row.get("parallel_tool_calls")), enable_thinking=bool(row["enable_thinking"]),
                   chat_template_kwargs=dict(kwargs) if isinstance(kwargs, dict) else {})


@lru_cache(maxsize=1)
def reply_cases() -> tuple[OutputCase, ...]:
    """Every corpus template's own replies: the oracle's round-trip replies (llama.cpp's
    rendering, cut and stripped) and the replies our example templates render."""
    found: list[OutputCase] = []
    for name, text in corpus():
        if not name.startswith("example:"):
            continue
        from explorer.roundtrip.cases import REPLY_KINDS
        from explorer.session import open_session

        session = open_session(text)
        for thinking in (False, True):
            request = session.request(tools=[GET_WEATHER_TOOL, SEARCH_TOOL], enable_thinking=thinking,
                                      chat_template_kwargs=thinking_kwargs(thinking))
            for kind in REPLY_KINDS:
                try:
                    reply = session.sample_reply(kind, request)
                except ExplorerError:
                    reply = None
                if reply is not None:
                    found.append(OutputCase(f"{name} {kind} thinking={thinking}", reply, text, request))
    if oracle_available():
        for line in (ORACLE / "roundtrip.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            reply = row.get("raw_output_stripped")
            if isinstance(reply, str):
                name = str(row["template"]).removesuffix(".jinja")
                found.append(OutputCase(f"reply {row['id']}", reply, load_oracle_template(name),
                                        roundtrip_request(row)))
    return tuple(found)


# --- mutations of an output ---------------------------------------------------------------

TAG = re.compile(r"<[^<>\s]{1,40}>|\[[A-Z_]{2,30}\]|<\|[^|<>]{1,30}\|>|<｜[^｜]{1,30}｜>")
# where a cut falls: the kinds of point a stream or a max_tokens stop meets
CUT_POINTS: dict[str, Callable[[str], list[int]]] = {
    "inside a tag": lambda t: [i for m in TAG.finditer(t) for i in range(m.start() + 1, m.end())],
    "after a tag": lambda t: [m.end() for m in TAG.finditer(t)],
    "inside a JSON string": lambda t: [m.start() + 1 + k for m in re.finditer(r'"[^"\n]{1,60}"', t)
                                       for k in range(len(m.group()) - 1)],
    "after a JSON key": lambda t: [m.end() for m in re.finditer(r'"[^"\n]{1,40}":', t)],
    "at a brace or bracket": lambda t: [i for i, c in enumerate(t) if c in "{}[]"],
    "at whitespace": lambda t: [i for i, c in enumerate(t) if c.isspace()],
    "anywhere": lambda t: list(range(len(t) + 1)),
}
INSERTED = ("é", "ü", "中", "😀", "\u200b", "\ufeff", "ß", "\u0301", "Ω", "\u2028", "\x00", "\\", '"', "\\u00e9")
WHITESPACE = (" ", "\n", "\r\n", "\t", "  ", "\n\n")


@dataclass(frozen=True)
class Mutation:
    kind: str
    at: int
    extra: str = ""

    def apply(self, text: str) -> str:
        if self.kind == "cut":
            return text[:self.at]
        if self.kind == "drop":
            return text[:self.at] + text[self.at + 1:]
        if self.kind == "double":
            end = self.at + len(self.extra)
            return text[:end] + self.extra + text[end:]
        if self.kind in ("misspell", "insert", "whitespace"):
            return text[:self.at] + self.extra + text[self.at + (1 if self.kind == "misspell" else 0):]
        if self.kind == "strip-whitespace":
            return text[:self.at] + text[self.at:].replace(self.extra, "", 1)
        raise ValueError(self.kind)

    def describe(self) -> str:
        return f"{self.kind} at {self.at}" + (f" {self.extra!r}" if self.extra else "")


@st.composite
def mutation(draw: st.DrawFn, text: str) -> Mutation:
    """One mutation of ``text``, of a kind a model's output or its transport suffers."""
    kinds = ["cut", "insert", "whitespace"] + (["drop", "double", "misspell", "strip-whitespace"] if text else [])
    kind = draw(st.sampled_from(kinds))
    anywhere = st.integers(0, max(0, len(text) - 1))
    if kind == "cut":
        point = draw(st.sampled_from(sorted(CUT_POINTS)))
        places = CUT_POINTS[point](text) or [len(text)]
        return Mutation("cut", draw(st.sampled_from(places)), point)
    if kind == "drop":
        return Mutation("drop", draw(anywhere))
    if kind == "double":
        at = draw(anywhere)
        return Mutation("double", at, text[at:at + draw(st.integers(1, 12))])
    if kind == "misspell":
        tags = [m for m in TAG.finditer(text)]
        if tags:
            tag = draw(st.sampled_from(tags))
            at = draw(st.integers(tag.start() + 1, max(tag.start() + 1, tag.end() - 2)))
        else:
            at = draw(anywhere)
        return Mutation("misspell", at, draw(st.sampled_from(("x", "_", "|", "Q", "/"))))
    if kind == "insert":
        return Mutation("insert", draw(st.integers(0, len(text))), draw(st.sampled_from(INSERTED)))
    if kind == "whitespace":
        return Mutation("whitespace", draw(st.integers(0, len(text))), draw(st.sampled_from(WHITESPACE)))
    spaces = sorted({c for c in text if c.isspace()}) or [" "]
    return Mutation("strip-whitespace", draw(anywhere), draw(st.sampled_from(spaces)))


@st.composite
def mutated(draw: st.DrawFn, text: str, most: int = 3) -> tuple[str, tuple[Mutation, ...]]:
    """``text`` after one to ``most`` mutations (each drawn on the text so far)."""
    done: list[Mutation] = []
    for _ in range(draw(st.integers(1, most))):
        step = draw(mutation(text))
        text = step.apply(text)
        done.append(step)
    return text, tuple(done)


# --- mutations of a template -------------------------------------------------------------

MARKER = re.compile(r"<[|/]?[A-Za-z_][^<>'\"{}\s]{0,30}>|\[[A-Z_]{2,20}\]|<\|[^|'\"]{1,30}\|>")


@st.composite
def mutated_template(draw: st.DrawFn, text: str) -> tuple[str, str]:
    """(``text`` with a marker changed, once or everywhere, or a line removed; what changed)."""
    markers = sorted({m.group() for m in MARKER.finditer(text)})
    lines = text.split("\n")
    kinds = (["marker once", "marker everywhere"] if markers else []) + (["line removed"] if len(lines) > 2 else [])
    if not kinds:
        return text, "unchanged"
    kind = draw(st.sampled_from(kinds))
    if kind == "line removed":
        i = draw(st.integers(0, len(lines) - 1))
        return "\n".join(lines[:i] + lines[i + 1:]), f"line {i + 1} removed"
    marker = draw(st.sampled_from(markers))
    new = marker[:-1] + draw(st.sampled_from(("x", "_v2", "|"))) + marker[-1]
    if kind == "marker everywhere":
        return text.replace(marker, new), f"{marker!r} -> {new!r} everywhere"
    at = text.index(marker)
    return text[:at] + new + text[at + len(marker):], f"{marker!r} -> {new!r} once"


# --- requests -------------------------------------------------------------------------------


def _call(i: int, name: str, args: dict[str, object], as_string: bool) -> dict[str, object]:
    return {"id": f"call{i:05d}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False) if as_string else args}}


@st.composite
def conversation(draw: st.DrawFn) -> tuple[dict[str, object], ...]:
    """A conversation a client sends: a system message or not, turns with reasoning, calls
    (object or string arguments, one or two) and tool results, sometimes ending in an
    assistant turn to continue."""
    messages: list[dict[str, object]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(st.sampled_from(("You are helpful.", " spaced \n", "Система")))})
    turns = draw(st.integers(1, 3))
    for t in range(turns):
        messages.append({"role": "user", "content": draw(st.sampled_from(("Hello", "What's the weather?",
                                                                          "multi\nline", " trailing ", "")))})
        if t == turns - 1 and draw(st.booleans()):
            break
        turn: dict[str, object] = {"role": "assistant", "content": draw(st.sampled_from(("Sure.", "", "Let me check.")))}
        if draw(st.booleans()):
            turn["reasoning_content"] = draw(st.sampled_from(("Thinking...", "I should call the tool.")))
        if draw(st.booleans()):
            as_string = draw(st.booleans())
            calls = [_call(2 * t, "get_weather", {"city": draw(st.sampled_from(("Paris", "Zürich", 'he "q"\nx')))},
                           as_string)]
            if draw(st.booleans()):
                calls.append(_call(2 * t + 1, "search", {"query": "x", "limit": 3}, as_string))
            turn["tool_calls"] = calls
            if draw(st.booleans()):
                turn["content"] = None
        messages.append(turn)
        made = turn.get("tool_calls")
        for call in made if isinstance(made, list) else []:
            assert isinstance(call, dict)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": '{"temp": 20}'})
    return tuple(messages)


@st.composite
def request(draw: st.DrawFn) -> Request:
    """A request varied where llama-server's requests vary: thinking, tool choice, parallel
    calls, which tools in which order, the conversation, reasoning format, continuation."""
    messages = draw(conversation())
    tools = draw(st.sampled_from((None, (GET_WEATHER_TOOL,), (GET_WEATHER_TOOL, SEARCH_TOOL),
                                  (SEARCH_TOOL, GET_WEATHER_TOOL), (NO_ARGS_TOOL, GET_WEATHER_TOOL))))
    thinking = draw(st.booleans())
    last = messages[-1]
    continuation = draw(st.sampled_from(("none", "auto", "content", "reasoning"))) \
        if last["role"] == "assistant" else "none"
    return Request(
        messages=messages, tools=tools,
        tool_choice=draw(st.sampled_from(("auto", "required", "none"))) if tools else "auto",
        parallel_tool_calls=draw(st.booleans()), enable_thinking=thinking,
        chat_template_kwargs=thinking_kwargs(thinking) if draw(st.booleans()) else {},
        reasoning_format=draw(st.sampled_from(("deepseek", "none", "auto"))),
        continue_final_message=continuation,
        add_generation_prompt=continuation == "none" and (last["role"] != "assistant" or draw(st.booleans())))
