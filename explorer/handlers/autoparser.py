"""The differential autoparser as a route: llama.cpp's fallback when no handler's rule holds.

Input: for continuing a message, ``ContinuationInputs`` with the reasoning markers the
autoparser's analysis found. Output: the ``Autoparser`` route class: no routing rule,
``supports_thinking`` left to the analysis (None here), and its continuation turn. Its
parser is the generator's (``explorer.generator``), built from the analysis, not here.
"""

from __future__ import annotations

from explorer.handlers.base import Route
from explorer.handlers.prompting import ContinuationInputs, render_content


def continue_turn(c: ContinuationInputs) -> str:
    # the generation prompt is cut at the reasoning start marker and re-opened there
    gen = c.generation_prompt
    if c.reasoning_start:
        pos = gen.find(c.reasoning_start)
        gen = (gen if pos < 0 else gen[:pos]) + c.reasoning_start + c.msg.reasoning_content
        if c.mode == "content":
            gen += c.reasoning_end
    if c.mode == "content":
        gen += render_content(c.msg)
    return gen


class Autoparser(Route):
    name = "autoparser"
    argument_order = "analyze_tools::build_tool_parser_tag_tagged (common/chat-auto-parser-generator.cpp)"

    supports_thinking = None
    continuation = staticmethod(continue_turn)
