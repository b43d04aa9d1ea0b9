"""The transformers dialect renders what real transformers renders, byte for byte.

transformers' own ``render_jinja_template``, called as ``apply_chat_template(...,
tokenize=False)`` calls it (messages normalised first, the special tokens and the
keyword arguments merged), renders every template of ``../shared/oracle/templates``
(when present), our hostile set and our own test templates with every conversation of
``transformers_set`` at three thinking settings (true, false, not passed), in this
process. Our side is what ``render --dialect transformers`` renders for the same
inputs. Both read the same fixed date.

The only allowed difference is our render budget on a hostile template
(``OUR_LIMITS``): those are not rendered by transformers, because it would run for hours
or fill memory (the reason is named per template), and we check that ours stops with a
``RenderLimitError`` naming that limit. A template whose render raises must raise on
both sides, of the same kind (and with the template's own message for
``raise_exception``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import transformers
import transformers.utils.chat_template_utils as hf_utils
from jinja2 import TemplateSyntaxError as JinjaSyntaxError
from jinja2.exceptions import SecurityError, UndefinedError
from jinja2.exceptions import TemplateError as JinjaTemplateError

from explorer.cli import main
from explorer.errors import (
    ExplorerError,
    RenderLimitError,
    SandboxViolation,
    TemplateRaisedError,
    TemplateRuntimeError,
    TemplateSyntaxError,
)
from explorer.render import TRANSFORMERS_RELEASE, RenderInputs, RenderLimits, compile_template, render
from oracle_data import PROJECT_ROOT, load_oracle_template, oracle_template_names
from transformers_set import CONVERSATIONS, FIXED_DATE, THINKING, Conversation, project_templates

BOS, EOS = "<s>", "</s>"
# A hostile template's runaway is stopped by our budget; transformers has none. Name ->
# (the phrase our RenderLimitError says, why transformers is not run on it).
OUR_LIMITS: dict[str, tuple[str, str]] = {
    "hostile/center_width": ("requested width", "a 10^10-character str.center: transformers allocates it"),
    "hostile/concat_doubling": ("'~' result", "a string doubled 100 times: transformers fills memory"),
    "hostile/exponential_macro": ("budget", "2^60 macro calls: transformers runs for years"),
    "hostile/format_width": ("requested width", "a 10^10-wide str.format field: transformers allocates it"),
    "hostile/huge_power": ("too large", "10^(10^10): one C call that transformers cannot stop"),
    "hostile/indent_blowup": ("requested width", "an indent of 10^9 spaces per line: transformers fills memory"),
    "hostile/int_squaring": ("too large to compute", "an integer squared 40 times: transformers cannot stop it"),
    "hostile/list_repeat": ("repetition result", "a list of 10^11 items: transformers fills memory"),
    "hostile/percent_width": ("requested width", "a 10^10-wide '%' field: transformers allocates it"),
    "hostile/plus_doubling": ("concatenation result", "a string doubled 100 times: transformers fills memory"),
    "hostile/recursive_loop": ("call depth", "a recursive loop 10^6 deep: transformers runs until Python's "
                                             "recursion limit after minutes"),
    "hostile/recursive_macro": ("call depth", "an endless recursive macro: transformers hits Python's recursion "
                                              "limit, we stop at our call depth"),
    "hostile/replace_blowup": ("replace() result", "replace() growing a string 10^6-fold: transformers fills memory"),
    "hostile/string_repeat": ("repetition result", "a string of 10^12 characters: transformers fills memory"),
    "hostile/tojson_indent": ("tojson output", "tojson with a 10^9 indent: transformers fills memory"),
    "hostile/extra/macro_doubling": ("'~' result", "a macro doubling its result: transformers fills memory"),
    "hostile/nested_ranges": ("budget", "10^10 loop iterations: transformers runs for hours"),
}


def _templates() -> dict[str, str]:
    out = {f"oracle/{name}": load_oracle_template(name) for name in oracle_template_names()}
    return out | project_templates()


TEMPLATES = _templates()


class _FixedDatetime(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> datetime:  # noqa: ARG003
        return FIXED_DATE


@pytest.fixture()
def fixed_transformers_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """transformers' strftime_now reads the module's ``datetime.now()`` at call time."""
    monkeypatch.setattr(hf_utils, "datetime", _FixedDatetime)
    yield


def hf_apply(text: str, conversation: Conversation, thinking: bool | None) -> str:
    """``apply_chat_template(conversation, tools=..., documents=..., add_generation_prompt=...,
    tokenize=False, **({'enable_thinking': thinking}))`` with a tokenizer whose special
    tokens are BOS and EOS, as that method runs it (tokenization_utils_base)."""
    data = conversation.copy()
    conversations = [hf_utils._normalize_chat_messages(data["messages"])]
    kwargs: dict[str, Any] = {} if thinking is None else {"enable_thinking": thinking}
    template_kwargs = {"bos_token": BOS, "eos_token": EOS, **kwargs}
    rendered, _ = hf_utils.render_jinja_template(
        conversations=conversations, tools=data["tools"], documents=data["documents"], chat_template=text,
        add_generation_prompt=conversation.add_generation_prompt, **template_kwargs)
    return rendered[0]


def ours(text: str, conversation: Conversation, thinking: bool | None, limits: RenderLimits = RenderLimits()) -> str:
    """What ``render --dialect transformers --date ...`` renders (explorer/cli/render.py)."""
    data = conversation.copy()
    inputs = RenderInputs(messages=data["messages"], tools=data["tools"], documents=data["documents"],
                          add_generation_prompt=conversation.add_generation_prompt, enable_thinking=thinking,
                          bos_token=BOS, eos_token=EOS, extra_context={})
    return render(compile_template(text, "transformers"), inputs, limits=limits, clock=lambda: FIXED_DATE)


# transformers' exception -> the kind of ExplorerError ours must raise for the same render
_KINDS: tuple[tuple[type[BaseException], tuple[type[ExplorerError], ...]], ...] = (
    (JinjaSyntaxError, (TemplateSyntaxError,)),
    (SecurityError, (SandboxViolation,)),
    (UndefinedError, (TemplateRuntimeError,)),
    (JinjaTemplateError, (TemplateRaisedError,)),  # raise_exception's TemplateError(message)
    # Python's recursion limit: while compiling ("nests too deeply") or rendering
    (RecursionError, (TemplateSyntaxError, RenderLimitError)),
    (Exception, (TemplateRuntimeError,)),
)


def _outcome(fn: Any, *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except (ExplorerError, Exception) as exc:  # noqa: BLE001 - both sides' failures are compared
        return "raised", exc


def _check_same(name: str, label: str, theirs: tuple[str, Any], mine: tuple[str, Any]) -> str | None:
    """None when the two agree; else what differs."""
    if theirs[0] == "ok" and mine[0] == "ok":
        return None if theirs[1] == mine[1] else f"{label}: output differs\n  transformers {theirs[1]!r:.300}\n" \
                                                 f"  ours         {mine[1]!r:.300}"
    if theirs[0] != mine[0]:
        return f"{label}: transformers {theirs[0]} {theirs[1]!r:.200}, ours {mine[0]} {mine[1]!r:.200}"
    exc, got = theirs[1], mine[1]
    want = next(kinds for cls, kinds in _KINDS if isinstance(exc, cls))
    if want == (TemplateRaisedError,) and type(exc) is not JinjaTemplateError:
        want = (TemplateRuntimeError,)  # another jinja2 error: not the template's own message
    if type(got) not in want:
        return f"{label}: transformers raised {type(exc).__name__} ({exc}), ours {type(got).__name__} ({got})"
    if want == (TemplateRaisedError,) and str(exc) not in str(got):
        return f"{label}: raise_exception's message {str(exc)!r} is not in ours: {got}"
    return None


def test_the_release_the_dialect_follows_is_the_pinned_one() -> None:
    pins = (PROJECT_ROOT / "requirements-dev.txt").read_text(encoding="utf-8")
    assert f"transformers=={TRANSFORMERS_RELEASE}" in pins.split()
    assert transformers.__version__ == TRANSFORMERS_RELEASE
    note = (PROJECT_ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(rf"transformers {re.escape(TRANSFORMERS_RELEASE)}\b", note)


def test_the_template_set_is_complete() -> None:
    hostile = {n for n in TEMPLATES if n.startswith("hostile/")}
    assert set(OUR_LIMITS) <= hostile and len(hostile) >= 40
    assert sum(1 for n in TEMPLATES if n.startswith(("cases/", "bench/", "example/"))) >= 12


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_renders_as_transformers(name: str, fixed_transformers_clock: None) -> None:
    text = TEMPLATES[name]
    if name in OUR_LIMITS:
        phrase, _why = OUR_LIMITS[name]
        # transformers is not run (see OUR_LIMITS); ours must stop, naming the limit
        with pytest.raises(RenderLimitError, match=re.escape(phrase)):
            ours(text, CONVERSATIONS["plain"], None, RenderLimits(wall_seconds=0.5))
        return
    loaded = _outcome(hf_utils._compile_jinja_template, text)
    if loaded[0] == "raised":  # neither side can load it: the conversation does not matter
        problem = _check_same(name, f"{name} (compiling)", loaded, _outcome(compile_template, text, "transformers"))
        assert problem is None, problem
        return
    # transformers has no budget: a template outside OUR_LIMITS that ran away in it would
    # be stopped by pytest-timeout (pytest.ini), failing this test
    problems: list[str] = []
    for cname, conversation in CONVERSATIONS.items():
        for thinking in THINKING:
            label = f"{name} / {cname} / enable_thinking={'not passed' if thinking is None else thinking}"
            problem = _check_same(name, label, _outcome(hf_apply, text, conversation, thinking),
                                  _outcome(ours, text, conversation, thinking))
            if problem:
                problems.append(problem)
    assert not problems, "\n".join(problems[:6]) + (f"\n... {len(problems)} differences" if problems else "")


def test_the_cli_without_thinking_is_apply_chat_template(tmp_path: Path, fixed_transformers_clock: None,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's ``render --dialect transformers`` (no --thinking) with --date, on a
    template that reads enable_thinking, the date, a null content and documents."""
    import json

    text = ("{{ bos_token }}{{ strftime_now('%d %B %Y') }}|{{ enable_thinking is defined }}|"
            "{% for d in documents or [] %}[{{ d.title }}]{% endfor %}"
            "{% for m in messages %}<{{ m.role }}>{{ m.content if m.content is defined else '(absent)' }}"
            "{{ m.thinking if m.thinking is defined }}{% endfor %}"
            "{% if add_generation_prompt %}<assistant>{% endif %}")
    conversation = Conversation(
        ({"role": "user", "content": "Hi"}, {"role": "assistant", "content": None, "reasoning_content": "r",
                                             "tool_calls": [{"type": "function", "function": {
                                                 "name": "f", "arguments": "{}"}}]}),
        documents=({"title": "T", "text": "x"},))
    (tmp_path / "t.jinja").write_text(text, encoding="utf-8")
    (tmp_path / "m.json").write_text(json.dumps(conversation.copy()), encoding="utf-8")
    assert main(["render", str(tmp_path / "t.jinja"), "--messages", str(tmp_path / "m.json"), "--dialect",
                 "transformers", "--add-generation-prompt", "--bos-token", BOS, "--eos-token", EOS,
                 "--date", FIXED_DATE.isoformat()]) == 0
    out = capsys.readouterr().out
    assert out == hf_apply(text, conversation, None)
    assert out == "<s>07 March 2031|False|[T]<user>Hi<assistant>(absent)r<assistant>"
