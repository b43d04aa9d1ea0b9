"""Stop-token artifacts: a round-trip reply the parser rejects only because the template's
end-of-turn token is left at its end.

Input: a ``TemplateSession``, one round-trip case and its thinking setting. Output:
``stop_artifact``: the token (``<|eom_id|>``, ``<｜end▁of▁sentence｜>``) when the reply,
without it, parses back to the message, else None. A model stops on its end-of-turn token
and llama-server never hands it to the parser (when the model's vocabulary marks it as
end of generation), so such a case is no parser loss: its fix is an additional stop, or
nothing.
"""

from __future__ import annotations

import re

from explorer.apply.pipeline import ChatParams
from explorer.errors import ExplorerError
from explorer.roundtrip import DEFAULT_TOOLS, RoundTripCase
from explorer.roundtrip.compare import compare
from explorer.roundtrip.run import USER, LlamaSetting
from explorer.session import TemplateSession

_END_TOKEN = re.compile(r"(<\|[^|<>\s]+\|>|<｜[^｜<>\s]+｜>|\[/?[A-Z][A-Z_]*\]|</s>)\s*$")


def next_turn_params(session: TemplateSession, thinking: bool) -> ChatParams | None:
    """The round trip's next-turn parser for one thinking setting (None: the request fails)."""
    request = LlamaSetting(session.templates, tuple(DEFAULT_TOOLS), session.caps, thinking).request((USER,), True)
    try:
        return session.params(request)
    except ExplorerError:
        return None


def stop_artifact(session: TemplateSession, case: RoundTripCase, thinking: bool) -> str | None:
    """The end-of-turn token the case's reply is rejected for (see the module docstring)."""
    reply = case.raw_output_stripped
    if case.result is not None or reply is None:
        return None
    m = _END_TOKEN.search(reply)
    if m is None:
        return None
    params = next_turn_params(session, thinking)
    if params is None:
        return None
    try:
        result = params.parse(reply[:m.start()]).to_oracle_json()
    except ExplorerError:
        return None
    # what the template leaves out of the turn is not the parser's to give back
    wanted = {k: v for k, v in case.message.items()
              if not (k == "reasoning_content" and isinstance(v, str) and v and v not in (case.rendering or ""))}
    return m.group(1) if compare(wanted, result).equal_trimmed else None


__all__ = ["next_turn_params", "stop_artifact"]
