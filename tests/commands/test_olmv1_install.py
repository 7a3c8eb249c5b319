# ruff: noqa: E501 (one case per line)
"""``olmcat olmv1 install`` on the command line: the stream, exit statuses, the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.migrate import migrate_sqlite
from tests.support.paths import FIXTURES


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("olmv1-cli") / "catalog"
    migrate_sqlite(str(FIXTURES / "example" / "sqlite" / "schema-13.db"), out)
    return str(out)


def test_stream(catalog: str) -> None:
    code, out, err = invoke("olmv1", "install", "hello-operator", "--catalog", catalog, "--namespace", "hello")  # fmt: skip
    assert code == 0, err
    docs = list(yaml.safe_load_all(out))
    assert [d["kind"] for d in docs] == [
        "Namespace",
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",
        "RoleBinding",
        "ClusterExtension",
    ]
    assert out.startswith("---\napiVersion: v1\nkind: Namespace\n")
    assert err.startswith(
        "olmcat: warning: hello-operator.v0.3.0: operator-controller v1.11.0 ignores spec.serviceAccount"
    )
    assert err.rstrip().endswith("(--no-service-account leaves them out)")


def test_same_stream_from_the_sqlite_database(catalog: str) -> None:
    args = ("olmv1", "install", "hello-operator", "--namespace", "hello")
    from_fbc = invoke(*args, "--catalog", catalog)
    db = str(FIXTURES / "example" / "sqlite" / "schema-13.db")
    from_db = invoke(*args, "--catalog", db)
    assert from_fbc[0] == from_db[0] == 0
    assert from_fbc[1] == from_db[1]


def test_report(catalog: str, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code, _, err = invoke(
        "olmv1", "install", "hello-operator", "--catalog", catalog, "--namespace", "hello",
        "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    document = json.loads(report.read_text())
    codes = {n["code"] for n in document["notices"]}
    assert codes == {"olmv1.install.service-account-ignored", "olmv1.install.unpinned"}


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        pytest.param(["hello-operator", "--namespace", "Hello"], 2, "namespace 'Hello' is not a valid DNS-1123 label", id="bad-namespace"),
        pytest.param(["nope", "--namespace", "hello"], 1, "no package 'nope' in the catalog", id="no-package"),
        pytest.param(["hello-operator", "--namespace", "hello", "--version", ">=1"], 1, "no package 'hello-operator' matching version '>=1' found", id="no-version"),
        # world-operator requires hello-operator's API (olm.gvk.required): operator-controller
        # refuses dependencies
        pytest.param(["world-operator", "--namespace", "w"], 1, 'bundle "world-operator.v1.0.0" has a dependency declared via property "olm.gvk.required" which is currently not supported', id="dependency"),
        pytest.param(["hello-operator"], 2, "Missing option '--namespace'", id="no-namespace-option"),
    ],
)  # fmt: skip
def test_errors(catalog: str, args: list[str], code: int, message: str) -> None:
    got, out, err = invoke("olmv1", "install", "--catalog", catalog, *args)
    assert got == code
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_help_has_examples() -> None:
    code, out, _ = invoke("olmv1", "install", "--help")
    assert code == 0
    assert "Examples:" in out
    assert "--template" in out


def test_watch_namespace(catalog: str) -> None:
    # hello-operator supports OwnNamespace and AllNamespaces: another namespace is refused with
    # v1.11.0's configuration error, its own namespace written as spec.config
    code, out, err = invoke("olmv1", "install", "hello-operator", "--catalog", catalog, "--namespace", "hello", "--watch-namespace", "other")  # fmt: skip
    assert code == 1 and out == ""
    assert err.startswith("olmcat: error: invalid ClusterExtension configuration: ")
    assert 'invalid value "other": must be "hello"' in err
    code, out, err = invoke("olmv1", "install", "hello-operator", "--catalog", catalog, "--namespace", "hello", "--watch-namespace", "hello", "--template")  # fmt: skip
    assert code == 0, err
    extension = list(yaml.safe_load_all(out))[-1]
    assert extension["spec"]["config"] == {
        "configType": "Inline",
        "inline": {"watchNamespace": "${NAMESPACE}"},
    }
    assert "olmcat: warning: hello-operator.v0.3.0 watches namespace hello: " in err


def test_no_service_account(catalog: str) -> None:
    # what operator-controller v1.11.0 needs: the Namespace and a ClusterExtension without
    # spec.serviceAccount (valid against v1.11.0's CRD), and no warning about the field
    from tests.support.install_checks import schema_errors

    code, out, err = invoke("olmv1", "install", "hello-operator", "--catalog", catalog, "--namespace", "hello", "--no-service-account")  # fmt: skip
    assert code == 0, err
    assert err == ""
    docs = list(yaml.safe_load_all(out))
    assert [d["kind"] for d in docs] == ["Namespace", "ClusterExtension"]
    assert docs[1]["spec"] == {
        "namespace": "hello",
        "source": {"sourceType": "Catalog", "catalog": {"packageName": "hello-operator"}},
    }
    assert schema_errors(docs) == []
