"""The streaming GGUF header reader: real files from GGUFWriter, truncated and corrupt ones.

Expected values come from what the test wrote (templates, token strings, counts) and
from the writer's own file offsets, never from the reader's output.
"""

from __future__ import annotations

import io
import struct
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.errors import GGUFError
from explorer.sources import from_file, from_upload
from explorer.sources.gguf_header import (
    MAX_GGUF_HEADER_BYTES,
    ArraySummary,
    read_gguf_header,
    read_gguf_header_from_bytes,
    read_gguf_header_from_file,
)
from hubserver import build_gguf
from oracle_data import LLAMA_CPP_MODELS, ORACLE, oracle_available, requires_llama_cpp

DEFAULT_T = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
TOOL_T = "{{ tools | tojson }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
RAG_T = "{{ documents | tojson }}"

# --- hand-written headers for corrupt cases (little-endian, version 3) ---------------


def u32(v: int) -> bytes:
    return struct.pack("<I", v)


def u64(v: int) -> bytes:
    return struct.pack("<Q", v)


def gstr(s: str | bytes) -> bytes:
    b = s.encode() if isinstance(s, str) else s
    return u64(len(b)) + b


def raw_header(kv: bytes, n_kv: int, *, version: int = 3, n_tensors: int = 0, magic: bytes = b"GGUF") -> bytes:
    return magic + u32(version) + u64(n_tensors) + u64(n_kv) + kv


def kv_string(key: str, value: str | bytes) -> bytes:
    return gstr(key) + u32(8) + gstr(value)


def kv_u32(key: str, value: int) -> bytes:
    return gstr(key) + u32(4) + u32(value)


GOOD_KV = kv_string("general.architecture", "llama") + kv_string("tokenizer.chat_template", "T")


# --- real files ------------------------------------------------------------------------


@pytest.fixture
def big_gguf(tmp_path):
    # A vocab of 30k strings before the templates and 4 MiB of tensor data after them.
    return build_gguf(
        tmp_path / "model.gguf",
        templates={"default": DEFAULT_T, "tool_use": TOOL_T, "rag": RAG_T},
        n_tokens=30_000,
        tensor_elements=1 << 20,
    )


def test_reads_templates_and_metadata_from_a_real_file(big_gguf):
    header = read_gguf_header_from_file(big_gguf.path)
    assert header.complete
    assert header.version == 3
    assert header.tensor_count == 1
    assert dict(header.chat_templates) == {"default": DEFAULT_T, "tool_use": TOOL_T, "rag": RAG_T}
    assert header.metadata["general.architecture"] == "llama"
    assert header.metadata["general.name"] == "explorer-test"
    assert header.metadata["llama.context_length"] == 4096
    assert header.metadata["tokenizer.ggml.tokens"] == ArraySummary("STRING", 30_000)
    assert header.bos_token == "<s>" and header.eos_token == "</s>"
    # It stops exactly where the writer says the key-value section ends.
    assert header.bytes_read == big_gguf.kv_end
    assert header.kv_read == header.kv_count


def test_file_truncated_right_after_the_kv_section(big_gguf, tmp_path):
    cut = tmp_path / "head.gguf"
    cut.write_bytes(big_gguf.path.read_bytes()[: big_gguf.kv_end])
    header = read_gguf_header_from_file(cut)
    assert header.complete
    assert header.chat_templates["tool_use"] == TOOL_T


def test_truncated_upload_of_the_first_megabytes_works(big_gguf):
    data = big_gguf.path.read_bytes()
    assert len(data) > 4_000_000
    source = from_upload(data[: big_gguf.kv_end + 1000], "model-Q4_K_M.gguf", variant="rag")
    assert source.text == RAG_T
    assert source.variants == ("default", "rag", "tool_use")
    assert source.variant == "rag"


