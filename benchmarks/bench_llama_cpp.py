"""The port beside the real llama.cpp on the same inputs, in one run (not part of the test run).

    python benchmarks/bench_llama_cpp.py [--driver PATH] [--folder DIR] [--repeat N] [--kb N]

For each measure, the same input goes to the port (in this process) and to the driver
(``python -m explorer llama-cpp build``; default ``$TEMPLATE_EXPLORER_LLAMA_CPP_DRIVER``,
else the cached build of llama.cpp 0c1e5709): the analysis of each template, the apply of
the standard request (thinking off and on), the parse of a plain-content output and of a
tool call with large JSON arguments (``--kb`` each), and streaming (an output re-parsed
after every character, as llama-server does). The real build's time is the library call's
own (the driver times it inside the process, without the JSON lines around it); the time
through the pipe is printed beside it. Medians of ``--repeat`` runs, and the ratio
port / llama.cpp. Templates: our own examples, and every ``*.jinja`` of ``--folder`` (default
../shared/oracle/templates when it exists).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.analysis import analyze_template  # noqa: E402
from explorer.apply import GET_WEATHER_TOOL, Request, standard_request  # noqa: E402
from explorer.apply.pipeline import apply_template  # noqa: E402
from explorer.apply.templates import init_templates  # noqa: E402
from explorer.caps import detect_caps  # noqa: E402
from explorer.errors import ExplorerError  # noqa: E402
from explorer.llama_cpp.build import cached_driver  # noqa: E402
from explorer.llama_cpp.driver import CppException, LlamaCppDriver, configured_driver_path  # noqa: E402
from explorer.llama_cpp.source import default_source  # noqa: E402
from explorer.output.parse import analyse_output  # noqa: E402
from explorer.output.streaming import char_chunks, stream  # noqa: E402
from explorer.peg.arena import load_arena  # noqa: E402
from explorer.routing import AUTOPARSER  # noqa: E402
from explorer.sources.examples import from_example, list_examples  # noqa: E402

DEFAULT_FOLDER = ROOT.parent / "shared" / "oracle" / "templates"
DATA_TOOL = {"type": "function", "function": {
    "name": "store", "description": "Store records.",
    "parameters": {"type": "object", "properties": {"records": {"type": "array", "items": {"type": "object"}}},
                   "required": ["records"]}}}
WORDS = ("the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "writing", "long",
         "replies", "about", "the", "weather")


def median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def prose(kb: int) -> str:
    out: list[str] = []
    size = 0
    while size < kb * 1024:
        word = WORDS[len(out) % len(WORDS)]
        out.append(word)
        size += len(word) + 1
    return " ".join(out)


def big_call(kb: int) -> str:
    records: list[dict[str, object]] = []
    size = 0
    while size < kb * 1024:
        record = {"id": len(records), "city": "Zürich", "note": "line \"quoted\"\nnext", "values": [1.5, 2, 3]}
        records.append(record)
        size += len(json.dumps(record))
    return ('<tool_call>\n{"name": "store", "arguments": ' + json.dumps({"records": records}, ensure_ascii=False)
            + "}\n</tool_call>")


class Row:
    def __init__(self, what: str) -> None:
        self.what = what
        self.port: list[float] = []
        self.cpp: list[float] = []
        self.pipe: list[float] = []

    def add(self, port: float, cpp: float, pipe: float) -> None:
        self.port.append(port)
        self.cpp.append(cpp)
        self.pipe.append(pipe)

    def line(self) -> str:
        if not self.port:
            return f"{self.what:34} (nothing measured)"
        p, c, t = (statistics.median(x) for x in (self.port, self.cpp, self.pipe))
        ratio = f"x{p / c:.1f}" if c > 0 else "-"
        return f"{self.what:34} {len(self.port):>4} {p:>10.2f} {c:>10.2f} {t:>10.2f} {ratio:>8}"


def _cpp_ms(driver_call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median of the library call's own time, median wall time through the pipe), in ms."""
    own, wall = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        answer = driver_call()
        wall.append((time.perf_counter() - start) * 1000)
        own.append(getattr(answer, "us", 0) / 1000)
    return statistics.median(own), statistics.median(wall)


