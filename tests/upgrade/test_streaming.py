"""upgrade_check reads OLD and NEW side by side, one package of each at a time: the memory of a
check must not grow with the size of the catalogs (issue 22, the 30x rows of scripts/bench.py)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

import pytest

import olmcat.readers.catalog as catalog_module
from olmcat.model import PackageCatalog
from olmcat.notices import Notice
from olmcat.upgrade import Installed, upgrade_check
from tests.support.fbc_catalogs import bnd, ch, entry, pkg, write_fbc


def _package(name: str, versions: list[str]) -> list[dict[str, Any]]:
    entries = []
    for index, version in enumerate(versions):
        replaces = f"{name}.v{versions[index - 1]}" if index else ""
        entries.append(entry(f"{name}.v{version}", replaces))
    return [
        pkg(name),
        ch("stable", *entries, package=name),
        *(bnd(f"{name}.v{v}", v, name) for v in versions),
    ]


class _Recording:
    """A catalog source that logs every package it hands out and sends a notice for each, as a
    reader does for what it doubts."""

    def __init__(self, inner: Any, side: str, log: list[tuple[str, str]], notify: Any) -> None:
        self._inner, self._side, self._log, self._notify = inner, side, log, notify

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        for package in self._inner.packages(only):
            self._log.append((self._side, package.name))
            self._notify(Notice("test.read", f"read {package.name}", package=package.name))
            yield package


@pytest.fixture
def pulls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every package a catalog hands out, as (catalog directory name, package), in order."""
    log: list[tuple[str, str]] = []
    real_open = catalog_module.open_catalog

    def recording_open(reference: Any, **kwargs: Any) -> catalog_module.Catalog:
        opened = real_open(reference, **kwargs)
        side = Path(str(reference)).name
        opened.source = _Recording(opened.source, side, log, kwargs["notify"])
        return opened

    monkeypatch.setattr(catalog_module, "open_catalog", recording_open)
    return log


def test_old_and_new_are_read_side_by_side_one_package_at_a_time(
    tmp_path: Path, pulls: list[tuple[str, str]]
) -> None:
    names = [f"op{i:02d}" for i in range(12)]
    old = write_fbc(tmp_path / "old", *(b for n in names[:10] for b in _package(n, ["1.0.0"])))
    # NEW drops op00 and op01 and adds op10 and op11
    new = write_fbc(
        tmp_path / "new", *(b for n in names[2:] for b in _package(n, ["1.0.0", "1.1.0"]))
    )
    inventory = [Installed("list", n, channel="stable", version="1.0.0") for n in names]
    inventory.append(Installed("list", "elsewhere", channel="stable", version="1.0.0"))
    report = upgrade_check(old, new, inventory)

    assert len(report.operators) == len(inventory)
    statuses = {v.installed.package: v.status for v in report.operators}
    assert statuses["op00"] == statuses["op01"] == "package-removed"
    assert statuses["op05"] == "ready"
    assert statuses["elsewhere"] == "not-in-catalog"
    # a package of either catalog is taken only once the other catalog has caught up to it:
    # the two streams advance in lockstep, so no more than one package of each is ever held
    for index, (side, name) in enumerate(pulls):
        other = "new" if side == "old" else "old"
        ahead = [n for s, n in pulls[:index] if s == other and n > name]
        assert len(ahead) <= 1, (side, name, ahead)
    assert [n for s, n in pulls if s == "old"] == names[:10]
    assert [n for s, n in pulls if s == "new"] == names[2:]
    taken = [n for _, n in pulls]
    # interleaved, not one catalog after the other
    assert taken.index("op09") > taken.index("op03") and pulls[-1] == ("new", "op11")
    assert ("new", "op02") in pulls[: pulls.index(("old", "op04"))]


def test_notices_of_old_come_before_those_of_new(
    tmp_path: Path, pulls: list[tuple[str, str]]
) -> None:
    old = write_fbc(tmp_path / "old", *_package("a", ["1.0.0"]), *_package("b", ["1.0.0"]))
    new = write_fbc(tmp_path / "new", *_package("a", ["1.0.0"]), *_package("b", ["1.0.0"]))
    seen: list[Notice] = []
    inventory = [Installed("list", n, channel="stable", version="1.0.0") for n in ("a", "b")]
    upgrade_check(old, new, inventory, notify=seen.append)
    # read interleaved (old a, new a, old b, new b) ...
    assert pulls == [("old", "a"), ("new", "a"), ("old", "b"), ("new", "b")]
    # ... but told as when one catalog was read after the other, each marked with its side
    assert [n.message for n in seen] == ["OLD: read a", "OLD: read b", "NEW: read a", "NEW: read b"]
    assert [n.file for n in seen] == [str(old), str(old), str(new), str(new)]
