"""Template sources: text, files, uploads, JSON configs, model directories, specs, examples."""

from __future__ import annotations

import hashlib
import io
import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import sources
from explorer.errors import GGUFError, SourceError
from explorer.sources import (
    MAX_TEXT_TEMPLATE_BYTES,
    TemplateSource,
    from_example,
    from_file,
    from_text,
    from_upload,
    hub,
    list_examples,
    resolve_spec,
)
from hubserver import build_gguf

T_DEFAULT = "{% for m in messages %}{{ m.content }}{% endfor %}"
T_TOOLS = "{{ tools | tojson }}" + T_DEFAULT
T_RAG = "{{ documents | tojson }}" + T_DEFAULT


def write_json(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# --- text --------------------------------------------------------------------------


def test_from_text_is_immutable_and_hashed():
    source = from_text(T_DEFAULT)
    assert source.text == T_DEFAULT
    assert source.sha256 == hashlib.sha256(T_DEFAULT.encode()).hexdigest()
    assert source.origin == "pasted text"
    assert source.variants == () and source.variant is None
    with pytest.raises(AttributeError):
        source.text = "x"  # type: ignore[misc]


def test_text_cap_is_5_mib_and_enforced():
    assert MAX_TEXT_TEMPLATE_BYTES == 5 * 1024 * 1024
    assert hub.MAX_HUB_TEXT_BYTES == MAX_TEXT_TEMPLATE_BYTES
    with pytest.raises(SourceError, match="5 MiB cap"):
        from_text("x" * (MAX_TEXT_TEMPLATE_BYTES + 1))
    with pytest.raises(SourceError, match="5 MiB cap"):
        from_upload(b"x" * (MAX_TEXT_TEMPLATE_BYTES + 1), "big.jinja")


# --- .jinja files --------------------------------------------------------------------


def test_jinja_file(tmp_path):
    p = tmp_path / "chat_template.jinja"
    p.write_text(T_DEFAULT, encoding="utf-8")
    source = from_file(p)
    assert source.text == T_DEFAULT
    assert source.display_name == "chat_template.jinja"
    assert str(p) in source.origin


def test_jinja_file_has_no_named_variants(tmp_path):
    p = tmp_path / "t.jinja"
    p.write_text(T_DEFAULT, encoding="utf-8")
    assert from_file(p, "default").text == T_DEFAULT
    with pytest.raises(SourceError, match="single template"):
        from_file(p, "tool_use")


def test_missing_file_and_bad_utf8(tmp_path):
    with pytest.raises(SourceError, match="cannot read"):
        from_file(tmp_path / "nope.jinja")
    p = tmp_path / "bad.jinja"
    p.write_bytes(b"{{ x }}\xff\xfe")
    with pytest.raises(SourceError, match="not valid UTF-8") as info:
        from_file(p)
    assert info.value.location.offset == 7


def test_oversized_file_is_refused_without_reading_it_all(tmp_path):
    p = tmp_path / "huge.jinja"
    p.write_bytes(b"a" * (MAX_TEXT_TEMPLATE_BYTES + 10))
    with pytest.raises(SourceError, match="cap for text templates"):
        from_file(p)


# --- tokenizer_config.json / chat_template.json ----------------------------------------


def test_tokenizer_config_with_a_string_template(tmp_path):
    p = write_json(
        tmp_path / "tokenizer_config.json",
        {"bos_token": {"content": "<s>", "lstrip": False}, "eos_token": "</s>", "chat_template": T_DEFAULT},
    )
    source = from_file(p)
    assert source.text == T_DEFAULT
    assert source.bos_token == "<s>" and source.eos_token == "</s>"
    assert source.variants == ()
    assert source.origin.endswith("chat_template")


def test_tokenizer_config_with_a_list_of_templates(tmp_path):
    p = write_json(
        tmp_path / "tokenizer_config.json",
        {"chat_template": [
            {"name": "default", "template": T_DEFAULT},
            {"name": "tool_use", "template": T_TOOLS},
            {"name": "rag", "template": T_RAG},
        ]},
    )
    default = from_file(p)
    assert default.text == T_DEFAULT
    assert default.variants == ("default", "tool_use", "rag")
    assert default.variant == "default"
    assert from_file(p, "tool_use").text == T_TOOLS
    rag = from_file(p, "rag")
    assert rag.text == T_RAG and rag.variant == "rag"
    assert "(rag)" in rag.display_name
    with pytest.raises(SourceError, match="no chat template named 'nope'.*'default', 'tool_use', 'rag'"):
        from_file(p, "nope")


def test_list_without_default(tmp_path):
    with_tool_use = write_json(
        tmp_path / "a.json", {"chat_template": [{"name": "rag", "template": T_RAG}, {"name": "tool_use", "template": T_TOOLS}]}
    )
    # llama.cpp's common_chat_templates_init uses tool_use when there is no default.
    source = from_file(with_tool_use)
    assert source.text == T_TOOLS and "falls back to 'tool_use'" in source.origin
    only_rag = write_json(tmp_path / "b.json", {"chat_template": [{"name": "rag", "template": T_RAG}]})
    with pytest.raises(SourceError, match="no 'default'.*'rag'"):
        from_file(only_rag)
    assert from_file(only_rag, "rag").text == T_RAG


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"chat_template": 42}, "must be a string or a list.*found a number"),
        ({"chat_template": {"default": "x"}}, "must be a string or a list.*found an object"),
        ({"chat_template": None}, "must be a string or a list.*found null"),
        ({"chat_template": []}, "empty list"),
        ({"chat_template": ["x"]}, r"chat_template\[0\] must be an object"),
        ({"chat_template": [{"name": "default"}]}, r"chat_template\[0\].*'template' must be a string, found null"),
        ({"chat_template": [{"template": "x"}]}, r"chat_template\[0\] has no string 'name'"),
        ({"chat_template": [{"name": "a", "template": "x"}, {"name": "a", "template": "y"}]}, "twice"),
        ({"model_max_length": 1}, "no 'chat_template' key"),
        ([1, 2], "expected a JSON object, found a list"),
    ],
)
def test_malformed_tokenizer_configs(tmp_path, doc, message):
    p = write_json(tmp_path / "tokenizer_config.json", doc)
    with pytest.raises(SourceError, match=message):
        from_file(p)