def test_truncated_inside_the_kv_section_before_the_template(big_gguf, tmp_path):
    # Cut in the middle of the 30k-token vocab, which comes before the templates.
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(big_gguf.path.read_bytes()[: big_gguf.kv_end // 2])
    header = read_gguf_header_from_file(cut)
    assert header.stop_reason == "truncated"
    assert header.kv_read < header.kv_count
    assert not header.chat_templates
    with pytest.raises(GGUFError, match="cut short before any tokenizer.chat_template"):
        from_file(cut)


def test_truncated_after_the_template_still_gives_it(tmp_path):
    built = build_gguf(
        tmp_path / "m.gguf", templates=DEFAULT_T, n_tokens=20_000, template_first=True
    )
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(built.path.read_bytes()[: built.kv_end // 2])
    source = from_file(cut)
    assert source.text == DEFAULT_T
    assert "header read partially" in source.origin


def test_truncated_at_every_offset_of_a_small_header(tmp_path):
    built = build_gguf(tmp_path / "s.gguf", templates={"default": "A", "tool_use": "B"}, n_tokens=8)
    data = built.path.read_bytes()[: built.kv_end]
    outcomes = set()
    for n in range(len(data) + 1):
        try:
            header = read_gguf_header_from_bytes(data[:n])
        except GGUFError as exc:
            assert "too short" in str(exc)
            outcomes.add("error")
            continue
        outcomes.add("complete" if header.complete else "partial")
        if n == len(data):
            assert header.complete and dict(header.chat_templates) == {"default": "A", "tool_use": "B"}
        else:
            assert header.stop_reason == "truncated"
    assert outcomes == {"error", "partial", "complete"}


def test_a_stream_that_returns_tiny_reads(big_gguf):
    data = big_gguf.path.read_bytes()

    class Dribble(io.BytesIO):
        def read(self, n=-1):
            return super().read(min(n, 7) if n >= 0 else 7)

    header = read_gguf_header(Dribble(data))
    assert header.complete and header.chat_templates["default"] == DEFAULT_T


def test_cap_stops_reading(big_gguf):
    # The 30k-token vocab alone is about 450 KB, so a 300 KiB cap ends inside it.
    header = read_gguf_header_from_bytes(big_gguf.path.read_bytes(), max_bytes=300 * 1024)
    assert header.stop_reason == "cap"
    assert header.bytes_read <= 300 * 1024
    assert "cap" in (header.stop_detail or "")


def test_gguf_without_a_template_is_a_clear_source_error(tmp_path):
    built = build_gguf(tmp_path / "n.gguf", templates=None)
    from explorer.errors import SourceError

    with pytest.raises(SourceError, match="no tokenizer.chat_template"):
        from_file(built.path)


def test_list_without_default_falls_back_to_tool_use_like_llama_cpp(tmp_path):
    # The writer stores no tokenizer.chat_template when the list has no 'default'.
    built = build_gguf(tmp_path / "t.gguf", templates={"tool_use": TOOL_T, "rag": RAG_T})
    header = read_gguf_header_from_file(built.path)
    assert "default" not in header.chat_templates
    source = from_file(built.path)
    assert source.variant == "tool_use" and source.text == TOOL_T
    assert "falls back to 'tool_use'" in source.origin


# --- corrupt headers: clear errors, fast, no big allocation ---------------------------

HUGE = 2**62

CORRUPT = {
    "bad magic": (raw_header(GOOD_KV, 2, magic=b"GGML"), "not a GGUF file"),
    "version 0": (raw_header(GOOD_KV, 2, version=0), "bad GGUF version 0"),
    "version 1": (raw_header(GOOD_KV, 2, version=1), "version 1 is no longer supported"),
    "version 4": (raw_header(GOOD_KV, 2, version=4), "newer than supported"),
    "big endian": (raw_header(GOOD_KV, 2, version=3 << 24), "big-endian"),
    "negative tensor count": (raw_header(GOOD_KV, 2, n_tensors=2**64 - 1), "absurd tensor count"),
    "absurd tensor count": (raw_header(GOOD_KV, 2, n_tensors=2**40), "absurd tensor count"),
    "absurd kv count": (raw_header(GOOD_KV, HUGE), "absurd key-value count"),
    "absurd key length": (raw_header(u64(HUGE) + b"x", 1), "absurd GGUF string length"),
    "empty key": (raw_header(gstr("") + u32(4) + u32(1), 1), "empty key"),
    "duplicate key": (raw_header(kv_u32("a.b", 1) + kv_u32("a.b", 2), 2), "duplicate key 'a.b'"),
    "unknown type": (raw_header(gstr("a.b") + u32(99) + u32(0), 1), "unknown GGUF value type 99"),
    "absurd string value": (
        raw_header(gstr("tokenizer.chat_template") + u32(8) + u64(HUGE) + b"{{", 1),
        "absurd GGUF string length",
    ),
    "array of arrays": (raw_header(gstr("a.b") + u32(9) + u32(9) + u64(1), 1), "array of arrays"),
    "absurd numeric array": (
        raw_header(gstr("a.b") + u32(9) + u32(4) + u64(2**61), 1),
        "absurd GGUF array length",
    ),
    "absurd string array": (
        raw_header(gstr("tokenizer.ggml.tokens") + u32(9) + u32(8) + u64(HUGE), 1),
        "absurd GGUF array length",
    ),
    "absurd string in array": (
        raw_header(gstr("tokenizer.ggml.tokens") + u32(9) + u32(8) + u64(2) + u64(HUGE), 1),
        "absurd GGUF string length",
    ),
    "unknown array element type": (
        raw_header(gstr("a.b") + u32(9) + u32(13) + u64(1), 1),
        "unknown GGUF value type 13",
    ),
    "template not utf-8": (
        raw_header(kv_string("tokenizer.chat_template", b"\xff\xfe{{"), 1),
        "not valid UTF-8",
    ),
}


@pytest.mark.parametrize("name", sorted(CORRUPT))
def test_corrupt_headers_give_clear_errors_without_big_allocations(name):
    data, message = CORRUPT[name]
    tracemalloc.start()
    try:
        with pytest.raises(GGUFError, match=message) as info:
            read_gguf_header_from_bytes(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024, f"{name}: peak allocation {peak} bytes"
    assert info.value.location is not None and info.value.location.offset is not None


def test_corrupt_header_through_from_upload_is_a_gguf_error():
    data, _ = CORRUPT["absurd string value"]
    with pytest.raises(GGUFError):
        from_upload(data, "x.gguf")


def test_header_cap_constant_is_64_mib():
    assert MAX_GGUF_HEADER_BYTES == 64 * 1024 * 1024


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200), st.integers(min_value=0, max_value=len(GOOD_KV)))
def test_random_bytes_after_a_valid_prefix_never_crash(tail, cut):
    data = raw_header(GOOD_KV[:cut] + tail, 3)
    try:
        header = read_gguf_header_from_bytes(data)
    except GGUFError:
        return
    assert header.kv_read <= header.kv_count


def test_template_key_with_a_non_string_value(tmp_path):
    built = build_gguf(
        tmp_path / "w.gguf", templates=None, extra_kv=lambda w: w.add_uint32("tokenizer.chat_template", 7)
    )
    with pytest.raises(GGUFError, match="'tokenizer.chat_template' holds int, expected a string"):
        from_file(built.path)


def test_plain_key_is_the_default_even_beside_a_dot_default_key(tmp_path):
    built = build_gguf(
        tmp_path / "d.gguf",
        templates="PLAIN",
        extra_kv=lambda w: w.add_string("tokenizer.chat_template.default", "SUFFIXED"),
    )
    assert read_gguf_header_from_file(built.path).chat_templates["default"] == "PLAIN"


def test_a_large_upload_is_not_copied(tmp_path):
    built = build_gguf(tmp_path / "u.gguf", templates=DEFAULT_T, n_tokens=1000)
    upload = built.path.read_bytes() + bytes(80 * 1024 * 1024)  # an 80 MB "model"
    tracemalloc.start()
    try:
        source = from_upload(upload, "u.gguf")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert source.text == DEFAULT_T
    assert peak < 8 * 1024 * 1024


def test_an_empty_default_template_falls_back_like_llama_cpp(tmp_path):
    # common_chat_templates_init: an empty default is replaced by tool_use, else chatml.
    # (GGUFWriter.add_string drops empty strings, so the empty key is written directly.)
    from gguf import GGUFValueType

    def empty_default(writer):
        writer.add_key_value("tokenizer.chat_template", "", GGUFValueType.STRING)

    both = build_gguf(tmp_path / "e.gguf", templates={"tool_use": TOOL_T}, extra_kv=empty_default)
    assert read_gguf_header_from_file(both.path).chat_templates["default"] == ""
    source = from_file(both.path)
    assert source.variant == "tool_use" and source.text == TOOL_T
    assert from_file(both.path, "default").text == ""
    only = build_gguf(tmp_path / "o.gguf", templates=None, extra_kv=empty_default)
    from explorer.errors import SourceError

    with pytest.raises(SourceError, match="is empty.*chatml"):
        from_file(only.path)


def test_agrees_with_the_gguf_package_reader_on_every_field(tmp_path):
    # The gguf package's GGUFReader (it maps the whole file) is the independent reference.
    from gguf import GGUFReader, GGUFValueType

    built = build_gguf(
        tmp_path / "cmp.gguf",
        templates={"default": DEFAULT_T, "tool_use": TOOL_T},
        n_tokens=300,
        extra_kv=lambda w: (w.add_float32("x.f32", 0.5), w.add_int64("x.i64", -7), w.add_bool("x.flag", True),
                            w.add_array("x.small", [1, 2, 3]), w.add_float64("x.f64", 2.25)),
    )
    reference = GGUFReader(built.path)
    header = read_gguf_header_from_file(built.path)
    fields = {k: f for k, f in reference.fields.items() if not k.startswith("GGUF.")}
    assert list(header.metadata) == list(fields)
    assert header.kv_count == reference.fields["GGUF.kv_count"].contents()
    assert header.tensor_count == reference.fields["GGUF.tensor_count"].contents()
    for key, field in fields.items():
        ours = header.metadata[key]
        if field.types[0] == GGUFValueType.ARRAY:
            expected = field.contents()
            if isinstance(ours, ArraySummary):
                assert (ours.element_type, ours.length) == (field.types[1].name, len(expected)), key
            else:
                assert list(ours) == list(expected), key
        elif isinstance(ours, float):
            assert ours == pytest.approx(field.contents()), key
        else:
            assert ours == field.contents(), key


# llama.cpp's own vocab-only GGUFs (models/ at 0c1e5709, from the sdist cache .ci/run fills)
REAL_VOCABS = tuple(f"ggml-vocab-{name}.gguf" for name in (
    "aquila", "baichuan", "bert-bge", "command-r", "deepseek-coder", "deepseek-llm", "falcon", "gemma-4", "gpt-2",
    "gpt-neox", "llama-bpe", "llama-spm", "mpt", "nomic-bert-moe", "phi-3", "qwen2", "qwen35", "refact",
    "starcoder"))


@requires_llama_cpp
def test_the_cache_holds_llama_cpp_s_vocabs_and_templates():
    assert tuple(sorted(p.name for p in LLAMA_CPP_MODELS.glob("ggml-vocab-*.gguf"))) == REAL_VOCABS
    # the same commit as the oracle: its templates are byte for byte ../shared's
    if oracle_available():
        ours = {p.name: p.read_bytes() for p in (LLAMA_CPP_MODELS / "templates").iterdir()}
        assert ours == {p.name: p.read_bytes() for p in (ORACLE / "templates").iterdir()}


def _raw_string_value(data: bytes, key: str) -> str | None:
    """A string KV found by its serialized key (length, key, STRING type): independent of
    any header walk."""
    needle = gstr(key) + u32(8)
    at = data.find(needle)
    if at < 0:
        return None
    start = at + len(needle)
    (length,) = struct.unpack_from("<Q", data, start)
    return data[start + 8 : start + 8 + length].decode("utf-8")


@requires_llama_cpp
@pytest.mark.parametrize("name", REAL_VOCABS)
def test_real_llama_cpp_vocab_files(name):
    # llama.cpp's own vocab-only GGUFs, written by its converter.
    path = LLAMA_CPP_MODELS / name
    data = path.read_bytes()
    header = read_gguf_header_from_file(path)
    assert header.complete and header.bytes_read <= len(data)
    for variant, text in header.chat_templates.items():
        key = "tokenizer.chat_template" + ("" if variant == "default" else f".{variant}")
        assert _raw_string_value(data, key) == text
    for key in ("tokenizer.chat_template", "tokenizer.chat_template.tool_use", "tokenizer.chat_template.rag"):
        if _raw_string_value(data, key) is not None:
            assert key in header.metadata


@requires_llama_cpp
def test_real_command_r_vocab_has_three_named_templates():
    source = from_file(LLAMA_CPP_MODELS / "ggml-vocab-command-r.gguf", "rag")
    assert source.variants == ("default", "rag", "tool_use")
    assert source.bos_token == "<BOS_TOKEN>"


@requires_llama_cpp
@pytest.mark.parametrize("name", ["ggml-vocab-phi-3.gguf", "ggml-vocab-llama-spm.gguf", "ggml-vocab-bert-bge.gguf"])
def test_small_real_vocabs_match_gguf_reader(name):
    # GGUFReader parses every array element in Python, so only the small files here.
    from gguf import GGUFReader

    path = LLAMA_CPP_MODELS / name
    header = read_gguf_header_from_file(path)
    reference = GGUFReader(path)
    assert list(header.metadata) == [k for k in reference.fields if not k.startswith("GGUF.")]
    tokens = reference.fields["tokenizer.ggml.tokens"].contents()
    if "tokenizer.ggml.bos_token_id" in reference.fields:
        assert header.bos_token == tokens[reference.fields["tokenizer.ggml.bos_token_id"].contents()]
