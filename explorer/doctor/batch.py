"""Many templates through the doctor: in this process, over a process pool, or on Dask.

Input: template specs (files, folders, ``hf:`` ids, ``example:`` names), analysis
overrides (``--set``), corpus folders for the fix search, and how to run: ``jobs``
processes, or a Dask distributed scheduler's address. Output: one JSON line per template
(``DoctorReport.to_json()``, or ``{"template", "error": {"kind", "message"}}``), written
in input order as soon as every earlier line is known (``OrderedLines``).

The specs are read here, in the parent, and templates with the same text are doctored
once: a folder with copies (or a template named twice) costs one report, written under
each name. A template that crashes its run, its worker process or its Dask task is its
own error line; the batch goes on.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from explorer.analysis.overrides import parse_setting
from explorer.doctor.cluster import require_explorer
from explorer.doctor.report import doctor
from explorer.errors import ExplorerError
from explorer.fixtures import family_profiles
from explorer.pool import run_pooled
from explorer.session import open_session
from explorer.sources import resolve_spec

OutLine: TypeAlias = "dict[str, object]"
TEMPLATE_FILES = ("tokenizer_config.json", "chat_template.json")  # besides every *.jinja


@dataclass(frozen=True)
class DoctorTask:
    """One template text to doctor, and every output position that shows its report."""

    positions: tuple[tuple[int, str], ...]  # (output index, the template's name there)
    text: str
    sets: tuple[str, ...] = ()  # --set FIELD=VALUE
    corpus: tuple[str, ...] = ()  # folders of templates the fix search compares against
    fixes: bool = True


@dataclass(frozen=True)
class Planned:
    """The batch: the tasks to run and the lines already known (specs that did not load)."""

    tasks: tuple[DoctorTask, ...]
    errors: tuple[tuple[int, OutLine], ...]
    names: tuple[str, ...]  # every template's name, in output order


def error_line(name: str, kind: str, message: str, line: int | None = None) -> OutLine:
    """A template that could not be doctored (``line``: the template line, when known)."""
    error: dict[str, object] = {"kind": kind, "message": message}
    if line is not None:
        error["line"] = line
    return {"template": name, "error": error}


def _explorer_error(name: str, exc: ExplorerError) -> OutLine:
    return error_line(name, exc.kind, str(exc), exc.location.line if exc.location is not None else None)


# --- reading the inputs --------------------------------------------------------------------


def expand_specs(specs: Iterable[str]) -> list[str]:
    """A folder becomes every template file inside it (``*.jinja``, tokenizer_config.json,
    chat_template.json, at any depth, sorted by path); anything else stays as given."""
    out: list[str] = []
    for spec in specs:
        folder = Path(spec)
        if spec.startswith(("hf:", "example:")) or not folder.is_dir():
            out.append(spec)
            continue
        found = sorted(p for p in folder.rglob("*") if p.is_file() and (p.suffix == ".jinja" or p.name in TEMPLATE_FILES))
        out += [str(p) for p in found] if found else [spec]  # an empty folder is its own error line
    return out


def plan(specs: Sequence[str], *, sets: Sequence[str] = (), corpus: Sequence[str] = (),
         fixes: bool = True) -> Planned:
    """Read every spec (a failure is that spec's error line) and group equal texts."""
    for s in sets:
        parse_setting(s)  # a bad --set fails the whole batch, before any template is read
    by_text: dict[str, list[tuple[int, str]]] = {}
    errors: list[tuple[int, OutLine]] = []
    expanded = expand_specs(specs)
    for index, spec in enumerate(expanded):
        if Path(spec).is_dir():
            errors.append((index, error_line(spec, "source", f"no template files in the folder {spec}")))
            continue
        try:
            text = resolve_spec(spec).text
        except ExplorerError as exc:
            errors.append((index, _explorer_error(spec, exc)))
            continue
        except OSError as exc:
            errors.append((index, error_line(spec, "source", f"cannot read {spec}: {exc}")))
            continue
        by_text.setdefault(text, []).append((index, spec))
    tasks = tuple(DoctorTask(tuple(positions), text, tuple(sets), tuple(corpus), fixes)
                  for text, positions in by_text.items())
    return Planned(tasks, tuple(errors), tuple(expanded))


# --- running one task ----------------------------------------------------------------------


def run_task(task: DoctorTask) -> list[tuple[int, OutLine]]:
    """The report of one template under each of its names. Never raises: a failure is the
    error line of every position of the task."""
    try:
        session = open_session(task.text, overrides=tuple(parse_setting(s) for s in task.sets))
        line = doctor(session, corpus=task.corpus, fixes=task.fixes, name=task.positions[0][1]).to_json()
    except ExplorerError as exc:
        return [(i, _explorer_error(name, exc)) for i, name in task.positions]
    except Exception as exc:  # noqa: BLE001 - one template's failure must not end the batch
        return [(i, error_line(name, "internal", f"{type(exc).__name__}: {exc}")) for i, name in task.positions]
    return [(i, line | {"template": name}) for i, name in task.positions]


def _lost(task: DoctorTask, message: str) -> list[tuple[int, OutLine]]:
    return [(i, error_line(name, "worker", message)) for i, name in task.positions]


# --- running many --------------------------------------------------------------------------


def run_local(tasks: Sequence[DoctorTask], jobs: int = 1) -> Iterator[tuple[int, OutLine]]:
    """The tasks in this process (``jobs`` <= 1) or over ``jobs`` processes, results as
    they finish."""
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            yield from run_task(task)
        return
    family_profiles()  # read canitoolcall's fixtures once, here: the forked workers inherit them
    yield from run_pooled(tasks, run_task, min(jobs, len(tasks)), _lost,
                          "the worker process doctoring this template died")


def run_dask(tasks: Sequence[DoctorTask], address: str) -> Iterator[tuple[int, OutLine]]:
    """The tasks on the Dask distributed cluster at ``address``, one task per template,
    results as they complete. A task that raised, or whose worker died (Dask's
    KilledWorker), is that template's error line. As on any Dask cluster, the scheduler and
    the workers need the client's environment: the explorer importable, the same versions
    (the scheduler unpickles each task); ``explorer.doctor.cluster`` checks the import on
    every worker first and raises ``ClusterError`` saying how to install it."""
    from dask.distributed import Client
    from dask.distributed import as_completed as dask_completed

    with Client(address) as client:
        check = require_explorer(client)  # one clear error, not a deserialisation error per template
        for w in check.mismatched:
            print(f"warning: Dask worker {w.address} imports template-explorer {w.version}, this client "
                  f"{check.client_version}: their reports may differ", file=sys.stderr)
        futures = {client.submit(run_task, task, pure=False): task for task in tasks}
        for future in dask_completed(list(futures)):
            task = futures[future]
            try:
                yield from future.result()
            except Exception as exc:  # noqa: BLE001 - the task's failure, as Dask hands it back
                yield from _lost(task, f"{type(exc).__name__}: {exc}")


@dataclass
class OrderedLines:
    """Hands lines back in input order as soon as every earlier line is known."""

    next_index: int = 0
    pending: dict[int, OutLine] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)

    def put(self, index: int, line: OutLine) -> list[OutLine]:
        """Take one line; return those now in order."""
        self.seen.add(index)
        self.pending[index] = line
        ready: list[OutLine] = []
        while self.next_index in self.pending:
            ready.append(self.pending.pop(self.next_index))
            self.next_index += 1
        return ready


def run_batch(specs: Sequence[str], *, sets: Sequence[str] = (), corpus: Sequence[str] = (), fixes: bool = True,
              jobs: int = 1, scheduler: str | None = None) -> Iterator[OutLine]:
    """Every template's line, in input order, each as soon as the lines before it are out."""
    planned = plan(specs, sets=sets, corpus=corpus, fixes=fixes)
    order = OrderedLines()
    for index, line in planned.errors:
        yield from order.put(index, line)
    results = run_dask(planned.tasks, scheduler) if scheduler else run_local(planned.tasks, jobs)
    for index, line in results:
        yield from order.put(index, line)
    for index, name in enumerate(planned.names):  # a bug of ours: still one line per template
        if index not in order.seen:
            yield from order.put(index, error_line(name, "internal", "no result"))


__all__ = [
    "DoctorTask", "OrderedLines", "Planned", "TEMPLATE_FILES", "error_line", "expand_specs", "plan",
    "run_batch", "run_dask", "run_local", "run_task",
]
