"""Bundle directories: ``olmcat render`` against ``opm render`` of the image built from each
(the oracle's ``bundle-index render``), byte for byte, or the same refusal.

Hypothesis draws trees of bundle dirs that stress the bundle parser and the property rules:
dependencies.yaml (GVK, package, label, constraint, missing and null values), properties.yaml and
the CSV's olm.properties annotation (valid, invalid, overriding olm.package), related images with
repeated images, operator images, owned CRDs, JSON instead of YAML metadata, stray files (a
Dockerfile, a package manifest, a second CSV, multi-document files, unparsable text). olmcat
renders as the oracle's release (v1.26.5) does, so related images are compared byte for byte too:
that release sorts them with Go 1.19's sort, which olmcat follows for releases before v1.41.

Add a case: extend ``bundle_specs``.
Run alone: ``pytest tests/differential/test_bundles_render.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from olmcat.errors import OlmcatError
from olmcat.go.opm import opm_release
from olmcat.readers.bundlerender import render_bundle_dir
from olmcat.writers.fbc import bundle_json, render_json
from tests.support.bundletrees import (
    IMAGE_TEMPLATE,
    BundleSpec,
    PackageSpec,
    oracle_render,
    write_tree,
)
from tests.support.oracle import require_bundle_index

V1265 = opm_release("1.26.5")  # the oracle
EXAMPLES = int(os.environ.get("OLMCAT_DIFFERENTIAL_EXAMPLES", "0")) or 1

GVK = st.fixed_dictionaries(
    {
        "group": st.sampled_from(["example.com", "apps.example.io", ""]),
        "kind": st.sampled_from(["Widget", "Gadget"]),
        "version": st.sampled_from(["v1", "v1beta1"]),
    }
)
DEPENDENCIES = st.one_of(
    st.builds(lambda v: {"type": "olm.gvk", "value": v}, GVK),
    st.builds(
        lambda p, r: {"type": "olm.package", "value": {"packageName": p, "version": r}},
        st.sampled_from(["etcd", "prometheus"]),
        st.sampled_from([">=0.9.0", "<2.0.0 >1.0.0"]),
    ),
    st.just({"type": "olm.label", "value": {"label": "needs-<this>&that"}}),
    st.just(
        {
            "type": "olm.constraint",
            "value": {
                "failureMessage": "m",
                "cel": {"rule": 'properties.exists(p, p.type == "x")'},
            },
        }
    ),
    st.just({"type": "olm.gvk", "value": None}),
    st.just({"type": "olm.label"}),  # no value: written as null
    st.just({"type": "olm.gvk"}),  # no value: opm refuses the bundle
    st.just({"value": {"label": "untyped"}}),  # no type: kept with type "" (issue 21)
)
PROPERTIES = st.one_of(
    st.builds(
        lambda v: {"type": "olm.maxOpenShiftVersion", "value": v}, st.sampled_from(["4.8", 4.9])
    ),
    st.just({"type": "olm.label", "value": "x"}),
    st.just({"type": "example.com/custom", "value": {"z": [1, 2], "a": "é <b>"}}),
    st.builds(lambda v: {"type": "olm.gvk", "value": v}, GVK),
    st.just({"type": "olm.package", "value": {"packageName": "other", "version": "9.9.9"}}),
    st.just({"type": "example.com/nothing"}),
    st.just({"value": {"label": "untyped"}}),  # no type: kept with type "" (issue 21)
)
CSV_PROPERTIES = st.one_of(
    st.none(),
    st.lists(PROPERTIES, max_size=3).map(json.dumps),
    st.just('[{"type": "olm.maxOpenShiftVersion", "value": "4.\\u0031"}]'),
    st.just("not json"),
    st.just('{"type": "olm.label"}'),
    st.just('[{"value": "untyped"}]'),
)
RELATED = st.lists(
    st.builds(
        lambda n, i: {"name": n, "image": i},
        st.sampled_from(["db", "op", "proxy", ""]),
        st.sampled_from(
            ["quay.io/a/db:1", "quay.io/a/op:1", "docker.io/b/proxy@sha256:" + "0" * 64]
        ),
    ),
    max_size=5,
)
STRAY = st.dictionaries(
    st.sampled_from(
        ["Dockerfile", "pkg.package.yaml", "zz-second-csv.yaml", "multi.yaml", "notes.txt"]
    ),
    st.just(""),
    max_size=2,
)
STRAY_TEXT = {
    "Dockerfile": "FROM scratch\nCOPY manifests /manifests/\n",
    "pkg.package.yaml": "packageName: pkg\nchannels: [{name: stable, currentCSV: x}]\n",
    "zz-second-csv.yaml": (
        "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\n"
        "metadata: {name: second.v9.9.9}\nspec: {version: 9.9.9}\n"
    ),
    "multi.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\ndata: {a: '<&>'}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: second}\n"
    ),
    "notes.txt": "kind: [unclosed\n",
}


CRDS = [
    ("widgets", "example.com", "Widget", ["v1", "v1alpha1"]),
    ("gadgets", "apps.example.io", "Gadget", ["v1beta1"]),
]


@st.composite
def bundle_specs(draw: st.DrawFn, package: str, index: int) -> BundleSpec:
    version = draw(st.sampled_from(["1.0.0", "0.1.0-rc.1", "2.3.4+build.5", None]))
    crds = [
        CRDS[i] for i in draw(st.lists(st.sampled_from(range(len(CRDS))), max_size=2, unique=True))
    ]
    stray = {name: STRAY_TEXT[name] for name in draw(STRAY)}
    return BundleSpec(
        dirname=f"b{index}",
        csv_name=f"{package}.b{index}",
        version=version,
        channels=draw(st.sampled_from(["stable", "stable,fast", ""])),
        default=draw(st.sampled_from([None, "stable"])),
        skip_range=draw(st.sampled_from(["", "<1.0.0"])),
        dependencies=draw(st.none() | st.lists(DEPENDENCIES, max_size=4)),
        properties=draw(st.none() | st.lists(PROPERTIES, max_size=4)),
        csv_properties=draw(CSV_PROPERTIES),
        related_images=draw(st.none() | RELATED),
        operator_images=draw(
            st.lists(st.sampled_from(["quay.io/a/op:1", "quay.io/a/sidecar:2", ""]), max_size=3)
        ),
        crds=crds,
        metadata_as_json=draw(st.booleans()),
        stray_files=stray,
    )


@st.composite
def trees(draw: st.DrawFn) -> list[PackageSpec]:
    packages = []
    for index in range(draw(st.integers(3, 6))):
        name = f"r{index:02d}"
        count = draw(st.integers(1, 4))
        packages.append(PackageSpec(name, [draw(bundle_specs(name, i)) for i in range(count)]))
    return packages


def compare_renders(tree: Path, work: Path) -> list[str]:
    oracle = oracle_render(tree, work)
    problems = []
    for package_dir in sorted(tree.iterdir()):
        for bundle_dir in sorted(package_dir.iterdir()):
            key = f"{package_dir.name}-{bundle_dir.name}"
            ref = IMAGE_TEMPLATE.format(package=package_dir.name, dir=bundle_dir.name)
            try:
                ours = "".join(
                    render_json(
                        [
                            bundle_json(
                                render_bundle_dir(
                                    bundle_dir, image_ref_template=IMAGE_TEMPLATE, release=V1265
                                )
                            )
                        ]
                    )
                )
            except OlmcatError as error:
                if key in oracle.texts:
                    problems.append(f"{key}: olmcat refuses ({error}), opm renders")
                continue
            theirs = oracle.texts.get(key)
            if theirs is None:
                problems.append(f"{key}: opm refuses ({oracle.failures.get(ref)}), olmcat renders")
            elif ours != theirs:
                # As the oracle's release renders it, ties in related images included.
                problems.append(f"{key}: renders differ\n--- opm\n{theirs}\n--- olmcat\n{ours}")
    return problems


SETTINGS: dict[str, Any] = dict(
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: each example is one oracle run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _check(tmp_path_factory: pytest.TempPathFactory, packages: list[PackageSpec]) -> None:
    require_bundle_index()
    work = tmp_path_factory.mktemp("bundle-render")
    tree = write_tree(work / "tree", packages)
    problems = compare_renders(tree, work / "oracle")
    assert not problems, "\n".join(problems)


def test_entries_without_type_render_as_opm_renders_them(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # issue 21: a property (properties.yaml, the CSV's olm.properties) or dependency without
    # type; olmcat keeps what opm keeps (and says so, tests/readers/test_bundlerender.py)
    untyped = {"value": {"label": "untyped"}}
    bundle = BundleSpec(
        dirname="b0",
        csv_name="untyped.b0",
        version="1.0.0",
        channels="stable",
        dependencies=[untyped],
        properties=[untyped, {"type": "olm.label", "value": {"label": "typed"}}],
        csv_properties='[{"value": "from the CSV"}]',
    )
    _check(tmp_path_factory, [PackageSpec("untyped", [bundle])])


@settings(max_examples=EXAMPLES, **SETTINGS)
@given(packages=trees())
def test_generated_bundles_render_as_opm_renders_them(
    tmp_path_factory: pytest.TempPathFactory, packages: list[PackageSpec]
) -> None:
    _check(tmp_path_factory, packages)


@pytest.mark.slow
@settings(max_examples=4, **SETTINGS)
@given(packages=trees())
def test_more_generated_bundles_render_as_opm_renders_them(
    tmp_path_factory: pytest.TempPathFactory, packages: list[PackageSpec]
) -> None:
    _check(tmp_path_factory, packages)