def test_tokenizer_config_that_is_not_json(tmp_path):
    p = tmp_path / "tokenizer_config.json"
    p.write_text('{\n  "chat_template": "x",\n  oops\n}', encoding="utf-8")
    with pytest.raises(SourceError, match="not valid JSON") as info:
        from_file(p)
    assert info.value.location.line == 3


def test_large_config_is_allowed_but_not_a_large_template(tmp_path):
    assert sources.MAX_CONFIG_JSON_BYTES == 16 * 1024 * 1024
    added = {str(i): {"content": f"<extra_{i}>", "special": True} for i in range(120_000)}
    big = write_json(tmp_path / "tokenizer_config.json", {"added_tokens_decoder": added, "chat_template": T_DEFAULT})
    assert big.stat().st_size > MAX_TEXT_TEMPLATE_BYTES
    assert from_file(big).text == T_DEFAULT
    huge_template = write_json(tmp_path / "chat_template.json", {"chat_template": "x" * (MAX_TEXT_TEMPLATE_BYTES + 1)})
    with pytest.raises(SourceError, match="5 MiB cap for text templates"):
        from_file(huge_template)


def test_chat_template_json(tmp_path):
    p = write_json(tmp_path / "chat_template.json", {"chat_template": T_TOOLS})
    assert from_file(p).text == T_TOOLS


# --- uploads -------------------------------------------------------------------------


