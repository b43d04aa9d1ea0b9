"""The handler registry: one class per route, listed once each, in llama.cpp's routing order.

The order is the oracle README's ("checked in llama.cpp's order: ..."), which names the
specialised handlers of common_chat_try_specialized_template at 0c1e5709; the Gemma 4
branch is two classes there, the outdated-template variant first.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from explorer.handlers import (
    HANDLER_CLASSES,
    Handler,
    Route,
    find_handler,
    find_route,
    handler_named,
    route_named,
    route_names,
    routes,
)
from explorer.handlers.autoparser import Autoparser
from explorer.handlers.gemma4 import Gemma4, Gemma4Outdated
from explorer.handlers.lfm2 import Lfm2, Lfm25
from explorer.routing import AUTOPARSER, route_source
from oracle_data import (
    ORACLE,
    PROJECT_ROOT,
    load_oracle_analysis,
    load_oracle_template,
    oracle_template_names,
    requires_oracle,
)

OUTDATED_GEMMA4 = "gemma4(outdated-template-workarounds)"


def readme_order() -> list[str]:
    """The README's list, with gemma4 as its two classes (outdated variant first)."""
    text = " ".join((ORACLE / "README.md").read_text(encoding="utf-8").split())
    listed = re.search(r"checked in llama\.cpp's order: (.*?)\. `gemma4\(outdated", text)
    assert listed is not None, "the oracle README no longer lists the routing order"
    names = re.findall(r"`([^`]+)`", listed.group(1))
    at = names.index("gemma4")
    return names[:at] + [OUTDATED_GEMMA4] + names[at:]


@requires_oracle
def test_registry_lists_every_handler_once_in_llama_cpps_order() -> None:
    expected = readme_order()
    assert len(expected) == 17
    assert [cls.name for cls in HANDLER_CLASSES] == expected
    assert len(set(HANDLER_CLASSES)) == len(HANDLER_CLASSES)
    assert routes() == HANDLER_CLASSES + (Autoparser,)
    assert route_names() == tuple(expected) + (AUTOPARSER,)


@requires_oracle
def test_routing_every_oracle_template_through_the_registry() -> None:
    names = oracle_template_names()
    assert len(names) == 70
    mismatches = []
    for name in names:
        want = load_oracle_analysis(name)["routed"]["handler"]
        got, checks = route_source(load_oracle_template(name))
        # the checks are the registry's classes, in order, up to the winner
        assert [c.rule for c in checks] == [cls.name for cls in HANDLER_CLASSES[:len(checks)]]
        if got != want:
            mismatches.append((name, got, want))
    assert mismatches == []


def test_lookups_by_name() -> None:
    for cls in HANDLER_CLASSES:
        assert route_named(cls.name) is cls and handler_named(cls.name) is cls
        assert find_route(cls.name) is cls and find_handler(cls.name) is cls
    assert route_named(AUTOPARSER) is Autoparser and find_handler(AUTOPARSER) is None
    # the pipeline's --skip-chat-parsing result is no route
    assert find_route("pure-content") is None
    with pytest.raises(KeyError):
        route_named("pure-content")
    with pytest.raises(KeyError):
        handler_named(AUTOPARSER)


def test_every_route_declares_what_the_apply_stage_asks() -> None:
    for cls in routes():
        assert issubclass(cls, Route)
        assert callable(cls.continuation), cls.name
        assert cls.supports_thinking in (True, False, None), cls.name
    for cls in HANDLER_CLASSES:
        assert issubclass(cls, Handler) and cls.required, cls.name
        assert callable(cls.build) and callable(cls.include) and callable(cls.lazy), cls.name
    assert Autoparser.required == Autoparser.forbidden == Autoparser.any_of == ()
    assert Autoparser.thinking_supported("<think>") is None


def test_variants_llama_cpp_routes_twice_are_subclasses() -> None:
    assert issubclass(Gemma4Outdated, Gemma4) and issubclass(Lfm25, Lfm2)
    assert HANDLER_CLASSES.index(Gemma4Outdated) == HANDLER_CLASSES.index(Gemma4) - 1
    assert [w.name for w in Gemma4Outdated.message_workarounds] == ["convert_tool_responses_gemma4"]
    assert Gemma4.message_workarounds == ()
    assert Lfm25.preserved_tokens == Lfm2.preserved_tokens[:4]


def test_only_the_harmony_style_handlers_declare_garbles() -> None:
    declared = {cls.name: len(cls.garbles) for cls in routes() if cls.garbles}
    assert declared == {"gpt-oss": 10, "muse-glimmer": 1, "functionary-v3.2": 5}
    assert {cls.name: cls.not_end_of_generation for cls in routes() if cls.not_end_of_generation} == \
        {"gpt-oss": ("<|end|>",)}


def test_declarations_load_without_the_stages_that_read_them() -> None:
    """Layering: the handler classes sit below routing, apply and triage."""
    code = ("import json, sys; import explorer.handlers.registry; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('explorer.'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True,
                         check=True).stdout
    loaded = json.loads(out)
    stages = {m.split(".")[1] for m in loaded}
    assert not stages & {"triage", "apply", "routing"}, stages
    assert "explorer.apply.pipeline" not in loaded
