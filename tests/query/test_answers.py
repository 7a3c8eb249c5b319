"""``olmcat query``: answers checked against the goldens (expected values computed from the golden
JSON with plain dict code, not olmcat's readers), the same answers from the SQLite database, the
FBC and the image archive of one catalog, hand-checked upgrade paths and OLM 1.0 resolutions.
"""

from __future__ import annotations

import json
from base64 import b64decode
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import semver
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from olmcat.model import (
    Bundle,
    Channel,
    ChannelEntry,
    Deprecation,
    DeprecationEntry,
    Package,
    PackageCatalog,
)
from olmcat.model.property import package as package_property
from olmcat.query import answers as q
from olmcat.readers.catalog import Catalog, open_catalog
from olmcat.readers.memory import MemoryCatalog
from tests.support.paths import FIXTURES, catalog_blobs, corpus_path

# -- the golden, read with plain code -------------------------------------------------------------


class Golden:
    """One golden FBC directory as dicts: packages, channels and bundles by name."""

    def __init__(self, name: str) -> None:
        self.packages: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, dict[str, Any]]] = {}
        self.bundles: dict[str, dict[str, dict[str, Any]]] = {}
        for blob in catalog_blobs(corpus_path("expected", name)):
            if blob["schema"] == "olm.package":
                self.packages[blob["name"]] = blob
            elif blob["schema"] == "olm.channel":
                self.channels.setdefault(blob["package"], {})[blob["name"]] = blob
            elif blob["schema"] == "olm.bundle":
                self.bundles.setdefault(blob["package"], {})[blob["name"]] = blob

    def version(self, package: str, name: str) -> str:
        blob = self.bundles[package].get(name)
        if blob is None:
            return ""
        return str(
            next(p["value"]["version"] for p in blob["properties"] if p["type"] == "olm.package")
        )

    def key(self, package: str, name: str) -> tuple[semver.Version, str]:
        return semver.Version.parse(self.version(package, name)), name

    def head(self, package: str, channel: str) -> str:
        entries = self.channels[package][channel]["entries"]
        targets = {e.get("replaces") for e in entries} | {
            s for e in entries for s in e.get("skips", [])
        }
        (only,) = [e["name"] for e in entries if e["name"] not in targets]
        return str(only)

    def channels_of(self, package: str, bundle: str) -> list[str]:
        return sorted(
            name
            for name, blob in self.channels[package].items()
            if any(e["name"] == bundle for e in blob["entries"])
        )


@pytest.fixture(scope="module")
def upstream() -> Golden:
    return Golden("index-upstream.json")


@contextmanager
def opened(*parts: str) -> Iterator[Catalog]:
    with open_catalog(corpus_path(*parts)) as catalog:
        yield catalog


# (golden, package): seven packages with several channels, skips and skipRanges among them.
PACKAGES = [
    ("upstream-subset.json", "aqua"),
    ("upstream-subset.json", "awss3-operator-registry"),
    ("upstream-subset.json", "multicluster-operators-subscription"),
    ("upstream-subset.json", "strimzi-kafka-operator"),
    ("index-upstream.json", "couchdb-operator"),
    ("index-upstream.json", "keycloak-operator"),
    ("small.json", "etcd"),
]


@pytest.fixture(scope="module")
def goldens() -> dict[str, Golden]:
    return {}


def golden_of(cache: dict[str, Golden], name: str) -> Golden:
    if name not in cache:
        cache[name] = Golden(name)
    return cache[name]


# -- answers against the goldens ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["upstream-subset.json", "index-upstream.json", "small.json"])
def test_packages(goldens: dict[str, Golden], name: str) -> None:
    golden = golden_of(goldens, name)
    expected = [
        {
            "name": pkg,
            "defaultChannel": blob["defaultChannel"],
            "channels": sorted(golden.channels[pkg]),
        }
        for pkg, blob in sorted(golden.packages.items())
    ]
    with opened("expected", name) as catalog:
        assert q.packages(catalog) == expected


