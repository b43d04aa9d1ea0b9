"""A round trip's steps re-run on the real build: does its verdict hold for that llama.cpp?

Input: a ``TemplateSession``, a thinking setting and a request change (the round trip the
doctor measures a fix with), and a ``LlamaCppDriver``. Output: an ``Agreement`` ("round
trip, enable_thinking X"): the real build's answer at every step where the port's round
trip asked llama.cpp something, the next-turn request's params, each message's rendering,
the end-of-turn probes' renderings, and the parse of each cut reply. The cut and the strip
are the harness's own rules on those texts (``explorer.roundtrip.cut``), so where every
step agrees the port's verdict (which messages come back) is the real build's too.
"""

from __future__ import annotations

from explorer.errors import ExplorerError
from explorer.jsontypes import Json, JsonObject
from explorer.llama_cpp.compare import (
    APPLY_KEYS,
    ERROR_FIELD,
    Agreement,
    Difference,
    differences,
    outcome_json,
    port_params,
    real_params,
    unposable,
)
from explorer.llama_cpp.driver import CppException, LlamaCppDriver
from explorer.roundtrip import DEFAULT_TOOLS, RoundTripCase
from explorer.roundtrip.run import USER, LlamaSetting, RequestChange
from explorer.session import TemplateSession

END_PROBES = ({"role": "assistant", "content": "X"}, {"role": "assistant", "content": "XY"})


def _prompt_of(side: JsonObject) -> object:
    return {ERROR_FIELD: True} if ERROR_FIELD in side else side.get("prompt")


def _port_render(setting: LlamaSetting, message: dict[str, Json]) -> object:
    try:
        return setting.render(message)
    except ExplorerError:
        return {ERROR_FIELD: True}


def _case_differences(case: RoundTripCase, setting: LlamaSetting, session: TemplateSession,
                      driver: LlamaCppDriver, real_next: JsonObject | CppException) -> list[Difference]:
    found: list[Difference] = []
    label = f"message {case.message_id}"
    request = setting.request((USER, case.message), False)
    real = _prompt_of(real_params(session, request, driver))
    port = case.rendering if case.rendering is not None else {ERROR_FIELD: True}
    if real != port:
        found.append(Difference(f"{label}: rendering", port if isinstance(port, str) else None,
                                real if isinstance(real, str) else None))
        return found  # the rest follows from a different rendering
    text = case.raw_output_stripped
    if text is None or isinstance(real_next, CppException):
        return found
    parsed = driver.parse(real_next, text).value
    got: object = {ERROR_FIELD: parsed.to_json()} if isinstance(parsed, CppException) else parsed
    want: object = {ERROR_FIELD: case.exception} if case.exception is not None else case.result
    if got != want:
        found.append(Difference(f"{label}: parse of the cut reply", want if isinstance(want, dict) else None,
                                got if isinstance(got, dict) else None))
    return found


def check_roundtrip(session: TemplateSession, enable_thinking: bool, driver: LlamaCppDriver, *,
                    change: RequestChange | None = None) -> Agreement:
    """The port's round trip (default messages and tools) with every llama.cpp step asked
    of the real build too."""
    what = f"round trip (enable_thinking {str(enable_thinking).lower()})"
    build = driver.info.label
    if session.overrides:
        return Agreement(what, build, None, None, skipped="the --set overrides are the port's; the real build has "
                                                           "no such workaround")
    report = session.roundtrip(enable_thinking, grammar=False, explain=False, change=change)
    setting = LlamaSetting(session.templates, tuple(DEFAULT_TOOLS), session.caps, enable_thinking,
                           change or RequestChange())
    next_turn = setting.request((USER,), True)
    why = unposable(next_turn)
    if why:
        return Agreement(what, build, None, None, skipped=why)
    real_next = driver.apply(session.text, next_turn).value
    found: list[Difference] = [Difference(f"next-turn request: {d.field}", d.port, d.llama_cpp)
                               for d in differences(port_params(session, next_turn), outcome_json(real_next),
                                                    APPLY_KEYS)]
    for probe in END_PROBES:
        port = _port_render(setting, dict(probe))
        real = _prompt_of(real_params(session, setting.request((USER, dict(probe)), False), driver))
        if port != real:
            found.append(Difference(f"end-of-turn probe {probe['content']!r}: rendering",
                                    port if isinstance(port, str) else None, real if isinstance(real, str) else None))
    for case in report.cases:
        found += _case_differences(case, setting, session, driver, real_next)
    back = sum(1 for c in report.cases if c.equal_trimmed)
    return Agreement(what, build, {"cases": len(report.cases), "back": back}, {"cases": len(report.cases)},
                     tuple(found))
