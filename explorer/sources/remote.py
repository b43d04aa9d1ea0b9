"""Templates from a Hugging Face Hub repo.

Input: a repo id, optional revision, template name and file. Output: a
``TemplateSource`` read like llama.cpp's converter reads a model directory
(``tokenizer_config.json``'s ``chat_template``, then ``chat_template.jinja`` with
``additional_chat_templates/*.jinja``, then ``chat_template.json``), or, for a GGUF-only
repo, from one GGUF header fetched by range requests. The network is ``explorer.sources.hub``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from explorer.errors import FetchError
from explorer.sources import hub
from explorer.sources.configs import from_json_text, json_or_none, special_tokens
from explorer.sources.gguf import choose_gguf, from_gguf_header, read_header_from
from explorer.sources.hub import HubRepo
from explorer.sources.model import (
    ADDITIONAL_DIR,
    DEFAULT_VARIANT,
    MAX_CONFIG_JSON_BYTES,
    MAX_TEXT_TEMPLATE_BYTES,
    TemplateSource,
    make_source,
    pick_variant,
    single_only,
    with_variant,
)


def from_hub(
    repo_id: str,
    revision: str | None = None,
    variant: str | None = None,
    *,
    filename: str | None = None,
    endpoint: str | None = None,
) -> TemplateSource:
    """A template from a Hub repo (``filename`` picks one file; else the usual files)."""
    if filename is not None:
        # Before any request: a hostile path must never reach the endpoint.
        hub.validate_ref(repo_id, revision, filename)
    repo = hub.repo_snapshot(repo_id, revision, endpoint=endpoint)
    display = repo.ref()
    if filename is not None:
        if filename not in repo.paths():
            raise FetchError(f"hf:{repo.ref()}: no file {filename!r} in the repo")
        return _hub_file(repo, filename, display, variant)
    paths = set(repo.paths())
    bos = eos = None
    config_text = None
    if "tokenizer_config.json" in paths:
        config_text = hub.download_text(repo, "tokenizer_config.json", max_bytes=MAX_CONFIG_JSON_BYTES)
        doc = json_or_none(config_text)
        if not isinstance(doc, dict) or doc.get("chat_template") is not None:
            where = _hub_where(repo, "tokenizer_config.json")
            return from_json_text(config_text, where, display, variant)
        bos, eos = special_tokens(config_text)
    if "chat_template.jinja" in paths:
        return _hub_jinja(repo, display, variant, bos, eos)
    if "chat_template.json" in paths:
        source = _hub_file(repo, "chat_template.json", display, variant)
        return replace(source, bos_token=bos, eos_token=eos)
    gguf = choose_gguf((f.path, f.size) for f in repo.files)
    if gguf is not None:
        return _hub_file(repo, gguf, display, variant)
    if config_text is not None:
        # Raises the clear "no 'chat_template' key" error for that file.
        return from_json_text(config_text, _hub_where(repo, "tokenizer_config.json"), display, variant)
    raise FetchError(
        f"hf:{repo.ref()}: no chat template in the repo (no tokenizer_config.json, "
        "chat_template.jinja, chat_template.json or .gguf file)"
    )


def _hub_where(repo: HubRepo, path: str) -> str:
    return f"hf:{repo.ref()} {path} (commit {repo.commit[:12]})"


def _hub_file(repo: HubRepo, path: str, display: str, variant: str | None) -> TemplateSource:
    where = _hub_where(repo, path)
    if path.lower().endswith(".gguf"):
        header = read_header_from(lambda: hub.read_remote_gguf_header(repo, path).header, where)
        return from_gguf_header(header, where, display, variant)
    is_json = path.lower().endswith(".json")
    cap = MAX_CONFIG_JSON_BYTES if is_json else MAX_TEXT_TEMPLATE_BYTES
    text = hub.download_text(repo, path, max_bytes=cap)
    if is_json:
        return from_json_text(text, where, display, variant)
    single_only(variant, where)
    return make_source(text, where, display)


def _hub_jinja(
    repo: HubRepo, display: str, variant: str | None, bos: str | None, eos: str | None
) -> TemplateSource:
    extra = sorted(
        p for p in repo.paths()
        if p.startswith(ADDITIONAL_DIR + "/") and p.endswith(".jinja") and p.count("/") == 1
    )
    files = {DEFAULT_VARIANT: "chat_template.jinja"} | {Path(p).stem: p for p in extra}
    names = tuple(files)
    chosen, note = pick_variant(names, variant, f"hf:{repo.ref()}")
    text = hub.download_text(repo, files[chosen])
    origin = _hub_where(repo, files[chosen]) + (f"; {note}" if note else "")
    multi = len(names) > 1
    return make_source(
        text, origin, with_variant(display, chosen, names),
        names if multi else (), chosen if multi else None, bos, eos,
    )
