"""``olmcat filter``: selection, edge rewriting, validity of the result (opm's rules), the CLI."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.go.semver import Version, parse_constraint, parse_version_tolerant
from olmcat.mirror.filter import (
    FilterSpec,
    PackageSelector,
    filter_catalog,
    filter_package,
    filter_packages,
)
from olmcat.mirror.relink import bundle_version
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model import property as prop
from olmcat.notices import Notice
from olmcat.writers import fbc
from tests.support.filter_strategies import (
    arbitrary_packages,
    chain,
    entries,
    opm_channel_problems,
    reachable,
    valid_packages,
)
from tests.support.mirror_checks import check_fbc_directory
from tests.support.paths import catalog_blobs, corpus_path

# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------


def make_package(
    channels: dict[str, tuple[ChannelEntry, ...]],
    default: str,
    *,
    deprecated: frozenset[str] = frozenset(),
    deprecations: tuple[DeprecationEntry, ...] = (),
    name: str = "p",
) -> PackageCatalog:
    names = sorted({e.name for es in channels.values() for e in es})
    bundles = []
    for bundle in names:
        props = [prop.package(name, bundle.split(".v", 1)[1])]
        if bundle in deprecated:
            props.append(prop.Property(prop.TYPE_DEPRECATED, "{}"))
        bundles.append(Bundle(bundle, name, f"quay.io/p/bundle:{bundle}", tuple(props)))
    return PackageCatalog(
        Package(name, default),
        tuple(Channel(c, name, es) for c, es in sorted(channels.items())),
        tuple(bundles),
        (Deprecation(name, deprecations),) if deprecations else (),
    )


def check_package(pkg: PackageCatalog) -> None:
    """The structural rules opm's model validation applies to one package."""
    assert pkg.channels, "a package without channels"
    channel_names = {c.name for c in pkg.channels}
    assert pkg.package.default_channel in channel_names
    bundle_names = {b.name for b in pkg.bundles}
    in_channels = set()
    for channel in pkg.channels:
        assert opm_channel_problems(channel) == [], (channel.name, channel.entries)
        for entry in channel.entries:
            assert entry.name in bundle_names, f"entry {entry.name} has no bundle"
            in_channels.add(entry.name)
    assert bundle_names == in_channels, "bundles outside every channel"
    for deprecation in pkg.deprecations:
        assert deprecation.entries
        for item in deprecation.entries:
            if item.schema == "olm.channel":
                assert item.name in channel_names
            elif item.schema == "olm.bundle":
                assert item.name in bundle_names
    if importlib.util.find_spec("olmcat.validate.checks") is not None:
        # ``olmcat validate`` is written in parallel; once it is there, it must agree.
        from olmcat.validate.checks import check_package as olmcat_check_package

        errors = [str(p) for p in olmcat_check_package(pkg) if p.severity == "error"]
        assert errors == []


# --------------------------------------------------------------------------------------------------
# Packages
# --------------------------------------------------------------------------------------------------


def test_min_equals_max_gives_exactly_that_version() -> None:
    # oc-mirror #1299: the requested version only -- not the channel head too.
    pkg = make_package({"stable": chain("1.0.0", "1.1.0", "1.2.0")}, "stable")
    spec = FilterSpec(min_version=Version(1, 1, 0), max_version=Version(1, 1, 0))
    got = filter_package(pkg, spec)
    assert got is not None
    assert [b.name for b in got.bundles] == ["p.v1.1.0"]
    assert entries(got.channels[0]) == {"p.v1.1.0": ("p.v1.0.0", ())}
    check_package(got)


def test_heads_only_keeps_each_head_as_it_was() -> None:
    pkg = make_package(
        {"stable": chain("1.0.0", "1.1.0", "1.2.0"), "fast": chain("1.0.0", "2.0.0")}, "stable"
    )
    got = filter_package(pkg, FilterSpec(heads_only=True))
    assert got is not None
    assert {c.name: entries(c) for c in got.channels} == {
        "fast": {"p.v2.0.0": ("p.v1.0.0", ())},
        "stable": {"p.v1.2.0": ("p.v1.1.0", ())},
    }
    assert [b.name for b in got.bundles] == ["p.v1.2.0", "p.v2.0.0"]
    check_package(got)


