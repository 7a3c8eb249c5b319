"""``olmcat upgrade-check`` on the command line: formats, exit statuses, the JSON document."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.model import PackageCatalog
from olmcat.model import property as prop
from olmcat.writers.fbc import write_directory
from tests.support.diff_strategies import LINEAR, A, B, C, D, E, channel, package
from tests.support.paths import FIXTURES, corpus_path

GROWN = package(
    [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name))],
    [A, B, C, D],
)
BROKEN = package([channel("stable", E(A.name), E(C.name, B.name))], [A, C])


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def fbc(tmp_path: Path, name: str, *packages: PackageCatalog) -> str:
    out = tmp_path / name
    write_directory(list(packages), out)
    return str(out)


@pytest.fixture
def catalogs(tmp_path: Path) -> dict[str, str]:
    inventory = tmp_path / "installed.csv"
    inventory.write_text("package,channel,version\netcd,stable,1.0.0\n")
    return {
        "linear": fbc(tmp_path, "linear", LINEAR),
        "grown": fbc(tmp_path, "grown", GROWN),
        "broken": fbc(tmp_path, "broken", BROKEN),
        "inventory": str(inventory),
    }


def test_nothing_blocks_exits_0(catalogs: dict[str, str]) -> None:
    code, out, err = invoke(
        "upgrade-check", catalogs["linear"], catalogs["grown"], "--installed", catalogs["inventory"]
    )
    assert code == 0, err
    assert f"path: {A.name} -> {B.name} -> {C.name} -> {D.name}" in out
    assert out.rstrip().endswith("1 operator: 1 ready; nothing blocks the upgrade")


def test_a_blocker_exits_1_and_json_follows_the_schema(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke(
        "upgrade-check",
        catalogs["linear"],
        catalogs["broken"],
        "--installed",
        catalogs["inventory"],
        "--json",
    )
    assert code == 1
    document = json.loads(out)
    assert document["schema"] == "olmcat.upgrade-check.v1"
    assert document["summary"]["blocking"] == 1
    (record,) = document["operators"]
    assert record["status"] == "no-path" and record["blocks"] is True and record["path"] is None
    assert record["head"] == C.name and record["stopsAt"] == A.name


def test_markdown_and_format_conflicts(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke(
        "upgrade-check",
        catalogs["linear"],
        catalogs["grown"],
        "--installed",
        catalogs["inventory"],
        "--markdown",
    )
    assert code == 0 and out.startswith("### Upgrade check:") and "| ✅ |" in out
    code, _, err = invoke(
        "upgrade-check",
        catalogs["linear"],
        catalogs["grown"],
        "--installed",
        catalogs["inventory"],
        "--json",
        "--markdown",
    )
    assert code == 2 and "choose one output format" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--target-ocp", "four"], "--target-ocp 'four' is not an OpenShift version"),
        (["--installed", "/nonexistent/inventory.yaml"], "cannot read the inventory"),
    ],
)
def test_trouble_exits_2_with_one_line(
    catalogs: dict[str, str], extra: list[str], message: str
) -> None:
    args = [
        "upgrade-check",
        catalogs["linear"],
        catalogs["grown"],
        "--installed",
        catalogs["inventory"],
    ]
    code, out, err = invoke(*args, *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("olmcat: error: ")


def test_a_bad_catalog_exits_2(catalogs: dict[str, str], tmp_path: Path) -> None:
    code, _, err = invoke(
        "upgrade-check",
        str(tmp_path / "missing"),
        catalogs["grown"],
        "--installed",
        catalogs["inventory"],
    )
    assert code == 2 and err.startswith("olmcat: error: ")


def test_inventory_from_stdin(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke(
        "upgrade-check",
        catalogs["linear"],
        catalogs["grown"],
        "--installed",
        "-",
        "--json",
        stdin="- {package: etcd, channel: stable, version: 1.5.0}\n",
    )
    assert code == 0 and json.loads(out)["operators"][0]["path"] == [B.name, C.name, D.name]


def test_help_has_examples() -> None:
    code, out, _ = invoke("upgrade-check", "--help")
    assert code == 0 and "Examples:" in out and "--target-ocp" in out


def test_the_oc_get_fixture_on_the_corpus(tmp_path: Path) -> None:
    """The README's worked example: keycloak-operator 13.0.1 caps OpenShift at 4.8."""
    old = corpus_path("sqlite", "index-upstream-old.db")
    new = corpus_path("sqlite", "index-upstream.db")
    report = tmp_path / "report.json"
    code, out, _ = invoke(
        "upgrade-check",
        str(old),
        str(new),
        "--installed",
        str(FIXTURES / "inventory-oc-get.yaml"),
        "--target-ocp",
        "4.9",
        "--json",
        "--report",
        str(report),
    )
    assert code == 1
    by_package = {r["package"]: r for r in json.loads(out)["operators"]}
    keycloak = by_package["keycloak-operator"]
    assert keycloak["status"] == "blocked-max-ocp"
    assert keycloak["maxOpenShiftVersion"] == {"value": '"4.8"', "valid": True, "source": "csv"}
    assert keycloak["path"] == ["keycloak-operator.v13.0.1", "keycloak-operator.v14.0.0"]
    # NEW's default channel of mongodb-atlas-kubernetes moved from alpha to beta
    assert by_package["mongodb-atlas-kubernetes"]["channel"] == "beta"
    assert by_package["local-storage-operator"]["status"] == "not-in-catalog"
    assert {r["status"] for r in by_package.values()} == {
        "ready",
        "blocked-max-ocp",
        "not-in-catalog",
    }
    notices = json.loads(report.read_text())["notices"]
    assert {n["code"] for n in notices} >= {"inventory.copied-csv", "inventory.csv-unmanaged"}


def test_an_installed_csv_without_the_properties_annotation_blocks_nothing(
    tmp_path: Path,
) -> None:
    # issue 21: the catalog's bundle declares olm.maxOpenShiftVersion 4.15, the installed CSV
    # (in the inventory) has no operatorframework.io/properties annotation: OpenShift reads the
    # maximum only from that annotation, so nothing blocks the upgrade to 4.16
    capped = replace(
        A, properties=(*A.properties, prop.Property("olm.maxOpenShiftVersion", '"4.15"'))
    )
    old = package([channel("stable", E(A.name))], [capped])
    inventory = tmp_path / "oc-get.yaml"
    inventory.write_text(
        json.dumps(
            {
                "kind": "List",
                "items": [
                    {
                        "kind": "Subscription",
                        "metadata": {"name": "etcd", "namespace": "ops"},
                        "spec": {"name": "etcd", "channel": "stable"},
                        "status": {"installedCSV": A.name},
                    },
                    {
                        "kind": "ClusterServiceVersion",
                        "metadata": {"name": A.name, "namespace": "ops"},
                        "spec": {"version": "1.0.0"},
                    },
                ],
            }
        )
    )
    code, out, err = invoke(
        "upgrade-check",
        fbc(tmp_path, "old", old),
        fbc(tmp_path, "new", GROWN),
        "--installed",
        str(inventory),
        "--target-ocp",
        "4.16",
    )
    assert code == 0, out + err
    assert "nothing blocks the upgrade" in out
    assert "no CSV in the inventory" not in out
    assert "declares olm.maxOpenShiftVersion 4.15, but the installed CSV has no" in out
