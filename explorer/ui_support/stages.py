"""Library stages that may not have landed yet.

Input: a module name and the names a page needs from it. Output: the module, or None
when it does not exist yet (an import error inside an existing module propagates).
"""

from __future__ import annotations

import importlib
from types import ModuleType


def optional_module(name: str, *needs: str) -> ModuleType | None:
    """Import a library stage, or None when it has not landed yet.

    "Not landed" means the module itself does not exist, or it exists without the names
    in ``needs`` (a package directory still being written). An ImportError raised
    *inside* an existing module (a real bug) propagates, so a broken stage is never
    shown as merely missing.
    """
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name or (exc.name and name.startswith(exc.name + ".")):
            return None
        raise
    if any(not hasattr(module, attr) for attr in needs):
        return None
    return module