@pytest.mark.parametrize(("name", "package"), PACKAGES)
def test_channels(goldens: dict[str, Golden], name: str, package: str) -> None:
    golden = golden_of(goldens, name)
    expected = [
        {
            "package": package,
            "name": channel,
            "default": channel == golden.packages[package]["defaultChannel"],
            "head": golden.head(package, channel),
            "entries": sorted(
                (e["name"] for e in blob["entries"]), key=lambda n: golden.key(package, n)
            ),
        }
        for channel, blob in sorted(golden.channels[package].items())
    ]
    with opened("expected", name) as catalog:
        assert q.channels(catalog, package) == expected


@pytest.mark.parametrize(("name", "package"), PACKAGES)
def test_bundles_and_heads(goldens: dict[str, Golden], name: str, package: str) -> None:
    golden = golden_of(goldens, name)

    def row(bundle: str) -> dict[str, Any]:
        return {
            "name": bundle,
            "package": package,
            "version": golden.version(package, bundle),
            "image": golden.bundles[package][bundle].get("image", ""),
            "channels": golden.channels_of(package, bundle),
        }

    everything = sorted(golden.bundles[package], key=lambda n: golden.key(package, n))
    with opened("expected", name) as catalog:
        assert q.bundles(catalog, package) == [row(b) for b in everything]
        for channel, blob in sorted(golden.channels[package].items()):
            names = sorted(
                (e["name"] for e in blob["entries"]), key=lambda n: golden.key(package, n)
            )
            assert q.bundles(catalog, package, channel) == [row(b) for b in names]
            top = golden.head(package, channel)
            assert q.head(catalog, package, channel) == {
                "package": package,
                "channel": channel,
                "name": top,
                "version": golden.version(package, top),
                "image": golden.bundles[package][top].get("image", ""),
            }
        default = golden.packages[package]["defaultChannel"]
        assert q.head(catalog, package)["channel"] == default


@pytest.mark.parametrize(("name", "package"), PACKAGES)
def test_replaces(goldens: dict[str, Golden], name: str, package: str) -> None:
    golden = golden_of(goldens, name)
    with opened("expected", name) as catalog:
        for bundle in sorted(golden.bundles[package]):
            expected = []
            for channel, blob in sorted(golden.channels[package].items()):
                for e in sorted(blob["entries"], key=lambda e: golden.key(package, e["name"])):
                    via = (
                        "replaces"
                        if e.get("replaces") == bundle
                        else "skips"
                        if bundle in e.get("skips", [])
                        else None
                    )
                    if via:
                        expected.append(
                            {
                                "package": package,
                                "channel": channel,
                                "name": e["name"],
                                "version": golden.version(package, e["name"]),
                                "via": via,
                            }
                        )
            assert q.replaced_by(catalog, bundle, package) == expected, bundle


@pytest.mark.parametrize(("name", "package"), PACKAGES)
def test_resolve_picks_the_highest_version(
    goldens: dict[str, Golden], name: str, package: str
) -> None:
    golden = golden_of(goldens, name)
    with opened("expected", name) as catalog:
        best = max(golden.bundles[package], key=lambda n: golden.key(package, n))
        assert q.resolve(catalog, package)["name"] == best
        for channel, blob in golden.channels[package].items():
            top = max((e["name"] for e in blob["entries"]), key=lambda n: golden.key(package, n))
            answer = q.resolve(catalog, package, channel)
            assert (answer["name"], answer["version"]) == (top, golden.version(package, top))


@pytest.mark.parametrize(("name", "package"), PACKAGES)
def test_upgrades_along_replaces_chains(
    goldens: dict[str, Golden], name: str, package: str
) -> None:
    """In channels without skips and skipRanges, OLM walks the replaces chain back from the head."""
    golden = golden_of(goldens, name)
    with opened("expected", name) as catalog:
        for channel, blob in sorted(golden.channels[package].items()):
            entries = {e["name"]: e for e in blob["entries"]}
            if any(e.get("skips") or e.get("skipRange") for e in entries.values()):
                continue
            chain = [golden.head(package, channel)]
            while entries[chain[-1]].get("replaces") in entries:
                chain.append(entries[chain[-1]]["replaces"])
            tail = chain[-1]
            answer = q.upgrade_path(catalog, package, tail, channel)
            assert [s["name"] for s in answer["steps"]] == chain[-2::-1]
            assert {s["via"] for s in answer["steps"]} <= {"replaces"}
            assert answer["reachesHead"] is True
            # The version of the tail names it as well as its name does.
            by_version = q.upgrade_path(catalog, package, golden.version(package, tail), channel)
            assert by_version["steps"] == answer["steps"]


