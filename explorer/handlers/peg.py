"""The handlers build with the chat PEG builder (``explorer.generator.chat_builder``);
these are the names they import from here."""

from explorer.generator.chat_builder import (
    MAX_PERMUTE, T_ARRAY, T_BOOLEAN, T_INTEGER, T_NULL, T_NUMBER, T_OBJECT, T_STRING, ChatPeg, function_tools,
    tool_properties, value_types,
)

HandlerPeg = ChatPeg

__all__ = [
    "MAX_PERMUTE", "T_ARRAY", "T_BOOLEAN", "T_INTEGER", "T_NULL", "T_NUMBER", "T_OBJECT", "T_STRING", "ChatPeg",
    "HandlerPeg", "function_tools", "tool_properties", "value_types",
]
