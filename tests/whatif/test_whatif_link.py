"""A what-if in a permalink (``explorer.ui_support.whatif_link``): the parameters it writes,
what reading them restores, and a bad value named by its parameter.

The expected values are the formats themselves: ``--set``'s ``FIELD=VALUE`` strings, the
JSON body fields llama-server reads, and a sha256 (64 hex digits) of the edited text.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from explorer.errors import SourceError
from explorer.roundtrip import RequestChange
from explorer.ui_support.whatif_link import EDIT_NOTE, decode_whatif, encode_whatif
from explorer.whatif import WhatIf


def test_an_empty_what_if_writes_no_parameters_and_none_restore_an_empty_one() -> None:
    assert encode_whatif(WhatIf()) == {}
    assert decode_whatif({"example": "x"}).empty
    assert decode_whatif({}).whatif().empty


def test_overrides_and_a_request_change_go_there_and_back() -> None:
    whatif = WhatIf(change=RequestChange(enable_thinking=False, reasoning_format="none")).with_setting(
        WhatIf.setting("tools.format.per_call_start", '"<call>\\n"'))
    params = encode_whatif(whatif)
    assert json.loads(params["set"]) == ['tools.format.per_call_start="<call>\\n"']
    assert json.loads(params["rq"]) == {"chat_template_kwargs": {"enable_thinking": False}, "reasoning_format": "none"}
    assert "edit" not in params
    assert decode_whatif(params).whatif() == whatif
    assert decode_whatif({k: [v] for k, v in params.items()}).whatif() == whatif  # repeated-value form


def test_an_edited_text_is_carried_as_its_sha256_only() -> None:
    text = "{{ messages[0].content }}"
    params = encode_whatif(WhatIf(text=text))
    assert params == {"edit": hashlib.sha256(text.encode()).hexdigest()}
    carried = decode_whatif(params)
    assert carried.edited_sha256 == params["edit"] and carried.whatif().empty  # the edit is not restored
    assert "not in this link" in EDIT_NOTE


@pytest.mark.parametrize("params, message", [
    ({"set": "[1"}, "link parameter set: not JSON"),
    ({"set": '[1]'}, "link parameter set: expected a JSON list of FIELD=VALUE strings"),
    ({"set": '["tools.format.fun_name_is_key=yes"]'}, "link parameter set: --set"),
    ({"rq": "[]"}, "link parameter rq: request change: expected a JSON object"),
    ({"rq": '{"tools": 1}'}, "link parameter rq: request change: unknown field"),
    ({"edit": "XYZ"}, "link parameter edit: expected a sha256"),
])
def test_a_bad_value_is_a_source_error_naming_its_parameter(params: dict[str, str], message: str) -> None:
    with pytest.raises(SourceError) as caught:
        decode_whatif(params)
    assert str(caught.value).startswith(message)
