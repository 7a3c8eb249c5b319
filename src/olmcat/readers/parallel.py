"""Ordered work in worker processes, for the directory readers (YAML parsing dominates them)."""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

J = TypeVar("J")
R = TypeVar("R")

MAX_WORKERS = 8


def worker_count(jobs: int) -> int:
    """How many processes to use: ``OLMCAT_WORKERS`` if set (1 turns workers off), else one per
    CPU, never more than jobs or MAX_WORKERS."""
    wanted = int(os.environ.get("OLMCAT_WORKERS", "0")) or os.cpu_count() or 1
    return max(1, min(wanted, jobs, MAX_WORKERS))


def map_in_order(function: Callable[[J], R], jobs: Iterable[J], workers: int) -> Iterator[R]:
    """``function(job)`` for every job, computed in ``workers`` processes and yielded in job
    order. At most two jobs per worker are in flight, so results never pile up in memory."""
    queued = iter(jobs)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[R]] = deque(
            pool.submit(function, job) for job in itertools.islice(queued, workers * 2)
        )
        while pending:
            result = pending.popleft().result()
            job = next(queued, None)
            if job is not None:
                pending.append(pool.submit(function, job))
            yield result
