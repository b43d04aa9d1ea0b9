"""Our own small templates, one per failure class the doctor recognises (written for these
tests, each built to show its class), and ``patched``: a fix's diff applied by GNU patch.

Output: ``TEMPLATES`` (class key -> template text), ``patched(original, diff)``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

OPEN = "{%- for m in messages %}{{ '<|im_start|>' + m.role + '\\n' }}"
CLOSE = "{{ '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{%- endif %}"
JSON_CALLS = ("{%- for tc in m.tool_calls %}<tool_call>{\"name\": \"{{ tc.function.name }}\", \"arguments\": "
              "{{ tc.function.arguments | tojson }}}</tool_call>{%- endfor %}")


def _calls(call: str) -> str:
    return (OPEN + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}" + call + "{%- endfor %}"
            "{%- else %}{{ m.content }}{%- endif %}" + CLOSE)


TEMPLATES: dict[str, str] = {
    # the call id right after the name: the probes' id lands in the name's closing marker
    "sentinel-in-marker": _calls("<tc>{{ tc.function.name }}#{{ tc.id }}\n{{ tc.function.arguments | tojson }}</tc>"),
    # name, id and arguments each in their own tag: the diff takes the id's closing tag for the name's
    "parser-rejected": _calls("<tc><name>{{ tc.function.name }}</name><id>{{ tc.id }}</id>"
                              "<args>{{ tc.function.arguments | tojson }}</args></tc>"),
    # a call turn ends with its own stop token, a plain turn with another
    "stop-token-left": (
        "{%- for m in messages %}{{ '<|start|>' + m.role + '\\n' }}{%- if m.tool_calls %}"
        "{%- for tc in m.tool_calls %}<function={{ tc.function.name }}>{{ tc.function.arguments | tojson }}"
        "</function>{%- endfor %}{{ '<|eom|>' }}{%- else %}{{ m.content + '<|eot|>' }}{%- endif %}{%- endfor %}"
        "{%- if add_generation_prompt %}{{ '<|start|>assistant\\n' }}{%- endif %}"),
    # wrapped answers (the content-unmatchable test breaks the reading with an override)
    "content-unmatchable": (
        OPEN + "{%- if m.role == 'assistant' %}{%- if m.tool_calls %}" + JSON_CALLS + "{%- else %}"
        "{{ '<response>' + m.content + '</response>' }}{%- endif %}{%- else %}{{ m.content }}{%- endif %}" + CLOSE),
    # reasoning cut out of the history, a thinking block opened by the generation prompt
    "thinking-opened": (
        "{%- for m in messages %}{%- if m.role == 'user' %}{{ '<|User|>' + m.content }}"
        "{%- elif m.role == 'assistant' %}{%- set content = m.content %}"
        "{%- if '</think>' in content %}{%- set content = content.split('</think>')[-1] %}{%- endif %}"
        "{%- if m.tool_calls %}" + JSON_CALLS + "{%- endif %}"
        "{{ '<|Assistant|>' + content + '<|end|>' }}{%- endif %}{%- endfor %}"
        "{%- if add_generation_prompt %}{{ '<|Assistant|><think>\\n' }}{%- endif %}"),
    # reasoning kept in history, the block closed by the generation prompt when thinking is off
    "thinking-closed": (
        OPEN + "{%- if m.reasoning_content %}{{ '<think>' + m.reasoning_content + '</think>' }}{%- endif %}"
        "{{ m.content or '' }}{%- if m.tool_calls %}" + JSON_CALLS + "{%- endif %}"
        "{{ '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
        "{%- if enable_thinking is defined and not enable_thinking %}{{ '<think></think>' }}{%- endif %}{%- endif %}"),
    # the content of a turn with calls left out
    "content-dropped": (OPEN + "{%- if m.tool_calls %}" + JSON_CALLS + "{%- else %}{{ m.content }}{%- endif %}"
                        + CLOSE),
    # a tool list that reads a schema's items as an attribute (the mapping's items method)
    "roundtrip-failed": (
        "{%- macro kind(s) %}{%- if s.type == 'array' %}list[{{ kind(s.items) }}]{%- else %}{{ s.type }}{%- endif %}"
        "{%- endmacro %}{%- if tools %}{{ '<|im_start|>system\\n' }}{%- for tool in tools %}{{ tool.function.name }}("
        "{%- for k, v in tool.function.parameters.properties | items %}{{ k }}: {{ kind(v) }}, {%- endfor %})\n"
        "{%- endfor %}{{ '<|im_end|>\\n' }}{%- endif %}"
        + OPEN + "{{ m.content or '' }}{%- if m.tool_calls %}" + JSON_CALLS + "{%- endif %}" + CLOSE),
    # no call of a turn is written at all: no sound fix
    "calls-dropped": OPEN + "{{ m.content }}" + CLOSE,
    # a call written through a %-format, which llama.cpp's engine renders literally
    "renders-literally": (
        OPEN + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}"
        "{{ '<tool_call>{\"name\": \"%s\", \"arguments\": %s}</tool_call>'|format(tc.function.name, "
        "tc.function.arguments|tojson) }}{%- endfor %}{%- else %}{{ m.content }}{%- endif %}" + CLOSE),
    # the assistant header is a role tag, which the autoparser takes for the reasoning's opener
    "marker-is-role": (
        "{%- for m in messages %}{%- if m.role == 'assistant' %}{{ '<[role_assistant]>\n' }}"
        "{%- if m.reasoning_content %}{{ m.reasoning_content + '\n[FINAL]\n' }}{%- endif %}"
        "{{ m.content or '' }}{%- if m.tool_calls %}" + JSON_CALLS + "{%- endif %}{{ '<[end]>\n' }}"
        "{%- else %}{{ '<[role_' + m.role + ']>\n' + m.content + '<[end]>\n' }}{%- endif %}{%- endfor %}"
        "{%- if add_generation_prompt %}{{ '<[role_assistant]>\n' }}{%- endif %}"),
    # a call turn the template never closes, and a tool result it never closes either
    "turn-unclosed": (
        "{%- for m in messages %}{%- if m.role == 'tool' %}{{ '<|im_start|>tool\n' + m.content }}"
        "{%- else %}{{ '<|im_start|>' + m.role + '\n' }}{%- if m.tool_calls %}" + JSON_CALLS.replace(
            "{%- for tc in m.tool_calls %}", "{%- for tc in m.tool_calls %}") +
        "{%- else %}{{ m.content + '<|im_end|>\n' }}{%- endif %}{%- endif %}{%- endfor %}"
        "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{%- endif %}"),
}
EMPTY = ""  # an empty template: llama.cpp puts its ChatML template in its place


def patched(original: str, diff: str) -> str:
    """``original`` with ``diff`` applied the way a user would: ``patch -p1`` in a folder
    holding the file under the name the diff gives it."""
    if shutil.which("patch") is None:
        pytest.skip("GNU patch is not installed")
    name = diff.splitlines()[0].removeprefix("--- a/").strip()
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / name).write_text(original, encoding="utf-8")
        subprocess.run(["patch", "-p1", "--quiet", "--batch"], input=diff.encode("utf-8"), cwd=folder, check=True)
        return (Path(folder) / name).read_text(encoding="utf-8")
