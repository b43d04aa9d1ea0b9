"""A workaround's substring: unique where the lambda will live (llama.cpp's own
models/templates of the targeted build, plus --corpus), the shortest such, said with
which corpus was searched and how many templates it holds; "uniqueness not checked"
where no corpus is at hand, never "unique".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from doctor_cases import TEMPLATES

from explorer.doctor.corpus import LLAMA_CPP_ENV, MIN_LENGTH, choose_substring, load_corpus
from explorer.doctor.fixes import search_fixes
from explorer.doctor.model import uniqueness_text
from explorer.session import open_session
from oracle_data import LLAMA_CPP_MODELS, llama_cpp_available

MINE = TEMPLATES["sentinel-in-marker"]


def _tree(root: Path, templates: dict[str, str]) -> Path:
    folder = root / "models" / "templates"
    folder.mkdir(parents=True)
    for name, text in templates.items():
        (folder / f"{name}.jinja").write_text(text, encoding="utf-8")
    return root


def test_with_no_corpus_at_hand_uniqueness_is_not_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LLAMA_CPP_ENV, str(tmp_path / "absent"))
    corpus = load_corpus()
    assert not corpus.checked and corpus.describe() == ""
    fix = next(f for f in search_fixes(open_session(MINE)).fixes if f.kind == "analysis-override")
    assert fix.substring and fix.uniqueness.startswith("uniqueness not checked") and "unique among" not in fix.uniqueness


def test_the_substring_is_the_shortest_no_other_template_of_llama_cpps_corpus_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # other models share the end-of-turn marker and the tool-call tags: neither is a key
    others = {"sibling": MINE.replace("<tc>", "<call>"), "chatml": "{{ '<|im_start|>' }}{{ '<|im_end|>\\n' }}",
              "tagged": "<tc>{{ x }}</tc>"}
    monkeypatch.setenv(LLAMA_CPP_ENV, str(_tree(tmp_path / "llama", others)))
    corpus = load_corpus()
    assert corpus.describe() == "llama.cpp 0c1e5709's models/templates: 3"
    piece, holders = choose_substring(MINE, corpus)
    assert holders == ("this template",) and len(piece) >= MIN_LENGTH
    assert all(piece not in text for text in others.values()) and piece in MINE
    assert piece not in ("<|im_end|>", "<|im_start|>") and "<tc>" not in piece
    text = uniqueness_text(holders, corpus.describe(), len(corpus.entries))
    assert text == "unique among the 3 templates searched (llama.cpp 0c1e5709's models/templates: 3)"


def test_a_long_unique_line_is_cut_to_its_shortest_unique_window(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    card = "{#- Model card: the Quetzal-9 chat format of this model family -#}\n"
    monkeypatch.setenv(LLAMA_CPP_ENV, str(_tree(tmp_path / "llama", {
        "same": MINE, "other": "{#- Model card: the Vole-2 chat format of this model family -#}"})))
    piece, holders = choose_substring(card + MINE, load_corpus(), own="mine")
    assert holders == ("mine",) and "Quetzal" in piece and MIN_LENGTH <= len(piece) <= len("Quetzal-9 chat")


def test_a_substring_other_templates_hold_names_them_and_says_the_lambda_patches_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LLAMA_CPP_ENV, str(_tree(tmp_path / "llama", {"copy": MINE})))
    extra = tmp_path / "mine"
    extra.mkdir()
    (extra / "again.jinja").write_text("{#- the same -#}" + MINE, encoding="utf-8")
    corpus = load_corpus([str(extra)])
    assert corpus.describe() == f"llama.cpp 0c1e5709's models/templates: 1; --corpus {extra}: 1"
    piece, holders = choose_substring(MINE, corpus, own="mine")
    assert set(holders[1:]) == {"copy", "again"}
    text = uniqueness_text(holders, corpus.describe(), len(corpus.entries))
    assert text.startswith("also in 2 other template(s) of the 2 searched") and "would patch them too" in text


@pytest.mark.skipif(not llama_cpp_available(), reason="the llama.cpp 0c1e5709 sdist cache is absent")
def test_in_llama_cpps_own_templates_the_im_end_marker_is_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LLAMA_CPP_ENV, str(LLAMA_CPP_MODELS.parent))
    corpus = load_corpus()
    held = [name for name, text in corpus.entries if "<|im_end|>" in text]
    assert len(corpus.entries) == 70 and len(held) > 1
    text = "{%- for m in messages %}{{ '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}{%- endfor %}"
    piece, holders = choose_substring(text + "{# Zebra-chat v7 #}", corpus)
    assert piece != "<|im_end|>" and holders == ("this template",) and "Zebra" in piece