def _jq_install_modes(golden: Golden) -> list[tuple[str, str]]:
    """003's jq query over the channel heads: AllNamespaces supported, webhookdefinitions null."""
    out = set()
    for package, channels in golden.channels.items():
        for channel in channels:
            bundle = golden.bundles[package][golden.head(package, channel)]
            for p in bundle["properties"]:
                if p["type"] != "olm.bundle.object":
                    continue
                manifest = json.loads(b64decode(p["value"]["data"]))
                if manifest.get("kind") != "ClusterServiceVersion":
                    continue
                modes = manifest["spec"].get("installModes") or []
                if any(m["type"] == "AllNamespaces" and m["supported"] is True for m in modes) and (
                    manifest["spec"].get("webhookdefinitions") is None
                ):
                    out.add((package, bundle["name"]))
    return sorted(out)


@pytest.mark.parametrize("name", ["upstream-subset.json", "index-upstream.json", "small.json"])
def test_install_modes(goldens: dict[str, Golden], name: str) -> None:
    golden = golden_of(goldens, name)
    expected = _jq_install_modes(golden)
    with opened("expected", name) as catalog:
        rows = q.install_modes(catalog, all_namespaces=True, no_webhooks=True)
        everything = q.install_modes(catalog)
    assert sorted((r["package"], r["name"]) for r in rows) == expected
    assert expected, "the corpus has installable heads"
    assert all("AllNamespaces" in r["installModes"] and r["webhooks"] == 0 for r in rows)
    assert len(everything) >= len(rows)


# -- the same answers from every form of one catalog ----------------------------------------------

FORMS = [
    ("expected", "index-upstream.json"),
    ("sqlite", "index-upstream.db"),
    ("images", "test-index-v1.oci.tar"),
]


def _all_answers(catalog: Catalog) -> dict[str, Any]:
    answers: dict[str, Any] = {"packages": q.packages(catalog)}
    for name in catalog.package_names():
        answers[f"channels {name}"] = q.channels(catalog, name)
        answers[f"bundles {name}"] = q.bundles(catalog, name)
        answers[f"resolve {name}"] = q.resolve(catalog, name)
        for channel in answers[f"channels {name}"]:
            answers[f"head {name} {channel['name']}"] = q.head(catalog, name, channel["name"])
            tail = channel["entries"][0]
            answers[f"upgrades {name} {channel['name']}"] = q.upgrade_path(
                catalog, name, tail, channel["name"]
            )
    answers["install-modes"] = q.install_modes(catalog)
    answers["bundle"] = q.bundle(catalog, "kiali-operator.v1.36.0")
    answers["replaces"] = q.replaced_by(catalog, "keycloak-operator.v13.0.0")
    return answers


@pytest.fixture(scope="module")
def answers_by_form() -> dict[str, dict[str, Any]]:
    out = {}
    for form in FORMS:
        with opened(*form) as catalog:
            out[form[0]] = _all_answers(catalog)
    return out


def test_every_form_gives_the_same_answers(answers_by_form: dict[str, dict[str, Any]]) -> None:
    fbc, sqlite, image = (answers_by_form[form] for form, _ in FORMS)
    assert len(fbc) > 100
    for key in fbc:
        assert sqlite[key] == fbc[key], key
        assert image[key] == fbc[key], key
    assert sqlite.keys() == fbc.keys() == image.keys()


def test_every_form_matches_the_golden(
    answers_by_form: dict[str, dict[str, Any]], upstream: Golden
) -> None:
    for answers in answers_by_form.values():
        assert [p["name"] for p in answers["packages"]] == sorted(upstream.packages)
        for package in upstream.packages:
            assert [b["name"] for b in answers[f"bundles {package}"]] == sorted(
                upstream.bundles[package], key=lambda n: upstream.key(package, n)
            )
            for channel in upstream.channels[package]:
                head = answers[f"head {package} {channel}"]
                assert head["name"] == upstream.head(package, channel)


