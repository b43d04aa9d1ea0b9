"""JSON values as a type, defined once for every stage.

Input: nothing. Output: ``Json``, a JSON value: null, a boolean, a number, a string, or a
sequence or mapping (string keys) of JSON values; and ``JsonObject``, a ``dict[str, Json]``
(what the ``to_json``/``to_oracle_json`` methods build, a request's message, tool or
schema). The containers inside ``Json`` are the read-only ``Sequence``/``Mapping``, so a
``dict[str, str]`` or a ``list[JsonObject]`` is a ``Json`` value as it is (``list``/``dict``
would make each nesting invariant); what ``json.loads`` returns is one. Code that changes a
nested value narrows it first (``isinstance(v, dict)``), as llama.cpp checks the JSON type.
Values typed with these cross the stage seams instead of ``Any``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

Json: TypeAlias = None | bool | int | float | str | Sequence["Json"] | Mapping[str, "Json"]
JsonObject: TypeAlias = dict[str, Json]

__all__ = ["Json", "JsonObject"]
