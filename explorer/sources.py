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
header by range requests. Every failure is a ``SourceError`` (``GGUFError``,
``FetchError``) that names the file and what was expected.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from explorer import hub
from explorer.errors import FetchError, GGUFError, Location, SourceError
from explorer.gguf_header import (
    MAX_GGUF_HEADER_BYTES,
    GGUFHeader,
    read_gguf_header,
)
from explorer.hub import HubRepo

MAX_TEXT_TEMPLATE_BYTES = 5 * 1024 * 1024
"""Largest text source accepted: a ``.jinja`` or JSON file, an upload, pasted text."""

MAX_CONFIG_JSON_BYTES = 16 * 1024 * 1024
"""Largest ``tokenizer_config.json``/``chat_template.json`` read (some list many added
tokens); the template inside must still fit ``MAX_TEXT_TEMPLATE_BYTES``."""

MAX_GGUF_READ_BYTES = MAX_GGUF_HEADER_BYTES
"""Most bytes read from a GGUF (file, upload or Hub) to find its chat templates."""

GGUF_MAGIC_BYTES = b"GGUF"
DEFAULT_VARIANT = "default"
TOOL_USE_VARIANT = "tool_use"
EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"

_ADDITIONAL_DIR = "additional_chat_templates"


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


@dataclass(frozen=True)
class ExampleInfo:
    name: str
    description: str
    file: str


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _make(
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
        sha256=_sha256(text),
        variants=variants,
        variant=variant,
        bos_token=bos_token,
        eos_token=eos_token,
    )


def _with_variant(name: str, variant: str | None, variants: tuple[str, ...]) -> str:
    return f"{name} ({variant})" if variant and len(variants) > 1 else name


# --- variants ------------------------------------------------------------------


def pick_variant(
    names: tuple[str, ...], requested: str | None, where: str
) -> tuple[str, str | None]:
    """Choose a variant name; return it and a note when llama.cpp's fallback chose it."""
    if requested is not None:
        if requested in names:
            return requested, None
        raise SourceError(
            f"{where}: no chat template named {requested!r}; available: {_listing(names)}"
        )
    if DEFAULT_VARIANT in names:
        return DEFAULT_VARIANT, None
    if TOOL_USE_VARIANT in names:
        return TOOL_USE_VARIANT, "no 'default' template: llama.cpp falls back to 'tool_use'"
    raise SourceError(
        f"{where}: no 'default' (or 'tool_use') chat template among {_listing(names)}; "
        "name the one you want"
    )


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(repr(n) for n in names) if names else "none"


def _single(text: str, requested: str | None, where: str) -> None:
    if requested not in (None, DEFAULT_VARIANT):
        raise SourceError(f"{where}: holds a single template, so there is no variant {requested!r}")


# --- text and JSON -------------------------------------------------------------


def _check_text_size(size: int, where: str, cap: int = MAX_TEXT_TEMPLATE_BYTES) -> None:
    if size > cap:
        what = "text templates" if cap == MAX_TEXT_TEMPLATE_BYTES else "JSON configs"
        raise SourceError(
            f"{where}: {size} bytes is more than the {cap // (1024 * 1024)} MiB cap for {what}"
        )


def _check_template(text: str, where: str) -> str:
    _check_text_size(len(text.encode("utf-8", "surrogatepass")), where)
    return text


def _decode(data: bytes, where: str, cap: int = MAX_TEXT_TEMPLATE_BYTES) -> str:
    _check_text_size(len(data), where, cap)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"{where}: not valid UTF-8 text", Location(offset=exc.start)
        ) from None


def from_text(text: str, display_name: str = "pasted template") -> TemplateSource:
    """A template pasted or typed by the user."""
    if not isinstance(text, str):
        raise SourceError(f"template text must be a string, found {type(text).__name__}")
    _check_text_size(len(text.encode("utf-8", "surrogatepass")), "pasted template")
    return _make(text, "pasted text", display_name)


