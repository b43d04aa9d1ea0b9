"""Rendering of whole conversations against llama.cpp: the oracle's round-trip renders.

``../shared/oracle/roundtrip.jsonl`` (840 lines) renders ``[user "Hello", assistant
MESSAGE]`` (R) and the next-turn prompt (P) with llama.cpp and stores ``raw_output``, the
text cut out of R. When the cut rule is ``prompt``, R must equal P + raw_output; otherwise
R must end with raw_output and P must not be a prefix of R. Lines where llama.cpp's render
threw must throw here too, with the template's own message.

This goes through ``explorer.apply`` (chat.cpp's message workarounds decide what the
template sees); the rendering itself is ``explorer.render``'s llama.cpp dialect, tested
here on assistant turns with content, reasoning and tool calls.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from explorer import apply
from explorer.caps import detect_caps
from explorer.errors import ExplorerError
from explorer.render import CompiledTemplate, compile_template
from oracle_data import ORACLE, load_oracle_template, requires_oracle

pytestmark = requires_oracle

USER = {"role": "user", "content": "Hello"}


def _lines() -> list[dict[str, Any]]:
    path = ORACLE / "roundtrip.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@cache
def _template(name: str) -> tuple[CompiledTemplate, Any]:
    tmpl = compile_template(load_oracle_template(name.removesuffix(".jinja")))
    return tmpl, detect_caps(tmpl)


def _prompt(line: dict[str, Any], messages: tuple[dict, ...], add_generation_prompt: bool) -> str:
    tmpl, caps = _template(line["template"])
    request = apply.Request(
        messages=messages,
        tools=tuple(line["tools"]),
        parallel_tool_calls=line["parallel_tool_calls"],
        enable_thinking=line["enable_thinking"],
        chat_template_kwargs=line["chat_template_kwargs"],
        add_generation_prompt=add_generation_prompt,
    )
    return apply.apply_request(tmpl, request, caps=caps).prompt


def _check(line: dict[str, Any]) -> str | None:
    """None when our renders agree with llama.cpp's, else what differs."""
    if line["render_exception"]:
        try:
            _prompt(line, (USER, line["message"]), False)
        except ExplorerError as exc:
            wanted = line["render_exception"]["message"]
            ours = str(exc)
            raised = ours.split("template raised an exception: ", 1)[-1].split(" (line ")[0]
            return None if raised in wanted else f"message differs: {ours!r}"
        return "llama.cpp threw, we rendered"
    rendered = _prompt(line, (USER, line["message"]), False)
    prompt = _prompt(line, (USER,), True)
    raw = line["raw_output"]
    if line["cut_rule"] == "prompt":
        if rendered.startswith(prompt) and rendered[len(prompt):] == raw:
            return None
        return f"R after P: {rendered[len(prompt):][:80]!r} vs llama.cpp {raw[:80]!r}"
    if rendered.endswith(raw) and not rendered.startswith(prompt):
        return None
    return f"R tail {rendered[-80:]!r} vs llama.cpp raw_output {raw[-80:]!r}"


LINES = _lines()


def test_roundtrip_renders_match_llama_cpp() -> None:
    problems = {line["id"]: why for line in LINES if (why := _check(line)) is not None}
    print(f"round-trip renders: {len(LINES) - len(problems)}/{len(LINES)} agree with llama.cpp")
    for ident, why in list(problems.items())[:10]:
        print(f"  {ident}: {why}")
    assert len(LINES) == 840
    assert not problems
