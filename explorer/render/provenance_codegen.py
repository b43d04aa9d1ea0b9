"""The provenance build of a template: generated code that tags every piece of output.

Input: template text and a dialect. Output: a ``ProvenanceTemplate``: a jinja2 template
whose chunks are ``SpannedStr`` (the text, plus which numbered ``Piece`` of the template
wrote each character range), and the table of those pieces (template line, kind, source
text of the expression). ``explorer.render.provenance`` renders it and turns the tags
into character spans.

A piece is one child of an output node (literal template data or one ``{{ expr }}``),
a ``{% call %}`` block or a ``{% filter %}`` block. The build differs from the normal one
only in code generation (``ProvenanceMixin``): each piece's text goes through
``environment.jx_piece(index, text, value)``, and the buffers of macros, call-block
callers, recursive loops and ``{% set %}`` blocks are joined by ``environment.jx_join``,
which keeps the tags of their pieces. A macro's result therefore carries the lines of
the macro body that wrote it, through ``{% set x = m() %}`` too; any other string built
elsewhere and output later (``{% set x = '<a>' ~ y %}``, a filter applied to a macro's
result, ``~`` on it) is a new string, attributed to the output tag that wrote it.

The normal build never uses this module's code generator: ``CompiledTemplate``
compiles this variant on first request (``provenance_template()``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame

from explorer.render.jinja_compat import compile_ast, environment
from explorer.render.jinja_compat_llama import LlamaCodeGenerator

PieceKind = Literal["text", "expression", "call", "filter"]
_BLOCK_PIECES: dict[str, PieceKind] = {"call": "call", "filter": "filter"}  # a block tag's head word -> its kind

# (start, end, piece index, indexes of the output pieces it went through, outermost first)
RawSpan = tuple[int, int, int, tuple[int, ...]]

# Piece index of text no tagged piece wrote (a chunk this module does not generate).
UNKNOWN = -1

# Node attribute holding the piece index the code generator writes.
_PIECE_ATTR = "jx_piece"
# Local holding an output expression's value, before it is converted to text.
_VALUE = "jx_v"


@dataclass(frozen=True)
class Piece:
    """One place in the template that writes output.

    ``line`` is where the piece starts (for ``{{ }}``, ``{% call %}`` and ``{% filter %}``,
    the line of the opening delimiter); ``expression`` is the source text between the
    delimiters, stripped (None for literal template text, or if it could not be matched).
    """

    line: int
    kind: PieceKind
    expression: str | None = None


@dataclass(frozen=True)
class ProvenanceTemplate:
    """The provenance build of one template and its piece table (indexed by the tags)."""

    template: jinja2.Template
    pieces: tuple[Piece, ...]


class SpannedStr(str):
    """Output text that knows which pieces wrote it: ``_jx_spans`` covers it exactly.

    Immutable like any string, so the spans stay true wherever the value travels.
    """

    _jx_spans: tuple[RawSpan, ...]


def spans_of(text: str) -> tuple[RawSpan, ...]:
    """The tags of a chunk or buffer item (one unknown span for an untagged string)."""
    if isinstance(text, SpannedStr):
        return text._jx_spans
    return ((0, len(text), UNKNOWN, ()),) if text else ()


def _spanned(text: str, spans: tuple[RawSpan, ...]) -> SpannedStr:
    out = SpannedStr(text)
    out._jx_spans = spans
    return out


def _piece(index: int, text: object, value: object = None) -> object:
    """``environment.jx_piece``: the output text of piece ``index``, tagged.

    ``value`` is what the expression evaluated to; when that was already tagged text (a
    macro's result) and is written unchanged, its own tags are kept, with this piece
    recorded as the way it reached the output.
    """
    if not isinstance(text, str):
        return text  # not text: left for the caller to fail on, exactly as the normal build does
    inner = value if isinstance(value, SpannedStr) and value == text else text
    if isinstance(inner, SpannedStr):
        spans = tuple((s, e, p, (index, *via)) for s, e, p, via in inner._jx_spans)
    else:
        spans = ((0, len(text), index, ()),) if text else ()
    return _spanned(text, spans)


def _join(buffer: list[str]) -> SpannedStr:
    """``environment.jx_join``: a buffer's items joined (as jinja2's concat), tags kept."""
    text = "".join(buffer)
    spans: list[RawSpan] = []
    offset = 0
    for item in buffer:
        spans.extend((s + offset, e + offset, p, via) for s, e, p, via in spans_of(item))
        offset += len(item)
    return _spanned(text, tuple(spans))


class ProvenanceMixin(CodeGenerator):
    """Code generation that routes every piece of output through ``jx_piece``.

    The methods mirror jinja2 3.1's own (visit_Output, visit_CallBlock, visit_FilterBlock,
    visit_AssignBlock, return_buffer_contents) line for line, so that the text, the
    evaluation order and the debug line marks (which name the template line of an error)
    are the normal build's; only the wrapping calls are added. Nodes without a piece
    number (none, in practice) fall back to jinja2's code.
    """

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        if not all(hasattr(child, _PIECE_ATTR) for child in node.nodes):
            super().visit_Output(node, frame)
            return
        if frame.require_output_check:
            if self.has_known_extends:
                return
            self.writeline("if parent_template is None:")
            self.indent()
        finalize = self._make_finalize()
        items: list[tuple[nodes.Expr, str | None]] = []
        for child in node.nodes:
            try:
                if not (finalize.const or isinstance(child, nodes.TemplateData)):
                    raise nodes.Impossible()
                const = self._output_child_to_const(child, frame, finalize)
            except (nodes.Impossible, Exception):  # noqa: BLE001 - as jinja2: what does not fold runs at render time
                items.append((child, None))
                continue
            items.append((child, const))
        if frame.buffer is not None:
            self.writeline(f"{frame.buffer}.append(" if len(items) == 1 else f"{frame.buffer}.extend((")
            self.indent()
        for child, folded in items:
            index = getattr(child, _PIECE_ATTR)
            if folded is not None:
                code = f"environment.jx_piece({index}, {folded!r})"
                self.writeline("yield " + code if frame.buffer is None else code + ",")
                continue
            if frame.buffer is None:
                self.writeline("yield ", child)
            else:
                self.newline(child)
            self.write(f"environment.jx_piece({index}, ")
            self._output_child_pre(child, frame, finalize)
            self.write(f"({_VALUE} := ")
            self.visit(child, frame)
            self.write(")")
            self._output_child_post(child, frame, finalize)
            self.write(f", {_VALUE})")
            if frame.buffer is not None:
                self.write(",")
        if frame.buffer is not None:
            self.outdent()
            self.writeline(")" if len(items) == 1 else "))")
        if frame.require_output_check:
            self.outdent()

    def visit_CallBlock(self, node: nodes.CallBlock, frame: Frame) -> None:
        index = getattr(node, _PIECE_ATTR, None)
        if index is None:
            super().visit_CallBlock(node, frame)
            return
        call_frame, macro_ref = self.macro_body(node, frame)
        self.writeline("caller = ")
        self.macro_def(macro_ref, call_frame)
        self.start_write(frame, node)
        self.write(f"environment.jx_piece({index}, ")
        self.visit_Call(node.call, frame, forward_caller=True)
        self.write(")")
        self.end_write(frame)

    def visit_FilterBlock(self, node: nodes.FilterBlock, frame: Frame) -> None:
        index = getattr(node, _PIECE_ATTR, None)
        if index is None:
            super().visit_FilterBlock(node, frame)
            return
        filter_frame = frame.inner()
        filter_frame.symbols.analyze_node(node)
        self.enter_frame(filter_frame)
        self.buffer(filter_frame)
        self.blockvisit(node.body, filter_frame)
        self.start_write(frame, node)
        self.write(f"environment.jx_piece({index}, ")
        self.visit_Filter(node.filter, filter_frame)
        self.write(")")
        self.end_write(frame)
        self.leave_frame(filter_frame)

    def visit_AssignBlock(self, node: nodes.AssignBlock, frame: Frame) -> None:
        if node.filter is not None:
            super().visit_AssignBlock(node, frame)  # a filtered block is a new string
            return
        self.push_assign_tracking()
        block_frame = frame.inner()
        block_frame.require_output_check = False
        block_frame.symbols.analyze_node(node)
        self.enter_frame(block_frame)
        self.buffer(block_frame)
        self.blockvisit(node.body, block_frame)
        self.newline(node)
        self.visit(node.target, frame)
        self.write(" = (Markup if context.eval_ctx.autoescape else identity)(")
        self.write(f"environment.jx_join({block_frame.buffer})")
        self.write(")")
        self.pop_assign_tracking(frame)
        self.leave_frame(block_frame)

    def return_buffer_contents(self, frame: Frame, force_unescaped: bool = False) -> None:
        if not force_unescaped and (frame.eval_ctx.volatile or frame.eval_ctx.autoescape):
            super().return_buffer_contents(frame, force_unescaped)  # escaped text: a new string
            return
        self.writeline(f"return environment.jx_join({frame.buffer})")


class ProvenanceCodeGenerator(ProvenanceMixin, CodeGenerator):
    """The transformers dialect's provenance build."""