# -- hand-checked upgrade paths -------------------------------------------------------------------


def steps(answer: dict[str, Any]) -> list[tuple[str, str]]:
    return [(s["name"], s["via"]) for s in answer["steps"]]


def test_upgrades_jump_to_a_head_whose_skip_range_holds_the_version() -> None:
    with opened("expected", "index-upstream.json") as catalog:
        answer = q.upgrade_path(catalog, "cloud-native-postgresql", "1.1.0")
        assert answer["channel"] == "stable" and answer["head"] == "cloud-native-postgresql.v1.6.0"
        assert answer["from"] == {"name": "cloud-native-postgresql.v1.1.0", "version": "1.1.0"}
        assert steps(answer) == [("cloud-native-postgresql.v1.6.0", "skipRange")]
        # 0.7.0 is in no channel, but in the head's range >=0.6.0 <1.6.0.
        virtual = q.upgrade_path(catalog, "cloud-native-postgresql", "0.7.0")
        assert virtual["from"] == {"name": "", "version": "0.7.0"}
        assert steps(virtual) == [("cloud-native-postgresql.v1.6.0", "skipRange")]
        assert q.upgrade_path(catalog, "cloud-native-postgresql", "0.5.0")["steps"] == []
        assert q.upgrade_path(catalog, "cloud-native-postgresql", "0.5.0")["reachesHead"] is False
        at_head = q.upgrade_path(catalog, "cloud-native-postgresql", "1.6.0")
        assert (at_head["steps"], at_head["reachesHead"]) == ([], True)


def test_upgrades_take_the_candidate_nearest_the_head() -> None:
    # couchdb stable: head v1.4.4 (no skipRange) replaces v1.4.3 (skipRange >=1.0.0 <1.4.3), ...
    # From 1.0.14 every entry from v1.1.0 to v1.4.3 is a candidate: v1.4.3 is nearest the head.
    with opened("expected", "index-upstream.json") as catalog:
        answer = q.upgrade_path(catalog, "couchdb-operator", "1.0.14", "stable")
        assert steps(answer) == [
            ("couchdb-operator.v1.4.3", "skipRange"),
            ("couchdb-operator.v1.4.4", "replaces"),
        ]
        assert answer["reachesHead"] is True


def test_upgrades_through_skips() -> None:
    with opened("expected", "index-upstream.json") as catalog:
        answer = q.upgrade_path(catalog, "keycloak-operator", "keycloak-operator.v9.0.0")
        assert steps(answer) == [
            ("keycloak-operator.v9.0.2", "skips"),
            ("keycloak-operator.v10.0.0", "replaces"),
            ("keycloak-operator.v11.0.0", "replaces"),
            ("keycloak-operator.v12.0.1", "replaces"),
            ("keycloak-operator.v12.0.3", "replaces"),
            ("keycloak-operator.v13.0.1", "replaces"),
            ("keycloak-operator.v14.0.0", "replaces"),
        ]
        answer = q.upgrade_path(catalog, "keycloak-operator", "13.0.0")
        assert steps(answer) == [
            ("keycloak-operator.v13.0.1", "skips"),
            ("keycloak-operator.v14.0.0", "replaces"),
        ]


def test_upgrades_from_a_skipped_bundle_missing_from_the_catalog() -> None:
    with opened("expected", "small.json") as catalog:
        by_name = q.upgrade_path(catalog, "etcd", "etcdoperator.v0.9.1", "stable")
        assert by_name["from"] == {"name": "etcdoperator.v0.9.1", "version": ""}
        assert steps(by_name) == [("etcdoperator.v0.9.2", "skips")]
        below = q.upgrade_path(catalog, "etcd", "0.5.3")
        assert steps(below) == [("etcdoperator.v0.9.2", "skipRange")]
        with pytest.raises(InputError, match="neither a bundle of channel 'alpha' nor a version"):
            q.upgrade_path(catalog, "etcd", "etcdoperator.v7")


