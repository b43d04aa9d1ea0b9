"""``python -m explorer.llama_cpp build [--source DIR]``: the driver's build, standard library only.

The same command as ``python -m explorer llama-cpp build`` (``explorer.cli.llama_cpp``), for
a Python that has not installed the project's dependencies yet (``.ci/run``).
"""

import sys

from explorer.llama_cpp.command import main

sys.exit(main())
