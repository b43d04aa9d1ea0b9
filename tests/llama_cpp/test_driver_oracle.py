"""The driver against llama.cpp's own recorded outputs: it is llama.cpp 0c1e5709.

Before the port is compared with a build, the build is checked: the default driver must
reproduce every recorded analysis, route, capability set, thinking default, both applies
of the standard request, and each fixture's parse (whole and partial). A driver of another
commit is not held to 0c1e5709's records: these tests skip for it, saying so.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from explorer import LLAMA_CPP_COMMIT_SHORT
from explorer.apply import GET_WEATHER_TOOL, standard_request
from explorer.cli.batch import raw_output_for
from explorer.llama_cpp.driver import CppException, LlamaCppDriver
from oracle_data import ORACLE, load_oracle_analysis, load_oracle_template, oracle_template_names, requires_oracle

pytestmark = requires_oracle

THINKING = {"thinking_false": False, "thinking_true": True}


@pytest.fixture(scope="module")
def build(llama_cpp: LlamaCppDriver) -> LlamaCppDriver:
    if LLAMA_CPP_COMMIT_SHORT not in llama_cpp.info.commit:
        pytest.skip(f"the driver is llama.cpp {llama_cpp.info.label}, not {LLAMA_CPP_COMMIT_SHORT}: the records "
                    "are 0c1e5709's")
    return llama_cpp


def _json(value: object) -> object:
    return value.to_json() if isinstance(value, CppException) else value


def test_the_driver_reads_every_corpus_template_as_llama_cpp_recorded(build: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    wrong: list[str] = []
    names = oracle_template_names()
    for name in names:
        recorded, text = load_oracle_analysis(name), load_oracle_template(name)
        made = build.template(text)
        assert not isinstance(made, CppException), (name, made)
        run = build.analyze(text, tools=[GET_WEATHER_TOOL])
        if made.caps != recorded["caps"]:
            wrong.append(f"{name}: caps")
        if made.supports_enable_thinking != recorded["template_supports_enable_thinking"]:
            wrong.append(f"{name}: supports_enable_thinking")
        if _json(run.autoparser) != recorded["autoparser"]:
            wrong.append(f"{name}: analysis")
        if run.specialized != recorded["routed"]["llama_router_specialized"]:
            wrong.append(f"{name}: route")
        for key, thinking in THINKING.items():
            params = build.apply(text, standard_request(thinking)).value
            want = recorded["apply"][key]
            if isinstance(params, CppException) or any(params.get(k) != want[k] for k in want if k in params):
                wrong.append(f"{name}/{key}: apply")
    record_property("cases", len(names) * 3)
    assert not wrong, wrong[:10]


def test_the_driver_parses_every_fixture_as_llama_cpp_recorded(build: LlamaCppDriver, record_property: Callable[[str, object], None]) -> None:
    wrong: list[str] = []
    rows = [json.loads(line) for path in sorted((ORACLE / "parse").glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        text = raw_output_for(row)
        whole = _json(build.parse(row, text).value)
        partial = _json(build.parse(row, text, partial=True).value)
        if whole != (row["result"] if row["result"] is not None else row["exception"]):
            wrong.append(f"{row['id']}: result")
        final = row["streaming_final"] if row["streaming_final"] is not None else row["streaming_final_exception"]
        if partial != final:
            wrong.append(f"{row['id']}: partial")
    record_property("cases", 2 * len(rows))
    assert len(rows) == 469
    assert not wrong, wrong[:10]
