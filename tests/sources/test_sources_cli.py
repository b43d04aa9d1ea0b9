"""The CLI's TEMPLATE argument goes through resolve_spec: files with #variant, GGUF on
stdin, examples, and clean one-line errors (exit code 1) for bad sources."""

from __future__ import annotations

import io
import json
import sys

import pytest

from explorer.cli import main
from explorer.sources import from_example
from hubserver import build_gguf

PLAIN = from_example("plain-chat").text
TOOLS = from_example("chatml-think-tools").text


@pytest.fixture
def gguf(tmp_path):
    # Default template without tools, tool_use template with tools.
    return build_gguf(tmp_path / "m.gguf", templates={"default": PLAIN, "tool_use": TOOLS}, n_tokens=64)


def caps_of(argv, capsys):
    assert main(["caps", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_gguf_file_and_variant(gguf, capsys):
    assert caps_of([str(gguf.path)], capsys)["supports_tools"] is False
    assert caps_of([f"{gguf.path}#tool_use"], capsys)["supports_tools"] is True


def test_truncated_gguf_on_stdin(gguf, capsys, monkeypatch):
    class Stdin:
        buffer = io.BytesIO(gguf.path.read_bytes()[: gguf.kv_end])

    monkeypatch.setattr(sys, "stdin", Stdin())
    assert caps_of(["-"], capsys)["supports_tools"] is False


def test_example_spec(capsys):
    assert caps_of(["example:chatml-think-tools"], capsys)["supports_tool_calls"] is True


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("example:nope", "no built-in example 'nope'"),
        ("hf:../etc", "invalid repo id"),
        ("hf:noslash", "invalid Hub spec"),
        ("/no/such/file.jinja", "no such file or directory"),
    ],
)
def test_bad_specs_fail_cleanly(spec, message, capsys):
    assert main(["caps", spec]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err


def test_corrupt_gguf_fails_cleanly(tmp_path, capsys):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + (3).to_bytes(4, "little") + (0).to_bytes(8, "little") + (2**62).to_bytes(8, "little"))
    assert main(["caps", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"file {bad}: absurd key-value count" in err