def test_heads_only_applies_after_the_version_filter() -> None:
    pkg = make_package({"stable": chain("1.0.0", "1.1.0", "1.2.0")}, "stable")
    got = filter_package(pkg, FilterSpec(heads_only=True, max_version=Version(1, 1, 5)))
    assert got is not None
    assert entries(got.channels[0]) == {"p.v1.1.0": ("p.v1.0.0", ())}


def test_default_channel_filtered_away_is_repointed_with_a_warning() -> None:
    pkg = make_package(
        {
            "stable": chain("1.0.0", "1.1.0"),
            "fast": chain("1.0.0", "1.1.0", "2.0.0"),
            "candidate": chain("1.0.0", "1.2.0"),
        },
        "stable",
    )
    notices: list[Notice] = []
    plan = FilterSpec((PackageSelector.parse("p:fast"), PackageSelector.parse("p:candidate")))
    got = filter_package(pkg, plan, plan=plan.plans()["p"], notify=notices.append)
    assert got is not None
    assert got.package.default_channel == "fast"  # the kept channel with the newest head
    assert [(n.code, n.package) for n in notices] == [("filter.default-channel-changed", "p")]
    assert [n.message for n in notices] == [
        "package p: default channel stable is filtered out; the default channel is now fast "
        "(the kept channel with the newest head)"
    ]
    check_package(got)


def test_channel_ranges_and_empty_channels() -> None:
    pkg = make_package(
        {"stable": chain("1.0.0", "1.1.0", "1.2.0"), "fast": chain("2.0.0")}, "stable"
    )
    spec = FilterSpec(
        (PackageSelector.parse("p:stable@>=1.1.0"), PackageSelector.parse("p:fast@<2.0.0"))
    )
    notices: list[Notice] = []
    got = filter_package(pkg, spec, plan=spec.plans()["p"], notify=notices.append)
    assert got is not None
    assert [c.name for c in got.channels] == ["stable"]
    assert entries(got.channels[0]) == {
        "p.v1.1.0": ("p.v1.0.0", ()),
        "p.v1.2.0": ("p.v1.1.0", ()),
    }
    assert [n.message for n in notices] == [
        "channel p:fast: no entry is left after filtering; channel left out"
    ]
    assert [n.code for n in notices] == ["filter.channel-left-out"]
    check_package(got)


def test_drop_deprecated() -> None:
    pkg = make_package(
        {"stable": chain("1.0.0", "1.1.0", "1.2.0", "1.3.0"), "old": chain("0.9.0")},
        "stable",
        deprecated=frozenset({"p.v1.3.0"}),
        deprecations=(
            DeprecationEntry("olm.channel", "old", "gone"),
            DeprecationEntry("olm.bundle", "p.v1.1.0", "CVE"),
        ),
    )
    kept_all = filter_package(pkg, FilterSpec())
    assert kept_all is not None
    assert kept_all.deprecations == pkg.deprecations
    got = filter_package(pkg, FilterSpec(drop_deprecated=True))
    assert got is not None
    assert [c.name for c in got.channels] == ["stable"]
    assert entries(got.channels[0]) == {
        "p.v1.0.0": ("", ()),
        "p.v1.2.0": ("p.v1.0.0", ("p.v1.1.0",)),
    }
    assert got.deprecations == ()  # what they named is gone
    check_package(got)
    retired = make_package(
        {"stable": chain("1.0.0")},
        "stable",
        deprecations=(DeprecationEntry("olm.package", "", "retired"),),
    )
    assert filter_package(retired, FilterSpec(drop_deprecated=True)) is None


def test_deprecation_entries_naming_removed_things_are_dropped() -> None:
    pkg = make_package(
        {"stable": chain("1.0.0", "1.1.0"), "old": chain("0.9.0")},
        "stable",
        deprecations=(
            DeprecationEntry("olm.package", "", "maybe"),
            DeprecationEntry("olm.channel", "old", "gone"),
            DeprecationEntry("olm.bundle", "p.v1.0.0", "CVE"),
        ),
    )
    spec = FilterSpec((PackageSelector.parse("p:stable"),), heads_only=True)
    got = filter_package(pkg, spec, plan=spec.plans()["p"])
    assert got is not None
    assert got.deprecations == (Deprecation("p", (DeprecationEntry("olm.package", "", "maybe"),)),)


