"""``olmcat add`` against ``opm registry add``: a package's bundles are added one at a time, in
ascending version, in the package's mode, by both; after every add the refusals agree, and at the
end the channels and default channel of ``opm migrate`` of the database equal olmcat's catalog.

The oracle pulls the bundle images from a registry on a private loopback (the images of the
corpus bundle directories, with their corpus references); olmcat reads the same directories.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.errors import ValidationError
from olmcat.maintain.add import add_bundles
from olmcat.readers.update_modes import add_order
from tests.support.paths import catalog_blobs, corpus_path
from tests.support.registry_netns import OracleRegistry

ORACLE_CWD = Path("/")


def _modes(corpus: Path) -> dict[str, str]:
    modes = {}
    for line in (corpus / "bundles" / "index-build-modes.tsv").read_text().splitlines()[1:]:
        package, mode, *_ = line.split("\t")
        modes[package] = mode
    return modes


def _bundles(package_dir: Path) -> list[tuple[str, Path]]:
    """(image reference, directory) in the order the corpus index added them."""
    from olmcat.readers.bundlefiles import load_bundle_dir

    found = []
    for version in package_dir.iterdir():
        if (version / "manifests").is_dir() and (
            version / "metadata" / "annotations.yaml"
        ).is_file():
            csv_version = load_bundle_dir(version).spec_string("version")
            ref = f"127.0.0.1:5000/{package_dir.name}-bundle:{version.name.replace('+', '_')}"
            found.append((add_order(csv_version, version.name), version.name, ref, version))
    return [(ref, path) for *_, ref, path in sorted(found, key=lambda f: (f[0], f[1]))]


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OracleRegistry]:
    with OracleRegistry(tmp_path_factory.mktemp("add-registry")) as started:
        yield started


def _graph(directory: Path) -> dict[str, Any]:
    blobs = list(catalog_blobs(directory)) if directory.is_dir() else []
    return {
        "packages": {b["name"]: b["defaultChannel"] for b in blobs if b["schema"] == "olm.package"},
        "channels": {
            (b["package"], b["name"]): b["entries"] for b in blobs if b["schema"] == "olm.channel"
        },
    }


def _add_one_by_one(
    registry: OracleRegistry, package: str, mode: str, work: Path, tree: Path | None = None
) -> None:
    bundles = _bundles(tree or corpus_path("bundles", "upstream", package))
    registry.push_many(bundles)
    db, catalog = work / "index.db", work / "catalog-0"
    catalog.mkdir()
    for step, (ref, directory) in enumerate(bundles, 1):
        if db.exists():
            shutil.copyfile(db, work / "index.db.bak")
        rc, _, err = registry.opm(
            "registry", "add", "--use-http", "--mode", mode, "-d", db, "-b", ref
        )
        if rc != 0:
            for leftover in (db, Path(f"{db}-journal")):
                leftover.unlink(missing_ok=True)
            if (work / "index.db.bak").exists():
                shutil.copyfile(work / "index.db.bak", db)
        following = work / f"catalog-{step}"
        try:
            add_bundles(catalog, following, [f"{ref}={directory}"], mode=mode)  # type: ignore[arg-type]
        except ValidationError as error:
            assert rc != 0, f"{ref}: opm added it, olmcat refused: {error}"
            continue
        assert rc == 0, (
            f"{ref}: opm refused ({err.strip().splitlines()[-1][:300]}), olmcat added it"
        )
        catalog = following
    migrated = work / "migrated"
    if db.exists():
        rc, _, err = registry.opm("migrate", db, migrated)
        assert rc == 0, err
    assert _graph(catalog) == _graph(migrated), package


DEFAULT = ["cockroachdb", "poison-pill-operator"]


def _cases() -> list[Any]:
    from tests.support.paths import CORPUS

    tsv = CORPUS / "bundles" / "index-build-modes.tsv"
    if not tsv.is_file():
        return [pytest.param("-", "-", marks=pytest.mark.skip(reason=f"{CORPUS} is absent"))]
    modes = _modes(CORPUS)
    return [
        pytest.param(p, m, marks=() if p in DEFAULT else (pytest.mark.slow,))
        for p, m in sorted(modes.items())
    ]


@pytest.mark.parametrize("package,mode", _cases())
def test_adding_one_by_one_in_the_package_mode(
    registry: OracleRegistry, tmp_path: Path, package: str, mode: str
) -> None:
    _add_one_by_one(registry, package, mode, tmp_path)


def test_semver_skippatch(registry: OracleRegistry, tmp_path: Path) -> None:
    _add_one_by_one(registry, "keda", "semver-skippatch", tmp_path)


def test_json_of_graph_is_comparable() -> None:
    assert json.dumps(_graph(Path("/nonexistent"))) == '{"packages": {}, "channels": {}}'


# -- generated packages ---------------------------------------------------------------------------

VERSIONS = ("0.1.0", "1.0.0", "1.0.1", "1.1.0", "1.2.0", "2.0.0", "1.0.0-rc.1", "1.1.0+build.1")
CHANNELS = ("stable", "fast", "alpha")


@st.composite
def generated_packages(draw: st.DrawFn) -> tuple[list[Any], str]:
    """A small package: versions (pre-releases, build ids, duplicates), channels and default
    annotations, replaces / skips / skipRange inside and outside the package; and a mode."""
    from tests.support.bundletrees import BundleSpec

    count = draw(st.integers(1, 4))
    versions = draw(st.lists(st.sampled_from(VERSIONS), min_size=count, max_size=count))
    names = [f"gen.v{v}" for v in versions]
    bundles = []
    for index, (version, name) in enumerate(zip(versions, names, strict=True)):
        others = [n for n in names if n != name]
        previous = [names[index - 1]] if index else [""]
        channels = draw(st.lists(st.sampled_from(CHANNELS), min_size=1, max_size=2, unique=True))
        bundles.append(
            BundleSpec(
                dirname=f"b{index}",
                csv_name=name,
                version=version,
                channels=",".join(channels),
                # mostly a default among its channels; sometimes another one or none
                default=draw(st.sampled_from([channels[0]] * 4 + [None, *CHANNELS])),
                # mostly the chain of the add order; sometimes anything, rarely a missing one
                replaces=draw(st.sampled_from(previous * 4 + ["", *others, "gen.gone"])),
                skips=draw(
                    st.lists(st.sampled_from([*others, "gen.gone"]), max_size=2, unique=True)
                    | st.just([])
                ),
                skip_range=draw(st.sampled_from(["", "", "<1.0.0"])),
            )
        )
    return bundles, draw(st.sampled_from(["replaces", "semver", "semver-skippatch"]))


@settings(
    max_examples=int(os.environ.get("OLMCAT_ORACLE_EXAMPLES", "3")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=generated_packages())
def test_generated_packages_one_by_one(
    registry: OracleRegistry, tmp_path: Path, case: tuple[list[Any], str]
) -> None:
    from tests.support.bundletrees import PackageSpec, write_tree

    bundles, mode = case
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    write_tree(work / "tree", [PackageSpec("gen", bundles)])
    _add_one_by_one(registry, "gen", mode, work, tree=work / "tree" / "gen")