# -- OLM 1.0 resolution ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("channel", "version_range", "expected"),
    [
        (None, None, "couchdb-operator.v1.4.4"),
        (None, ">=1.2, <1.4", "couchdb-operator.v1.3.1"),
        (None, "~1.4.2", "couchdb-operator.v1.4.4"),
        (None, "1.4.2", "couchdb-operator.v1.4.2"),
        (None, "^1.0.14", "couchdb-operator.v1.4.4"),
        (None, "1.1.x || 1.2.x", "couchdb-operator.v1.2.1"),
        (None, "<=1.2", "couchdb-operator.v1.2.1"),
        (None, "!=1.4.4", "couchdb-operator.v1.4.3"),
        ("v1.2", None, "couchdb-operator.v1.2.1"),
        ("v1.4", ">1.4.2 <1.4.4", "couchdb-operator.v1.4.3"),
    ],
)
def test_resolve(channel: str | None, version_range: str | None, expected: str) -> None:
    with opened("expected", "index-upstream.json") as catalog:
        answer = q.resolve(catalog, "couchdb-operator", channel, version_range)
    assert answer["name"] == expected
    assert (answer["channel"], answer["range"]) == (channel, version_range)


def test_resolve_failures() -> None:
    with opened("expected", "index-upstream.json") as catalog:
        with pytest.raises(InputError, match="no package 'couchdb-operator' matching version"):
            q.resolve(catalog, "couchdb-operator", "stable", "2.x")
        with pytest.raises(InputError, match="invalid version range"):
            q.resolve(catalog, "couchdb-operator", None, ">>1")
        with pytest.raises(InputError, match="has no channel 'fast'"):
            q.resolve(catalog, "couchdb-operator", "fast")
        with pytest.raises(InputError, match="no package 'nope'"):
            q.resolve(catalog, "nope")


def _Memory(*packages: PackageCatalog) -> MemoryCatalog:
    return MemoryCatalog(packages)


def _bundle(version: str) -> Bundle:
    return Bundle(
        f"demo.v{version}", "demo", f"img:{version}", (package_property("demo", version),)
    )


def test_resolve_prefers_bundles_that_are_not_deprecated_and_skips_prereleases() -> None:
    versions = ("1.0.0", "1.1.0", "2.0.0-rc.1")
    pkg = PackageCatalog(
        Package("demo", "stable"),
        (
            Channel(
                "stable",
                "demo",
                tuple(
                    ChannelEntry(f"demo.v{v}", f"demo.v{versions[i - 1]}" if i else "")
                    for i, v in enumerate(versions)
                ),
            ),
        ),
        tuple(_bundle(v) for v in versions),
        (Deprecation("demo", (DeprecationEntry("olm.bundle", "demo.v1.1.0", "CVE"),)),),
    )
    catalog = _Memory(pkg)
    assert q.resolve(catalog, "demo")["name"] == "demo.v2.0.0-rc.1"  # no range: all versions
    picked = q.resolve(catalog, "demo", version_range=">=1.0.0")
    assert (picked["name"], picked["deprecated"]) == ("demo.v1.0.0", False)
    only = q.resolve(catalog, "demo", version_range="1.1.0")
    assert (only["name"], only["deprecated"]) == ("demo.v1.1.0", True)
    assert q.resolve(catalog, "demo", version_range=">=2.0.0-0")["name"] == "demo.v2.0.0-rc.1"
    assert q.bundle(catalog, "demo.v1.1.0")["deprecated"] is True


def test_bundle_details() -> None:
    with opened("expected", "small.json") as catalog:
        answer = q.bundle(catalog, "etcdoperator.v0.9.2")
        with pytest.raises(InputError, match="no bundle 'nope'"):
            q.bundle(catalog, "nope")
    assert answer["channels"] == [
        {
            "channel": channel,
            "replaces": "etcdoperator.v0.9.0",
            "skips": ["etcdoperator.v0.9.1"],
            "skipRange": "< 0.6.0",
        }
        for channel in ("alpha", "stable")
    ]
    assert {"type": "olm.package", "value": {"packageName": "etcd", "version": "0.9.2"}} in answer[
        "properties"
    ]
    assert {"kind": "ClusterServiceVersion", "name": "etcdoperator.v0.9.2"} in answer["objects"]
    assert all(p["type"] != "olm.bundle.object" for p in answer["properties"])


