"""Handler name (as ``explorer.routing`` and the oracle spell it) -> ``Handler``.

Input: nothing. Output: ``HANDLERS``, every specialised handler of llama.cpp 0c1e5709,
in its routing order. The detection rules themselves are ``explorer.routing``'s table.
"""

from __future__ import annotations

from importlib import import_module

from explorer.handlers.base import Handler

_MODULES = (
    "ministral3", "gpt_oss", "muse_glimmer", "functionary_v3_2", "kimi_k2", "kimi_k3", "ling3",
    "cohere2moe", "lfm2", "gigachat_v3", "minimax_m3", "deepseek_v3_2", "gemma4", "minicpm5", "qwen3_coder",
)


def _collect() -> dict[str, Handler]:
    found: dict[str, Handler] = {}
    for name in _MODULES:
        module = import_module(f"explorer.handlers.{name}")
        for handler in getattr(module, "HANDLERS", None) or (module.HANDLER,):
            found[handler.name] = handler
    return found


HANDLERS: dict[str, Handler] = _collect()
