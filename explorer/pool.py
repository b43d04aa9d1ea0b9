"""Tasks spread over forked worker processes, with a worker's death contained.

Input: tasks, a picklable module-level function from a task to its result lines, how many
processes, and what a task's lines are when it is lost (a message in, lines out). Output:
every task's lines as they finish. A task whose worker died is run again alone in a fresh
worker, so the lines say which task killed it rather than ending the batch; a task that
cannot be sent or returned gets its lost lines with the error.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

T = TypeVar("T")
L = TypeVar("L")


def fork_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool whose workers start as forks of this process: the explorer already imported
    and whatever the parent read once (canitoolcall's fixtures) inherited."""
    methods = multiprocessing.get_all_start_methods()
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(
        "fork" if "fork" in methods else None))


def run_pooled(tasks: Sequence[T], work: Callable[[T], list[L]], jobs: int,
               lost: Callable[[T, str], list[L]], died: str) -> Iterator[L]:
    """``work`` of every task over ``jobs`` processes, lines as they finish; ``died`` is
    the message for a task that kills its worker even when run alone."""
    unfinished: list[T] = []
    with fork_pool(jobs) as pool:
        futures: dict[Future[list[L]], T] = {pool.submit(work, task): task for task in tasks}
        for future in as_completed(futures):
            try:
                yield from future.result()
            except BrokenProcessPool:
                unfinished.append(futures[future])
            except Exception as exc:  # noqa: BLE001 - a task that could not be sent or returned
                yield from lost(futures[future], f"{type(exc).__name__}: {exc}")
    for task in sorted(unfinished, key=tasks.index):
        with fork_pool(1) as pool:
            try:
                yield from pool.submit(work, task).result()
            except BrokenProcessPool:
                yield from lost(task, died)
