"""The apply path against llama.cpp's own outputs (../shared/oracle).

Each comparison prints a count and the first mismatches. A mismatch fails the test
unless rendering explains it: the renderer raised (explorer.render's area), or the
template is listed in KNOWN_RENDER_GAPS with the rendering difference that causes it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from canitoolcall.fixtures import load_fixtures

from explorer.analysis import TemplateAnalysis
from explorer.analysis.model import Reasoning
from explorer.apply import (
    Request,
    apply_request,
    parser_prefix,
    standard_request,
    supports_enable_thinking,
)
from explorer.apply.messages import trim_whitespace
from explorer.caps import Caps
from explorer.errors import ExplorerError, TemplateError
from explorer.routing import route
from oracle_data import (
    ORACLE,
    load_oracle_analysis,
    load_oracle_template,
    oracle_template_names,
    requires_oracle,
)

pytestmark = requires_oracle

# Rendering differences that are not exceptions: template -> cause (explorer.render).
KNOWN_RENDER_GAPS: dict[str, str] = {}

THINKING = {"thinking_false": False, "thinking_true": True}


@functools.cache
def _analysis(name: str) -> dict:
    return load_oracle_analysis(name)


@functools.cache
def _caps(name: str) -> Caps:
    return Caps.coerce(_analysis(name)["caps"])


@functools.cache
def _reasoning(name: str) -> Reasoning:
    """The oracle's own reasoning analysis, typed (apply reads supports_thinking off it)."""
    return TemplateAnalysis.from_oracle_json(_analysis(name)["autoparser"]).reasoning


@functools.cache
def _applied(name: str, key: str) -> Any:
    """Our apply of the standard request, or the ExplorerError it raised."""
    try:
        return apply_request(
            load_oracle_template(name),
            standard_request(THINKING[key]),
            caps=_caps(name),
            reasoning=_reasoning(name),
        )
    except Exception as exc:  # noqa: BLE001 - a renderer crash is reported, not fatal
        return exc


def _cause(name: str, got: Any) -> str | None:
    if isinstance(got, TemplateError):
        return f"render raised {type(got).__name__}: {str(got)[:160]}"
    if isinstance(got, Exception) and not isinstance(got, ExplorerError):
        return None  # the render contract allows only TemplateError subclasses: a crash is our bug
    return KNOWN_RENDER_GAPS.get(name)


def _compare(label: str, field: Callable[[Any], Any], want: Callable[[str, str], Any]) -> None:
    total = matched = 0
    explained: list[str] = []
    unexplained: list[str] = []
    for name in oracle_template_names():
        for key in THINKING:
            total += 1
            got = _applied(name, key)
            expected = want(name, key)
            if not isinstance(got, Exception) and field(got) == expected:
                matched += 1
                continue
            shown = got if isinstance(got, Exception) else field(got)
            line = f"{name}/{key}: got {str(shown)[:120]!r} want {str(expected)[:120]!r}"
            cause = _cause(name, got)
            (explained if cause else unexplained).append(f"{line} -- {cause or 'UNEXPLAINED'}")
    print(f"\n{label}: {matched}/{total} match the oracle")
    for line in (unexplained + explained)[:12]:
        print("  ", line)
    assert total == 140
    assert unexplained == []


def test_standard_request_equals_oracle_inputs():
    for name in oracle_template_names():
        assert standard_request(True).to_oracle_inputs() == _analysis(name)["inputs"], name
        assert standard_request(False).to_oracle_inputs() == _analysis(name)["inputs"], name


def test_generation_prompt_matches_oracle():
    _compare(
        "generation_prompt",
        lambda a: a.generation_prompt,
        lambda n, k: _analysis(n)["apply"][k]["generation_prompt"],
    )


def test_prompt_matches_oracle():
    _compare("prompt", lambda a: a.prompt, lambda n, k: _analysis(n)["apply"][k]["prompt"])


def test_supports_thinking_matches_oracle():
    _compare(
        "supports_thinking",
        lambda a: a.supports_thinking,
        lambda n, k: _analysis(n)["apply"][k]["supports_thinking"],
    )


def test_template_supports_enable_thinking_matches_oracle():
    names = oracle_template_names()
    bad = []
    for name in names:
        d = _analysis(name)
        got = supports_enable_thinking(
            load_oracle_template(name), reasoning_mode=d["autoparser"]["reasoning"]["mode"]
        )
        if got != d["template_supports_enable_thinking"]:
            bad.append((name, got, d["template_supports_enable_thinking"]))
    print(f"\ntemplate_supports_enable_thinking: {len(names) - len(bad)}/{len(names)}")
    assert len(names) == 70 and bad == []


