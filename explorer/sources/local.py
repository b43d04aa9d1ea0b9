"""Local files, model directories and uploaded bytes.

Input: a path (``.jinja``, JSON config, ``.gguf`` even truncated, or a model directory)
or uploaded bytes with their file name. Output: a ``TemplateSource``. The kind is told
by content first (GGUF magic, a leading JSON object) and by name second; a GGUF is read
only up to the end of its key-value section.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from explorer.errors import SourceError
from explorer.sources.configs import from_json_text, json_or_none, special_tokens
from explorer.sources.gguf import choose_gguf, from_gguf_header, read_header_from
from explorer.sources.gguf_header import read_gguf_header, stream_from_bytes
from explorer.sources.model import (
    ADDITIONAL_DIR,
    DEFAULT_VARIANT,
    MAX_CONFIG_JSON_BYTES,
    MAX_GGUF_READ_BYTES,
    MAX_TEXT_TEMPLATE_BYTES,
    TemplateSource,
    decode_text,
    make_source,
    pick_variant,
    single_only,
    with_variant,
)

GGUF_MAGIC_BYTES = b"GGUF"


def _kind(filename: str, head: bytes) -> str:
    """'gguf', 'json' (by name), 'json?' (looks like a JSON object) or 'jinja'."""
    if head[:4] == GGUF_MAGIC_BYTES:
        return "gguf"
    lower = filename.lower()
    if lower.endswith(".gguf"):
        return "gguf"
    if lower.endswith(".json"):
        return "json"
    if re.match(rb"\s*\{\s*\"", head[:4096]):
        return "json?"
    return "jinja"


def _text_source(
    text: str, kind: str, where: str, display: str, variant: str | None
) -> TemplateSource:
    # A nameless upload that merely starts like JSON is a config only if it has the key.
    doc = json_or_none(text) if kind == "json?" else None
    if kind == "json" or (isinstance(doc, dict) and "chat_template" in doc):
        return from_json_text(text, where, display, variant)
    single_only(variant, where)
    return make_source(text, where, display)


def from_upload(data: bytes, filename: str, variant: str | None = None) -> TemplateSource:
    """Bytes uploaded by the user (or read from stdin), typed by content and name."""
    where = f"upload {filename}"
    display = Path(filename).name or filename
    kind = _kind(filename, data[:4096])
    if kind == "gguf":
        stream = stream_from_bytes(data)
        header = read_header_from(lambda: read_gguf_header(stream, max_bytes=MAX_GGUF_READ_BYTES), where)
        return from_gguf_header(header, where, display, variant)
    cap = MAX_CONFIG_JSON_BYTES if kind.startswith("json") else MAX_TEXT_TEMPLATE_BYTES
    return _text_source(decode_text(data, where, cap), kind, where, display, variant)


def from_file(path: str | Path, variant: str | None = None) -> TemplateSource:
    """A local template file, GGUF (only its header is read) or model directory."""
    p = Path(path)
    where = f"file {p}"
    if p.is_dir():
        return _from_directory(p, variant)
    try:
        with open(p, "rb") as handle:
            head = handle.read(4096)
            kind = _kind(p.name, head)
            if kind == "gguf":
                handle.seek(0)
                header = read_header_from(
                    lambda: read_gguf_header(handle, max_bytes=MAX_GGUF_READ_BYTES), where
                )
                return from_gguf_header(header, where, p.name, variant)
            cap = MAX_CONFIG_JSON_BYTES if kind.startswith("json") else MAX_TEXT_TEMPLATE_BYTES
            handle.seek(0)
            data = handle.read(cap + 1)
    except OSError as exc:
        raise SourceError(f"{where}: cannot read ({exc.strerror or exc})") from None
    return _text_source(decode_text(data, where, cap), kind, where, p.name, variant)


def read_text_file(p: Path) -> str:
    where = f"file {p}"
    cap = MAX_CONFIG_JSON_BYTES if p.suffix == ".json" else MAX_TEXT_TEMPLATE_BYTES
    try:
        with open(p, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise SourceError(f"{where}: cannot read ({exc.strerror or exc})") from None
    return decode_text(data, where, cap)


def _from_directory(d: Path, variant: str | None) -> TemplateSource:
    """A model directory, read in the converter's order (see the module docstring)."""
    config = d / "tokenizer_config.json"
    bos = eos = None
    if config.is_file():
        text = read_text_file(config)
        bos, eos = special_tokens(text)
        doc = json_or_none(text)
        if not isinstance(doc, dict) or doc.get("chat_template") is not None:
            return from_json_text(text, f"file {config}", d.name, variant)
    jinja = d / "chat_template.jinja"
    if jinja.is_file():
        extra = sorted((d / ADDITIONAL_DIR).glob("*.jinja")) if (d / ADDITIONAL_DIR).is_dir() else []
        templates = {DEFAULT_VARIANT: jinja} | {f.stem: f for f in extra}
        names = tuple(templates)
        chosen, note = pick_variant(names, variant, f"directory {d}")
        origin = f"file {templates[chosen]}" + (f"; {note}" if note else "")
        return make_source(
            read_text_file(templates[chosen]), origin, with_variant(d.name, chosen, names),
            names if len(names) > 1 else (), chosen if len(names) > 1 else None, bos, eos,
        )
    chat_json = d / "chat_template.json"
    if chat_json.is_file():
        source = from_json_text(read_text_file(chat_json), f"file {chat_json}", d.name, variant)
        return replace(source, bos_token=bos, eos_token=eos)
    gguf = choose_gguf((f.name, f.stat().st_size) for f in d.glob("*.gguf") if f.is_file())
    if gguf is not None:
        return from_file(d / gguf, variant)
    raise SourceError(
        f"directory {d}: no chat template found (looked for tokenizer_config.json with "
        "'chat_template', chat_template.jinja, chat_template.json, *.gguf)"
    )