class ProvenanceLlamaCodeGenerator(ProvenanceMixin, LlamaCodeGenerator):
    """The llama.cpp dialect's provenance build (macros stay ``LlamaMacro``)."""


@functools.cache
def provenance_environment(dialect: str) -> jinja2.Environment:
    """The dialect's environment with the provenance code generator and its two hooks.

    An overlay: filters, tests, globals, finalize and every sandbox hook are the normal
    environment's own, so the same code runs on the same values.
    """
    env = environment(dialect).overlay()
    generator = ProvenanceLlamaCodeGenerator if dialect == "llama.cpp" else ProvenanceCodeGenerator
    # Instance attributes: jinja2 reads code_generator_class through the instance, and the
    # generated code calls environment.jx_piece / jx_join as plain attributes.
    env.code_generator_class = generator
    env.jx_piece = _piece  # type: ignore[attr-defined]  # a hook the generated code reads off the environment
    env.jx_join = _join  # type: ignore[attr-defined]  # a hook the generated code reads off the environment
    return env


def compile_provenance(source: str, dialect: str) -> ProvenanceTemplate:
    """Compile the provenance build (raises jinja2 errors, as the normal compile would)."""
    env = provenance_environment(dialect)
    table: list[Piece] = []

    def annotate(tree: nodes.Template) -> None:
        table.extend(number_pieces(tree, _tags(env, source)))

    return ProvenanceTemplate(compile_ast(env, source, annotate=annotate), tuple(table))


