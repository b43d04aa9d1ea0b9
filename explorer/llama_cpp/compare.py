"""The port beside the real llama.cpp: the same question to both, and where they part.

Input: a ``TemplateSession`` (the port, llama.cpp 0c1e5709's behaviour), a
``LlamaCppDriver`` (a real build: 0c1e5709 or the user's own), and the request / output.
Output: an ``Agreement``: the two answers in the oracle's shape, every field where they
differ, and one sentence ("llama.cpp (build 0c1e5709) agrees" or what differs). The
comparisons: ``compare_apply`` (chat params), ``compare_parse`` (the message, or the
exception; the real build parses with its own params, as its llama-server would),
``compare_stream`` (every prefix), ``compare_analysis`` (caps, route, the autoparser's
analysis, thinking support).

Both raising counts as agreeing (the messages are shown, not compared: the port's words
are its own); one raising is a difference. A request the driver cannot pose (a model's
``add_bos``/``add_eos``: the driver loads no model) is not compared, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from explorer import LLAMA_CPP_COMMIT_SHORT
from explorer.apply import Request
from explorer.comparison import flatten_json
from explorer.errors import AnalysisError, ExplorerError, exception_json
from explorer.jsontypes import Json, JsonObject
from explorer.llama_cpp.driver import CppException, LlamaCppDriver, Timed
from explorer.output.streaming import StreamStep
from explorer.routing import AUTOPARSER
from explorer.session import TemplateSession

ERROR_FIELD = "exception"
EXCERPT = 48  # characters shown each side of where two long strings part


@dataclass(frozen=True)
class Difference:
    """One field the two answers give differently (dotted oracle name; JSON values)."""

    field: str
    port: Json
    llama_cpp: Json

    def to_json(self) -> JsonObject:
        return {"field": self.field, "port": self.port, "llama_cpp": self.llama_cpp}

    def describe(self) -> str:
        if isinstance(self.port, str) and isinstance(self.llama_cpp, str):
            return f"{self.field}: {parting(self.port, self.llama_cpp)}"
        return f"{self.field}: port {_short(self.port)}, llama.cpp {_short(self.llama_cpp)}"


@dataclass(frozen=True)
class Agreement:
    """One question asked of the port and of a real build."""

    what: str  # "apply", "parse", "partial parse", "stream", "analysis"
    build: str  # the real build's name
    port: Json
    llama_cpp: Json
    differences: tuple[Difference, ...] = ()
    skipped: str = ""  # why nothing was compared ("" when compared)
    notes: tuple[str, ...] = field(default=())

    @property
    def agrees(self) -> bool:
        return not self.skipped and not self.differences

    @property
    def same_build(self) -> bool:
        return self.build.endswith(LLAMA_CPP_COMMIT_SHORT) or self.build == LLAMA_CPP_COMMIT_SHORT

    def headline(self) -> str:
        who = f"llama.cpp (build {self.build})"
        if self.skipped:
            return f"{who}: {self.what} not compared ({self.skipped})"
        if self.agrees:
            return f"{who} agrees on the {self.what}"
        names = ", ".join(d.field for d in self.differences[:6]) + (" …" if len(self.differences) > 6 else "")
        port = "the port (llama.cpp 0c1e5709)" if not self.same_build else "the port"
        return f"{who} differs from {port} on the {self.what}: {names}"

    def to_text(self) -> str:
        lines = [self.headline()]
        lines += [f"  {d.describe()}" for d in self.differences[:20]]
        if len(self.differences) > 20:
            lines.append(f"  … and {len(self.differences) - 20} more")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_json(self) -> JsonObject:
        return {"what": self.what, "build": self.build, "agrees": self.agrees, "skipped": self.skipped,
                "differences": [d.to_json() for d in self.differences], "port": self.port,
                "llama_cpp": self.llama_cpp, "notes": list(self.notes)}


def parting(a: str, b: str) -> str:
    """Where two strings part, with a little of each side there."""
    k = 0
    limit = min(len(a), len(b))
    while k < limit and a[k] == b[k]:
        k += 1
    start = max(0, k - 16)
    left = ("…" if start else "") + a[start:k + EXCERPT] + ("…" if k + EXCERPT < len(a) else "")
    right = ("…" if start else "") + b[start:k + EXCERPT] + ("…" if k + EXCERPT < len(b) else "")
    return f"they part at character {k} (port {len(a)}, llama.cpp {len(b)} characters): port {left!r}, " \
           f"llama.cpp {right!r}"


def _short(value: Json) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "…"


def differences(port: Json, real: Json, keys: Sequence[str] | None = None) -> tuple[Difference, ...]:
    """Field-by-field differences of two JSON answers (``keys``: only these top-level ones)."""
    if isinstance(port, dict) and isinstance(real, dict):
        if keys is not None:
            port = {k: port.get(k) for k in keys}
            real = {k: real.get(k) for k in keys}
        fa, fb = flatten_json(port), flatten_json(real)
        names = list(fa) + [k for k in fb if k not in fa]
        return tuple(Difference(n, _json(fa.get(n)), _json(fb.get(n))) for n in names if fa.get(n) != fb.get(n))
    return () if port == real else (Difference("", port, real),)


def _json(value: object) -> Json:
    return value if value is None or isinstance(value, (bool, int, float, str, list, dict)) else str(value)


def outcome_json(value: JsonObject | CppException) -> JsonObject:
    return {ERROR_FIELD: value.to_json()} if isinstance(value, CppException) else value


def _error_json(exc: ExplorerError) -> JsonObject:
    shown = exception_json(exc)
    error: JsonObject = {"type": shown["type"], "message": shown["message"]}
    return {ERROR_FIELD: error}


def _both(what: str, build: str, port: JsonObject, real: JsonObject, keys: Sequence[str] | None = None,
          notes: tuple[str, ...] = ()) -> Agreement:
    """Compare, with "both raised" as agreement (each side's message kept)."""
    port_error, real_error = ERROR_FIELD in port, ERROR_FIELD in real
    if port_error and real_error:
        said = f"both raised: the port {_message(port)}; llama.cpp {_message(real)}"
        return Agreement(what, build, port, real, (), notes=(*notes, said))
    if port_error or real_error:
        return Agreement(what, build, port, real, (Difference(ERROR_FIELD, _json(port.get(ERROR_FIELD)),
                                                              _json(real.get(ERROR_FIELD))),), notes=notes)
    return Agreement(what, build, port, real, differences(port, real, keys), notes=notes)


def _message(side: JsonObject) -> str:
    exc = side.get(ERROR_FIELD)
    return repr(exc.get("message", "")) if isinstance(exc, dict) else ""


def unposable(request: Request) -> str:
    """Why the driver cannot pose this request ("" when it can)."""
    if request.add_bos or request.add_eos:
        return "add_bos/add_eos come from a model's vocabulary and the driver loads no model"
    return ""


APPLY_KEYS = ("format", "generation_prompt", "prompt", "grammar", "grammar_lazy", "grammar_triggers",
              "preserved_tokens", "additional_stops", "supports_thinking", "thinking_start_tag",
              "thinking_end_tags", "message_delimiters", "parser")


def port_params(session: TemplateSession, request: Request) -> JsonObject:
    try:
        return session.params(request).to_oracle_json()
    except ExplorerError as exc:
        return _error_json(exc)


def real_params(session: TemplateSession, request: Request, driver: LlamaCppDriver) -> JsonObject:
    return outcome_json(driver.apply(session.text, request).value)


def compare_apply(session: TemplateSession, request: Request, driver: LlamaCppDriver) -> Agreement:
    """``common_chat_templates_apply`` by both."""
    build = driver.info.label
    why = unposable(request)
    if why:
        return Agreement("apply", build, None, None, skipped=why)
    return _both("apply", build, port_params(session, request), real_params(session, request, driver), APPLY_KEYS)


def port_message(session: TemplateSession, output: str, request: Request, *, partial: bool) -> JsonObject:
    try:
        parsed = session.parse(output, request, partial=partial)
    except ExplorerError as exc:
        return _error_json(exc)
    if parsed.error is not None:
        return _error_json(parsed.error)
    assert parsed.message is not None
    return parsed.message.to_oracle_json()


def compare_parse(session: TemplateSession, output: str, request: Request, driver: LlamaCppDriver, *,
                  partial: bool = False) -> Agreement:
    """``common_chat_parse`` of the output by both, each with its own params for the request."""
    what = "partial parse" if partial else "parse"
    build = driver.info.label
    why = unposable(request)
    if why:
        return Agreement(what, build, None, None, skipped=why)
    real_applied = driver.apply(session.text, request).value
    if isinstance(real_applied, CppException):
        port = port_message(session, output, request, partial=partial)
        return _both(what, build, port, outcome_json(real_applied),
                     notes=("llama.cpp could not apply the request, so it parsed nothing",))
    real = outcome_json(driver.parse(real_applied, output, partial=partial).value)
    return _both(what, build, port_message(session, output, request, partial=partial), real)


def parsed_agreement(what: str, driver: LlamaCppDriver, port: Mapping[str, Json], real: Timed) -> Agreement:
    """A parse both made with one serialized parser: the port's ``{"result", "exception"}``
    (the oracle's fields) beside the real build's answer."""
    result, exc = port.get("result"), port.get("exception")
    side: JsonObject = result if isinstance(result, dict) else {ERROR_FIELD: _json(exc)}
    return _both(what, driver.info.label, side, outcome_json(real.value))


def _step_json(step: StreamStep) -> JsonObject:
    if step.error is not None:
        return _error_json(step.error)
    return step.message.to_oracle_json() if step.message is not None else {}


def compare_stream(session: TemplateSession, output: str, request: Request, driver: LlamaCppDriver) -> Agreement:
    """llama-server's streaming by both: the output re-parsed after every character."""
    build = driver.info.label
    why = unposable(request)
    if why:
        return Agreement("stream", build, None, None, skipped=why)
    real_applied = driver.apply(session.text, request).value
    try:
        steps = session.stream(output, request)
    except ExplorerError as exc:
        return _both("stream", build, _error_json(exc), outcome_json(real_applied))
    if isinstance(real_applied, CppException):
        return _both("stream", build, {"steps": len(steps)}, outcome_json(real_applied))
    run = driver.stream(real_applied, output)
    port_steps = [_step_json(s) for s in steps]
    real_steps = [outcome_json(s) for s in run.steps]
    found: list[Difference] = []
    if len(port_steps) != len(real_steps):
        found.append(Difference("prefixes", len(port_steps), len(real_steps)))
    for i, (a, b) in enumerate(zip(port_steps, real_steps)):
        if (ERROR_FIELD in a) != (ERROR_FIELD in b) or (ERROR_FIELD not in a and a != b):
            found += [Difference(f"prefix {i + 1} {d.field}".rstrip(), d.port, d.llama_cpp)
                      for d in (differences(a, b) if ERROR_FIELD not in a and ERROR_FIELD not in b
                                else (Difference(ERROR_FIELD, _json(a.get(ERROR_FIELD)), _json(b.get(ERROR_FIELD))),))]
            break  # the first prefix where they part; later ones follow from it
    summary = {"prefixes": len(port_steps), "final": port_steps[-1] if port_steps else None}
    real_summary = {"prefixes": run.prefixes, "final": outcome_json(run.final)}
    return Agreement("stream", build, _json(summary), _json(real_summary), tuple(found))


def port_analysis(session: TemplateSession) -> JsonObject:
    out: JsonObject = {"caps": _json(session.caps.to_json()), "specialized": session.handler != AUTOPARSER}
    try:
        out["autoparser"] = _json(session.analysis.to_oracle_json())
    except AnalysisError as exc:
        out["autoparser"] = _error_json(exc)
    support = session.enable_thinking_support
    out["supports_enable_thinking"] = _error_json(support) if isinstance(support, ExplorerError) else support
    if not isinstance(support, ExplorerError):  # the session's reading without a render: the same answer
        out["enable_thinking_default"] = session.supports_enable_thinking
    return out


def real_analysis(session: TemplateSession, driver: LlamaCppDriver, *,
                  tools: Sequence[Mapping[str, object]] | None = None) -> JsonObject:
    made = driver.template(session.text)
    if isinstance(made, CppException):
        return outcome_json(made)
    out: JsonObject = {"caps": _json(made.caps)}
    if driver.info.analysis:
        run = driver.analyze(session.text, tools=[_json(dict(t)) for t in tools] if tools is not None else None)
        out["specialized"] = run.specialized
        out["autoparser"] = outcome_json(run.autoparser)
    thinking = made.supports_enable_thinking
    out["supports_enable_thinking"] = outcome_json(thinking) if isinstance(thinking, CppException) else thinking
    if not isinstance(thinking, CppException):
        out["enable_thinking_default"] = thinking
    return out


def compare_analysis(session: TemplateSession, driver: LlamaCppDriver) -> Agreement:
    """What both read off the template itself: caps, the route (specialised or not), the
    autoparser's analysis (workarounds included), llama-server's enable_thinking default."""
    build = driver.info.label
    from explorer.apply import GET_WEATHER_TOOL

    real = real_analysis(session, driver, tools=[GET_WEATHER_TOOL])
    port = port_analysis(session)
    if ERROR_FIELD in real:
        return Agreement("analysis", build, port, real, (Difference(ERROR_FIELD, None, real.get(ERROR_FIELD)),),
                         notes=("llama.cpp could not initialise the template",))
    notes: tuple[str, ...] = ()
    if not driver.info.analysis:
        notes = ("this build does not expose the autoparser's analysis: caps and thinking support only",)
        port = {k: v for k, v in port.items() if k in real}
    port_auto, real_auto = port.get("autoparser"), real.get("autoparser")
    rest_port, rest_real = ({k: v for k, v in side.items() if k != "autoparser"} for side in (port, real))
    for key in rest_port:
        a, b = rest_port[key], rest_real.get(key)
        if isinstance(a, dict) and isinstance(b, dict) and ERROR_FIELD in a and ERROR_FIELD in b:
            notes += (f"both raised on {key}: the port {_message(a)}; llama.cpp {_message(b)}",)
            rest_port[key] = rest_real[key] = "raised"
    found = list(differences(rest_port, rest_real))
    if isinstance(port_auto, dict) and isinstance(real_auto, dict):
        raised = (ERROR_FIELD in port_auto, ERROR_FIELD in real_auto)
        if raised == (True, True):
            notes += ("both analyses raised: the port " + _message(port_auto) + "; llama.cpp " + _message(real_auto),)
        elif any(raised):
            found.append(Difference(f"autoparser.{ERROR_FIELD}", _json(port_auto.get(ERROR_FIELD)),
                                    _json(real_auto.get(ERROR_FIELD))))
        else:
            found += [Difference(f"autoparser.{d.field}", d.port, d.llama_cpp)
                      for d in differences(port_auto, real_auto)]
    return Agreement("analysis", build, port, real, tuple(found), notes=notes)
