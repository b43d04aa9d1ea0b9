"""Before the doctor sends templates to a Dask cluster: can its workers import the explorer?

Input: a connected ``dask.distributed.Client``. Output: ``WorkerCheck`` (per worker: the
explorer it imports, its version and Python, or why the import failed), and
``require_explorer``, which raises ``ClusterError`` saying how to give the workers the
package when any of them lacks it (instead of every template failing on the workers with
a deserialisation error), and returns the version mismatches to warn about.

The check runs on each worker through ``client.run``. Its function is built inside
``import_probe`` so that Dask pickles it by value: a function named by module would need
``explorer`` on the worker to be unpickled, which is the thing being checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explorer.errors import ClusterError

DISTRIBUTION = "template-explorer"
WORKER_WAIT_SECONDS = 60.0


@dataclass(frozen=True)
class WorkerImport:
    """What one worker found when it imported the package."""

    address: str
    ok: bool
    version: str | None = None  # the template-explorer distribution's version (None: a checkout on its path)
    file: str | None = None
    python: str = ""
    error: str = ""

    @classmethod
    def from_json(cls, address: str, data: Mapping[str, Any]) -> WorkerImport:
        return cls(address, bool(data.get("ok")), data.get("version"), data.get("file"),
                   str(data.get("python", "")), str(data.get("error", "")))


def import_probe(module: str = "explorer") -> Callable[[], dict[str, Any]]:
    """The function each worker runs: import ``module``, report what it found (stdlib only)."""

    def probe() -> dict[str, Any]:
        import importlib
        import sys

        found: dict[str, Any] = {"python": sys.version.split()[0], "executable": sys.executable}
        try:
            imported = importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - any failure is the answer
            return found | {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        try:
            from importlib.metadata import PackageNotFoundError, version

            found["version"] = version(DISTRIBUTION)
        except PackageNotFoundError:
            found["version"] = None
        return found | {"ok": True, "file": getattr(imported, "__file__", None)}

    return probe


@dataclass(frozen=True)
class WorkerCheck:
    workers: tuple[WorkerImport, ...]
    client_version: str | None

    @property
    def missing(self) -> tuple[WorkerImport, ...]:
        return tuple(w for w in self.workers if not w.ok)

    @property
    def mismatched(self) -> tuple[WorkerImport, ...]:
        """Workers importing another released version than this client's."""
        return tuple(w for w in self.workers if w.ok and w.version and self.client_version
                     and w.version != self.client_version)


def _client_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return None


def check_workers(client: Any, module: str = "explorer", wait: float = WORKER_WAIT_SECONDS) -> WorkerCheck:
    """Every worker's import of ``module`` (waits up to ``wait`` seconds for a first worker)."""
    try:
        client.wait_for_workers(1, timeout=wait)
    except TimeoutError as exc:
        raise ClusterError(f"no Dask worker joined the scheduler at {client.scheduler.address} within "
                           f"{wait:.0f} s: start workers (dask worker {client.scheduler.address})") from exc
    answers = client.run(import_probe(module))
    return WorkerCheck(tuple(WorkerImport.from_json(a, d) for a, d in sorted(answers.items())), _client_version())


HOW_TO = ("Give them the package: build the wheel where this checkout or package is (pip wheel --no-deps -w dist "
          "PATH_TO_TEMPLATE_EXPLORER), pip install dist/template_explorer-*.whl in the workers' environment (its "
          "pinned dependencies come with it) and restart the workers; or, for workers that already have the "
          "dependencies, ship a .zip of the explorer package from Python with Dask's client.upload_file(\"explorer."
          "zip\") before running the doctor. See docs/dask.md.")


def require_explorer(client: Any, module: str = "explorer", wait: float = WORKER_WAIT_SECONDS) -> WorkerCheck:
    """The check, raising ``ClusterError`` when a worker cannot import the package."""
    check = check_workers(client, module, wait)
    if check.missing:
        shown = "; ".join(f"{w.address} (Python {w.python}): {w.error}" for w in check.missing[:3])
        more = f" and {len(check.missing) - 3} more" if len(check.missing) > 3 else ""
        raise ClusterError(f"{len(check.missing)} of {len(check.workers)} Dask worker(s) cannot import {module}, "
                           f"so they cannot run the doctor's tasks: {shown}{more}. {HOW_TO}")
    return check


__all__ = ["HOW_TO", "WorkerCheck", "WorkerImport", "check_workers", "import_probe", "require_explorer"]
