"""Template sources: where a chat template's text comes from.

Input: pasted text, a local path or uploaded bytes (``.jinja``, ``tokenizer_config.json``,
``chat_template.json``, a ``.gguf`` file even truncated to its header, or a model
directory), a Hugging Face Hub repo id, or a built-in example name. Output: one frozen
``TemplateSource`` holding the template text, where it came from, a display name, its
sha256 and the names of its variants when the source holds several.

Variant choice follows llama.cpp: ``default`` first; with no default, the ``tool_use``
template (what ``common_chat_templates_init`` falls back to); otherwise the caller must
name one. A model directory or Hub repo is read in the order llama.cpp's converter
(``convert_hf_to_gguf.py``) uses: ``tokenizer_config.json``'s ``chat_template``, then
``chat_template.jinja`` (with ``additional_chat_templates/*.jinja``), then
``chat_template.json``; a Hub repo with none of these but GGUF files is read from a GGUF
header by range requests (a folder with only GGUF files, from its main GGUF). Every
failure is a ``SourceError`` (``GGUFError``, ``FetchError``) that names the file and what
was expected.

Modules: ``model`` (the record, caps, variant rule), ``configs`` (JSON configs), ``gguf``
(templates in a GGUF header), ``local`` (files, folders, uploads), ``remote`` (Hub repos;
the network itself is ``explorer.sources.hub``), ``examples`` (built-in templates). This module
adds pasted text and the CLI's TEMPLATE spec.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from explorer.errors import FetchError, SourceError
from explorer.sources.configs import parse_template_json
from explorer.sources.examples import EXAMPLES_DIR, ExampleInfo, example_info, from_example, list_examples
from explorer.sources.gguf import gguf_variants
from explorer.sources.local import from_file, from_upload
from explorer.sources.model import (
    DEFAULT_VARIANT,
    MAX_CONFIG_JSON_BYTES,
    MAX_GGUF_READ_BYTES,
    MAX_TEXT_TEMPLATE_BYTES,
    TOOL_USE_VARIANT,
    TemplateSource,
    check_text_size,
    make_source,
    pick_variant,
)
from explorer.sources.remote import from_hub


def from_text(text: str, display_name: str = "pasted template") -> TemplateSource:
    """A template pasted or typed by the user."""
    if not isinstance(text, str):
        raise SourceError(f"template text must be a string, found {type(text).__name__}")
    check_text_size(len(text.encode("utf-8", "surrogatepass")), "pasted template")
    return make_source(text, "pasted text", display_name)


_HF_SPEC_RE = re.compile(
    r"hf:(?P<repo>[^/@#\s]+/[^/@#\s]+)(?:/(?P<path>[^@#]+))?(?:@(?P<rev>[^#]+))?(?:#(?P<name>.+))?"
)


def resolve_spec(spec: str) -> TemplateSource:
    """The CLI's TEMPLATE argument: path[#name], hf:owner/repo[/file][@rev][#name],
    example:NAME, or '-' for stdin."""
    if spec == "-":
        data = sys.stdin.buffer.read(max(MAX_CONFIG_JSON_BYTES, MAX_GGUF_READ_BYTES) + 1)
        return from_upload(data, "<stdin>")
    if spec.startswith("example:"):
        return from_example(spec[len("example:") :])
    if spec.startswith("hf:"):
        m = _HF_SPEC_RE.fullmatch(spec)
        if m is None:
            raise FetchError(
                f"invalid Hub spec {spec!r}: expected hf:owner/repo[/file][@revision][#name]"
            )
        return from_hub(m["repo"], m["rev"], m["name"], filename=m["path"])
    p = Path(spec)
    if not p.exists() and "#" in spec:
        base, _, name = spec.rpartition("#")
        if Path(base).exists():
            return from_file(base, name)
    if not p.exists():
        raise SourceError(f"no such file or directory: {spec}")
    return from_file(p)


__all__ = [
    "DEFAULT_VARIANT",
    "EXAMPLES_DIR",
    "TOOL_USE_VARIANT",
    "MAX_CONFIG_JSON_BYTES",
    "MAX_GGUF_READ_BYTES",
    "MAX_TEXT_TEMPLATE_BYTES",
    "ExampleInfo",
    "TemplateSource",
    "example_info",
    "from_example",
    "from_file",
    "from_hub",
    "from_text",
    "from_upload",
    "gguf_variants",
    "list_examples",
    "parse_template_json",
    "pick_variant",
    "resolve_spec",
]
