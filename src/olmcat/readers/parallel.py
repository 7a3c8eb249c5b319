"""Ordered work in worker processes, for the directory readers (YAML parsing dominates them).

Workers never outlive the run: each asks the kernel to kill it when its parent dies
(``PR_SET_PDEATHSIG``, so ``kill -9`` of olmcat leaves no orphans; elsewhere a thread watches the
parent), ignores Ctrl-C (the parent alone reports it, once) and is killed at once when the parent
stops early for any reason. Workers apply the parent's input limits and symlink policy, and their
input notices reach the parent's sink, in job order.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.notices import Notice

J = TypeVar("J")
R = TypeVar("R")

MAX_WORKERS = 8
_PR_SET_PDEATHSIG = 1


def worker_count(jobs: int) -> int:
    """How many processes to use: ``OLMCAT_WORKERS`` if set (1 turns workers off), else one per
    CPU, never more than jobs or MAX_WORKERS."""
    text = os.environ.get("OLMCAT_WORKERS", "").strip() or "0"
    try:
        configured = int(text)
    except ValueError:
        raise InputError(
            f"OLMCAT_WORKERS={text!r} is not a whole number; set it to 1 (no worker processes) "
            "or more, or unset it"
        ) from None
    wanted = configured if configured > 0 else os.cpu_count() or 1
    return max(1, min(wanted, jobs, MAX_WORKERS))


def _die_with_parent(parent: int) -> None:
    """Make this process end when ``parent`` does, even on SIGKILL."""
    if sys.platform.startswith("linux"):
        import ctypes  # here, in the worker: a run without workers never loads it

        with contextlib.suppress(OSError, AttributeError):
            # The process's own symbols include libc's (no ctypes.util.find_library, which
            # runs ldconfig and imports half the standard library).
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before prctl took effect
                    os._exit(1)
                return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="olmcat-parent-watch", daemon=True).start()


# A Ctrl-C that reaches the process group while a worker is being forked must not raise
# KeyboardInterrupt (and print a traceback) in the new worker before its initializer runs: SIGINT
# is blocked across the fork, ignored in the child, then unblocked in both (the parent gets a
# pending one at once).
_starting_workers = False


def _block_interrupts() -> None:
    if _starting_workers:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _unblock_interrupts() -> None:
    if _starting_workers:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _ignore_interrupts_in_new_worker() -> None:
    if _starting_workers:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


if hasattr(os, "register_at_fork") and hasattr(signal, "pthread_sigmask"):
    os.register_at_fork(
        before=_block_interrupts,
        after_in_parent=_unblock_interrupts,
        after_in_child=_ignore_interrupts_in_new_worker,
    )


def _initialize(parent: int, policy: tuple[safe.Limits, dict[str, str]]) -> None:
    _die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent reports Ctrl-C, once
    safe.restore(policy)


def _call(function: Callable[[J], R], job: J) -> tuple[R, list[Notice]]:
    """Run one job, keeping its input notices to hand back with the result."""
    notices: list[Notice] = []
    with safe.notices_to(notices.append):
        return function(job), notices


def pool_internals(
    pool: ProcessPoolExecutor, *, strict: bool = False
) -> tuple[list[BaseProcess], Connection | None]:
    """What stopping a pool early needs and ``concurrent.futures`` keeps private: the worker
    processes (``pool._processes``) and the parent's write end of the result pipe
    (``pool._result_queue._writer``). No public API offers either; CPython 3.11 to 3.13 have
    both, and ``tests/readers/test_parallel.py`` checks them (``strict``: AttributeError naming
    what is missing) on every Python CI runs, so a release that changes them fails there
    first. Elsewhere what is missing is left alone (the workers then end with the parent)."""
    processes = getattr(pool, "_processes", None)
    queue = getattr(pool, "_result_queue", None)
    writer = getattr(queue, "_writer", None)
    if strict:
        if not isinstance(processes, dict):
            raise AttributeError("ProcessPoolExecutor._processes (a dict of processes) is gone")
        if writer is None or not hasattr(writer, "close"):
            raise AttributeError("ProcessPoolExecutor._result_queue._writer is gone")
    found = list(processes.values()) if isinstance(processes, dict) else []
    return found, writer


def _stop(pool: ProcessPoolExecutor) -> None:
    """Kill the workers now: jobs in flight are of no use once the parent stops early."""
    # Taken before shutdown(), which drops the pool's reference to the queue.
    processes, writer = pool_internals(pool)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)
    # A worker killed while it wrote a result leaves half a message in the result pipe, and the
    # pool's manager thread would wait for the rest forever (and the interpreter for that
    # thread at exit). With the parent's write end closed too, that read ends instead.
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.close()


def map_in_order(
    function: Callable[[J], R], jobs: Iterable[J], workers: int, *, share: bool = False
) -> Iterator[R]:
    """``function(job)`` for every job, computed in ``workers`` processes and yielded in job
    order. At most two jobs per worker are in flight, so results never pile up in memory.

    With ``share`` the calling process is one of the ``workers``: while the result due next is
    not ready it computes the next job itself (one process fewer to start and to hold in
    memory, and no core left idle while the caller waits)."""
    # Imported here: multiprocessing and concurrent.futures cost ~3 MiB of memory and some
    # milliseconds, which a run without workers does not need.
    from concurrent.futures import Future, ProcessPoolExecutor

    global _starting_workers
    pool_size = workers - 1 if share else workers
    if pool_size < 1:
        raise ValueError("map_in_order needs at least one worker process")
    queued = iter(jobs)
    _starting_workers = True
    pool = ProcessPoolExecutor(
        max_workers=pool_size, initializer=_initialize, initargs=(os.getpid(), safe.snapshot())
    )
    finished = False
    try:
        pending: deque[Future[tuple[R, list[Notice]]] | tuple[R, list[Notice]]] = deque(
            pool.submit(_call, function, job) for job in itertools.islice(queued, pool_size * 2)
        )
        in_pool = len(pending)
        while pending:
            head = pending[0]
            if (
                isinstance(head, Future)
                and not head.done()
                and share
                and len(pending) < 4 * workers
            ):
                job = next(queued, None)
                if job is not None:
                    pending.append(_call(function, job))
                    continue
            pending.popleft()
            if isinstance(head, Future):
                result, notices = head.result()
                in_pool -= 1
            else:
                result, notices = head
            while in_pool < pool_size * 2:
                job = next(queued, None)
                if job is None:
                    break
                pending.append(pool.submit(_call, function, job))
                in_pool += 1
            for notice in notices:
                safe.notify(notice)
            yield result
        finished = True
    finally:
        _starting_workers = False
        if finished:
            pool.shutdown(wait=True)
        else:
            _stop(pool)
