"""Model output to the chat message llama-server returns (``common_chat_parse``).

Input: a PEG ``Arena`` (the serialized ``parser`` of a request, see ``explorer.peg``),
the raw model output, the request's generation prompt and chat format name. Output: a
frozen ``ChatMessage`` (role, content, reasoning_content, tool calls with llama.cpp's own
argument text and id), or ``OutputParseError`` with llama.cpp's message when the output
does not match.

As in llama.cpp the generation prompt is put in front of the output, the parse is always
lenient (running out of text is "need more input", not failure), and ``is_partial`` only
matters when the parse fails: a partial parse then returns what was mapped so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.errors import Location, OutputParseError
from explorer.jsontypes import JsonObject
from explorer.peg.arena import Arena
from explorer.peg.builder import Builder
from explorer.peg.chat_mappers import MessageDraft, map_nodes
from explorer.peg.engine import Engine, ParseResult, byte_offset, deep_recursion, engine_for

DEFAULT_FORMAT = "peg-native"
CPP_EXCEPTION_TYPE = "std::runtime_error"


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str  # the JSON text llama.cpp built, verbatim
    id: str = ""  # empty when the output carried none (llama-server then makes one up)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "arguments": self.arguments, "id": self.id}


@dataclass(frozen=True)
class ChatMessage:
    role: str = "assistant"
    content: str = ""
    reasoning_content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    content_parts: tuple[dict[str, str], ...] = field(default=())

    def to_oracle_json(self) -> JsonObject:
        """The oracle's ``result`` shape: absent strings are "", never null."""
        out: JsonObject = {"role": self.role, "content": self.content,
                               "reasoning_content": self.reasoning_content,
                               "tool_calls": [c.to_json() for c in self.tool_calls]}
        if self.content_parts:
            out["content_parts"] = [dict(p) for p in self.content_parts]
        return out

    @classmethod
    def from_draft(cls, draft: MessageDraft) -> ChatMessage:
        calls = tuple(ToolCall(c.name, c.arguments, c.id) for c in draft.tool_calls)
        return cls("assistant", draft.content, draft.reasoning_content, calls)


@dataclass(frozen=True)
class OutputParse:
    """Everything one parse produced: the message (or error) and the tree behind it."""

    input: str  # generation prompt + output, what the engine saw
    result: ParseResult
    message: ChatMessage | None
    error: OutputParseError | None


def content_only_arena() -> Arena:
    """llama.cpp's parser when a request has none: all text is content."""
    b = Builder()
    b.set_root(b.sequence([b.tag("content", b.rest()), b.end()]))
    return b.build()


_CONTENT_ONLY = content_only_arena()


def mismatch_error(fmt: str, text: str, result: ParseResult) -> OutputParseError:
    """llama.cpp's exception for output the parser rejects, located where parsing stopped."""
    msg = f"The model produced output that does not match the expected {fmt} format"
    return OutputParseError(msg, Location(offset=byte_offset(text, result.end)), cpp_type=CPP_EXCEPTION_TYPE)


def analyse_output(arena: Arena | None, text: str, *, generation_prompt: str = "",
                   format: str = DEFAULT_FORMAT, is_partial: bool = False,
                   engine: Engine | None = None) -> OutputParse:
    """Parse and map, keeping the AST; never raises for a mismatch (see ``.error``)."""
    if arena is None or len(arena) == 0:
        arena = _CONTENT_ONLY
    effective = generation_prompt + text if generation_prompt else text
    eng = engine if engine is not None else engine_for(arena)
    # llama.cpp quirk: the parse is lenient even when is_partial is false, so output cut
    # short maps to a message instead of raising.
    result = eng.parse(effective, lenient=True)
    # llama.cpp quirk: a failed partial parse that got past position 0 is mapped "to keep
    # what was parsed", but a failed result carries no AST nodes: the message is empty.
    if result.fail() and not (is_partial and result.end > 0):
        return OutputParse(effective, result, None, mismatch_error(format, effective, result))
    try:
        with deep_recursion():
            message = ChatMessage.from_draft(map_nodes(result.nodes, format))
    except RecursionError:
        raise OutputParseError("the output nests too deeply to map (recursion limit reached)") from None
    return OutputParse(effective, result, message, None)


def parse_output(arena: Arena | None, text: str, *, generation_prompt: str = "",
                 reasoning_format: str = "deepseek", is_partial: bool = False,
                 format: str = DEFAULT_FORMAT) -> ChatMessage:
    """``common_chat_parse``: the message llama-server returns for ``text``.

    ``reasoning_format`` is accepted for the API's sake: llama.cpp bakes it into the
    parser when the request is applied (reasoning tagged as content for ``none``), so
    the parse itself never reads it.
    """
    del reasoning_format
    parsed = analyse_output(arena, text, generation_prompt=generation_prompt, format=format,
                            is_partial=is_partial)
    if parsed.error is not None:
        raise parsed.error
    assert parsed.message is not None
    return parsed.message


def _incomplete_tail(data: bytes) -> int:
    """Length of a UTF-8 sequence cut short at the end of ``data`` (0 when none)."""
    for back in range(1, min(4, len(data)) + 1):
        lead = data[-back]
        if lead & 0xC0 == 0x80:
            continue  # a continuation byte: keep looking for the lead byte
        need = 2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else 4 if lead & 0xF8 == 0xF0 else 1
        return back if back < need else 0
    return 0


def decode_output_bytes(data: bytes) -> str:
    """Model output bytes as the text the engine sees.

    llama.cpp's parse is always lenient: a UTF-8 sequence cut short at the very end is
    left out (more bytes may come), and each undecodable run elsewhere becomes U+FFFD,
    as ``sanitized_text`` writes it.
    """
    cut = _incomplete_tail(data)
    return data[: len(data) - cut].decode("utf-8", errors="replace")


import typing  # noqa: E402 - added with explain_mismatch, below the original module

if typing.TYPE_CHECKING:
    from explorer.peg.expectations import FurthestFailure


def explain_mismatch(parsed: OutputParse, arena: Arena | None) -> FurthestFailure | None:
    """Where and why ``parsed`` failed: the furthest failure of ``parsed.input``.

    None when the parse raised no error. A separate diagnostic pass (see
    ``explorer.peg.expectations``): the parse result and llama.cpp's error are unchanged.
    """
    from explorer.peg.expectations import furthest_failure

    if parsed.error is None:
        return None
    if arena is None or len(arena) == 0:
        arena = _CONTENT_ONLY
    return furthest_failure(arena, parsed.input)
