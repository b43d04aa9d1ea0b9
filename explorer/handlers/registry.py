"""Every route of llama.cpp 0c1e5709's chat apply, as classes, in its routing order.

Input: a handler name as ``explorer.routing`` and the oracle's ``routed.handler`` spell
it. Output: ``HANDLER_CLASSES``, the specialised handlers in the order
``common_chat_try_specialized_template`` tests them (the first whose rule holds wins);
``routes()``, those and the ``Autoparser`` fallback; and the class of a name
(``route_named``, ``handler_named``, ``find_route``, ``find_handler``).

``HANDLER_CLASSES`` is the one list: everything else here (and routing) reads it when
asked, so adding a handler is its class and its line in the list.
"""

from __future__ import annotations

from functools import lru_cache

from explorer.handlers.autoparser import Autoparser
from explorer.handlers.base import Handler, Route
from explorer.handlers.cohere2moe import Cohere2Moe
from explorer.handlers.deepseek_v3_2 import DeepseekV32
from explorer.handlers.functionary_v3_2 import FunctionaryV32
from explorer.handlers.gemma4 import Gemma4, Gemma4Outdated
from explorer.handlers.gigachat_v3 import GigachatV3
from explorer.handlers.gpt_oss import GptOss
from explorer.handlers.kimi_k2 import KimiK2
from explorer.handlers.kimi_k3 import KimiK3
from explorer.handlers.lfm2 import Lfm2, Lfm25
from explorer.handlers.ling3 import Ling3
from explorer.handlers.minicpm5 import MiniCpm5
from explorer.handlers.minimax_m3 import MinimaxM3
from explorer.handlers.ministral3 import Ministral3
from explorer.handlers.muse_glimmer import MuseGlimmer
from explorer.handlers.qwen3_coder import Qwen3Coder

# The two Gemma 4 classes are one branch in llama.cpp: the outdated variant (no "OpenAI
# Chat Completions" comment) comes first so that the list stays first-match.
HANDLER_CLASSES: tuple[type[Handler], ...] = (
    Ministral3,
    GptOss,
    MuseGlimmer,
    FunctionaryV32,
    KimiK2,
    KimiK3,
    Ling3,
    Cohere2Moe,
    Lfm2,
    Lfm25,
    GigachatV3,
    MinimaxM3,
    DeepseekV32,
    Gemma4Outdated,
    Gemma4,
    MiniCpm5,
    Qwen3Coder,
)

FALLBACK: type[Route] = Autoparser


def routes() -> tuple[type[Route], ...]:
    """Every route in routing order: the specialised handlers, then the autoparser."""
    return HANDLER_CLASSES + (FALLBACK,)


@lru_cache(maxsize=4)
def _by_name(classes: tuple[type[Route], ...]) -> dict[str, type[Route]]:
    index: dict[str, type[Route]] = {}
    for cls in classes:
        if index.setdefault(cls.name, cls) is not cls:
            raise TypeError(f"two routes named {cls.name!r}: {index[cls.name].__name__} and {cls.__name__}")
    return index


def route_names() -> tuple[str, ...]:
    return tuple(cls.name for cls in routes())


def find_route(name: str) -> type[Route] | None:
    """The route of that name, or None (e.g. the pipeline's ``pure-content``)."""
    return _by_name(routes()).get(name)


def route_named(name: str) -> type[Route]:
    route = find_route(name)
    if route is None:
        raise KeyError(f"no route named {name!r} (known: {', '.join(route_names())})")
    return route


def find_handler(name: str) -> type[Handler] | None:
    """The specialised handler of that name, or None (the autoparser is no handler)."""
    route = find_route(name)
    return route if route is not None and issubclass(route, Handler) else None


def handler_named(name: str) -> type[Handler]:
    handler = find_handler(name)
    if handler is None:
        raise KeyError(f"no specialised handler named {name!r}")
    return handler


AUTOPARSER_SOURCE = "common/chat-auto-parser-generator.cpp"


def source_of(name: str) -> str:
    """The llama.cpp source that builds the parser of the route of that name."""
    handler = find_handler(name)
    return (handler.reference if handler is not None else "") or AUTOPARSER_SOURCE
