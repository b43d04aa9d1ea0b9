"""Streaming: parse a growing model output as llama-server does, and the deltas between steps.

Input: an arena, the output split into chunks (characters, tokens, any pieces), the
generation prompt and chat format. Output: one ``StreamStep`` per chunk with the partial
message (``is_partial=True`` parse of everything so far) or its error, and the deltas
from the previous message (``common_chat_msg_diff::compute_diffs``), with an
OpenAI-style ``delta`` view.

llama.cpp re-parses the whole text for every token, which is quadratic. The incremental
mode gives identical results in linear total work: its engine keeps every sub-result that
never looked at the end of the text (such a result cannot change when text is appended)
and resumes long scans where they stopped. ``naive=True`` re-parses from scratch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from explorer.errors import OutputParseError, exception_json
from explorer.jsontypes import JsonObject
from explorer.output.parse import (
    DEFAULT_FORMAT,
    ChatMessage,
    ToolCall,
    analyse_output,
    decode_output_bytes,
)
from explorer.peg.arena import Arena
from explorer.peg.engine import Engine, engine_for


@dataclass(frozen=True)
class MessageDiff:
    """One change between two partial messages (``common_chat_msg_diff``)."""

    reasoning_content_delta: str = ""
    content_delta: str = ""
    tool_call_index: int | None = None
    tool_call_delta: ToolCall | None = None

    def to_openai_delta(self) -> JsonObject:
        """The ``choices[0].delta`` object of an OpenAI streaming chunk."""
        delta: JsonObject = {}
        if self.reasoning_content_delta:
            delta["reasoning_content"] = self.reasoning_content_delta
        if self.content_delta:
            delta["content"] = self.content_delta
        if self.tool_call_index is not None and self.tool_call_delta is not None:
            call: JsonObject = {"index": self.tool_call_index}
            if self.tool_call_delta.id:
                call["id"] = self.tool_call_delta.id
            call["type"] = "function"
            function: dict[str, str] = {}
            if self.tool_call_delta.name:
                function["name"] = self.tool_call_delta.name
            function["arguments"] = self.tool_call_delta.arguments
            call["function"] = function
            delta["tool_calls"] = [call]
        return delta


def _diff_error(message: str) -> OutputParseError:
    return OutputParseError(message, cpp_type="std::runtime_error")


def string_diff(last: str, current: str) -> str:
    """What ``current`` adds to ``last``; "" when it shrank to a prefix (stop word erased)."""
    if not last:
        return current
    if not current.startswith(last):
        if last.startswith(current):
            return ""
        raise _diff_error(f"Invalid diff: '{last}' not found at start of '{current}'")
    return current[len(last):]


def compute_diffs(prev: ChatMessage, new: ChatMessage) -> tuple[MessageDiff, ...]:
    """``common_chat_msg_diff::compute_diffs``, raising as llama.cpp does on inconsistency."""
    diffs: list[MessageDiff] = []
    if prev.reasoning_content != new.reasoning_content:
        diffs.append(MessageDiff(reasoning_content_delta=string_diff(
            prev.reasoning_content, new.reasoning_content)))
    if prev.content != new.content:
        diffs.append(MessageDiff(content_delta=string_diff(prev.content, new.content)))
    if len(new.tool_calls) < len(prev.tool_calls):
        lines = ["Invalid diff: now finding less tool calls!",
                 f"  Previous ({len(prev.tool_calls)}):"]
        lines += [f"    - name: '{c.name}', args: '{c.arguments}'" for c in prev.tool_calls]
        lines.append(f"  Current ({len(new.tool_calls)}):")
        lines += [f"    - name: '{c.name}', args: '{c.arguments}'" for c in new.tool_calls]
        lines.append("  Current msg text content:\n" + new.content)
        raise _diff_error("\n".join(lines) + "\n")
    if prev.tool_calls:
        idx = len(prev.tool_calls) - 1
        old, cur = prev.tool_calls[idx], new.tool_calls[idx]
        if old.name != cur.name and old.name and cur.name and not cur.name.startswith(old.name):
            raise _diff_error("Invalid diff: tool call mismatch!")
        args = string_diff(old.arguments, cur.arguments)
        if args or old.id != cur.id or old.name != cur.name:
            renamed = old.id != cur.id or old.name != cur.name
            delta = ToolCall(cur.name if renamed else "", args, cur.id if renamed else "")
            diffs.append(MessageDiff(tool_call_index=idx, tool_call_delta=delta))
    for idx in range(len(prev.tool_calls), len(new.tool_calls)):
        diffs.append(MessageDiff(tool_call_index=idx, tool_call_delta=new.tool_calls[idx]))
    return tuple(diffs)


@dataclass(frozen=True)
class StreamStep:
    """The state after one chunk: the partial message or the error, and the deltas."""

    prefix_chars: int
    prefix_bytes: int
    message: ChatMessage | None
    error: OutputParseError | None
    diffs: tuple[MessageDiff, ...] = ()
    diff_error: OutputParseError | None = None

    def openai_deltas(self) -> list[JsonObject]:
        return [d.to_openai_delta() for d in self.diffs]


class StreamParser:
    """Feed chunks; each ``feed`` parses everything so far with ``is_partial=True``."""

    def __init__(self, arena: Arena | None, *, generation_prompt: str = "",
                 format: str = DEFAULT_FORMAT, naive: bool = False) -> None:
        self.arena = arena
        self.generation_prompt = generation_prompt
        self.format = format
        self.naive = naive
        self._engine: Engine | None = None
        if arena is not None and len(arena) and not naive:
            self._engine = Engine(arena, memo=True)
        elif arena is not None and len(arena):
            self._engine = engine_for(arena)
        self.text = ""
        self._bytes = 0
        self._raw = b""
        self.last_message = ChatMessage()

    def feed_bytes(self, data: bytes) -> StreamStep:
        """Feed raw bytes (a token may end inside a UTF-8 character).

        A character cut short is held back until its last byte arrives; undecodable bytes
        become U+FFFD, as llama.cpp's sanitized node text shows them.
        """
        self._raw += data
        text = decode_output_bytes(self._raw)
        if not text.startswith(self.text):
            raise OutputParseError("bytes and text were mixed in one stream")
        return self.feed(text[len(self.text):])

    def feed(self, chunk: str) -> StreamStep:
        self.text += chunk
        self._bytes += len(chunk.encode("utf-8", "surrogatepass"))
        parsed = analyse_output(self.arena, self.text, generation_prompt=self.generation_prompt,
                                format=self.format, is_partial=True, engine=self._engine)
        if parsed.message is None:
            return StreamStep(len(self.text), self._bytes, None, parsed.error)
        try:
            diffs = compute_diffs(self.last_message, parsed.message)
        except OutputParseError as exc:
            return StreamStep(len(self.text), self._bytes, parsed.message, None, (), exc)
        self.last_message = parsed.message
        return StreamStep(len(self.text), self._bytes, parsed.message, None, diffs)

    def finish(self) -> ChatMessage:
        """The final, non-partial parse of the whole text (raises OutputParseError)."""
        parsed = analyse_output(self.arena, self.text, generation_prompt=self.generation_prompt,
                                format=self.format, is_partial=False, engine=self._engine)
        if parsed.error is not None:
            raise parsed.error
        assert parsed.message is not None
        return parsed.message


def char_chunks(text: str) -> list[str]:
    """The output cut after every character, as the oracle's streaming simulation does."""
    return list(text)