# --- the piece table ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Tag:
    line: int
    end_line: int
    text: str


def _tags(env: jinja2.Environment, source: str) -> dict[PieceKind, list[_Tag]]:
    """Every ``{{ }}``, ``{% call %}`` and ``{% filter %}`` tag of the source, in order,
    with its exact text (jinja2's raw token stream keeps the whitespace tokens)."""
    found: dict[PieceKind, list[_Tag]] = {"expression": [], "call": [], "filter": []}
    opened: tuple[str, int] | None = None
    parts: list[str] = []
    head = ""
    for lineno, kind, value in env.lex(source):
        if kind in ("variable_begin", "block_begin"):
            opened, parts, head = (kind, lineno), [], ""
        elif opened is not None and kind in ("variable_end", "block_end"):
            text = "".join(parts).strip()
            if opened[0] == "variable_begin":
                found["expression"].append(_Tag(opened[1], lineno, text))
            elif head in _BLOCK_PIECES:
                found[_BLOCK_PIECES[head]].append(_Tag(opened[1], lineno, text))
            opened = None
        elif opened is not None:
            parts.append(value)
            if not head and kind == "name":
                head = value
            elif not head and kind != "whitespace":
                head = "?"
    return found


def number_pieces(tree: nodes.Template, tags: dict[PieceKind, list[_Tag]]) -> list[Piece]:
    """Number the output pieces of a (rewritten) tree on its nodes; their table.

    The tree's output nodes come in source order, as do the tags, so the n-th output
    expression is the n-th ``{{ }}`` tag; each match is checked against the node's line,
    and after a mismatch that kind's expressions are left unnamed rather than misnamed.
    """
    pieces: list[Piece] = []
    queues = {kind: iter(found) for kind, found in tags.items()}
    broken: set[PieceKind] = set()

    def tagged(kind: PieceKind, lineno: int) -> Piece:
        tag = None if kind in broken else next(queues[kind], None)
        if tag is None or not tag.line <= lineno <= tag.end_line:
            broken.add(kind)
            return Piece(lineno, kind)
        return Piece(tag.line, kind, tag.text)

    def number(node: nodes.Node, piece: Piece) -> None:
        setattr(node, _PIECE_ATTR, len(pieces))
        pieces.append(piece)

    for node in tree.find_all((nodes.Output, nodes.CallBlock, nodes.FilterBlock)):
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                if isinstance(child, nodes.TemplateData):
                    number(child, Piece(child.lineno, "text"))
                else:
                    number(child, tagged("expression", child.lineno))
        else:
            number(node, tagged("call" if isinstance(node, nodes.CallBlock) else "filter", node.lineno))
    return pieces
