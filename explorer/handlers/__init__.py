"""llama.cpp's specialised chat handlers and the full apply pipeline.

Input: a chat template and a request. Output: ``ChatParams`` from ``apply_template``,
the whole of ``common_chat_templates_apply``: routing, prompt, generation prompt, and the
parser, grammar, triggers and tokens of either a specialised handler (one module each,
declared as ``Handler`` data) or the differential autoparser.
"""

from explorer.generator.spec import GenerationParams
from explorer.handlers.base import Handler, HandlerParams
from explorer.handlers.pipeline import ChatParams, apply_template
from explorer.handlers.registry import HANDLERS

__all__ = ["ChatParams", "HANDLERS", "Handler", "GenerationParams", "HandlerParams", "apply_template"]
