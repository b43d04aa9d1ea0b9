"""The real llama.cpp beside the port: a driver built from llama.cpp's own source.

``source`` finds the llama.cpp tree (the cached 0c1e5709 sdist by default, or a checkout
the user names), ``build`` compiles the driver (``driver/``: llama.cpp's chat library behind
JSON lines) with cmake and ninja, once per tree and compiler; ``driver`` runs it, one
process for many requests; ``compare`` asks the port and the real build the same question
and says where they part; ``roundtrip_check`` re-runs a round trip's steps on the real build.

Importing this package imports nothing else: ``source`` and ``build`` use the standard
library only, so ``python3 -m explorer.llama_cpp build`` runs before the project's
dependencies are installed (``.ci/run`` does that).
"""