def test_selectors() -> None:
    assert PackageSelector.parse("etcd") == PackageSelector("etcd")
    assert PackageSelector.parse("etcd:alpha") == PackageSelector("etcd", "alpha")
    selector = PackageSelector.parse("etcd:alpha@>=0.9.0, <1.0.0 || 2.x")
    assert selector.version_range == parse_constraint(">=0.9.0, <1.0.0 || 2.x")
    assert str(selector) == "etcd:alpha@>=0.9.0, <1.0.0 || 2.x"
    for bad, message in [
        ("", "package name is missing"),
        (":alpha", "package name is missing"),
        ("etcd:", "channel name"),
        ("etcd:alpha@", "version range after '@' is missing"),
        ("etcd@>=1.0.0", "a version range needs a channel"),
        ("etcd:alpha@>=1.0.0.0", "invalid version range"),
    ]:
        with pytest.raises(InputError, match=message):
            PackageSelector.parse(bad)
    with pytest.raises(InputError, match="already selected with another range"):
        FilterSpec((PackageSelector.parse("a:b@1.x"), PackageSelector.parse("a:b@2.x")))
    with pytest.raises(InputError, match="greater than"):
        FilterSpec(min_version=Version(2), max_version=Version(1))


def test_unknown_package_and_channel_are_errors() -> None:
    pkg = make_package({"stable": chain("1.0.0")}, "stable")
    spec = FilterSpec((PackageSelector.parse("q"),))
    with pytest.raises(InputError, match="package q is not in the catalog"):
        list(filter_packages([pkg], spec))
    spec = FilterSpec((PackageSelector.parse("p:nightly"),))
    with pytest.raises(
        InputError, match=r"package p has no channel nightly \(its channels: stable"
    ):
        list(filter_packages([pkg], spec))


def test_a_bundle_without_a_readable_version_never_satisfies_a_version_filter() -> None:
    weird = Bundle("b", "p", properties=(prop.package("p", "not-a-version"),))
    pkg = PackageCatalog(
        Package("p", "stable"),
        (Channel("stable", "p", (ChannelEntry("b"),)),),
        (weird,),
    )
    assert filter_package(pkg, FilterSpec()) is not None
    assert filter_package(pkg, FilterSpec(min_version=Version(0))) is None


# --------------------------------------------------------------------------------------------------
# Property tests on generated upgrade graphs
# --------------------------------------------------------------------------------------------------


@st.composite
def specs(draw: st.DrawFn, pkg: PackageCatalog) -> FilterSpec:
    all_versions = sorted(
        {str(v) for b in pkg.bundles if (v := bundle_version(b)) is not None},
        key=lambda text: parse_version_tolerant(text),
    )
    bound = st.sampled_from(all_versions).map(parse_version_tolerant) | st.none()
    low, high = draw(bound), draw(bound)
    if low is not None and high is not None and low.compare(high) > 0:
        low, high = high, low
    selectors: list[PackageSelector] = []
    mode = draw(st.sampled_from(["all", "package", "channels"]))
    if mode == "package":
        selectors.append(PackageSelector("demo"))
    elif mode == "channels":
        for channel in draw(st.sets(st.sampled_from([c.name for c in pkg.channels]), min_size=1)):
            text = draw(
                st.sampled_from(
                    [
                        "",
                        f">={draw(st.sampled_from(all_versions))}",
                        f"<{draw(st.sampled_from(all_versions))}",
                        f">={draw(st.sampled_from(all_versions))} "
                        f"<={draw(st.sampled_from(all_versions))}",
                        draw(st.sampled_from(all_versions)),
                        f"<{draw(st.sampled_from(all_versions))} || "
                        f">{draw(st.sampled_from(all_versions))}",
                    ]
                )
            )
            range_ = parse_constraint(text, include_prerelease=True) if text else None
            selectors.append(PackageSelector("demo", channel, range_))
    return FilterSpec(
        tuple(selectors),
        heads_only=draw(st.booleans()),
        min_version=low,
        max_version=high,
        drop_deprecated=draw(st.booleans()),
    )