def test_upload_kinds_are_sniffed():
    assert from_upload(T_DEFAULT.encode(), "whatever.txt").text == T_DEFAULT
    doc = json.dumps({"chat_template": T_TOOLS}).encode()
    assert from_upload(doc, "config").text == T_TOOLS
    # A template that starts with '{{' or '{%' is not mistaken for JSON.
    assert from_upload(b'{%- set x = 1 %}{"a": 1}', "t").text == '{%- set x = 1 %}{"a": 1}'
    # Without a .json name, text that only starts like JSON is still a template.
    assert from_upload(b'{"role": "{{ messages[0].role }}"}', "t").text == '{"role": "{{ messages[0].role }}"}'
    # UTF-8 BOM is dropped.
    assert from_upload(b"\xef\xbb\xbf" + T_DEFAULT.encode(), "t.jinja").text == T_DEFAULT


def test_upload_of_a_truncated_gguf(tmp_path):
    built = build_gguf(tmp_path / "m.gguf", templates={"default": T_DEFAULT, "tool_use": T_TOOLS}, n_tokens=5000,
                       tensor_elements=1 << 18)
    head = built.path.read_bytes()[: built.kv_end]
    source = from_upload(head, "m.gguf", "tool_use")
    assert source.text == T_TOOLS
    assert source.variants == ("default", "tool_use")
    assert source.bos_token == "<s>"


def test_upload_of_a_corrupt_gguf():
    with pytest.raises(GGUFError, match="^upload x.gguf: GGUF file too short"):
        from_upload(b"GGUF\x03\x00", "x.gguf")
    with pytest.raises(GGUFError, match="not a GGUF file"):
        from_upload(b"PK\x03\x04" * 10, "x.gguf")


# --- model directories (llama.cpp converter order) ------------------------------------


def test_directory_prefers_tokenizer_config_like_the_converter(tmp_path):
    # convert_hf_to_gguf (gguf-py vocab.py) takes tokenizer_config's chat_template first.
    write_json(tmp_path / "tokenizer_config.json", {"chat_template": T_RAG, "eos_token": "</s>"})
    (tmp_path / "chat_template.jinja").write_text(T_DEFAULT, encoding="utf-8")
    assert from_file(tmp_path).text == T_RAG


def test_directory_with_jinja_and_additional_templates(tmp_path):
    write_json(tmp_path / "tokenizer_config.json", {"eos_token": {"content": "<|end|>"}})
    (tmp_path / "chat_template.jinja").write_text(T_DEFAULT, encoding="utf-8")
    extra = tmp_path / "additional_chat_templates"
    extra.mkdir()
    (extra / "tool_use.jinja").write_text(T_TOOLS, encoding="utf-8")
    (extra / "rag.jinja").write_text(T_RAG, encoding="utf-8")
    source = from_file(tmp_path)
    assert source.text == T_DEFAULT
    assert source.variants == ("default", "rag", "tool_use")
    assert source.eos_token == "<|end|>"
    assert from_file(tmp_path, "rag").text == T_RAG


def test_directory_with_chat_template_json_and_nothing(tmp_path):
    write_json(tmp_path / "chat_template.json", {"chat_template": T_TOOLS})
    assert from_file(tmp_path).text == T_TOOLS
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no chat template found"):
        from_file(empty)


def test_directory_with_only_gguf_files(tmp_path):
    build_gguf(tmp_path / "model-Q8_0.gguf", templates=T_TOOLS, n_tokens=50)
    (tmp_path / "mmproj-model-f16.gguf").write_bytes(b"not a model")
    assert from_file(tmp_path).text == T_TOOLS


def test_choose_gguf_skips_projectors_and_later_shards():
    from explorer.sources.gguf import choose_gguf

    files = [
        ("mmproj-F16.gguf", 10),
        ("Q8_0/model-Q8_0-00002-of-00003.gguf", 5),
        ("Q8_0/model-Q8_0-00001-of-00003.gguf", 900),
        ("model-Q4_K_M.gguf", 400),
        ("README.md", 1),
    ]
    assert choose_gguf(files) == "model-Q4_K_M.gguf"
    assert choose_gguf(files[:3]) == "Q8_0/model-Q8_0-00001-of-00003.gguf"
    assert choose_gguf([("README.md", 1), ("mmproj.gguf", 2)]) is None


