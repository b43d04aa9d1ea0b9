"""Template Explorer: how llama.cpp's autoparser reads a chat template.

The package is a pipeline of pure functions between frozen dataclasses:
source -> render -> probes/diff -> analysis -> generator (PEG, GBNF) -> output parsing
-> streaming. Each stage lives in its own module; the Streamlit app and the CLI only
call them. Nothing here imports Streamlit.
"""

LLAMA_CPP_COMMIT = "0c1e57098bba43ac29e6e3b677cdceebdd22334f"
LLAMA_CPP_COMMIT_SHORT = "0c1e5709"

__all__ = ["LLAMA_CPP_COMMIT", "LLAMA_CPP_COMMIT_SHORT"]
