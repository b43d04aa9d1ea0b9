"""Chat templates stored in a GGUF header (``tokenizer.chat_template[.<name>]``).

Input: a ``GGUFHeader`` (complete, or cut short by truncation or the read cap).
Output: a ``TemplateSource``, or a ``GGUFError`` saying the header ended before any
template key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from explorer.errors import GGUFError, Location, SourceError
from explorer.sources.gguf_header import CHAT_TEMPLATE_KEY, CHAT_TEMPLATE_PREFIX, ArraySummary, GGUFHeader
from explorer.sources.model import (
    DEFAULT_VARIANT,
    TemplateSource,
    check_template,
    listing,
    make_source,
    pick_variant,
    with_variant,
)


@contextmanager
def where_in_gguf(where: str) -> Iterator[None]:
    """Prefix a header reader's GGUFError with the file it came from."""
    try:
        yield
    except GGUFError as exc:
        raise GGUFError(f"{where}: {exc.message}", exc.location) from None


def read_header_from(read: Callable[[], GGUFHeader], where: str) -> GGUFHeader:
    with where_in_gguf(where):
        return read()


_SPLIT_RE = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)


def choose_gguf(files: Iterable[tuple[str, int | None]]) -> str | None:
    """Which GGUF of a repo or folder to read: not a vision projector (``mmproj``), only
    the first shard of a split model, then the smallest (all quants share the header)."""
    candidates = []
    for path, size in files:
        name = path.rsplit("/", 1)[-1].lower()
        if not name.endswith(".gguf") or "mmproj" in name:
            continue
        split = _SPLIT_RE.search(name)
        if split and int(split.group(1)) != 1:
            continue
        candidates.append((size if size is not None else 1 << 62, path))
    return min(candidates)[1] if candidates else None


def gguf_variants(header: GGUFHeader) -> tuple[str, ...]:
    names = tuple(header.chat_templates)
    return tuple(sorted(names, key=lambda n: (n != DEFAULT_VARIANT, n)))


def _check_template_types(header: GGUFHeader, where: str) -> None:
    for key, value in header.metadata.items():
        if (key == CHAT_TEMPLATE_KEY or key.startswith(CHAT_TEMPLATE_PREFIX)) and not isinstance(
            value, str
        ):
            found = value.element_type + " array" if isinstance(value, ArraySummary) else type(value).__name__
            raise GGUFError(f"{where}: GGUF key '{key}' holds {found}, expected a string template")


def from_gguf_header(
    header: GGUFHeader, where: str, display: str, variant: str | None
) -> TemplateSource:
    _check_template_types(header, where)
    names = gguf_variants(header)
    if not names:
        if not header.complete:
            raise GGUFError(
                f"{where}: GGUF header cut short before any tokenizer.chat_template key: "
                f"{header.stop_detail}; supply more of the file (its key-value section is "
                "longer)",
                Location(offset=header.bytes_read),
            )
        raise SourceError(
            f"{where}: this GGUF has no tokenizer.chat_template key (llama.cpp would use its "
            "built-in chatml template)"
        )
    if variant is not None and variant not in names and not header.complete:
        raise GGUFError(
            f"{where}: no chat template {variant!r} in the part of the header read "
            f"({header.stop_detail}); found {listing(names)}",
            Location(offset=header.bytes_read),
        )
    # llama.cpp treats an empty default like a missing one (then tool_use, then chatml).
    pickable = names
    if variant is None and header.chat_templates.get(DEFAULT_VARIANT) == "":
        pickable = tuple(n for n in names if n != DEFAULT_VARIANT)
        if not pickable:
            raise SourceError(
                f"{where}: tokenizer.chat_template is empty (llama.cpp would use its built-in "
                "chatml template)"
            )
    chosen, note = pick_variant(pickable, variant, where)
    key = "tokenizer.chat_template" + ("" if chosen == DEFAULT_VARIANT else f".{chosen}")
    origin = f"{where}: {key}"
    if note:
        origin += f"; {note}"
    if not header.complete:
        origin += f" (header read partially: {header.stop_detail})"
    return make_source(
        check_template(header.chat_templates[chosen], where),
        origin,
        with_variant(display, chosen, names),
        names,
        chosen,
        header.bos_token,
        header.eos_token,
    )