def bench_template(name: str, text: str, driver: LlamaCppDriver, rows: dict[str, Row], repeat: int) -> None:
    try:
        templates = init_templates(text)
        compiled = templates.default
        caps = detect_caps(compiled)
        analyze_template(compiled, caps, trace=False)  # warm jinja2 and the imports
    except ExplorerError as exc:
        print(f"  {name}: skipped ({exc.kind}: {str(exc)[:80]})")
        return
    driver.analyze(text)  # the template initialised once, as the port's is compiled once
    port = median_ms(lambda: analyze_template(compiled, caps, trace=False), repeat)
    own, wall = _cpp_ms(lambda: driver.analyze(text), repeat)
    rows["analysis"].add(port, own, wall)
    autoparser = templates.route_of(compiled)[0] == AUTOPARSER

    def port_apply(request: Request) -> object:
        # llama.cpp's apply analyses an autoparser-routed template again each time; so does this
        analysis = analyze_template(compiled, caps, trace=False) if autoparser else None
        return apply_template(templates, request, caps=caps, analysis=analysis)

    for thinking in (False, True):
        request = standard_request(thinking)
        try:
            port_apply(request)
        except ExplorerError:
            continue
        port = median_ms(partial(port_apply, request), repeat)
        own, wall = _cpp_ms(partial(driver.apply, text, request), repeat)
        rows["apply (standard request)"].add(port, own, wall)


def bench_outputs(driver: LlamaCppDriver, rows: dict[str, Row], repeat: int, kb: int) -> None:
    text = from_example("chatml-think-tools").text
    request = Request(messages=({"role": "user", "content": "Hello"},), tools=(GET_WEATHER_TOOL, DATA_TOOL),
                      enable_thinking=True)
    params = driver.apply(text, request).value
    assert not isinstance(params, CppException), params
    arena = load_arena(str(params["parser"]))
    gp, fmt = str(params["generation_prompt"]), str(params["format"])
    for what, output in ((f"parse: {kb} KB plain content", "<think>ok</think>" + prose(kb)),
                         (f"parse: {kb} KB JSON arguments", "<think>ok</think>" + big_call(kb))):
        mine = analyse_output(arena, output, generation_prompt=gp, format=fmt)
        theirs = driver.parse(params, output).value
        assert not isinstance(theirs, CppException) and mine.message is not None
        assert mine.message.to_oracle_json() == theirs, f"{what}: the port and the build disagree"
        port = median_ms(partial(analyse_output, arena, output, generation_prompt=gp, format=fmt), repeat)
        own, wall = _cpp_ms(partial(driver.parse, params, output), repeat)
        rows[what].add(port, own, wall)
    reply = "<think>" + prose(1)[:600] + "</think>" + prose(1)[:600] + '<tool_call>\n{"name": "get_weather", ' \
            '"arguments": {"city": "Paris", "unit": "c"}}\n</tool_call>'
    what = f"streaming: {len(reply)} characters"
    port = median_ms(lambda: list(stream(arena, char_chunks(reply), generation_prompt=gp, format=fmt)), repeat)
    own, wall = _cpp_ms(lambda: driver.stream(params, reply, steps=False), repeat)
    rows[what] = Row(what)
    rows[what].add(port, own, wall)


def find_driver(named: str | None) -> Path:
    if named:
        return Path(named)
    configured = configured_driver_path()
    if configured is not None:
        return configured
    built = cached_driver(default_source(download=False))
    if built is None:
        raise SystemExit("no llama.cpp driver: build one with `python -m explorer llama-cpp build`, or pass --driver")
    return built.path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", default=None)
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER if DEFAULT_FOLDER.is_dir() else None)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kb", type=int, default=100)
    args = parser.parse_args(argv)
    driver = LlamaCppDriver(find_driver(args.driver))
    print(f"llama.cpp build {driver.info.label} at {driver.path}")
    templates = [(f"example:{n}", from_example(n).text) for n in list_examples()]
    if args.folder is not None:
        templates += [(p.stem, p.read_text(encoding="utf-8")) for p in sorted(args.folder.glob("*.jinja"))]
    rows = {name: Row(name) for name in ("analysis", "apply (standard request)")}
    for name, text in templates:
        bench_template(name, text, driver, rows, args.repeat)
    for what in (f"parse: {args.kb} KB plain content", f"parse: {args.kb} KB JSON arguments"):
        rows[what] = Row(what)
    bench_outputs(driver, rows, args.repeat, args.kb)
    print(f"{'median per call, ms':34} {'n':>4} {'port':>10} {'llama.cpp':>10} {'via pipe':>10} {'ratio':>8}")
    for row in rows.values():
        print(row.line())
    print("ratio: port / llama.cpp's own call time (the median over templates of each one's median); 'via pipe' "
          "adds the driver's JSON lines")
    driver.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
