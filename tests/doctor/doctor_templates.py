"""Our own small templates for the doctor's tests, each built for one verdict.

``SOUND`` renders reasoning, content and Hermes-style calls in history turns: every
message comes back. ``LOSSY`` drops reasoning and the content beside calls, on purpose (it
writes content only without calls and no reasoning at all): the round trip loses them, the
template is to blame, and since both are design choices the verdict is full.
``PARSER_LOSSY`` writes a turn's content after its calls, which llama.cpp's parser rejects:
a loss that is llama.cpp's, so the verdict is losses. ``MISREAD`` puts the call id
before the name, so llama.cpp's autoparser keeps part of a probe's id in a marker and
every call fails.
"""

from __future__ import annotations

HEAD = "{%- for m in messages %}<|im_start|>{{ m.role }}\n"
TAIL = "<|im_end|>\n{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
CALLS = ("{%- for tc in m.tool_calls %}<tool_call>\n{\"name\": \"{{ tc.function.name }}\", "
         "\"arguments\": {{ tc.function.arguments | tojson }}}\n</tool_call>{%- endfor %}")
SOUND = (HEAD + "{%- if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{%- endif %}"
         "{%- if m.content %}{{ m.content }}{%- endif %}{%- if m.tool_calls %}" + CALLS + "{%- endif %}" + TAIL)
LOSSY = HEAD + "{%- if m.tool_calls %}" + CALLS + "{%- else %}{{ m.content }}{%- endif %}" + TAIL
PARSER_LOSSY = HEAD + "{%- if m.tool_calls %}" + CALLS + "{%- endif %}{{ m.content }}" + TAIL
MISREAD = (HEAD + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}<tc>{{ tc.id }}<name>{{ tc.function.name }}"
           "<args>{{ tc.function.arguments | tojson }}</tc>{%- endfor %}{%- else %}{{ m.content }}{%- endif %}" + TAIL)
RAISES = "{{ raise_exception('boom') }}"
SYNTAX_ERROR = "{% for m in messages %}\n{{ m.content }\n{% endfor %}\n"

# Held-out misreadings, one template line per piece so that the line a finding names says
# something. ``MISREAD_LINES``: MISREAD over several lines (the call id before the name, so
# tools.function.name_prefix keeps the id's tail); ``NAME_SUFFIX_ID``: the id right after
# the name, so tools.function.name_suffix keeps the probe's id; ``NO_CALL_OPENER``: calls
# in brackets with nothing that opens them, so the arguments land in the name's suffix and
# tools.format.per_call_start is empty.
_LINES_HEAD = "{%- for m in messages %}\n{{- '<|im_start|>' + m.role + '\\n' }}\n{%- if m.tool_calls %}\n"
_LINES_TAIL = ("{%- else %}\n{{- m.content }}\n{%- endif %}\n{{- '<|im_end|>\\n' }}\n{%- endfor %}\n"
               "{%- if add_generation_prompt %}\n{{- '<|im_start|>assistant\\n' }}\n{%- endif %}\n")
MISREAD_LINES = (_LINES_HEAD + "{%- for tc in m.tool_calls %}\n{{- '<tc>' + tc.id }}\n"
                 "{{- '<name>' + tc.function.name }}\n{{- '<args>' + tc.function.arguments | tojson }}\n"
                 "{{- '</tc>' }}\n{%- endfor %}\n" + _LINES_TAIL)
NAME_SUFFIX_ID = (_LINES_HEAD + "{%- for tc in m.tool_calls %}\n{{- '<tc>\\n' + tc.function.name }}\n"
                  "{{- '#' + tc.id + '\\n' }}\n{{- tc.function.arguments | tojson }}\n{{- '\\n</tc>' }}\n"
                  "{%- endfor %}\n" + _LINES_TAIL)
NO_CALL_OPENER = (_LINES_HEAD + "{%- for tc in m.tool_calls %}\n{{- '[' + tc.function.name }}\n"
                  "{{- ':' + tc.function.arguments | tojson + ']' }}\n{%- endfor %}\n" + _LINES_TAIL)
