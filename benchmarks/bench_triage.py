"""Time of the triage ("Why this result?") on large and hostile outputs (not a test).

    python benchmarks/bench_triage.py [--kb 100] [--repeat 3]

For each built-in example (applied with one tool, thinking on), diagnose outputs of the
given size: plain content, the template's own tool-call shape with a huge argument, the
same call broken at its end (a parse error: the furthest-failure pass runs), an opener
near miss repeated through the whole output, a bare JSON call repeated, marker soup, and
tagged arguments: a huge value, values closed without their newline, parameters out of order;
Python-style calls;
a Gemma 4 call with one long string argument when ../shared holds llama.cpp's template;
then the broken call read from a llama-server log (``why --from-log``: 0c1e5709's warning
and its === BEGIN === dump of generation prompt + output, then the diagnosis and the log's
findings).
The best of ``--repeat`` runs is printed per case, with the parse alone for comparison:
the triage re-reads the output with every check, so it costs a multiple of the parse; the
Try it and Fixtures pages run it once per output (cached). ``why ms`` is what
``python -m explorer why`` and the Try it page pay for a new output:
``TemplateSession.diagnose`` (the template's health findings, the sample call, the
consistency pass) on a session whose template, params and health are already made (a
fresh session per run, so nothing of the output is remembered). Target: ``why`` at most
``TARGET_MS`` on a 100 KB output; the slowest case is printed last.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.analysis import template_analysis  # noqa: E402
from explorer.apply import Request  # noqa: E402
from explorer.apply.pipeline import apply_template  # noqa: E402
from explorer.errors import ExplorerError  # noqa: E402
from explorer.output.parse import analyse_output  # noqa: E402
from explorer.render import compile_template  # noqa: E402
from explorer.session import TemplateSession  # noqa: E402
from explorer.sources import from_example, list_examples  # noqa: E402
from explorer.triage import diagnose  # noqa: E402
from explorer.triage.from_log import read, with_log  # noqa: E402

TARGET_MS = 500.0

TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                   "required": ["city"]}}}


def outputs(size: int) -> dict[str, str]:
    call = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "%s"}}\n</tool_call>'
    filler = "x" * size
    tagged = "<tool_calls>\n<function=get_weather>\n<parameter=city>\n%s\n</parameter>\n</function>\n</tool_calls>\n"
    return {
        "plain content": ("It is sunny. " * (size // 13 + 1))[:size],
        "huge argument": call % filler,
        "broken call": (call % filler)[:-14],
        "near-miss openers": ('<tool_call >\n{"name": "get_weather"}\n' * (size // 35 + 1))[:size],
        "bare JSON calls": ('{"name": "get_weather", "arguments": {"city": "Paris"}}\n' * (size // 56 + 1))[:size],
        "marker soup": ("<tool_call></think><think>{\"name\":" * (size // 36 + 1))[:size],
        # tagged arguments (tagged-parameters' format): a huge value, values closed without their newline
        # (each swallows the next call), and a required parameter after an optional one
        "huge tagged value": tagged % ("x" * size),
        "swallowed values": (tagged % "Paris").replace("Paris\n</parameter>", "Paris</parameter>") * (size // 90 + 1),
        "tagged out of order": (tagged % "Paris").replace("<parameter=city>", "<parameter=days>\n3\n</parameter>\n"
                                                          "<parameter=city>") * (size // 120 + 1),
        # Python-style calls where the format writes calls otherwise (pythonic-call, the template's own call)
        "Python-style calls": ('[get_weather(city="Paris")] ' * (size // 28 + 1))[:size],
    }


def server_log(generation_prompt: str, output: str, fmt: str) -> str:
    """A llama-server log of the output's failed parse, as 0c1e5709 writes it at -lv 5 (the
    warning's text is from the stop on; the whole output here stands in for it)."""
    effective = generation_prompt + output
    return ("srv  params_from_: Chat format: " + fmt + "\n"
            f"W common_chat_peg_parse: unparsed {fmt} output: {output}\n"
            f"D common_chat_peg_parse: full {fmt} output triggering error:\n=== BEGIN ===\n{effective}\n=== END ===\n")


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def why_time(text: str, output: str, request: Request, repeat: int) -> tuple[float, int]:
    """The best of ``repeat`` runs of ``TemplateSession.diagnose`` on a session whose template,
    params, health and sample call are made (untimed), and the findings' count."""
    times: list[float] = []
    found = 0
    for _ in range(repeat):
        session = TemplateSession(text)
        session.params(request)
        session.health  # noqa: B018 - made before the clock starts, as on a loaded page
        session.sample_reply("call", request)
        start = time.perf_counter()
        found = len(session.diagnose(output, request).findings)
        times.append(time.perf_counter() - start)
    return min(times), found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    request = Request(messages=({"role": "user", "content": "Weather in Paris?"},), tools=(TOOL,))
    print(f"{'example':<26} {'output':<18} {'parse ms':>9} {'triage ms':>10} {'why ms':>8} findings")
    slowest: tuple[float, str] = (0.0, "")
    for name in list_examples():
        source_text = from_example(name).text
        tmpl = compile_template(source_text)
        try:
            params = apply_template(tmpl, request)
            analysis = template_analysis(tmpl)
        except ExplorerError as exc:
            print(f"{name:<26} cannot build the request: {exc}")
            continue
        for label, text in outputs(args.kb * 1000).items():
            def parse() -> None:
                try:
                    params.parse(text)
                except ExplorerError:
                    pass

            parse_s = best(parse, args.repeat)
            result = []
            triage_s = best(lambda: result.append(diagnose(params, request, text, analysis=analysis,
                                                                   apply=lambda r: apply_template(tmpl, r))),
                            args.repeat)
            found = len(result[-1].findings)
            why_s, why_found = why_time(source_text, text, request, args.repeat)
            slowest = max(slowest, (why_s, f"{name}, {label}"))
            print(f"{name:<26} {label:<18} {parse_s * 1000:9.1f} {triage_s * 1000:10.1f} {why_s * 1000:8.1f} "
                  f"{found}/{why_found}")
        broken = outputs(args.kb * 1000)["broken call"]
        log = server_log(params.generation_prompt, broken, params.format)

        def from_log() -> int:
            reading = read(log, params.generation_prompt)
            assert reading.output is not None
            parsed = analyse_output(params.arena, reading.output, generation_prompt=params.generation_prompt,
                                    format=params.format)
            d = diagnose(params, request, reading.output, analysis=analysis)
            return len(with_log(reading, parsed, d, params.format).diagnosis.findings)

        counts: list[int] = []
        log_s = best(lambda: counts.append(from_log()), args.repeat)
        print(f"{name:<26} {'broken, from log':<18} {'':>9} {log_s * 1000:10.1f} {'':>8} {counts[-1]}")
    gemma = ROOT.parent / "shared" / "oracle" / "templates" / "google-gemma-4-31B-it.jinja"
    if gemma.is_file():  # llguidance's cost per byte grows inside one long Gemma 4 string argument
        text = gemma.read_text(encoding="utf-8")
        long_call = '<|tool_call>call:get_weather{city:<|"|>' + "Paris " * (args.kb * 1000 // 6) + '<|"|>}<tool_call|>'
        why_s, why_found = why_time(text, long_call, request, args.repeat)
        slowest = max(slowest, (why_s, "gemma-4 (../shared), one long string argument"))
        print(f"{'gemma-4 (../shared)':<26} {'long string arg':<18} {'':>9} {'':>10} {why_s * 1000:8.1f} {why_found}")
    verdict = "within" if slowest[0] * 1000 <= TARGET_MS else "OVER"
    print(f"\nslowest why: {slowest[0] * 1000:.1f} ms ({slowest[1]}), {verdict} the {TARGET_MS:.0f} ms target "
          f"for {args.kb} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
