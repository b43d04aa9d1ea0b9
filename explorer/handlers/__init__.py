"""llama.cpp's specialised chat handlers, declared (one module each, as ``Handler`` data).

Input: nothing. Output: ``HANDLERS`` (name -> ``Handler``), ``Handler`` and the handlers'
input and output types. The whole apply pipeline (``apply_template``, ``ChatParams``) is
``explorer.handlers.pipeline``; it is not re-exported here because it runs the apply
stage, which is about to read these declarations.
"""

from explorer.generator.spec import GenerationParams
from explorer.handlers.base import Handler, HandlerParams
from explorer.handlers.registry import HANDLERS

__all__ = ["HANDLERS", "Handler", "GenerationParams", "HandlerParams"]