def parse_template_json(text: str, where: str) -> dict[str, str] | str:
    """The ``chat_template`` of a ``tokenizer_config.json`` or ``chat_template.json``.

    Returns the string, or an ordered name -> template mapping for a list.
    """
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            f"{where}: not valid JSON ({exc.msg})", Location(line=exc.lineno, offset=exc.pos)
        ) from None
    if not isinstance(doc, dict):
        raise SourceError(f"{where}: expected a JSON object, found {_json_type(doc)}")
    if "chat_template" not in doc:
        keys = ", ".join(sorted(doc)[:12])
        raise SourceError(f"{where}: no 'chat_template' key (keys: {keys or 'none'})")
    return _template_value(doc["chat_template"], where)


def _template_value(value: object, where: str) -> dict[str, str] | str:
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise SourceError(
            f"{where}: 'chat_template' must be a string or a list of {{name, template}}, "
            f"found {_json_type(value)}"
        )
    named: dict[str, str] = {}
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise SourceError(
                f"{where}: chat_template[{i}] must be an object with 'name' and 'template', "
                f"found {_json_type(item)}"
            )
        name, template = item.get("name"), item.get("template")
        if not isinstance(name, str) or not name:
            raise SourceError(f"{where}: chat_template[{i}] has no string 'name'")
        if not isinstance(template, str):
            raise SourceError(
                f"{where}: chat_template[{i}] ({name!r}) 'template' must be a string, "
                f"found {_json_type(template)}"
            )
        if name in named:
            raise SourceError(f"{where}: chat_template lists the name {name!r} twice")
        named[name] = template
    if not named:
        raise SourceError(f"{where}: 'chat_template' is an empty list")
    return named


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _special_tokens(text: str) -> tuple[str | None, str | None]:
    """bos/eos token strings of a tokenizer_config.json (plain or AddedToken form)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        return None, None
    if not isinstance(doc, dict):
        return None, None

    def token(key: str) -> str | None:
        value = doc.get(key)
        if isinstance(value, dict):
            value = value.get("content")
        return value if isinstance(value, str) else None

    return token("bos_token"), token("eos_token")


def _from_json_text(
    text: str, where: str, display: str, variant: str | None
) -> TemplateSource:
    value = parse_template_json(text, where)
    bos, eos = _special_tokens(text)
    if isinstance(value, str):
        _single(value, variant, where)
        text = _check_template(value, where)
        return _make(text, f"{where}: chat_template", display, bos_token=bos, eos_token=eos)
    names = tuple(value)
    chosen, note = pick_variant(names, variant, where)
    origin = f"{where}: chat_template[{names.index(chosen)}] ({chosen})"
    if note:
        origin += f"; {note}"
    text = _check_template(value[chosen], where)
    return _make(text, origin, _with_variant(display, chosen, names), names, chosen, bos, eos)


# --- GGUF --------------------------------------------------------------------------


def gguf_variants(header: GGUFHeader) -> tuple[str, ...]:
    names = tuple(header.chat_templates)
    return tuple(sorted(names, key=lambda n: (n != DEFAULT_VARIANT, n)))


def _from_gguf_header(
    header: GGUFHeader, where: str, display: str, variant: str | None
) -> TemplateSource:
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
            f"({header.stop_detail}); found {_listing(names)}",
            Location(offset=header.bytes_read),
        )
    chosen, note = pick_variant(names, variant, where)
    key = "tokenizer.chat_template" + ("" if chosen == DEFAULT_VARIANT else f".{chosen}")
    origin = f"{where}: {key}"
    if note:
        origin += f"; {note}"
    if not header.complete:
        origin += f" (header read partially: {header.stop_detail})"
    return _make(
        _check_template(header.chat_templates[chosen], where),
        origin,
        _with_variant(display, chosen, names),
        names,
        chosen,
        header.bos_token,
        header.eos_token,
    )


# --- files and uploads -------------------------------------------------------------


def _kind(filename: str, head: bytes) -> str:
    if head[:4] == GGUF_MAGIC_BYTES:
        return "gguf"
    lower = filename.lower()
    if lower.endswith(".gguf"):
        return "gguf"
    if lower.endswith(".json"):
        return "json"
    if re.match(rb"\s*\{\s*\"", head[:4096]) and not head.lstrip().startswith((b"{{", b"{%", b"{#")):
        return "json"
    return "jinja"


def from_upload(data: bytes, filename: str, variant: str | None = None) -> TemplateSource:
    """Bytes uploaded by the user (or read from stdin), typed by content and name."""
    where = f"upload {filename}"
    display = Path(filename).name or filename
    kind = _kind(filename, data[:4096])
    if kind == "gguf":
        header = read_gguf_header(io.BytesIO(data[:MAX_GGUF_READ_BYTES]), max_bytes=MAX_GGUF_READ_BYTES)
        return _from_gguf_header(header, where, display, variant)
    text = _decode(data, where, MAX_CONFIG_JSON_BYTES if kind == "json" else MAX_TEXT_TEMPLATE_BYTES)
    if kind == "json":
        return _from_json_text(text, where, display, variant)
    _single(text, variant, where)
    return _make(text, where, display)


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
                header = read_gguf_header(handle, max_bytes=MAX_GGUF_READ_BYTES)
                return _from_gguf_header(header, where, p.name, variant)
            cap = MAX_CONFIG_JSON_BYTES if kind == "json" else MAX_TEXT_TEMPLATE_BYTES
            handle.seek(0)
            data = handle.read(cap + 1)
    except OSError as exc:
        raise SourceError(f"{where}: cannot read ({exc.strerror or exc})") from None
    text = _decode(data, where, cap)
    if kind == "json":
        return _from_json_text(text, where, p.name, variant)
    _single(text, variant, where)
    return _make(text, where, p.name)


def _read_text_file(p: Path) -> str:
    where = f"file {p}"
    cap = MAX_CONFIG_JSON_BYTES if p.suffix == ".json" else MAX_TEXT_TEMPLATE_BYTES
    try:
        with open(p, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise SourceError(f"{where}: cannot read ({exc.strerror or exc})") from None
    return _decode(data, where, cap)


def _from_directory(d: Path, variant: str | None) -> TemplateSource:
    """A model directory, read in the converter's order (see the module docstring)."""
    config = d / "tokenizer_config.json"
    bos = eos = None
    if config.is_file():
        text = _read_text_file(config)
        bos, eos = _special_tokens(text)
        doc = _json_or_none(text)
        if not isinstance(doc, dict) or doc.get("chat_template") is not None:
            return _from_json_text(text, f"file {config}", d.name, variant)
    jinja = d / "chat_template.jinja"
    if jinja.is_file():
        extra = sorted((d / _ADDITIONAL_DIR).glob("*.jinja")) if (d / _ADDITIONAL_DIR).is_dir() else []
        templates = {DEFAULT_VARIANT: jinja} | {f.stem: f for f in extra}
        names = tuple(templates)
        chosen, note = pick_variant(names, variant, f"directory {d}")
        origin = f"file {templates[chosen]}" + (f"; {note}" if note else "")
        return _make(
            _read_text_file(templates[chosen]), origin, _with_variant(d.name, chosen, names),
            names if len(names) > 1 else (), chosen if len(names) > 1 else None, bos, eos,
        )
    chat_json = d / "chat_template.json"
    if chat_json.is_file():
        source = _from_json_text(_read_text_file(chat_json), f"file {chat_json}", d.name, variant)
        return replace(source, bos_token=bos, eos_token=eos)
    raise SourceError(
        f"directory {d}: no chat template found (looked for tokenizer_config.json with "
        "'chat_template', chat_template.jinja, chat_template.json)"
    )


