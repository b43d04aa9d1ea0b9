"""A what-if in a permalink: the query parameters that carry it, and back.

Input: a ``WhatIf`` (``explorer.whatif``) or a link's query parameters. Output: the
parameters ``set`` (the overrides as a JSON list of ``--set`` strings, ``FIELD=VALUE``),
``rq`` (the request change as the JSON body fragment llama-server reads,
``RequestChange.to_json``) and ``edit`` (the sha256 of an edited template text: the text
itself does not fit in a URL, so a link says an edit was made but does not carry it); and
``WhatIfLink``, what a link's parameters restore. A bad value is a ``SourceError`` whose
message names the parameter.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from explorer.analysis.overrides import FieldSetting, parse_setting
from explorer.errors import ExplorerError, SourceError
from explorer.roundtrip import RequestChange
from explorer.whatif import WhatIf

SET_PARAM, REQUEST_PARAM, EDIT_PARAM = "set", "rq", "edit"
WHATIF_PARAMS = (SET_PARAM, REQUEST_PARAM, EDIT_PARAM)
EDIT_NOTE = ("The template text was edited in the what-if: a link cannot carry the edited text, only its sha256, "
             "so the edit is not in this link (the overrides and the request change are).")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class WhatIfLink:
    """What a link restores of a what-if: the overrides and the request change, and the
    sha256 of an edited text it could not carry (None: no edit)."""

    overrides: tuple[FieldSetting, ...] = ()
    change: RequestChange = field(default_factory=RequestChange)
    edited_sha256: str | None = None

    @property
    def empty(self) -> bool:
        return not self.overrides and self.change.empty and self.edited_sha256 is None

    def whatif(self) -> WhatIf:
        """The what-if the link restores (without the edit, which it does not carry)."""
        return WhatIf(overrides=self.overrides, change=self.change)


def encode_whatif(whatif: WhatIf) -> dict[str, str]:
    """The query parameters for a what-if (none for an empty one)."""
    params: dict[str, str] = {}
    if whatif.overrides:
        params[SET_PARAM] = json.dumps([s.spec for s in whatif.overrides], ensure_ascii=False)
    if not whatif.change.empty:
        params[REQUEST_PARAM] = json.dumps(whatif.change.to_json(), ensure_ascii=False, sort_keys=True)
    if whatif.text is not None:
        params[EDIT_PARAM] = hashlib.sha256(whatif.text.encode("utf-8", "surrogatepass")).hexdigest()
    return params


def _one(params: Mapping[str, object], key: str) -> str | None:
    value = params.get(key)
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    return None if value is None else str(value)


def _json(params: Mapping[str, object], key: str) -> object:
    raw = _one(params, key)
    try:
        return json.loads(raw or "")
    except ValueError as exc:
        raise SourceError(f"link parameter {key}: not JSON ({exc.args[0] if exc.args else exc})") from exc


def _overrides(params: Mapping[str, object]) -> tuple[FieldSetting, ...]:
    if _one(params, SET_PARAM) is None:
        return ()
    specs = _json(params, SET_PARAM)
    if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
        raise SourceError(f"link parameter {SET_PARAM}: expected a JSON list of FIELD=VALUE strings")
    out: dict[str, FieldSetting] = {}
    for spec in specs:
        try:
            setting = parse_setting(spec)
        except ExplorerError as exc:
            raise SourceError(f"link parameter {SET_PARAM}: {exc}") from exc
        out.pop(setting.field, None)
        out[setting.field] = setting  # a later setting of a field replaces the earlier, as WhatIf does
    return tuple(out.values())


def _change(params: Mapping[str, object]) -> RequestChange:
    if _one(params, REQUEST_PARAM) is None:
        return RequestChange()
    try:
        return RequestChange.from_json(_json(params, REQUEST_PARAM))
    except SourceError:
        raise
    except ExplorerError as exc:
        raise SourceError(f"link parameter {REQUEST_PARAM}: {exc}") from exc


def decode_whatif(params: Mapping[str, object]) -> WhatIfLink:
    """The what-if a link's parameters carry (empty without them); ``SourceError`` naming
    the parameter for a bad value."""
    edited = _one(params, EDIT_PARAM)
    if edited is not None and not _SHA256.fullmatch(edited):
        raise SourceError(f"link parameter {EDIT_PARAM}: expected a sha256 (64 hex digits), found {edited[:20]!r}")
    return WhatIfLink(_overrides(params), _change(params), edited)


__all__ = ["EDIT_NOTE", "EDIT_PARAM", "REQUEST_PARAM", "SET_PARAM", "WHATIF_PARAMS", "WhatIfLink", "decode_whatif",
           "encode_whatif"]
