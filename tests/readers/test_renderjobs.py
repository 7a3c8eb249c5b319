"""Several render sources in worker processes: the same bundles, notices and errors as one
process renders, in the same order."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import olmcat.readers.parallel as parallel
from olmcat.errors import ValidationError
from olmcat.notices import NoticeLog
from olmcat.readers.bundlerender import render_bundles
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import write_bundle


def _sources(root: Path) -> list[Path]:
    """Bundles out of output order, two of one name (a stable tie), with notices of two
    kinds spread over several bundles."""
    bad = csv_doc("demo.v2.0.0", "2.0.0")
    bad["metadata"]["annotations"] = {"olm.properties": "not json"}
    untyped = csv_doc("demo.v3.0.0", "3.0.0")
    untyped["metadata"]["annotations"] = {"olm.properties": '[{"value": {"from": "csv"}}]'}
    return [
        write_bundle(root, "zeta", "1.0.0"),
        write_bundle(root, "demo", "2.0.0", csv=bad),
        write_bundle(root, "demo", "3.0.0", csv=untyped, dependencies=[{"value": {}}]),
        write_bundle(root, "alpha", "1.0.0"),
        write_bundle(root, "demo", "1.0.0"),
        write_bundle(root, "again", "1.0.0", dirname="copy-a", name="same.v1.0.0"),
        write_bundle(root, "again", "2.0.0", dirname="copy-b", name="same.v1.0.0"),
    ]


def _render(sources: list[Path], **kwargs: Any) -> tuple[str, list[tuple[str, str, str]]]:
    log = NoticeLog()
    bundles = render_bundles(
        sources, image_ref_template="example.com/{package}:{dir}", notify=log, **kwargs
    )
    text = "".join(render_json(bundle_json(b) for b in bundles))
    return text, [(n.code, n.bundle, n.file) for n in log.notices]


@pytest.fixture
def pool_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The worker count of every map_in_order call (the worker path was taken)."""
    calls: list[int] = []
    real: Callable[..., Any] = parallel.map_in_order

    def spy(function: Any, jobs: Any, workers: int, **kwargs: Any) -> Any:
        calls.append(workers)
        return real(function, jobs, workers, **kwargs)

    monkeypatch.setattr(parallel, "map_in_order", spy)
    yield calls


@pytest.mark.parametrize("tag", ["1.26", "1.73"])
def test_workers_render_what_one_process_renders_in_the_same_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_calls: list[int], tag: str
) -> None:
    sources = _sources(tmp_path)
    monkeypatch.setenv("OLMCAT_WORKERS", "1")
    serial = _render(sources, release=tag)
    assert pool_calls == []
    monkeypatch.setenv("OLMCAT_WORKERS", "3")
    parallel_run = _render(sources, release=tag)
    assert pool_calls == [3]
    assert parallel_run == serial
    text, notices = serial
    # the order opm writes: package, then name (the tie of "same.v1.0.0" kept in source order)
    assert [line for line in text.splitlines() if line.startswith('    "image"')] == [
        '    "image": "example.com/again:copy-a",',
        '    "image": "example.com/again:copy-b",',
        '    "image": "example.com/alpha:1.0.0",',
        '    "image": "example.com/demo:1.0.0",',
        '    "image": "example.com/demo:2.0.0",',
        '    "image": "example.com/demo:3.0.0",',
        '    "image": "example.com/zeta:1.0.0",',
    ]
    # notices in source order: demo 2.0.0's, then demo 3.0.0's (CSV annotation, dependency)
    assert [(code, bundle) for code, bundle, _ in notices] == [
        ("bundledir.csv-properties-invalid", "demo.v2.0.0"),
        ("bundledir.property-without-type", "demo.v3.0.0"),
        ("bundledir.property-without-type", "demo.v3.0.0"),
    ]


def test_an_error_in_a_worker_is_the_error_one_process_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_calls: list[int]
) -> None:
    sources = _sources(tmp_path)
    broken = write_bundle(tmp_path, "broken", "1.0.0", dependencies=[{"type": "olm.gvk"}])
    (broken / "manifests" / "Dockerfile").write_text("FROM scratch\n")  # a notice first
    sources.insert(3, broken)
    runs = []
    for workers in ("1", "2"):
        monkeypatch.setenv("OLMCAT_WORKERS", workers)
        log = NoticeLog()
        with pytest.raises(ValidationError) as caught:
            render_bundles(sources, notify=log)
        runs.append((str(caught.value), [(n.code, n.bundle, n.file) for n in log.notices]))
    assert pool_calls == [2]
    assert runs[0] == runs[1]
    message, notices = runs[0]
    assert str(broken / "metadata" / "dependencies.yaml") in message
    # the notices of the sources before it, and the broken bundle's own, sent before the error
    assert [code for code, _, _ in notices][-1] == "bundledir.object-without-kind"
    assert notices[0][:2] == ("bundledir.csv-properties-invalid", "demo.v2.0.0")


def test_workers_are_gone_after_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pool_calls: list[int]
) -> None:
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    if not children.exists():
        pytest.skip("no /proc/PID/task/TID/children here")
    before = set(children.read_text().split())  # e.g. registries other tests started
    monkeypatch.setenv("OLMCAT_WORKERS", "2")
    render_bundles(_sources(tmp_path))
    assert pool_calls == [2]
    assert set(children.read_text().split()) == before