# --- examples ----------------------------------------------------------------------


def _example_index() -> list[ExampleInfo]:
    index = json.loads((EXAMPLES_DIR / "index.json").read_text(encoding="utf-8"))
    return [ExampleInfo(e["name"], e["description"], e["file"]) for e in index["examples"]]


def list_examples() -> list[str]:
    """Names of the built-in example templates, in picker order."""
    return [e.name for e in _example_index()]


def example_info() -> list[ExampleInfo]:
    """Name, one-line description and file of each built-in example."""
    return _example_index()


def from_example(name: str) -> TemplateSource:
    for info in _example_index():
        if info.name == name:
            path = EXAMPLES_DIR / info.file
            return _make(
                path.read_text(encoding="utf-8"), f"example {name} ({info.file})", name
            )
    raise SourceError(f"no built-in example {name!r}; available: {_listing(tuple(list_examples()))}")


# --- Hugging Face Hub --------------------------------------------------------------


def from_hub(
    repo_id: str,
    revision: str | None = None,
    variant: str | None = None,
    *,
    filename: str | None = None,
    endpoint: str | None = None,
) -> TemplateSource:
    """A template from a Hub repo (``filename`` picks one file; else the usual files)."""
    repo = hub.repo_snapshot(repo_id, revision, endpoint=endpoint)
    display = repo.ref()
    if filename is not None:
        hub.validate_ref(repo_id, revision, filename)
        if filename not in repo.paths():
            raise FetchError(f"hf:{repo.ref()}: no file {filename!r} in the repo")
        return _hub_file(repo, filename, display, variant)
    paths = set(repo.paths())
    bos = eos = None
    config_text = None
    if "tokenizer_config.json" in paths:
        config_text = hub.download_text(repo, "tokenizer_config.json", max_bytes=MAX_CONFIG_JSON_BYTES)
        doc = _json_or_none(config_text)
        if not isinstance(doc, dict) or doc.get("chat_template") is not None:
            where = _hub_where(repo, "tokenizer_config.json")
            return _from_json_text(config_text, where, display, variant)
        bos, eos = _special_tokens(config_text)
    if "chat_template.jinja" in paths:
        return _hub_jinja(repo, display, variant, bos, eos)
    if "chat_template.json" in paths:
        source = _hub_file(repo, "chat_template.json", display, variant)
        return replace(source, bos_token=bos, eos_token=eos)
    gguf = _pick_gguf(repo)
    if gguf is not None:
        return _hub_file(repo, gguf, display, variant)
    if config_text is not None:
        # Raises the clear "no 'chat_template' key" error for that file.
        return _from_json_text(config_text, _hub_where(repo, "tokenizer_config.json"), display, variant)
    raise FetchError(
        f"hf:{repo.ref()}: no chat template in the repo (no tokenizer_config.json, "
        "chat_template.jinja, chat_template.json or .gguf file)"
    )


