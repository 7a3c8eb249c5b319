"""Worker processes: results in order, the parent's limits and notice sink, no survivors."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.notices import Notice, NoticeLog
from olmcat.readers.parallel import map_in_order, worker_count


def _square_and_report(number: int) -> tuple[int, int, int]:
    safe.notify(Notice("test.job", f"job {number}"))
    return number * number, safe.limits().max_depth, os.getpid()


def _slow(number: int) -> int:
    while number:  # never ends: only a kill stops it
        time.sleep(1)
    return os.getpid()


def test_results_in_order_with_limits_and_notices_from_the_workers() -> None:
    log = NoticeLog()
    with safe.notices_to(log), safe.using(safe.Limits(max_depth=99)):
        results = list(map_in_order(_square_and_report, range(10), workers=2))
    assert [r[0] for r in results] == [n * n for n in range(10)]
    assert {r[1] for r in results} == {99}
    assert os.getpid() not in {r[2] for r in results}
    assert [n.message for n in log] == [f"job {n}" for n in range(10)]


def _sleepy_square(number: int) -> tuple[int, int]:
    safe.notify(Notice("test.job", f"job {number}"))
    time.sleep(0.05 if number % 3 else 0.3)  # the workers' jobs finish out of order
    return number * number, os.getpid()


def test_sharing_parent_computes_jobs_too_and_order_holds() -> None:
    log = NoticeLog()
    with safe.notices_to(log):
        results = list(map_in_order(_sleepy_square, range(12), workers=2, share=True))
    assert [r[0] for r in results] == [n * n for n in range(12)]
    pids = {r[1] for r in results}
    assert os.getpid() in pids and len(pids) == 2  # the parent and one worker process
    assert [n.message for n in log] == [f"job {n}" for n in range(12)]
    with pytest.raises(ValueError, match="at least one worker"):
        list(map_in_order(_sleepy_square, range(2), workers=1, share=True))


def test_stopping_early_kills_the_workers_at_once() -> None:
    import threading

    results = map_in_order(_slow, range(6), workers=2)
    first = next(results)
    # The consumer stops (an error, Ctrl-C): the in-flight jobs, which never end, are abandoned.
    # close() returning at all shows it did not wait for them (the bound only keeps a test
    # that would hang from hanging forever).
    closing = threading.Thread(target=results.close, daemon=True)
    closing.start()
    closing.join(timeout=120)
    assert not closing.is_alive(), "stopping waited for the jobs in flight"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.kill(first, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("a worker survived")


@pytest.mark.parametrize(("value", "expected"), [("1", 1), ("2", 2), ("", None), ("0", None)])
def test_worker_count(monkeypatch: pytest.MonkeyPatch, value: str, expected: int | None) -> None:
    monkeypatch.setenv("OLMCAT_WORKERS", value)
    assert worker_count(100) == (expected or min(os.cpu_count() or 1, 8))


def test_worker_count_refuses_junk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLMCAT_WORKERS", "abc")
    with pytest.raises(InputError, match="OLMCAT_WORKERS='abc' is not a whole number"):
        worker_count(4)


_ERROR_WHILE_A_WORKER_WRITES = """
import os, sys, time
from olmcat.readers.parallel import map_in_order

FLAG, DELAY = sys.argv[1], float(sys.argv[2])

def job(number):
    if number == 2:  # the parent's own job (share): fails once the worker is writing
        while not os.path.exists(FLAG):
            time.sleep(0.001)
        time.sleep(DELAY)
        raise RuntimeError("bad input")
    result = b"x" * 256_000_000  # a result that takes the worker a while to write
    open(FLAG, "w").close()
    return result

try:
    for _ in map_in_order(job, range(4), workers=2, share=True):
        pass
except RuntimeError:
    sys.exit(7)
"""


def test_an_error_while_a_worker_writes_its_result_does_not_hang_the_exit(tmp_path: Path) -> None:
    # The CI failure of 2026-11-26: a worker killed half-way through writing a result left the
    # pool's manager thread waiting for the rest of it, and the interpreter waited for that
    # thread at exit (seen once in four runs; the loop makes the race likely).
    import subprocess
    import sys

    for attempt, delay in enumerate(("0.05", "0.1", "0.2", "0.3", "0.4")):
        flag = tmp_path / f"writing-{attempt}"
        done = subprocess.run(
            [sys.executable, "-c", _ERROR_WHILE_A_WORKER_WRITES, str(flag), delay],
            timeout=30,
            check=False,
        )
        assert done.returncode == 7


def test_the_private_pool_attributes_stopping_needs_are_there() -> None:
    """The guard of parallel.pool_internals: CI runs this on every Python it tests (.ci/run), so
    a CPython release that renames what stopping early needs fails here, loudly, before a user
    meets a hang."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from olmcat.readers.parallel import pool_internals

    pool = ProcessPoolExecutor(max_workers=1)
    try:
        assert pool.submit(os.getpid).result() != os.getpid()
        processes, writer = pool_internals(pool, strict=True)
        assert processes and all(isinstance(p, BaseProcess) for p in processes)
        assert all(p.is_alive() for p in processes)
        assert isinstance(writer, Connection) and not writer.closed
    finally:
        pool.shutdown(wait=True)

    class Renamed:
        _processes = None

    with pytest.raises(AttributeError, match=r"_processes .* is gone"):
        pool_internals(Renamed(), strict=True)  # type: ignore[arg-type]
    assert pool_internals(Renamed()) == ([], None)  # type: ignore[arg-type]
