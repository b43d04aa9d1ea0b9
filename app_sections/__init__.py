"""Sections several app pages draw (display only, Streamlit): "Why this result?", the
llama-server log box, the round trip and the Analysis page's "What if…".

Input: the page's ``TemplateSession`` and request, and ``app_state`` (the shared
template, request settings and errors shown in place). Output: Streamlit elements. They
live beside ``app.py``, not in ``pages/``, which holds only the pages and their deep-link
files.
"""