def expected_selection(pkg: PackageCatalog, channel: Channel, spec: FilterSpec) -> set[str]:
    """What filter must keep of ``channel`` before heads-only, computed independently."""
    plan = spec.plans().get(pkg.name)
    if plan is not None and not plan.all_channels and channel.name not in plan.ranges:
        return set()
    dead_package = any(e.schema == "olm.package" for d in pkg.deprecations for e in d.entries)
    dead_channels = {
        e.name for d in pkg.deprecations for e in d.entries if e.schema == "olm.channel"
    }
    dead = {e.name for d in pkg.deprecations for e in d.entries if e.schema == "olm.bundle"}
    dead |= {b.name for b in pkg.bundles if b.properties_of("olm.deprecated")}
    if spec.drop_deprecated and (dead_package or channel.name in dead_channels):
        return set()
    version_range = plan.ranges.get(channel.name) if plan is not None else None
    keep = set()
    for entry in channel.entries:
        version = bundle_version(pkg.bundle(entry.name))
        if spec.drop_deprecated and entry.name in dead:
            continue
        if spec.min_version is not None and (version is None or version < spec.min_version):
            continue
        if spec.max_version is not None and (version is None or version > spec.max_version):
            continue
        if version_range is not None and (version is None or version not in version_range):
            continue
        keep.add(entry.name)
    return keep


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_filter_keeps_the_selection_and_a_valid_graph(data: st.DataObject) -> None:
    pkg = data.draw(valid_packages())
    for channel in pkg.channels:
        assert opm_channel_problems(channel) == [], channel  # the generator's own promise
    spec = data.draw(specs(pkg))
    got = filter_package(pkg, spec, plan=spec.plans().get(pkg.name))
    wanted = {c.name: expected_selection(pkg, c, spec) for c in pkg.channels}
    wanted = {name: keep for name, keep in wanted.items() if keep}
    if not wanted:
        assert got is None
        return
    assert got is not None
    check_package(got)
    assert {c.name for c in got.channels} == set(wanted)
    versions = {b.name: bundle_version(b) for b in pkg.bundles}
    for channel in got.channels:
        original = pkg.channel(channel.name)
        assert original is not None
        names = {e.name for e in channel.entries}
        if spec.heads_only:
            assert len(names) == 1
            full = filter_package(pkg, FilterSpec(**{**_fields(spec), "heads_only": False}))
            assert full is not None or spec.selectors
            assert names <= wanted[channel.name]
            continue
        assert names == wanted[channel.name]
        for entry in channel.entries:
            # Upgrades among kept entries that existed survive; new edges never go to a newer
            # version (the generated graphs only ever upgrade to newer versions).
            before = reachable(original, entry.name) & names
            assert before <= reachable(channel, entry.name), entry.name
            for target in entry.edges():
                if target in names:
                    assert versions[target] < versions[entry.name]  # type: ignore[operator]
        # Every original edge of a kept entry is still there (maybe moved from replaces to skips).
        for entry in channel.entries:
            before_entry = original.entry(entry.name)
            assert before_entry is not None
            assert set(before_entry.edges()) <= set(entry.edges())
            assert entry.skip_range == before_entry.skip_range


def _fields(spec: FilterSpec) -> dict[str, Any]:
    return {
        "selectors": spec.selectors,
        "heads_only": spec.heads_only,
        "min_version": spec.min_version,
        "max_version": spec.max_version,
        "drop_deprecated": spec.drop_deprecated,
    }


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_filter_never_yields_zero_or_several_heads_even_on_broken_graphs(
    data: st.DataObject,
) -> None:
    pkg = data.draw(arbitrary_packages())
    spec = data.draw(specs(pkg))
    got = filter_package(pkg, spec, plan=spec.plans().get(pkg.name))
    if got is not None:
        check_package(got)
        for channel in got.channels:
            assert len(channel.heads()) == 1


@settings(max_examples=50, deadline=None)
@given(valid_packages())
def test_heads_only_result_is_the_head_of_the_full_result(pkg: PackageCatalog) -> None:
    full = filter_package(pkg, FilterSpec(drop_deprecated=True))
    heads = filter_package(pkg, FilterSpec(drop_deprecated=True, heads_only=True))
    if full is None:
        assert heads is None
        return
    assert heads is not None
    assert {c.name: [e.name for e in c.entries] for c in heads.channels} == {
        c.name: [c.head()] for c in full.channels
    }