def test_parser_prefix_literal_is_in_oracle_parser():
    """The autoparser's parser starts with p.prefix(generation_prompt, trim(start)):
    that literal must be a node of llama.cpp's serialized parser."""
    checked = 0
    missing = []
    for name in oracle_template_names():
        d = _analysis(name)
        if d["routed"]["handler"] != "autoparser":
            continue
        start = trim_whitespace(d["autoparser"]["reasoning"]["start"])
        for key in THINKING:
            a = d["apply"][key]
            prefix = parser_prefix(a["generation_prompt"], start)
            if not prefix:
                continue
            checked += 1
            node = '{"type":"literal","literal":' + json.dumps(prefix, ensure_ascii=False) + "}"
            if node not in a["parser"]:
                missing.append((name, key, prefix))
    print(f"\nparser prefix literal: {checked - len(missing)}/{checked}")
    assert checked > 50 and missing == []


# --- roundtrip.jsonl: a second request shape, and assistant turns with tool calls -----------


def _roundtrip_lines() -> list[dict]:
    with open(ORACLE / "roundtrip.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _rt_request(line: dict, messages: tuple[dict, ...], add_gen: bool) -> Request:
    return Request(
        messages=messages,
        tools=tuple(line["tools"]),
        tool_choice="auto",
        parallel_tool_calls=line["parallel_tool_calls"],
        enable_thinking=line["enable_thinking"],
        chat_template_kwargs=dict(line["chat_template_kwargs"]),
        add_generation_prompt=add_gen,
    )


def _utf8_boundary(data: bytes, k: int) -> int:
    while 0 < k < len(data) and (data[k] & 0xC0) == 0x80:
        k -= 1
    return k


def _simple_cut(rendering: str, prompt: str) -> str:
    r = rendering.encode("utf-8")
    p = prompt.encode("utf-8")
    k = 0
    while k < min(len(r), len(p)) and r[k] == p[k]:
        k += 1
    return r[_utf8_boundary(r, k):].decode("utf-8")


@functools.cache
def _rt_prompt(template: str, enable_thinking: bool, kwargs_json: str, tools_json: str, parallel: bool) -> Any:
    name = template.removesuffix(".jinja")
    line = {
        "tools": json.loads(tools_json),
        "parallel_tool_calls": parallel,
        "enable_thinking": enable_thinking,
        "chat_template_kwargs": json.loads(kwargs_json),
    }
    hello = ({"role": "user", "content": "Hello"},)
    try:
        return apply_request(load_oracle_template(name), _rt_request(line, hello, True), caps=_caps(name))
    except Exception as exc:  # noqa: BLE001
        return exc


def _same_failure(exc: TemplateError, want: dict) -> bool:
    """Same wrapping (autoparser route) and the template's own raise_exception text."""
    prefix = "Unable to generate parser for this template."
    raised = want["message"].rsplit("Jinja Exception: ", 1)[-1]
    return exc.message.startswith(prefix) == want["message"].startswith(prefix) and raised in exc.message


def test_roundtrip_generation_prompt_and_rendering():
    """G for a two-tool request with chat_template_kwargs, and R (the conversation with
    the assistant message, add_generation_prompt false) cut where it parts from P."""
    lines = _roundtrip_lines()
    g_ok = r_ok = r_total = exc_ok = 0
    explained: list[str] = []
    unexplained: list[str] = []
    for line in lines:
        name = line["template"].removesuffix(".jinja")
        caps = _caps(name)
        applied = _rt_prompt(
            line["template"],
            line["enable_thinking"],
            json.dumps(line["chat_template_kwargs"]),
            json.dumps(line["tools"]),
            line["parallel_tool_calls"],
        )
        if isinstance(applied, Exception):
            (explained if _cause(name, applied) else unexplained).append(
                f"{line['id']}: P raised {applied} -- {_cause(name, applied) or 'UNEXPLAINED'}"
            )
            continue
        if applied.generation_prompt == line["generation_prompt"]:
            g_ok += 1
        else:
            cause = _cause(name, applied)
            (explained if cause else unexplained).append(
                f"{line['id']}: G {applied.generation_prompt!r} want {line['generation_prompt']!r} -- {cause or 'UNEXPLAINED'}"
            )
        conversation = ({"role": "user", "content": "Hello"}, line["message"])
        try:
            rendered = apply_request(
                load_oracle_template(name), _rt_request(line, conversation, False), caps=caps
            ).prompt
        except Exception as exc:  # noqa: BLE001
            want_exc = line["render_exception"]
            if want_exc is not None and isinstance(exc, TemplateError) and _same_failure(exc, want_exc):
                exc_ok += 1  # llama.cpp's template raised too, with the same message
            else:
                cause = _cause(name, exc)
                (explained if cause else unexplained).append(
                    f"{line['id']}: R raised {str(exc)[:100]} -- {cause or 'UNEXPLAINED'}"
                )
            continue
        if line["render_exception"] is not None:
            unexplained.append(f"{line['id']}: llama.cpp raised, we rendered -- UNEXPLAINED")
            continue
        r_total += 1
        got = _simple_cut(rendered, applied.prompt)
        if got == line["raw_output_simple"]:
            r_ok += 1
        else:
            cause = KNOWN_RENDER_GAPS.get(name)
            (explained if cause else unexplained).append(
                f"{line['id']}: R cut {got[:80]!r} want {line['raw_output_simple'][:80]!r} -- {cause or 'UNEXPLAINED'}"
            )
    print(f"\nroundtrip generation_prompt: {g_ok}/{len(lines)}")
    print(f"roundtrip rendering cut: {r_ok}/{r_total}, template raised as in llama.cpp: {exc_ok}/6")
    for entry in (unexplained + explained)[:15]:
        print("  ", entry)
    assert len(lines) == 840
    assert unexplained == []


# --- parse/*.jsonl: the canitoolcall fixtures' own tools and thinking settings --------------


def test_parse_fixture_generation_prompts():
    """Every parse line's request: [user "Hello"], the fixture's tools, the thinking
    value and kwargs llama-server sent; G and supports_thinking must match."""
    by_id = {f.id: f for f in load_fixtures()}
    total = g_ok = t_ok = 0
    explained: list[str] = []
    unexplained: list[str] = []
    for path in sorted((ORACLE / "parse").glob("*.jsonl")):
        for raw in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(raw)
            total += 1
            name = line["template"].removesuffix(".jinja")
            request = Request(
                messages=({"role": "user", "content": "Hello"},),
                tools=tuple(dict(t) for t in by_id[line["id"]].tools) or None,
                tool_choice="auto",
                parallel_tool_calls=line["parallel_tool_calls"],
                enable_thinking=line["enable_thinking"],
                chat_template_kwargs=dict(line["chat_template_kwargs"]),
            )
            try:
                got = apply_request(
                    load_oracle_template(name), request, caps=_caps(name), reasoning=_reasoning(name),
                )
            except Exception as exc:  # noqa: BLE001
                cause = _cause(name, exc)
                (explained if cause else unexplained).append(f"{line['id']}: raised {exc} -- {cause or 'UNEXPLAINED'}")
                continue
            t_ok += got.supports_thinking == line["supports_thinking"]
            if got.supports_thinking != line["supports_thinking"]:
                unexplained.append(f"{line['id']}: supports_thinking {got.supports_thinking} -- UNEXPLAINED")
            if got.generation_prompt == line["generation_prompt"]:
                g_ok += 1
                continue
            cause = KNOWN_RENDER_GAPS.get(name)
            (explained if cause else unexplained).append(
                f"{line['id']} ({name}): G {got.generation_prompt!r} want "
                f"{line['generation_prompt']!r} -- {cause or 'UNEXPLAINED'}"
            )
    print(f"\nparse fixtures generation_prompt: {g_ok}/{total}, supports_thinking: {t_ok}/{total}")
    for entry in (unexplained + explained)[:15]:
        print("  ", entry)
    assert total == 469
    assert unexplained == []


def test_apply_with_detected_caps():
    """The whole path with explorer.caps detecting the capabilities itself."""
    total = ok = 0
    unexplained: list[str] = []
    for name in oracle_template_names():
        d = _analysis(name)
        for key in THINKING:
            total += 1
            try:
                got = apply_request(load_oracle_template(name), standard_request(THINKING[key]))
            except Exception as exc:  # noqa: BLE001
                if not _cause(name, exc):
                    unexplained.append(f"{name}/{key}: raised {exc}")
                continue
            want = d["apply"][key]
            if (got.prompt, got.generation_prompt) == (want["prompt"], want["generation_prompt"]):
                ok += 1
            elif not KNOWN_RENDER_GAPS.get(name):
                unexplained.append(f"{name}/{key}: prompt or generation prompt differs")
    print(f"\nprompt + generation_prompt with detected caps: {ok}/{total}")
    for entry in unexplained[:10]:
        print("  ", entry)
    assert total == 140 and unexplained == []


def test_template_supports_enable_thinking_with_our_analysis():
    """End to end: the autoparser's reasoning mode from explorer.analysis itself."""
    names = oracle_template_names()
    bad = [
        name for name in names
        if supports_enable_thinking(load_oracle_template(name))
        != _analysis(name)["template_supports_enable_thinking"]
    ]
    print(f"\ntemplate_supports_enable_thinking (explorer.analysis): {len(names) - len(bad)}/{len(names)}")
    assert bad == []


def test_routing_workaround_listing_agrees_with_apply():
    """What explorer.routing says would run is what apply_request ran."""
    for name in oracle_template_names():
        d = _analysis(name)
        listed = {w.name for w in route(load_oracle_template(name), Caps.coerce(d["caps"])).workarounds if w.applies}
        applied = _applied(name, "thinking_true")
        if isinstance(applied, Exception):
            continue
        ran = {s.name for s in applied.steps} & {
            "trim_all_content", "map_developer_role_to_system", "system_message_not_supported",
            "requires_non_null_content", "func_args_not_string", "convert_tool_responses_gemma4",
        }
        assert listed == ran, name
