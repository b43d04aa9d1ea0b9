"""The chat.cpp apply path: from a request to the prompt llama.cpp renders.

Input: a chat template and a ``Request``. Output: ``AppliedPrompt`` (messages after
llama.cpp's workarounds, template context, full prompt, generation prompt,
supports_thinking). Submodules: ``messages`` (OpenAI <-> llama.cpp message round trip),
``workarounds`` (the ``workaround::`` functions), ``templates`` (default/tool_use pair, ChatML fallback), ``context``
(template variables, one render, the byte diff), ``continuation``
(continue_final_message), ``prompt`` (the apply path), ``server`` (an OpenAI request body as
llama-server reads it), ``prefill`` (reasoning prefill outcomes),
``request`` (the request). Template-source patches live in ``explorer.routing``; each
handler's own prompt behaviour is declared on its class (``explorer.handlers``).
"""

from explorer.apply.context import diff_suffix
from explorer.apply.prefill import (
    PrefillOutcome,
    ReasoningPrefill,
    classify_reasoning_prefill,
    parser_prefix,
)
from explorer.apply.prompt import (
    AppliedPrompt,
    AppliedStep,
    apply_request,
    generation_prompt,
    supports_enable_thinking,
)
from explorer.apply.request import (
    GET_WEATHER_TOOL,
    THINKING_KWARGS,
    Request,
    merged_kwargs,
    standard_request,
    thinking_kwargs,
    with_thinking,
)
from explorer.apply.server import ServerOptions, request_from_body, server_enable_thinking
from explorer.apply.templates import CHATML_TEMPLATE_SRC, ChatTemplates, init_templates
from explorer.apply.workarounds import (
    convert_tool_responses_gemma4,
    func_args_not_string,
    map_developer_role_to_system,
    requires_non_null_content,
    system_message_not_supported,
    trim_all_content,
)
from explorer.routing import SOURCE_PATCHES, patch_source

__all__ = [
    "THINKING_KWARGS", "merged_kwargs", "thinking_kwargs", "with_thinking",
    "PrefillOutcome",
    "ReasoningPrefill",
    "classify_reasoning_prefill",
    "parser_prefix",
    "AppliedPrompt",
    "AppliedStep",
    "apply_request",
    "diff_suffix",
    "generation_prompt",
    "CHATML_TEMPLATE_SRC",
    "ChatTemplates",
    "init_templates",
    "ServerOptions",
    "request_from_body",
    "server_enable_thinking",
    "supports_enable_thinking",
    "GET_WEATHER_TOOL",
    "Request",
    "standard_request",
    "convert_tool_responses_gemma4",
    "func_args_not_string",
    "map_developer_role_to_system",
    "requires_non_null_content",
    "system_message_not_supported",
    "trim_all_content",
    "SOURCE_PATCHES",
    "patch_source",
]