# --------------------------------------------------------------------------------------------------
# Whole catalogs: library, CLI, corpus
# --------------------------------------------------------------------------------------------------


def write_catalog(directory: Path, *pkgs: PackageCatalog) -> Path:
    fbc.write_directory(list(pkgs), directory)
    return directory


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_filters_an_fbc_directory(tmp_path: Path) -> None:
    source = write_catalog(
        tmp_path / "in",
        make_package({"stable": chain("1.0.0", "1.1.0"), "fast": chain("2.0.0")}, "stable"),
        make_package({"stable": chain("3.0.0")}, "stable", name="q"),
    )
    code, out, err = invoke("filter", str(source), str(tmp_path / "out"), "-p", "p:fast")
    assert code == 0, err
    assert out == ""
    assert "olmcat: warning: package p: default channel stable is filtered out" in err
    assert "kept 1 packages, 1 channels, 1 bundles" in err
    packages = check_fbc_directory(tmp_path / "out")
    assert set(packages) == {"p"}
    assert packages["p"]["package"]["defaultChannel"] == "fast"


def test_cli_stdout_and_yaml(tmp_path: Path) -> None:
    source = write_catalog(tmp_path / "in", make_package({"s": chain("1.0.0", "1.1.0")}, "s"))
    code, out, err = invoke("filter", "-q", "--heads-only", str(source), "-")
    assert code == 0, err
    blobs = [json.loads(text) for text in out.replace("}\n{", "}\x00{").split("\x00")]
    assert [b["schema"] for b in blobs] == ["olm.package", "olm.channel", "olm.bundle"]
    assert blobs[1]["entries"] == [{"name": "p.v1.1.0", "replaces": "p.v1.0.0"}]
    code, _, err = invoke("filter", "-q", "-o", "yaml", str(source), str(tmp_path / "y"))
    assert code == 0, err
    assert (tmp_path / "y" / "p" / "catalog.yaml").read_text().startswith("---\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", "nope"], "olmcat: error: package nope is not in the catalog"),
        (["-p", "p:x@>=a"], "olmcat: error: invalid version range"),
        (["--min-version", "2", "--max-version", "1"], "is greater than --max-version"),
        (["--min-version", "one"], "olmcat: error: invalid version"),
    ],
)
def test_cli_errors_leave_no_output(tmp_path: Path, args: list[str], message: str) -> None:
    source = write_catalog(tmp_path / "in", make_package({"s": chain("1.0.0")}, "s"))
    code, _, err = invoke("filter", str(source), str(tmp_path / "out"), *args)
    assert code == 1
    assert message in err
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob(".out*"))


def test_library_reports_counts_and_warnings(tmp_path: Path) -> None:
    source = write_catalog(
        tmp_path / "in",
        make_package({"s": chain("1.0.0", "1.1.0")}, "s"),
        make_package({"s": chain("0.1.0")}, "s", name="q"),
    )
    result = filter_catalog(source, tmp_path / "out", FilterSpec(min_version=Version(1)))
    assert (result.stats.packages, result.stats.channels, result.stats.bundles) == (1, 1, 2)
    assert result.dropped_packages == ["q"]
    assert result.notices == []


def corpus_filter(tmp_path: Path, source: str, *args: str) -> dict[str, dict[str, Any]]:
    out = tmp_path / "out"
    code, _, err = invoke("filter", "-q", str(corpus_path(*source.split("/"))), str(out), *args)
    assert code == 0, err
    return check_fbc_directory(out)


def channel_entries(pkgs: dict[str, dict[str, Any]], pkg: str, channel: str) -> list[Any]:
    return [
        (e["name"], e.get("replaces", ""), e.get("skips", []))
        for e in pkgs[pkg]["channels"][channel]["entries"]
    ]


def test_corpus_everything_kept_is_the_input(tmp_path: Path) -> None:
    golden = corpus_path("expected", "index-upstream.json")
    corpus_filter(tmp_path, "sqlite/index-upstream.db")
    for path in sorted(golden.glob("*/catalog.json")):
        assert (tmp_path / "out" / path.parent.name / "catalog.json").read_bytes() == (
            path.read_bytes()
        ), path


