"""``roundtrip TEMPLATE --dialect transformers``: the trained replies next to llama.cpp's, in text
and JSON. The template is our own (tests/test_roundtrip_dialect.py's ``safe`` variant): jinja2's
``Markup + str`` HTML-escapes the arguments (docs/jinja-differences.md item 5), llama.cpp's
``safe`` is a plain string."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import explorer.cli as cli
from cases import dialect_template


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        rc = cli.main(argv)
    return rc, out.getvalue()


def test_transformers_dialect_sets_each_trained_reply_next_to_llama_cpps(tmp_path: Path) -> None:
    path = tmp_path / "safe.jinja"
    path.write_text(dialect_template("safe"))
    rc, text = _run(["roundtrip", str(path), "--dialect", "transformers", "--no-grammar"])
    assert rc == 0
    versus = text[text.index("trained (transformers) vs llama.cpp:"):]
    # a plain reply renders alike; a tool call's arguments are escaped only by jinja2
    assert "Message a: both engines render the same reply" in versus
    line_c = next(line for line in versus.splitlines() if line.startswith("Message c:"))
    assert "{&#34;city&#34;: &#34;Paris&#34;" in line_c and '{"city": "Paris"' in line_c
    assert "the parser rejects it" in line_c


def test_transformers_dialect_json_has_the_comparison(tmp_path: Path) -> None:
    path = tmp_path / "safe.jinja"
    path.write_text(dialect_template("safe"))
    rc, text = _run(["roundtrip", str(path), "--dialect", "transformers", "--no-grammar", "--json"])
    data = json.loads(text)
    assert rc == 0 and data["dialect"] == "transformers"
    by_id = {v["id"]: v for v in data["versus"]}
    assert by_id["a"]["replies_equal"] is True and by_id["a"]["same_parse"] is True
    c = by_id["c"]
    assert c["replies_equal"] is False and c["same_parse"] is False
    assert c["llama_equal"] is True and c["transformers_result"] is None
    assert "&#34;city&#34;" in c["transformers_reply"] and '"city"' in c["llama_reply"]


def test_the_default_dialect_prints_no_comparison(tmp_path: Path) -> None:
    path = tmp_path / "safe.jinja"
    path.write_text(dialect_template("safe"))
    rc, text = _run(["roundtrip", str(path), "--no-grammar"])
    assert rc == 0 and "trained (transformers)" not in text
    assert "Message c" not in text
