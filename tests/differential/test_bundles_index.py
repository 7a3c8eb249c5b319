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
``OLMCAT_DIFFERENTIAL_EXAMPLES=N`` draws N trees (default 1; the ``slow`` test draws 4 more).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from olmcat.errors import ValidationError
from olmcat.migrate import migrate_pkgman
from olmcat.readers.bundledir import BundleDirCatalog
from olmcat.readers.update_modes import MODES, Mode, add_order
from tests.support.builders import csv as csv_doc
from tests.support.bundletrees import (
    IMAGE_TEMPLATE,
    BundleSpec,
    PackageSpec,
    chain,
    compare,
    oracle_index,
    write_bundle,
    write_tree,
)
from tests.support.oracle import require_bundle_index
from tests.support.paths import parse_stream

EXAMPLES = int(os.environ.get("OLMCAT_DIFFERENTIAL_EXAMPLES", "0")) or 1
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


# -- fixed trees -------------------------------------------------------------------------------


def _substitutes(root: Path) -> None:
    write_bundle(root, "subst", "1.0.0")
    csv = csv_doc("subst.v1.1.0", "1.1.0", replaces="subst.v1.0.0")
    csv["metadata"]["annotations"] = {"olm.substitutesFor": "subst.v1.0.0"}
    write_bundle(root, "subst", "1.1.0", csv=csv)
    write_bundle(root, "subst", "1.2.0", replaces="subst.v1.1.0")


def _package_manifest_inside(root: Path) -> None:
    for bundle in chain(root, "inside", "1.0.0", "1.1.0"):
        (bundle / "manifests" / "inside.package.yaml").write_text(
            "packageName: inside\nchannels: [{name: stable, currentCSV: inside.v1.1.0}]\n"
        )


def _two_csvs(root: Path) -> None:
    write_bundle(root, "twocsv", "1.0.0", docs=[csv_doc("twocsv.v0.9.0", "0.9.0")])
    write_bundle(root, "twocsv", "1.1.0", replaces="twocsv.v1.0.0")


FIXED = {
    "substitutesFor (refused without --enable-alpha)": _substitutes,
    "package manifest inside a bundle's manifests/": _package_manifest_inside,
    "a second CSV in a bundle": _two_csvs,
}


def test_fixed_trees_match_opm_registry_add(tmp_path: Path) -> None:
    require_bundle_index()
    tree = tmp_path / "tree"
    for build in FIXED.values():
        build(tree)
    for mode in ("replaces", "semver"):
        modes: dict[str, Mode] = {name: mode for name in ("subst", "inside", "twocsv")}
        oracle = oracle_index(tree, tmp_path / f"oracle-{mode}", modes)
        assert not compare(tree, oracle, modes)
    # Through migrate pkgman too: the package manifest does not turn its bundle dir into a
    # package-manifest package (the image template applies).
    out = tmp_path / "out"
    migrate_pkgman(tree, out, image_ref_template=IMAGE_TEMPLATE, permissive=True)
    inside = parse_stream((out / "inside" / "catalog.json").read_text())
    assert [b["image"] for b in inside if b["schema"] == "olm.bundle"] == [
        "127.0.0.1:5000/inside-bundle:1.0.0",
        "127.0.0.1:5000/inside-bundle:1.1.0",
    ]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("gvk dependency without a value", "dependency olm.gvk: has no value"),
        ("empty channel name", "names an empty channel"),
    ],
)
def test_what_opm_migrate_refuses_is_refused(tmp_path: Path, case: str, message: str) -> None:
    """opm registry add accepts these; opm migrate then refuses the whole catalog."""
    require_bundle_index()
    tree = tmp_path / "tree"
    if case == "empty channel name":
        write_bundle(tree, "demo", "1.0.0", channels="stable,")
    else:
        write_bundle(tree, "demo", "1.0.0", dependencies="dependencies:\n- type: olm.gvk\n")
    oracle = oracle_index(tree, tmp_path / "oracle")
    assert oracle.packages["demo"].added == 1
    assert oracle.migrate_error
    with pytest.raises(ValidationError, match=message):
        list(BundleDirCatalog(tree, image_ref_template=IMAGE_TEMPLATE).packages())


def test_names_shared_across_packages_are_a_known_difference(tmp_path: Path) -> None:
    """Deviation: opm registry add refuses a package whose CSVs name (as bundle, replaces or
    skips) a bundle another package added before; olmcat builds each package on its own."""
    require_bundle_index()
    tree = tmp_path / "tree"
    write_bundle(tree, "aaa", "1.0.0", name="shared.v1.0.0")
    write_bundle(tree, "bbb", "1.0.0", skips=["shared.v1.0.0"])
    oracle = oracle_index(tree, tmp_path / "oracle", mode="replaces")
    assert oracle.packages["aaa"].added == 1
    assert oracle.packages["bbb"].added == 0
    assert "must belong to exactly one package" in oracle.packages["bbb"].note or (
        "belongs to package aaa" in oracle.packages["bbb"].note
    )
    pkgs = list(BundleDirCatalog(tree, mode="replaces").packages())
    assert [p.name for p in pkgs] == ["aaa", "bbb"]