def test_corpus_heads_only(tmp_path: Path) -> None:
    pkgs = corpus_filter(tmp_path, "images/test-index-v1.oci.tar", "--heads-only")
    assert len(pkgs) == 39
    for pkg in pkgs.values():
        for blob in pkg["channels"].values():
            assert len(blob["entries"]) == 1
    assert channel_entries(pkgs, "kiali", "stable") == [
        ("kiali-operator.v1.36.0", "kiali-operator.v1.35.0", [])
    ]


def test_corpus_range_cutting_the_middle(tmp_path: Path) -> None:
    pkgs = corpus_filter(
        tmp_path, "sqlite/index-upstream.db", "-p", "kiali:stable@<1.10.0 || >=1.35.0"
    )
    kept = {e[0]: e for e in channel_entries(pkgs, "kiali", "stable")}
    assert len(kept) == 9  # 7 below 1.10.0, 2 from 1.35.0
    assert "kiali-operator.v1.10.0" not in kept
    # 1.35.0 replaced 1.34.0; it now replaces the newest kept entry below and still skips 1.34.0.
    assert kept["kiali-operator.v1.35.0"] == (
        "kiali-operator.v1.35.0",
        "kiali-operator.v1.9.1",
        ["kiali-operator.v1.34.0"],
    )
    assert kept["kiali-operator.v1.36.0"][1:] == ("kiali-operator.v1.35.0", [])
    assert pkgs["kiali"]["package"]["defaultChannel"] == "stable"


def test_corpus_range_cutting_the_head_and_default_channel(tmp_path: Path) -> None:
    pkgs = corpus_filter(
        tmp_path,
        "sqlite/index-upstream.db",
        "-p",
        "couchdb-operator:stable@>=1.1.0 <1.4.3",
        "-p",
        "cockroachdb:stable",
    )
    assert set(pkgs) == {"couchdb-operator", "cockroachdb"}
    assert [e[0] for e in channel_entries(pkgs, "couchdb-operator", "stable")] == [
        "couchdb-operator.v1.1.0",
        "couchdb-operator.v1.2.1",
        "couchdb-operator.v1.3.1",
        "couchdb-operator.v1.4.2",
    ]
    # Both default channels (v1.4, stable-5.x) were filtered away.
    assert pkgs["couchdb-operator"]["package"]["defaultChannel"] == "stable"
    assert pkgs["cockroachdb"]["package"]["defaultChannel"] == "stable"


@pytest.mark.parametrize("bound", ["9.0.0", "9.0.2", "12.0.0", "13.0.1"])
def test_corpus_keycloak_graph_with_skips(tmp_path: Path, bound: str) -> None:
    # keycloak-operator's alpha channel has entries that only skips reach (three tails).
    pkgs = corpus_filter(
        tmp_path, "sqlite/index-upstream.db", "-p", "keycloak-operator", "--min-version", bound
    )
    names = [e[0] for e in channel_entries(pkgs, "keycloak-operator", "alpha")]
    assert names
    assert all(parse_version_tolerant(n.split(".v", 1)[1]) >= Version.parse(bound) for n in names)


def test_cli_drop_deprecated_with_a_deprecations_blob(tmp_path: Path) -> None:
    pkg = make_package(
        {"stable": chain("1.0.0", "1.1.0", "1.2.0"), "legacy": chain("0.9.0")},
        "legacy",
        deprecations=(
            DeprecationEntry("olm.channel", "legacy", "use stable"),
            DeprecationEntry("olm.bundle", "p.v1.2.0", "broken"),
        ),
    )
    source = write_catalog(tmp_path / "in", pkg)
    code, _, err = invoke("filter", str(source), str(tmp_path / "out"), "--drop-deprecated")
    assert code == 0, err
    pkgs = check_fbc_directory(tmp_path / "out")
    assert list(pkgs["p"]["channels"]) == ["stable"]
    assert pkgs["p"]["package"]["defaultChannel"] == "stable"
    assert channel_entries(pkgs, "p", "stable") == [
        ("p.v1.0.0", "", []),
        ("p.v1.1.0", "p.v1.0.0", []),
    ]
    assert not any(b["schema"] == "olm.deprecations" for b in catalog_blobs(tmp_path / "out"))