def test_a_bundle_name_in_two_packages_needs_a_package() -> None:
    twin = PackageCatalog(
        Package("twin", "stable"),
        (Channel("stable", "twin", (ChannelEntry("demo.v1.0.0"),)),),
        (Bundle("demo.v1.0.0", "twin", "img", (package_property("twin", "1.0.0"),)),),
    )
    demo = PackageCatalog(
        Package("demo", "stable"),
        (Channel("stable", "demo", (ChannelEntry("demo.v1.0.0"),)),),
        (_bundle("1.0.0"),),
    )
    catalog = _Memory(demo, twin)
    with pytest.raises(InputError, match="in several packages \\(demo, twin\\)"):
        q.bundle(catalog, "demo.v1.0.0")
    assert q.bundle(catalog, "demo.v1.0.0", "twin")["package"] == "twin"


# -- the command ----------------------------------------------------------------------------------


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_json_by_default() -> None:
    db = str(corpus_path("sqlite", "small.db"))
    code, out, err = invoke("query", db, "head", "--package", "etcd", "--channel", "beta")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "package": "etcd",
        "channel": "beta",
        "name": "etcdoperator.v0.9.0",
        "version": "0.9.0",
        "image": "",
    }


def test_cli_tables() -> None:
    ref = str(corpus_path("expected", "small.json"))
    code, out, _ = invoke("query", ref, "packages", "--format", "table")
    assert code == 0
    assert out == (
        "NAME                    DEFAULT-CHANNEL  CHANNELS\n"
        "etcd                    alpha            alpha,beta,stable\n"
        "prometheus              preview          preview\n"
        "strimzi-kafka-operator  stable           alpha,beta,stable\n"
    )
    code, out, _ = invoke(
        "query", ref, "upgrades", "-p", "etcd", "--from", "0.6.1", "--format", "table"
    )
    assert (code, out) == (
        0,
        "NAME                 VERSION  VIA\n"
        "etcdoperator.v0.9.0  0.9.0    replaces\n"
        "etcdoperator.v0.9.2  0.9.2    replaces\n",
    )
    code, out, _ = invoke(
        "query", ref, "resolve", "-p", "etcd", "--version", "<0.9", "--format", "table"
    )
    assert code == 0
    assert out.splitlines()[1].split() == [
        "etcd",
        "-",
        "<0.9",
        "etcdoperator.v0.6.1",
        "0.6.1",
        "-",
        "alpha,beta,stable",
        "no",
    ]
    code, out, _ = invoke("query", ref, "bundle", "etcdoperator.v0.6.1", "--format", "table")
    assert code == 0 and out.splitlines()[1].split() == ["name", "etcdoperator.v0.6.1"]


def test_cli_every_subcommand_answers() -> None:
    ref = str(corpus_path("expected", "small.json"))
    for args in (
        ["packages"],
        ["channels", "-p", "etcd"],
        ["bundles", "-p", "etcd", "-c", "beta"],
        ["bundle", "etcdoperator.v0.9.0"],
        ["head", "-p", "etcd"],
        ["replaces", "etcdoperator.v0.9.0"],
        ["upgrades", "-p", "etcd", "--from", "etcdoperator.v0.6.1"],
        ["resolve", "-p", "etcd", "-c", "beta"],
        ["install-modes", "--all-namespaces", "--no-webhooks"],
    ):
        code, out, err = invoke("query", ref, *args)
        assert (code, err) == (0, ""), args
        assert json.loads(out), args


def test_cli_errors_are_one_line() -> None:
    ref = str(corpus_path("expected", "small.json"))
    code, out, err = invoke("query", ref, "resolve", "-p", "etcd", "--version", ">=1")
    assert (code, out) == (1, "")
    assert err == "olmcat: error: no package 'etcd' matching version '>=1' found\n"
    code, _, err = invoke("query", ref, "channels", "-p", "nope")
    assert (code, err) == (1, "olmcat: error: no package 'nope' in the catalog\n")
    code, _, err = invoke("query", "/nonexistent", "packages")
    assert (code, err) == (1, "olmcat: error: /nonexistent: no such file or directory\n")


