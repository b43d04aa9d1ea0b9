"""Every template of llama.cpp's models/templates survives each kind of source byte for
byte: a GGUF written by the gguf package (read from a truncated copy), a
tokenizer_config.json list, chat_template.json, a model folder and an upload."""

from __future__ import annotations

import hashlib
import json

from explorer.sources import from_file, from_upload
from hubserver import build_gguf
from oracle_data import ORACLE, oracle_template_names, requires_oracle


def _load(name: str) -> str:
    # Read as bytes so no newline translation can hide a difference.
    return (ORACLE / "templates" / f"{name}.jinja").read_bytes().decode("utf-8")


@requires_oracle
def test_every_oracle_template_round_trips_through_every_source(tmp_path):
    names = oracle_template_names()
    assert len(names) >= 70
    mismatches: list[str] = []
    for i, name in enumerate(names):
        text = _load(name)
        folder = tmp_path / str(i)
        folder.mkdir()
        built = build_gguf(folder / "m.gguf", templates={"default": text, "tool_use": text + "\n"}, n_tokens=16)
        head = folder / "head.gguf"
        head.write_bytes(built.path.read_bytes()[: built.kv_end])
        config = folder / "tokenizer_config.json"
        config.write_text(json.dumps({"chat_template": [{"name": "default", "template": text}]}), encoding="utf-8")
        (folder / "chat_template.json").write_text(json.dumps({"chat_template": text}), encoding="utf-8")
        model_dir = folder / "model"
        model_dir.mkdir()
        (model_dir / "chat_template.jinja").write_bytes(text.encode("utf-8"))
        got = {
            "gguf": from_file(head).text,
            "gguf tool_use": from_file(head, "tool_use").text[:-1],
            "tokenizer_config": from_file(config).text,
            "chat_template.json": from_file(folder / "chat_template.json").text,
            "folder": from_file(model_dir).text,
            "upload": from_upload(text.encode("utf-8"), f"{name}.jinja").text,
        }
        want = hashlib.sha256(text.encode("utf-8")).hexdigest()
        for kind, value in got.items():
            if value != text:
                mismatches.append(f"{name} via {kind}")
        if from_upload(text.encode("utf-8"), "t.jinja").sha256 != want:
            mismatches.append(f"{name}: sha256")
    print(f"{len(names)} oracle templates x 6 sources: {len(mismatches)} mismatches {mismatches[:5]}")
    assert not mismatches
