"""Triage: why llama.cpp parsed a model output the way it did.

Input: the chat params llama.cpp built for a request
(``explorer.apply.pipeline.apply_template``), the request, the raw model output and
optionally the autoparser analysis. Output: a
``Diagnosis``: the parse exactly as llama.cpp returns it (message or error) plus
``Finding``s -- "your tool call came back as content because the opener was
``<tool_call >`` and llama.cpp needs ``<tool_call>\\n``".

Submodules: ``model`` (Finding, Diagnosis, Check), ``facts`` (what the checks read),
``markers`` (the parser's openers, closers, reasoning tags and call shape, with their
origins), ``patterns`` (regex grammar triggers as openers: where a handler announces a
call), ``textscan`` (near misses, JSON objects, tags), ``checks_tools``, ``checks_format``,
``checks_handlers`` (the garbles routed handler classes declare), ``checks_reasoning``, ``checks_parse``,
``checks_success`` and ``checks_rules`` (parses that succeed; rules stated with verified suggestions),
``partial`` (is_partial: what is still being written), ``checks_grammar`` (the request's grammar:
does it load, where the lazy grammar wakes, llguidance's verdict, parser vs grammar; its
``grammar_view`` works the grammar side out once) (the checks), ``consistency`` (duplicates
and contradictions resolved after all checks, by rules kept as data), ``registry`` (CHECKS, diagnose);
``logs`` (llama-server's log text: its build line, failure line and raw-output dump,
placed in the output), ``llama_changes`` (llama.cpp's parser changes by build, as data) and
``from_log`` (the "log" findings put in front of a diagnosis); ``checks_closers`` (a closing
tag spelt almost right), ``blame`` (one fact, one fix_where), ``audit`` (the statement audit:
every sentence checked against the diagnosis), ``inferred_tools`` (the tools an output calls).
"""

from explorer.triage.facts import Facts, build_facts
from explorer.triage.model import Check, Diagnosis, Finding
from explorer.triage.registry import CHECK_IDS, CHECKS, diagnose, run_checks

__all__ = ["CHECKS", "CHECK_IDS", "Check", "Diagnosis", "Facts", "Finding", "build_facts", "diagnose", "run_checks"]
