"""The content-addressed blob cache: verified, atomic, shared by concurrent runs (no network)."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.oci.cache import BlobCache, default_cache_dir


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def test_default_location_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLMCAT_CACHE_DIR", "/somewhere/cache")
    assert default_cache_dir() == Path("/somewhere/cache")
    monkeypatch.delenv("OLMCAT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert default_cache_dir() == Path("/xdg/olmcat")


def test_a_blob_is_kept_only_when_it_matches_its_digest(tmp_path: Path) -> None:
    cache = BlobCache(tmp_path)
    data = b"layer bytes"
    path = cache.put(_digest(data), data, "test blob")
    assert path.read_bytes() == data
    assert cache.get(_digest(data)) == path and cache.hits == 1
    wrong = _digest(b"something else")
    with pytest.raises(InputError, match="digest mismatch"):
        cache.put(wrong, data, "test blob")
    assert cache.get(wrong) is None and cache.misses == 1
    assert list((tmp_path / "tmp").iterdir()) == []  # no partial file left behind


def _writer(root: str, payload: bytes, rounds: int) -> None:
    cache = BlobCache(Path(root))
    for _ in range(rounds):
        cache.put(_digest(payload), payload, "race")
        assert cache.read(_digest(payload)) == payload


def test_concurrent_processes_never_see_a_partial_blob(tmp_path: Path) -> None:
    payload = os.urandom(2 << 20)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(tmp_path), payload, 5)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    info = BlobCache(tmp_path).info()
    assert (info.blobs, info.bytes) == (1, len(payload))


def test_prune_keeps_recently_used_blobs(tmp_path: Path) -> None:
    cache = BlobCache(tmp_path)
    old, new = b"old blob", b"new blob"
    old_path = cache.put(_digest(old), old, "old")
    cache.put(_digest(new), new, "new")
    a_month_ago = time.time() - 30 * 86400
    os.utime(old_path, (a_month_ago, a_month_ago))
    result = cache.prune(older_than=7 * 86400)
    assert (result.removed, result.bytes, result.kept) == (1, len(old), 1)
    assert cache.get(_digest(new)) is not None
    assert cache.prune().removed == 1
    assert cache.info().blobs == 0


def test_cache_commands(tmp_path: Path) -> None:
    cache = BlobCache(tmp_path / "c")
    cache.put(_digest(b"x" * 2048), b"x" * 2048, "x")
    runner = CliRunner()
    env = {"OLMCAT_CACHE_DIR": str(tmp_path / "c")}
    info = runner.invoke(cli, ["cache", "info", "--json"], env=env)
    assert info.exit_code == 0, info.output
    assert '"blobs": 1' in info.output and '"bytes": 2048' in info.output
    bad = runner.invoke(cli, ["cache", "prune", "--older-than", "soon"], env=env)
    assert bad.exit_code == 2
    pruned = runner.invoke(cli, ["cache", "prune", "--older-than", "1d"], env=env)
    assert pruned.exit_code == 0 and "removed 0 blobs" in pruned.output
    pruned = runner.invoke(cli, ["cache", "prune"], env=env)
    assert pruned.exit_code == 0 and "removed 1 blobs (2.0 KiB)" in pruned.output
