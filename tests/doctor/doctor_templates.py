"""Our own small templates for the doctor's tests, each built for one verdict.

``SOUND`` renders reasoning, content and Hermes-style calls in history turns: every
message comes back. ``LOSSY`` drops reasoning and the content beside calls: the round trip
loses them, and the template is to blame. ``MISREAD`` puts the call id before the name, so
llama.cpp's autoparser keeps part of a probe's id in a marker and every call fails.
"""

from __future__ import annotations

HEAD = "{%- for m in messages %}<|im_start|>{{ m.role }}\n"
TAIL = "<|im_end|>\n{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
CALLS = ("{%- for tc in m.tool_calls %}<tool_call>\n{\"name\": \"{{ tc.function.name }}\", "
         "\"arguments\": {{ tc.function.arguments | tojson }}}\n</tool_call>{%- endfor %}")
SOUND = (HEAD + "{%- if m.reasoning_content %}<think>{{ m.reasoning_content }}</think>{%- endif %}"
         "{%- if m.content %}{{ m.content }}{%- endif %}{%- if m.tool_calls %}" + CALLS + "{%- endif %}" + TAIL)
LOSSY = HEAD + "{%- if m.tool_calls %}" + CALLS + "{%- else %}{{ m.content }}{%- endif %}" + TAIL
MISREAD = (HEAD + "{%- if m.tool_calls %}{%- for tc in m.tool_calls %}<tc>{{ tc.id }}<name>{{ tc.function.name }}"
           "<args>{{ tc.function.arguments | tojson }}</tc>{%- endfor %}{%- else %}{{ m.content }}{%- endif %}" + TAIL)
RAISES = "{{ raise_exception('boom') }}"
SYNTAX_ERROR = "{% for m in messages %}\n{{ m.content }\n{% endfor %}\n"
