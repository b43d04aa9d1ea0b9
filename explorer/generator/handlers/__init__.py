"""llama.cpp's specialized chat handlers (common/parsers/): parser, grammar and triggers.

Input: the routed handler name (as in the oracle's ``routed.handler``), the request and the
template source. Output: ``GeneratedParams`` exactly as the handler returns them. The
prompt side of each handler (message rewrites, generation prompt) is ``explorer.apply``'s.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.errors import AnalysisError, GrammarError
from explorer.generator.handlers.deepseek import deepseek_v3_2
from explorer.generator.handlers.gemma4 import gemma4
from explorer.generator.handlers.gigachat_functionary import functionary_v3_2, gigachat_v3
from explorer.generator.handlers.gpt_oss import gpt_oss
from explorer.generator.handlers.kimi import kimi_k2, kimi_k3
from explorer.generator.handlers.lfm2_cohere import cohere2moe, lfm2, lfm2_5
from explorer.generator.handlers.ministral3 import ministral3
from explorer.generator.handlers.qwen3_coder import qwen3_coder
from explorer.generator.handlers.xml_args import HANDLERS as XML_ARG_HANDLERS
from explorer.generator.params import GeneratedParams, generate_params
from explorer.generator.spec import GenerationRequest, ParserSpec

Handler = Callable[[GenerationRequest, str], GeneratedParams]

HANDLERS: dict[str, Handler] = {
    "qwen3-coder": qwen3_coder,
    "gpt-oss": gpt_oss,
    "ministral-3": ministral3,
    "deepseek-v3.2/v4": deepseek_v3_2,
    "kimi-k2": kimi_k2,
    "kimi-k3": kimi_k3,
    "gemma4": gemma4,
    "gemma4(outdated-template-workarounds)": gemma4,
    "lfm2": lfm2,
    "lfm2.5": lfm2_5,
    "cohere2moe": cohere2moe,
    "gigachat-v3": gigachat_v3,
    "functionary-v3.2": functionary_v3_2,
    **XML_ARG_HANDLERS,
}


def generate_for_handler(handler: str, req: GenerationRequest, source: str) -> GeneratedParams:
    """The params of a specialized handler; AnalysisError for one not ported."""
    fn = HANDLERS.get(handler)
    if fn is None:
        raise AnalysisError(f"no port of llama.cpp's '{handler}' handler; ported: {', '.join(sorted(HANDLERS))}")
    try:
        return fn(req, source)
    except RecursionError:
        raise GrammarError(f"the '{handler}' parser for these tools is nested too deeply to build") from None


def generate_for_route(handler: str, spec: ParserSpec | None, req: GenerationRequest, source: str) -> GeneratedParams:
    """What ``common_chat_templates_apply`` builds: the autoparser's params on the
    ``autoparser`` route (``spec`` is its analysis), a specialized handler's otherwise."""
    if handler == "autoparser":
        if spec is None:
            raise AnalysisError("the autoparser route needs the template's analysis")
        return generate_params(spec, req)
    return generate_for_handler(handler, req, source)


__all__ = ["HANDLERS", "generate_for_handler", "generate_for_route"]
