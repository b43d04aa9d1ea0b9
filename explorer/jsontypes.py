"""JSON values as a type, defined once for every stage.

Input: nothing. Output: ``Json`` (what ``json.loads`` can return and ``json.dumps`` takes:
null, booleans, numbers, strings, arrays and objects of those) and ``JsonObject`` (an
object: what the ``to_json``/``to_oracle_json`` methods return, a request's message, tool
or schema). Values typed with these cross the stage seams instead of ``Any``; code that
reads a field narrows it (``isinstance``) where llama.cpp's checks the JSON type too.
"""

from __future__ import annotations

from typing import TypeAlias

Json: TypeAlias = None | bool | int | float | str | list["Json"] | dict[str, "Json"]
JsonObject: TypeAlias = dict[str, Json]

__all__ = ["Json", "JsonObject"]
