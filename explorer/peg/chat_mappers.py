"""Map a parse tree to a chat message, as llama.cpp's ``common_chat_peg_*_mapper`` do.

Input: the AST nodes of a parse (``ParseResult.nodes``). Output: a ``MessageDraft``
(mutable while mapping): content, reasoning_content and tool calls whose ``arguments``
is the exact JSON text llama.cpp builds (never re-serialized).

Each mapper class names the chat format it maps (``ChatMapper.format``) and is looked up
by that name (``MAPPER_BY_FORMAT``, filled as the classes are defined: a handler with a
mapper of its own declares it on its class, ``explorer.handlers``). Here: the generic one
(``peg-native``: tags ``content``, ``reasoning``, ``tool-*``), Gemma 4's (a value tree
under ``tool-args`` with ``gemma4-*`` rules) and MiniMax-M3's (nested argument objects).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import ClassVar

from explorer.peg.engine import AstNode

_CSPACE = " \t\n\v\f\r"  # std::isspace in the "C" locale
_REASONING_SPACE = " \n\r\t"


@dataclass
class DraftCall:
    name: str = ""
    arguments: str = ""
    id: str = ""


@dataclass
class MessageDraft:
    content: str = ""
    reasoning_content: str = ""
    tool_calls: list[DraftCall] = field(default_factory=list)


def json_string_inner(s: str) -> str:
    """JSON-escape ``s`` without the surrounding quotes (nlohmann's ``dump``)."""
    return json.dumps(s, ensure_ascii=False)[1:-1]


def _rtrim(s: str) -> str:
    return s.rstrip(_CSPACE)


def _trim_arg_name(s: str) -> str:
    # llama.cpp quirk: trim() drops at most one leading space but every trailing one.
    if s and s[0] in _CSPACE:
        s = s[1:]
    return s.rstrip(_CSPACE)


# A JSON string (an escape takes the next character whatever it is), or one cut short.
_JSON_STRING_RE = re.compile(r'"(?:[^"\\]++|\\.)*+(?:"|\\?\Z)', re.S)


def json_brace_depth(s: str) -> int:
    """Unclosed ``{`` in a JSON-like text, ignoring braces inside strings."""
    outside = _JSON_STRING_RE.sub("", s) if '"' in s else s
    return outside.count("{") - outside.count("}")


def _is_word(c: str) -> bool:
    return c == "_" or ("0" <= c <= "9") or ("a" <= c <= "z") or ("A" <= c <= "Z")


_PY_LITERALS = (("True", "true"), ("False", "false"), ("None", "null"))


def normalize_quotes_to_json(text: str) -> str:
    """Python-style values to JSON: single-quoted strings, True/False/None.

    Only outer delimiters change; a prefix of a literal maps to a prefix of its JSON
    spelling, so streamed partial values grow monotonically.
    """
    out: list[str] = []
    in_single = in_double = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if in_single:
                out.append("'" if nxt == "'" else '\\"' if nxt == '"' else c + nxt)
                i += 2
                continue
            if in_double:
                out.append(c + nxt)
                i += 2
                continue
            out.append(c)
            i += 1
            continue
        if c == '"':
            if in_single:
                out.append('\\"')
            else:
                in_double = not in_double
                out.append(c)
        elif c == "'":
            if in_double:
                out.append(c)
            else:
                in_single = not in_single
                out.append('"')
        elif not in_single and not in_double and c in "TFN" and (i == 0 or not _is_word(text[i - 1])):
            j = i
            while j < n and _is_word(text[j]):
                j += 1
            token = text[i:j]
            for py, js in _PY_LITERALS:
                if py[: len(token)] == token:
                    out.append(js[: len(token)])
                    i = j - 1
                    break
            else:
                out.append(c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


class ChatMapper:
    """A mapper of parse trees to messages, for the chat format it names: a subclass that
    sets ``format`` is the mapper of that format (``MAPPER_BY_FORMAT``); one without is a
    shared base."""

    format: ClassVar[str]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "format" in cls.__dict__:
            held = MAPPER_BY_FORMAT.setdefault(cls.format, cls)
            if held is not cls:
                raise TypeError(f"two mappers for the chat format {cls.format!r}: {held.__name__} and {cls.__name__}")

    def run(self, nodes: tuple[AstNode, ...]) -> MessageDraft:
        raise NotImplementedError


# the mapper of each chat format name, filled by the ChatMapper subclasses that name one
MAPPER_BY_FORMAT: dict[str, type[ChatMapper]] = {}


class GenericMapper(ChatMapper):
    """``common_chat_peg_mapper``: tags in pre-order drive a small state machine."""

    format = "peg-native"

    def __init__(self) -> None:
        self.msg = MessageDraft()
        self.pending: DraftCall | None = None
        self.current: DraftCall | None = None
        self.arg_count = 0
        self.closing_quote_pending = False
        self.args_buffer = ""

    def run(self, nodes: tuple[AstNode, ...]) -> MessageDraft:
        for top in nodes:
            if top.tagged:
                for node in top.walk_tagged():
                    self.map(node)
        self.finish()
        return self.msg

    def finish(self) -> None:
        pending = self.pending
        if pending is not None and pending.name:
            if self.args_buffer:
                pending.arguments = self.args_buffer
            if self.closing_quote_pending and pending.arguments:
                pending.arguments += '"'
            self.msg.tool_calls.append(pending)
            self.pending = None
        reasoning = self.msg.reasoning_content
        if reasoning and not reasoning.strip(_REASONING_SPACE):
            self.msg.reasoning_content = ""

    # before the tool name is known, argument text waits in args_buffer
    def _named_call(self) -> DraftCall | None:
        """The call being read, once its name is known."""
        current = self.current
        return current if current is not None and current.name else None

    def _append_args(self, s: str) -> None:
        call = self._named_call()
        if call is not None:
            call.arguments += s
        else:
            self.args_buffer += s

    def _set_args(self, s: str) -> None:
        call = self._named_call()
        if call is not None:
            call.arguments = s
        else:
            self.args_buffer = s

    def _get_args(self) -> str:
        call = self._named_call()
        return call.arguments if call is not None else self.args_buffer

    def map(self, node: AstNode) -> None:  # noqa: C901 - mirrors one handler per tag
        tag = node.tag
        handler = _GENERIC_HANDLERS.get(tag)
        if handler is not None:
            handler(self, node)

    def _reasoning(self, node: AstNode) -> None:
        self.msg.reasoning_content += node.text

    def _content(self, node: AstNode) -> None:
        self.msg.content += node.text

    def _tool_open(self, node: AstNode) -> None:
        self.pending = DraftCall()
        self.current = self.pending
        self.arg_count = 0
        self.args_buffer = ""
        self.closing_quote_pending = False

    def _tool_id(self, node: AstNode) -> None:
        if self.current is None:
            return
        text = _rtrim(node.text)
        if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
            text = text[1:-1]
        self.current.id = text

    def _tool_name(self, node: AstNode) -> None:
        cur = self.current
        if cur is None:
            return
        cur.name = _rtrim(node.text)
        if self.args_buffer:
            cur.arguments = self.args_buffer
            self.args_buffer = ""
        elif not cur.arguments:
            cur.arguments = "{"
        if self.pending is not None:
            # the call joins the message now, so streaming sees it
            self.msg.tool_calls.append(self.pending)
            self.pending = None

    def _tool_args(self, node: AstNode) -> None:
        if self.current is None:
            return
        text = _rtrim(node.text)
        if text.startswith("{"):
            self._set_args(text)

    def _arg_open(self, node: AstNode) -> None:
        self.closing_quote_pending = False

    def _arg_name(self, node: AstNode) -> None:
        if self.current is None:
            return
        entry = "," if self.arg_count > 0 else ""
        entry += json.dumps(_trim_arg_name(node.text), ensure_ascii=False) + ":"
        self.arg_count += 1
        if not self._get_args():
            self._set_args("{")
        self._append_args(entry)

    def _arg_value(self, node: AstNode) -> None:
        if self.current is None:
            return
        value = node.text
        is_string = node.tag == "tool-arg-string-value"
        add = ""
        if is_string:
            if not value:
                add = '"'
                self.closing_quote_pending = True
            else:
                if not self.closing_quote_pending:
                    add = '"'
                    self.closing_quote_pending = True
                add += json_string_inner(value)
        elif value:
            add = normalize_quotes_to_json(value)
        self._append_args(add)

    def _arg_close(self, node: AstNode) -> None:
        if self.current is not None and self.closing_quote_pending:
            self._append_args('"')
            self.closing_quote_pending = False

    def _tool_close(self, node: AstNode) -> None:
        cur = self.current
        if cur is None:
            return
        if not cur.name and self.args_buffer:
            cur.arguments = self.args_buffer
            self.args_buffer = ""
        if self.closing_quote_pending:
            cur.arguments += '"'
            self.closing_quote_pending = False
        depth = json_brace_depth(cur.arguments)
        if depth > 0:
            cur.arguments += "}" * depth
        if self.pending is not None:
            if cur.name:
                self.msg.tool_calls.append(self.pending)
            self.pending = None


_GENERIC_HANDLERS = {
    "reasoning": GenericMapper._reasoning,
    "content": GenericMapper._content,
    "tool-open": GenericMapper._tool_open,
    "tool-id": GenericMapper._tool_id,
    "tool-name": GenericMapper._tool_name,
    "tool-args": GenericMapper._tool_args,
    "tool-arg-open": GenericMapper._arg_open,
    "tool-arg-name": GenericMapper._arg_name,
    "tool-arg-value": GenericMapper._arg_value,
    "tool-arg-string-value": GenericMapper._arg_value,
    "tool-arg-close": GenericMapper._arg_close,
    "tool-close": GenericMapper._tool_close,
}


# --- Gemma 4 -------------------------------------------------------------------------


def gemma4_to_json(node: AstNode) -> str:
    """Gemma 4's value syntax (``<|"|>`` strings, bare keys) to JSON text."""
    if not node.text:
        return ""
    rule = node.rule
    kids = node.children
    if rule in ("gemma4-number", "gemma4-bool", "gemma4-null", "gemma4-dict-key-name"):
        return node.text
    if rule == "gemma4-string-content":
        return json_string_inner(node.text)
    if rule == "gemma4-string":
        if not kids:
            return '"'
        return '"' + gemma4_to_json(kids[0]) + ("" if node.is_partial else '"')
    if rule in ("gemma4-array", "gemma4-dict"):
        open_, close = ("[", "]") if rule == "gemma4-array" else ("{", "}")
        body = ",".join(gemma4_to_json(k) for k in kids)
        return open_ + body + ("" if node.is_partial else close)
    if rule == "gemma4-dict-key":
        inner = json_string_inner(gemma4_to_json(kids[0])) if kids else ""
        return '"' + inner + ("" if node.is_partial else '":')
    if rule == "gemma4-dict-kv":
        return "".join(gemma4_to_json(k) for k in kids)
    if rule == "gemma4-value":
        return gemma4_to_json(kids[0]) if kids else ""
    return ""


class _WholeToolMapper(ChatMapper):
    """The walk the Gemma 4 and MiniMax-M3 mappers share: reasoning and content text
    is appended, each ``tool`` subtree is handed whole to ``visit_tool``, and any other
    node is descended into."""

    def __init__(self) -> None:
        self.msg = MessageDraft()

    def run(self, nodes: tuple[AstNode, ...]) -> MessageDraft:
        for node in nodes:
            self.visit(node)
        return self.msg

    def visit(self, node: AstNode) -> None:
        if node.tag == "reasoning":
            self.msg.reasoning_content += node.text
        elif node.tag == "content":
            self.msg.content += node.text
        elif node.tag == "tool":
            self.visit_tool(node)
        else:
            for child in node.children:
                self.visit(child)

    def visit_tool(self, node: AstNode) -> None:
        raise NotImplementedError


class Gemma4Mapper(_WholeToolMapper):
    """``common_chat_peg_gemma4_mapper``: whole ``tool`` subtrees become calls."""

    format = "peg-gemma4"

    def visit_tool(self, node: AstNode) -> None:
        name = node.find_by_tag("tool-name")
        args = node.find_by_tag("tool-args")
        if name is not None and args is not None and not name.is_partial:
            arguments = gemma4_to_json(args.children[0]) if args.children else ""
            self.msg.tool_calls.append(DraftCall(name.text, arguments))


# --- MiniMax-M3 ------------------------------------------------------------------------

_M3_VALUE_TAGS = ("tool-arg-value", "tool-arg-string-value", "tool-arg-object", "tool-arg-array")


def _m3_collect(node: AstNode, tag: str, out: list[AstNode]) -> None:
    for child in node.children:
        if child.tag == tag:
            out.append(child)
        else:
            _m3_collect(child, tag, out)


def _m3_value_of(node: AstNode) -> AstNode | None:
    return next((c for c in node.children if c.tag in _M3_VALUE_TAGS), None)


def _m3_member(node: AstNode) -> str:
    name = node.find_by_tag("tool-arg-name")
    if name is None:
        return ""
    return json.dumps(name.text, ensure_ascii=False) + ":" + _m3_value(_m3_value_of(node), not node.is_partial)


def _m3_container(node: AstNode, is_object: bool, closed: bool) -> str:
    entries: list[AstNode] = []
    _m3_collect(node, "tool-arg" if is_object else "tool-arg-item", entries)
    texts = []
    for entry in entries:
        text = _m3_member(entry) if is_object else _m3_value(_m3_value_of(entry), not entry.is_partial)
        if text:
            texts.append(text)
    body = ("{" if is_object else "[") + ",".join(texts)
    return body + (("}" if is_object else "]") if closed else "")


def _m3_value(node: AstNode | None, closed: bool) -> str:
    if node is None:
        return ""
    if node.tag == "tool-arg-object":
        return _m3_container(node, True, closed)
    if node.tag == "tool-arg-array":
        return _m3_container(node, False, closed)
    if node.tag == "tool-arg-string-value":
        return '"' + json_string_inner(node.text) + ('"' if closed else "")
    return node.text  # numbers and booleans are written verbatim


class MiniMaxM3Mapper(_WholeToolMapper):
    """``common_chat_peg_minimax_m3_mapper``: nested argument objects and arrays."""

    format = "peg-minimax-m3"

    def visit_tool(self, node: AstNode) -> None:
        name = node.find_by_tag("tool-name")
        if name is not None:
            self.msg.tool_calls.append(
                DraftCall(name.text, _m3_container(node, True, not node.is_partial)))


def map_nodes(nodes: tuple[AstNode, ...], fmt: str) -> MessageDraft:
    """Run the mapper llama.cpp picks for chat format ``fmt`` over the parse tree (the
    generic one for a format no mapper names)."""
    mapper = MAPPER_BY_FORMAT.get(fmt, GenericMapper)()
    return mapper.run(nodes)
