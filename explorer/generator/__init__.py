"""Parser generator: autoparser analysis + request -> PEG arena, GBNF grammar, triggers.

Input: the analysis (oracle ``autoparser`` JSON, or anything with ``to_oracle_json``) and
the request. Output: llama.cpp's chat params for the autoparser route (serialized parser,
grammar, triggers, preserved tokens, stops), byte-identical to what
``peg_generator::generate_parser`` returns. The builder (``explorer.peg.builder.Builder``)
and ``Arena`` are the PEG package's, the JSON tool
layouts are shared with the specialised handlers (``explorer.handlers``), which
also own the whole apply pipeline (``explorer.apply.pipeline.apply_template``).
"""

from explorer.generator.autoparser import build_parser
from explorer.generator.params import GeneratedParams, GrammarTrigger, generate_params
from explorer.generator.spec import GenerationParams
from explorer.peg.arena import Arena

__all__ = [
    "Arena", "GeneratedParams", "GenerationParams", "GrammarTrigger",
    "build_parser", "generate_params",
]
