"""The source record and the rules shared by every kind of source.

Input: template text and where it came from. Output: a frozen ``TemplateSource``; the
size caps; the variant choice llama.cpp makes (``default``, else ``tool_use``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from explorer.errors import Location, SourceError
from explorer.sources.gguf_header import MAX_GGUF_HEADER_BYTES

MAX_TEXT_TEMPLATE_BYTES = 5 * 1024 * 1024
"""Largest text source accepted: a ``.jinja`` or JSON file, an upload, pasted text."""

MAX_CONFIG_JSON_BYTES = 16 * 1024 * 1024
"""Largest ``tokenizer_config.json``/``chat_template.json`` read (some list many added
tokens); the template inside must still fit ``MAX_TEXT_TEMPLATE_BYTES``."""

MAX_GGUF_READ_BYTES = MAX_GGUF_HEADER_BYTES
"""Most bytes read from a GGUF (file, upload or Hub) to find its chat templates."""

DEFAULT_VARIANT = "default"
TOOL_USE_VARIANT = "tool_use"

ADDITIONAL_DIR = "additional_chat_templates"


@dataclass(frozen=True)
class TemplateSource:
    """One chat template and where it came from (immutable)."""

    text: str
    origin: str
    display_name: str
    sha256: str
    variants: tuple[str, ...] = ()
    variant: str | None = None
    bos_token: str | None = None
    eos_token: str | None = None


def sha256_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def make_source(
    text: str,
    origin: str,
    display_name: str,
    variants: tuple[str, ...] = (),
    variant: str | None = None,
    bos_token: str | None = None,
    eos_token: str | None = None,
) -> TemplateSource:
    return TemplateSource(
        text=text,
        origin=origin,
        display_name=display_name,
        sha256=sha256_of(text),
        variants=variants,
        variant=variant,
        bos_token=bos_token,
        eos_token=eos_token,
    )


def with_variant(name: str, variant: str | None, variants: tuple[str, ...]) -> str:
    return f"{name} ({variant})" if variant and len(variants) > 1 else name


def pick_variant(
    names: tuple[str, ...], requested: str | None, where: str
) -> tuple[str, str | None]:
    """Choose a variant name; return it and a note when llama.cpp's fallback chose it."""
    if requested is not None:
        if requested in names:
            return requested, None
        raise SourceError(
            f"{where}: no chat template named {requested!r}; available: {listing(names)}"
        )
    if DEFAULT_VARIANT in names:
        return DEFAULT_VARIANT, None
    if TOOL_USE_VARIANT in names:
        return TOOL_USE_VARIANT, "no 'default' template: llama.cpp falls back to 'tool_use'"
    raise SourceError(
        f"{where}: no 'default' (or 'tool_use') chat template among {listing(names)}; "
        "name the one you want"
    )


def listing(names: tuple[str, ...]) -> str:
    return ", ".join(repr(n) for n in names) if names else "none"


def single_only(requested: str | None, where: str) -> None:
    if requested not in (None, DEFAULT_VARIANT):
        raise SourceError(f"{where}: holds a single template, so there is no variant {requested!r}")


def check_text_size(size: int, where: str, cap: int = MAX_TEXT_TEMPLATE_BYTES) -> None:
    if size > cap:
        what = "text templates" if cap == MAX_TEXT_TEMPLATE_BYTES else "JSON configs"
        raise SourceError(
            f"{where}: {size} bytes is more than the {cap // (1024 * 1024)} MiB cap for {what}"
        )


def check_template(text: str, where: str) -> str:
    check_text_size(len(text.encode("utf-8", "surrogatepass")), where)
    return text


def decode_text(data: bytes, where: str, cap: int = MAX_TEXT_TEMPLATE_BYTES) -> str:
    check_text_size(len(data), where, cap)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{where}: not valid UTF-8 text", Location(offset=exc.start)
        ) from None
