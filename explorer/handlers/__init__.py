"""llama.cpp's chat routes, one class each: specialised handlers and the autoparser fallback.

Input: nothing. Output: the declarations: ``Route`` and ``Handler`` (``base``), every
handler class in routing order (``HANDLER_CLASSES``, ``routes()``) and the lookups by
name (``registry``). The whole apply pipeline (``apply_template``, ``ChatParams``) is
``explorer.apply.pipeline``; it is not re-exported here because it runs the apply
stage, which itself reads these declarations.
"""

from explorer.generator.spec import GenerationParams
from explorer.handlers.base import Handler, Route
from explorer.handlers.registry import (
    HANDLER_CLASSES,
    find_handler,
    find_route,
    handler_named,
    route_named,
    route_names,
    routes,
)

__all__ = [
    "GenerationParams", "HANDLER_CLASSES", "Handler", "Route", "find_handler",
    "find_route", "handler_named", "route_named", "route_names", "routes",
]
