"""Built-in example templates (``explorer/examples/``, written for this project).

Input: an example name. Output: its ``TemplateSource``; ``list_examples`` and
``example_info`` give the picker order and one-line descriptions from ``index.json``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from explorer.errors import SourceError
from explorer.sources.model import TemplateSource, listing, make_source

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


@dataclass(frozen=True)
class ExampleInfo:
    """One built-in example: its name, a one-line description, its file name."""

    name: str
    description: str
    file: str


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
            return make_source(
                path.read_text(encoding="utf-8"), f"example {name} ({info.file})", name
            )
    raise SourceError(f"no built-in example {name!r}; available: {listing(tuple(list_examples()))}")
