"""olmcat add: bundle directories and saved images, the modes, refusals, new catalogs."""

from __future__ import annotations

from pathlib import Path

import pytest

from olmcat.errors import InputError, ValidationError
from olmcat.maintain import add_bundles
from olmcat.model import PackageCatalog
from olmcat.notices import NoticeLog
from olmcat.readers.catalog import open_catalog
from tests.support.bundletrees import bundle_image, chain, write_bundle


def read(path: Path) -> dict[str, PackageCatalog]:
    with open_catalog(path) as source:
        return {p.name: p for p in source.packages()}


def graph(pkg: PackageCatalog) -> dict[str, list[tuple[str, str, tuple[str, ...]]]]:
    return {c.name: [(e.name, e.replaces, e.skips) for e in c.entries] for c in pkg.channels}


@pytest.fixture
def bundles(tmp_path: Path) -> Path:
    root = tmp_path / "bundles"
    chain(root, "demo", "1.0.0", "1.1.0", "1.2.0")
    return root / "demo"


def test_a_new_catalog_grows_bundle_by_bundle(bundles: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    first = add_bundles(empty, tmp_path / "c1", [f"quay.io/x/demo:1.0.0={bundles / '1.0.0'}"])
    assert first.diff.summary()["packages"]["added"] == 1
    add_bundles(tmp_path / "c1", tmp_path / "c2", [f"quay.io/x/demo:1.1.0={bundles / '1.1.0'}"])
    pkg = read(tmp_path / "c2")["demo"]
    assert graph(pkg) == {"stable": [("demo.v1.0.0", "", ()), ("demo.v1.1.0", "demo.v1.0.0", ())]}
    assert pkg.package.default_channel == "stable"
    assert {b.name: b.image for b in pkg.bundles} == {
        "demo.v1.0.0": "quay.io/x/demo:1.0.0",
        "demo.v1.1.0": "quay.io/x/demo:1.1.0",
    }


def test_replaces_mode_refusals(bundles: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    add_bundles(empty, tmp_path / "c1", [f"img:1={bundles / '1.0.0'}"])
    # the same bundle again
    with pytest.raises(ValidationError, match="already"):
        add_bundles(tmp_path / "c1", tmp_path / "c2", [f"img:1={bundles / '1.0.0'}"])
    # 1.2.0 replaces 1.1.0, which is not in the catalog
    with pytest.raises(ValidationError, match=r"demo\.v1\.1\.0"):
        add_bundles(tmp_path / "c1", tmp_path / "c3", [f"img:3={bundles / '1.2.0'}"])
    assert not (tmp_path / "c2").exists() and not (tmp_path / "c3").exists()


def test_semver_mode_ignores_replaces(bundles: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    add_bundles(empty, tmp_path / "c1", [f"img:1={bundles / '1.0.0'}"], mode="semver")
    add_bundles(tmp_path / "c1", tmp_path / "c2", [f"img:3={bundles / '1.2.0'}"], mode="semver")
    assert graph(read(tmp_path / "c2")["demo"]) == {
        "stable": [("demo.v1.0.0", "", ()), ("demo.v1.2.0", "demo.v1.0.0", ())]
    }


def test_saved_bundle_image_and_template(bundles: Path, tmp_path: Path) -> None:
    archive = bundle_image(bundles / "1.0.0", tmp_path / "b.oci.tar", ref="quay.io/x/demo:1.0.0")
    empty = tmp_path / "empty"
    empty.mkdir()
    add_bundles(empty, tmp_path / "c1", [str(archive)])
    assert read(tmp_path / "c1")["demo"].bundles[0].image == "quay.io/x/demo:1.0.0"
    notices = NoticeLog()
    add_bundles(
        tmp_path / "c1",
        tmp_path / "c2",
        [str(bundles / "1.1.0")],
        image_ref_template="quay.io/x/{package}:{version}",
        notify=notices,
    )
    images = {b.name: b.image for b in read(tmp_path / "c2")["demo"].bundles}
    assert images["demo.v1.1.0"] == "quay.io/x/demo:1.1.0"
    add_bundles(tmp_path / "c2", tmp_path / "c3", [str(bundles / "1.2.0")], notify=notices)
    assert notices.codes()["maintain.bundle-without-image"] == 1


def test_in_place_and_bad_input(bundles: Path, tmp_path: Path) -> None:
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    add_bundles(catalog, None, [f"img:1={bundles / '1.0.0'}"], in_place=True)
    add_bundles(catalog, None, [f"img:2={bundles / '1.1.0'}"], in_place=True)
    assert len(read(catalog)["demo"].bundles) == 2
    with pytest.raises(InputError, match="no such bundle directory"):
        add_bundles(catalog, None, [str(tmp_path / "nope")], in_place=True)
    with pytest.raises(InputError, match="unknown mode"):
        add_bundles(
            catalog, None, [str(bundles / "1.2.0")], mode="replaces-then-semver", in_place=True
        )  # type: ignore[arg-type]
    other = write_bundle(tmp_path / "more", "other", "1.0.0")
    result = add_bundles(
        catalog, tmp_path / "out", [f"img:o={other}", f"img:3={bundles / '1.2.0'}"]
    )
    assert result.details["added"] == {"demo": ["demo.v1.2.0"], "other": ["other.v1.0.0"]}
