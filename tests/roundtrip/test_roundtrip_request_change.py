"""The round trip under a request change (``RequestChange``): what a client changes in the
oracle's request reaches every rendering and the next-turn parser; no change is the
oracle's own round trip."""

from __future__ import annotations

from explorer.apply import Request
from explorer.roundtrip import RequestChange
from explorer.session import open_session

THINKING = (  # our own: reasoning kept in history, the block closed in the prompt when thinking is off
    "{%- for m in messages %}{{ '<|im_start|>' + m.role + '\\n' }}"
    "{%- if m.reasoning_content %}{{ '<think>' + m.reasoning_content + '</think>' }}{%- endif %}"
    "{{ m.content }}{{ '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
    "{%- if enable_thinking is defined and not enable_thinking %}{{ '<think></think>' }}{%- endif %}{%- endif %}"
)


def test_a_change_sets_only_what_it_names_and_enable_thinking_sets_both_kwargs() -> None:
    base = Request(messages=({"role": "user", "content": "Hi"},), enable_thinking=False,
                   chat_template_kwargs={"enable_thinking": False, "thinking": False, "keep": 1})
    assert RequestChange().empty and RequestChange().apply(base) == base
    changed = RequestChange(enable_thinking=True, chat_template_kwargs=(("reasoning_effort", "high"),),
                            reasoning_format="none", parallel_tool_calls=True).apply(base)
    assert changed.enable_thinking and changed.reasoning_format == "none" and changed.parallel_tool_calls
    assert changed.chat_template_kwargs == {"enable_thinking": True, "thinking": True, "keep": 1,
                                            "reasoning_effort": "high"}
    assert RequestChange(enable_thinking=True, reasoning_format="none").to_json() == {
        "chat_template_kwargs": {"enable_thinking": True}, "reasoning_format": "none"}


def test_no_change_is_the_oracles_round_trip() -> None:
    session = open_session(THINKING)
    assert session.roundtrip(False, grammar=False, change=RequestChange()) is session.roundtrip(False, grammar=False)


def test_a_change_reaches_the_renderings_and_the_next_turn_parser() -> None:
    session = open_session(THINKING)
    off = session.roundtrip(False, grammar=False)
    on = session.roundtrip(False, grammar=False, change=RequestChange(enable_thinking=True))
    assert off.generation_prompt.endswith("<think></think>") and not on.generation_prompt.endswith("</think>")
    assert on.enable_thinking is False  # the report keeps the row's own setting; the change is the client's
    [b_off] = [c for c in off.cases if c.message_id == "b"]
    [b_on] = [c for c in on.cases if c.message_id == "b"]
    assert not b_off.equal_trimmed and b_on.equal_trimmed
    raw = session.roundtrip(True, grammar=False, change=RequestChange(reasoning_format="none"))
    [b_raw] = [c for c in raw.cases if c.message_id == "b"]
    assert b_raw.result is not None and "</think>" in b_raw.result["content"]
    single = session.roundtrip(True, grammar=False, change=RequestChange(parallel_tool_calls=False))
    assert single.parallel_tool_calls is False