# --- CLI specs -----------------------------------------------------------------------


def test_resolve_spec_paths_and_variants(tmp_path):
    p = write_json(
        tmp_path / "tokenizer_config.json",
        {"chat_template": [{"name": "default", "template": T_DEFAULT}, {"name": "tool_use", "template": T_TOOLS}]},
    )
    assert resolve_spec(str(p)).text == T_DEFAULT
    assert resolve_spec(f"{p}#tool_use").text == T_TOOLS
    with pytest.raises(SourceError, match="no such file"):
        resolve_spec(str(tmp_path / "missing.jinja"))


def test_resolve_spec_examples_and_stdin(monkeypatch):
    assert resolve_spec("example:plain-chat") == from_example("plain-chat")
    with pytest.raises(SourceError, match="no built-in example 'nope'"):
        resolve_spec("example:nope")

    class FakeStdin:
        buffer = io.BytesIO(T_DEFAULT.encode())

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    source = resolve_spec("-")
    assert source.text == T_DEFAULT and "<stdin>" in source.origin


def test_resolve_spec_parses_hub_specs(monkeypatch):
    calls = []

    def fake_from_hub(repo_id, revision=None, variant=None, *, filename=None, endpoint=None):
        calls.append((repo_id, revision, variant, filename))
        return from_text("x")

    monkeypatch.setattr(sources, "from_hub", fake_from_hub)
    resolve_spec("hf:Qwen/Qwen3-0.6B")
    resolve_spec("hf:Qwen/Qwen3-0.6B@v1.0#tool_use")
    resolve_spec("hf:org/model-GGUF/model-Q4_K_M.gguf@refs/pr/3")
    assert calls == [
        ("Qwen/Qwen3-0.6B", None, None, None),
        ("Qwen/Qwen3-0.6B", "v1.0", "tool_use", None),
        ("org/model-GGUF", "refs/pr/3", None, "model-Q4_K_M.gguf"),
    ]


@pytest.mark.parametrize("spec", ["hf:", "hf:noslash", "hf:https://evil.example/x"])
def test_resolve_spec_rejects_bad_hub_specs(spec):
    with pytest.raises(SourceError):
        resolve_spec(spec)


# --- built-in examples ---------------------------------------------------------------

REQUIRED_EXAMPLES = {"chatml-think-tools", "bracket-tool-calls", "tagged-parameters", "plain-chat"}


def test_examples_are_listed_with_descriptions():
    names = list_examples()
    assert REQUIRED_EXAMPLES <= set(names)
    for info in sources.example_info():
        assert len(info.description) > 20
        source = from_example(info.name)
        assert isinstance(source, TemplateSource)
        assert source.display_name == info.name
        assert "Template Explorer example" in source.text


# --- property checks: hostile inputs give a source or a SourceError, nothing else ----------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["name", "template", "x"]), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=80, deadline=None)
@given(_json_values)
def test_any_chat_template_value_gives_a_source_or_a_source_error(value):
    data = json.dumps({"chat_template": value}).encode()
    try:
        source = from_upload(data, "tokenizer_config.json")
    except SourceError:
        return
    assert isinstance(source.text, str)
    assert source.variant is None or source.variant in source.variants


@settings(max_examples=80, deadline=None)
@given(st.binary(max_size=400), st.sampled_from(["m.gguf", "tokenizer_config.json", "t.jinja", "upload"]))
def test_random_uploads_never_escape_the_error_hierarchy(data, name):
    try:
        source = from_upload(data, name)
    except SourceError:
        return
    assert source.sha256 == hashlib.sha256(source.text.encode("utf-8", "surrogatepass")).hexdigest()
