"""Bundle-format trees: channels of ``olmcat migrate pkgman --mode ...`` against the oracle's
``bundle-index index --mode PKG=MODE`` + ``opm migrate`` (``opm registry add`` of each package's
bundles in ascending version, in the package's mode).

Hypothesis draws whole trees of small packages (versions with pre-releases, build ids, ties and
invalid ones; channel and default-channel annotations; replaces, skips and skipRange pointing
inside and outside the package; ci.yaml updateGraph values) and one oracle run checks a whole
tree. Per package the package and channel blobs must be byte-identical, the bundles the same, or
both must refuse: a package the oracle could not add (or added only partly) is refused by olmcat
without ``--permissive`` and equals the oracle's with it.

Add a case: extend the strategies (``package_specs``), or add a fixed tree to ``FIXED``.
Run alone: ``pytest -m differential tests/differential/test_bundles_index.py``;
``OLMCAT_DIFF_EXAMPLES=N`` draws N trees (default 1; the ``slow`` test draws 4 more).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from olmcat.errors import ValidationError
from olmcat.readers.bundledir import BundleDirCatalog, read_package
from olmcat.readers.update_modes import MODES, Mode, add_order
from olmcat.writers.fbc import blobs, render_json
from tests.support.bundletrees import (
    IMAGE_TEMPLATE,
    BundleSpec,
    OracleIndex,
    PackageSpec,
    blob_texts,
    oracle_index,
    write_tree,
)
from tests.support.oracle import require_bundle_index

EXAMPLES = int(os.environ.get("OLMCAT_DIFF_EXAMPLES", "1"))
VERSIONS = (
    "0.1.0",
    "0.2.0",
    "1.0.0",
    "1.0.1",
    "1.0.2",
    "1.1.0",
    "1.2.0",
    "2.0.0",
    "1.0.0-rc.1",
    "1.1.0+build.1",
)
CHANNELS = ("stable", "fast", "alpha")
UPDATE_GRAPHS = ("replaces-mode", "semver-mode", "semver-skippatch-mode", "bogus-mode")


@st.composite
def package_specs(draw: st.DrawFn, name: str) -> tuple[PackageSpec, Mode | None]:
    count = draw(st.integers(1, 4))
    # Mostly valid versions; an invalid ("v1.3.0") or missing one now and then.
    versions: list[str | None] = draw(
        st.lists(st.sampled_from([*VERSIONS * 3, "v1.3.0", None]), min_size=count, max_size=count)
    )
    names = [f"{name}.v{v}" if v else f"{name}.nover{i}" for i, v in enumerate(versions)]
    if count > 1 and draw(st.integers(0, 7)) == 7:
        names[-1] = names[0]  # a CSV name used twice
    bundles = []
    for index, (version, csv_name) in enumerate(zip(versions, names, strict=True)):
        others = [n for n in names if n != csv_name]
        channel_list = draw(
            st.lists(st.sampled_from(CHANNELS), min_size=1, max_size=3, unique=True)
        )
        channels = ",".join(channel_list) if draw(st.integers(0, 11)) < 11 else ""
        default = draw(st.none() | st.sampled_from(CHANNELS))
        bundles.append(
            BundleSpec(
                dirname=f"b{index}",
                csv_name=csv_name,
                version=version,
                channels=channels,
                default=default,
                replaces=draw(st.sampled_from(["", "", *others, f"{name}.gone"])),
                skips=draw(
                    st.lists(st.sampled_from([*others, f"{name}.gone"]), max_size=2, unique=True)
                ),
                skip_range=draw(st.sampled_from(["", "", "<1.0.0", ">=0.1.0 <2.0.0"])),
            )
        )
    # opm adds a replaces-mode call's bundles in Go map order: the default channel is then only
    # determined when the highest version names one (or none does). Keep to such trees.
    if any(b.default for b in bundles):
        highest = max(bundles, key=lambda b: (add_order(b.version or "", b.dirname), b.dirname))
        if highest.default is None:
            highest.default = next(b.default for b in bundles if b.default)
    update_graph = draw(st.none() | st.sampled_from(UPDATE_GRAPHS))
    mode = draw(st.none() | st.sampled_from(MODES))
    return PackageSpec(name, bundles, update_graph), mode


@st.composite
def trees(draw: st.DrawFn) -> list[tuple[PackageSpec, Mode | None]]:
    count = draw(st.integers(6, 10))
    return [draw(package_specs(f"p{index:02d}")) for index in range(count)]


def olmcat_graphs(
    tree: Path, modes: dict[str, Mode]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Package and channel blob text per package, and bundle names, from ``--permissive``."""
    catalog = BundleDirCatalog(
        tree, image_ref_template=IMAGE_TEMPLATE, package_modes=modes, permissive=True
    )
    graphs, bundles = {}, {}
    for pkg in catalog.packages():
        texts = blob_texts("".join(render_json(blobs(pkg))))
        graphs[pkg.name] = "".join(t for b, t in texts if b["schema"] != "olm.bundle")
        bundles[pkg.name] = sorted(b.name for b in pkg.bundles)
    return graphs, bundles