def stream(arena: Arena | None, chunks: Iterable[str], *, generation_prompt: str = "",
           format: str = DEFAULT_FORMAT, naive: bool = False) -> Iterator[StreamStep]:
    """One ``StreamStep`` per chunk. An empty output still parses the empty string once."""
    parser = StreamParser(arena, generation_prompt=generation_prompt, format=format, naive=naive)
    fed = False
    for chunk in chunks:
        fed = True
        yield parser.feed(chunk)
    if not fed:
        yield parser.feed("")


def stream_summary(arena: Arena | None, text: str, *, generation_prompt: str = "",
                   format: str = DEFAULT_FORMAT, naive: bool = False) -> JsonObject:
    """The oracle's streaming fields for ``text`` cut after every character.

    The prefixes are those of 1..n characters (none for an empty output); the final
    partial parse is that of the whole text, the empty string included.
    """
    steps = list(stream(arena, char_chunks(text), generation_prompt=generation_prompt,
                        format=format, naive=naive))
    final = steps[-1]
    if not text:
        steps = []
    throws = [s for s in steps if s.error is not None]
    first = throws[0] if throws else None
    return {
        "streaming_final": final.message.to_oracle_json() if final.message else None,
        "streaming_final_exception": exception_json(final.error) if final.error else None,
        "streaming_threw": bool(throws),
        "streaming_throw_count": len(throws),
        "streaming_first_throw": None if first is None or first.error is None else {
            "prefix_chars": first.prefix_chars, "prefix_bytes": first.prefix_bytes,
            "exception": exception_json(first.error)},
        "streaming_prefixes": len(steps),
    }
