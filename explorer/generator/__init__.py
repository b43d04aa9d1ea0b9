"""Parser generator: autoparser analysis + request -> PEG arena, GBNF grammar, triggers.

Input: the routed handler, the analysis (oracle ``autoparser`` JSON, or anything with
``to_oracle_json``), the request and the template source. Output: llama.cpp's chat params
(serialized parser, grammar, triggers, preserved tokens, stops), byte-identical to what
``common_chat_templates_apply`` returns -- for the autoparser route and every specialized
handler.
"""

from explorer.generator.autoparser import build_parser
from explorer.generator.builder import Arena, PegBuilder
from explorer.generator.params import GeneratedParams, GrammarTrigger, generate_params
from explorer.generator.spec import GenerationRequest, ParserSpec
from explorer.generator.handlers import HANDLERS, generate_for_handler, generate_for_route  # noqa: E402
from explorer.generator.pipeline import TemplateParams, generate_for_template  # noqa: E402

__all__ = [
    "Arena", "GeneratedParams", "GenerationRequest", "GrammarTrigger", "HANDLERS", "ParserSpec", "PegBuilder",
    "TemplateParams", "build_parser", "generate_for_handler", "generate_for_route", "generate_for_template",
    "generate_params",
]