def _json_or_none(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _hub_where(repo: HubRepo, path: str) -> str:
    return f"hf:{repo.ref()}@{repo.commit[:12]} {path}"


def _hub_file(repo: HubRepo, path: str, display: str, variant: str | None) -> TemplateSource:
    where = _hub_where(repo, path)
    if path.lower().endswith(".gguf"):
        remote = hub.read_remote_gguf_header(repo, path)
        return _from_gguf_header(remote.header, where, display, variant)
    is_json = path.lower().endswith(".json")
    cap = MAX_CONFIG_JSON_BYTES if is_json else MAX_TEXT_TEMPLATE_BYTES
    text = hub.download_text(repo, path, max_bytes=cap)
    if is_json:
        return _from_json_text(text, where, display, variant)
    _single(text, variant, where)
    return _make(text, where, display)


def _hub_jinja(
    repo: HubRepo, display: str, variant: str | None, bos: str | None, eos: str | None
) -> TemplateSource:
    extra = sorted(
        p for p in repo.paths()
        if p.startswith(_ADDITIONAL_DIR + "/") and p.endswith(".jinja") and p.count("/") == 1
    )
    files = {DEFAULT_VARIANT: "chat_template.jinja"} | {Path(p).stem: p for p in extra}
    names = tuple(files)
    chosen, note = pick_variant(names, variant, f"hf:{repo.ref()}")
    text = hub.download_text(repo, files[chosen])
    origin = _hub_where(repo, files[chosen]) + (f"; {note}" if note else "")
    multi = len(names) > 1
    return _make(
        text, origin, _with_variant(display, chosen, names),
        names if multi else (), chosen if multi else None, bos, eos,
    )


_SPLIT_RE = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)


def _pick_gguf(repo: HubRepo) -> str | None:
    """The GGUF whose header to read: not a projector, first shard only, smallest."""
    candidates = []
    for f in repo.files:
        name = f.path.lower()
        if not name.endswith(".gguf") or "mmproj" in Path(name).name:
            continue
        split = _SPLIT_RE.search(name)
        if split and int(split.group(1)) != 1:
            continue
        candidates.append((f.size if f.size is not None else 1 << 62, f.path))
    return min(candidates)[1] if candidates else None


# --- CLI specs -----------------------------------------------------------------------

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
