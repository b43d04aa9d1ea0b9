"""Template page sources under AppTest: uploads (tokenizer_config.json with named
templates, a GGUF), the Hugging Face Hub form (against the local stand-in hub), and
the named-variant picker."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from apptest_support import md_plain, not_health
from explorer import ui_support as ui
from oracle_data import PROJECT_ROOT

ROOT = PROJECT_ROOT
APP = str(ROOT / "app.py")

T_DEFAULT = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
T_TOOLS = "{% if tools %}<|tools|>{{ tools | tojson }}{% endif %}" + T_DEFAULT
CONFIG = json.dumps({
    "bos_token": "<s>",
    "chat_template": [{"name": "default", "template": T_DEFAULT}, {"name": "tool_use", "template": T_TOOLS}],
}).encode()

pytestmark = pytest.mark.timeout(300)


def template_page(kind: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="tpl_kind").set_value(kind).run()
    return at


def shown_source(at: AppTest) -> str:
    return "\n".join(h.proto.body for h in at.get("html"))


def test_uploading_a_tokenizer_config_offers_its_named_templates():
    at = template_page("upload")
    at.file_uploader(key="tpl_upload").set_value(("tokenizer_config.json", CONFIG, "application/json")).run()
    assert not at.exception
    request = at.session_state["source_request"]
    assert (request.kind, request.name) == ("upload", "tokenizer_config.json")
    picker = at.selectbox(key="tpl_variant")
    assert list(picker.options) == ["default", "tool_use"]
    assert picker.value == "default"
    assert "&lt;|tools|&gt;" not in shown_source(at)
    picker.select("tool_use").run()
    assert not at.exception
    assert at.session_state["source_request"].variant == "tool_use"
    assert "&lt;|tools|&gt;" in shown_source(at)
    # an upload is shared by the text of the chosen template
    assert ui.decode_permalink(dict(at.query_params)).text == T_TOOLS


def test_uploading_a_gguf_reads_its_template(tmp_path):
    from hubserver import build_gguf

    built = build_gguf(tmp_path / "model.gguf", templates=T_DEFAULT)
    data = built.path.read_bytes()
    at = template_page("upload")
    at.file_uploader(key="tpl_upload").set_value(("model.gguf", data, "application/octet-stream")).run()
    assert not at.exception
    assert not not_health(at.error)  # the Template page says the template's health first
    assert "&lt;|end|&gt;" in shown_source(at)


def test_a_broken_upload_is_an_error_in_place():
    at = template_page("upload")
    at.file_uploader(key="tpl_upload").set_value(("tokenizer_config.json", b"{not json", "application/json")).run()
    assert not at.exception
    assert at.error and "tokenizer_config.json" in at.error[0].value


@pytest.fixture
def fake_hub(monkeypatch):
    from explorer.sources import hub as hub_module
    from hubserver import FakeHub

    with FakeHub() as hub:
        hub.add_repo("acme/config-model", {"tokenizer_config.json": CONFIG})
        # the app uses the configured endpoint (HF_ENDPOINT); point it at the stand-in
        monkeypatch.setattr(hub_module, "default_endpoint", lambda: hub.url)
        yield hub


def test_the_hub_form_fetches_a_repo_and_its_variants(fake_hub):
    at = template_page("hub")
    at.text_input(key="tpl_hub_repo").input("acme/config-model")
    at.text_input(key="tpl_hub_variant").input("tool_use")
    at.button[0].click().run()
    assert not at.exception
    assert not not_health(at.error)
    request = at.session_state["source_request"]
    assert (request.kind, request.name, request.variant) == ("hub", "acme/config-model", "tool_use")
    assert "&lt;|tools|&gt;" in shown_source(at)
    assert at.query_params.get("hf") == "acme/config-model#tool_use"
    at.selectbox(key="tpl_variant").select("default").run()
    assert at.query_params.get("hf") == "acme/config-model#default"


def test_a_missing_hub_repo_is_reported_in_place(fake_hub):
    at = template_page("hub")
    at.text_input(key="tpl_hub_repo").input("acme/no-such-model")
    at.button[0].click().run()
    assert not at.exception
    assert at.error and "acme/no-such-model" in md_plain(at.error[0].value)