def compare(tree: Path, oracle: OracleIndex, modes: dict[str, Mode]) -> list[str]:
    """Differences between olmcat and the oracle, one line per package."""
    assert not oracle.migrate_error, oracle.migrate_error
    graphs, bundles = olmcat_graphs(tree, modes)
    catalog = BundleDirCatalog(tree, image_ref_template=IMAGE_TEMPLATE, package_modes=modes)
    problems = []
    for name in sorted(p.name for p in tree.iterdir()):
        theirs = oracle.packages.get(name)
        if theirs is None or theirs.graph is None:
            if name in graphs:
                problems.append(f"{name}: oracle has no package ({theirs}), olmcat has one")
            continue
        if graphs.get(name) != theirs.graph:
            problems.append(
                f"{name}: graphs differ\n  oracle: {theirs.graph!r}\n  olmcat: {graphs.get(name)!r}"
                f"\n  note: {theirs.note}"
            )
        elif bundles[name] != theirs.bundles:
            problems.append(f"{name}: bundles {bundles[name]} != oracle {theirs.bundles}")
        # Without --permissive, a bundle the oracle failed to add is a refusal.
        refused = theirs.added < len(catalog.bundle_dirs(name))
        try:
            read_package(
                name,
                catalog.bundle_dirs(name),
                mode=catalog.mode_of(name),
                image_ref_template=IMAGE_TEMPLATE,
            )
        except ValidationError as error:
            if not refused:
                problems.append(f"{name}: olmcat refuses ({error}), the oracle did not")
        else:
            if refused:
                problems.append(f"{name}: the oracle refused a bundle ({theirs.note}), olmcat not")
    return problems


def _check_trees(tmp_path_factory: pytest.TempPathFactory, specs: list) -> None:  # type: ignore[type-arg]
    require_bundle_index()
    work = tmp_path_factory.mktemp("bundle-index")
    tree = write_tree(work / "tree", [spec for spec, _ in specs])
    modes = {spec.name: mode for spec, mode in specs if mode is not None}
    oracle = oracle_index(tree, work / "oracle", modes)
    problems = compare(tree, oracle, modes)
    assert not problems, "\n".join(problems)


SETTINGS = dict(
    deadline=None,
    derandomize=False,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each example is one oracle run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@settings(max_examples=EXAMPLES, **SETTINGS)  # type: ignore[arg-type]
@given(specs=trees())
def test_generated_trees_match_opm_registry_add(
    tmp_path_factory: pytest.TempPathFactory,
    specs: list,  # type: ignore[type-arg]
) -> None:
    _check_trees(tmp_path_factory, specs)


@pytest.mark.slow
@settings(max_examples=4, **SETTINGS)  # type: ignore[arg-type]
@given(specs=trees())
def test_more_generated_trees_match_opm_registry_add(
    tmp_path_factory: pytest.TempPathFactory,
    specs: list,  # type: ignore[type-arg]
) -> None:
    _check_trees(tmp_path_factory, specs)
