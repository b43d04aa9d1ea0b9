"""``tokenizer_config.json`` and ``chat_template.json``: the ``chat_template`` field.

Input: the file's text. Output: a ``TemplateSource`` for the string template or the
chosen entry of a ``[{name, template}, ...]`` list, with the bos/eos token strings.
"""

from __future__ import annotations

import json

from explorer.errors import Location, SourceError
from explorer.sources.model import (
    TemplateSource,
    check_template,
    make_source,
    pick_variant,
    single_only,
    with_variant,
)


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
    except RecursionError:
        # The C decoder recurses per nesting level; a hostile file can exhaust the stack.
        raise SourceError(f"{where}: JSON nested too deeply to read") from None
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


def special_tokens(text: str) -> tuple[str | None, str | None]:
    """bos/eos token strings of a tokenizer_config.json (plain or AddedToken form)."""
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None, None
    if not isinstance(doc, dict):
        return None, None

    def token(key: str) -> str | None:
        value = doc.get(key)
        if isinstance(value, dict):
            value = value.get("content")
        return value if isinstance(value, str) else None

    return token("bos_token"), token("eos_token")


def from_json_text(
    text: str, where: str, display: str, variant: str | None
) -> TemplateSource:
    value = parse_template_json(text, where)
    bos, eos = special_tokens(text)
    if isinstance(value, str):
        single_only(variant, where)
        text = check_template(value, where)
        return make_source(text, f"{where}: chat_template", display, bos_token=bos, eos_token=eos)
    names = tuple(value)
    chosen, note = pick_variant(names, variant, where)
    origin = f"{where}: chat_template[{names.index(chosen)}] ({chosen})"
    if note:
        origin += f"; {note}"
    text = check_template(value[chosen], where)
    return make_source(text, origin, with_variant(display, chosen, names), names, chosen, bos, eos)


def json_or_none(text: str) -> object:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