def test_package_manifest_directories_are_queried_too(tmp_path: Path) -> None:
    with (
        opened("pkgman", "upstream-subset") as catalog,
        opened("expected", "upstream-subset.json") as golden,
    ):
        assert q.channels(catalog, "aqua") == q.channels(golden, "aqua")
        assert q.upgrade_path(catalog, "aqua", "1.0.2", "6.2.0")["steps"] == [
            {"name": "aqua-operator.v6.2.0", "version": "6.2.0", "via": "skipRange"}
        ]


def test_upgrades_under_semver_semantics() -> None:
    # hpe-csi-operator stable: 1.1.0 ... 1.4.1 -> 2.0.0 along replaces. OLM v1's semver mode goes
    # straight to the highest 1.x and needs a manual step to 2.0.0.
    with opened("expected", "index-upstream.json") as catalog:
        legacy = q.upgrade_path(catalog, "hpe-csi-operator", "1.1.0")
        assert legacy["semantics"] == "legacy" and legacy["reachesHead"] is True
        assert [s for s, _ in steps(legacy)][-1] == "hpe-csi-operator.v2.0.0"
        semver_answer = q.upgrade_path(catalog, "hpe-csi-operator", "1.1.0", semantics="semver")
        assert semver_answer["head"] == "hpe-csi-operator.v2.0.0"
        assert steps(semver_answer) == [("hpe-csi-operator.v1.4.1", "semver")]
        assert semver_answer["reachesHead"] is False
        # 0.x: only patch steps -- opentelemetry 0.21.0 cannot move to 0.27.0 by itself
        otel = q.upgrade_path(catalog, "opentelemetry-operator", "0.21.0", semantics="semver")
        assert (otel["steps"], otel["reachesHead"]) == ([], False)
        with pytest.raises(InputError, match="unknown semantics"):
            q.upgrade_path(catalog, "hpe-csi-operator", "1.1.0", semantics="fast")


@pytest.mark.parametrize("name", ["upstream-subset.json", "index-upstream.json", "small.json"])
def test_install_modes_olmv1_is_the_olmv1_check(name: str) -> None:
    """The olmv1 column is `olmv1 check --offline`'s verdict on the same heads."""
    from olmcat.olmv1.check import check

    report = check([str(corpus_path("expected", name))], pull=False)
    verdicts = {(b.package, b.name): b.verdict for b in report.bundles}
    with opened("expected", name) as catalog:
        rows = q.install_modes(catalog)
        installable = q.install_modes(catalog, installable=True)
    assert rows, "the corpus has heads"
    for row in rows:
        assert row["olmv1"] == verdicts[(row["package"], row["name"])], row["name"]
    assert {(r["package"], r["name"]) for r in installable} == {
        key for key, verdict in verdicts.items() if verdict == "installable"
    }


def test_cli_install_modes_installable_and_gates() -> None:
    ref = str(FIXTURES / "example" / "sqlite" / "schema-13.db")
    code, out, err = invoke("query", ref, "install-modes", "--installable")
    assert (code, err) == (0, "")
    rows = json.loads(out)
    assert [r["name"] for r in rows] == ["hello-operator.v0.2.0", "hello-operator.v0.3.0"]
    code, out, err = invoke("query", ref, "install-modes")
    world = [r for r in json.loads(out) if r["package"] == "world-operator"]
    assert world[0]["olmv1"] == "refused"
    assert world[0]["olmv1Reasons"] == [
        {
            "rule": "olmv1.resolve.dependency-property",
            "message": 'bundle "world-operator.v1.0.0" has a dependency declared via property '
            '"olm.gvk.required" which is currently not supported',
        }
    ]
    code, out, err = invoke("query", ref, "install-modes", "--feature-gates", "Nope=true")
    assert code == 2 and "unrecognized feature gate: Nope" in err
