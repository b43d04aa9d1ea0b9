"""Two JSON-shaped results side by side, field by field.

Input: two nested JSON objects (a route, caps and an analysis each; or chat params), or
two strings. Output: their fields as dotted names (``tools.format.per_call_start``) and
one ``FieldChange`` per name, A's keys first, then B's extra ones; a character diff.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from diff_match_patch import diff_match_patch

DiffOp = tuple[int, str]  # diff-match-patch: -1 only in A, 0 in both, 1 only in B


def char_diff(a: str, b: str) -> list[DiffOp]:
    """Character-level diff of two strings (diff-match-patch, semantic cleanup, no timeout)."""
    dmp = diff_match_patch()
    dmp.Diff_Timeout = 0
    ops = dmp.diff_main(a, b)
    dmp.diff_cleanupSemantic(ops)
    return [(int(op), str(chunk)) for op, chunk in ops]


def flatten_json(value: object, prefix: str = "") -> dict[str, object]:
    """Nested dicts as dotted keys (lists stay values), in the input's order."""
    if not isinstance(value, Mapping):
        return {prefix: value}
    out: dict[str, object] = {}
    for key, inner in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(inner, Mapping) and inner:
            out.update(flatten_json(inner, name))
        else:
            out[name] = inner
    return out


@dataclass(frozen=True)
class FieldChange:
    """One field of two results side by side (JSON values): A's and B's (two templates, or a
    handler's params and the autoparser's, or two parses of one output)."""

    field: str
    a: object
    b: object

    @property
    def same(self) -> bool:
        return self.a == self.b


def compare_fields(a: Mapping[str, object], b: Mapping[str, object]) -> list[FieldChange]:
    """Field-by-field comparison of two nested JSON objects (keys of A first, then B's extra)."""
    fa, fb = flatten_json(a), flatten_json(b)
    keys = list(fa) + [k for k in fb if k not in fa]
    return [FieldChange(k, fa.get(k), fb.get(k)) for k in keys]
