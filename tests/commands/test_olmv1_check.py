"""``olmcat olmv1 check`` and ``olmcat olmv1 plan`` on the command line: formats, exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.pictures.page import content_security_policy
from tests.support.paths import DATA, FIXTURES

EXAMPLE_DB = str(FIXTURES / "example" / "sqlite" / "schema-13.db")
EXAMPLE_FBC = str(FIXTURES / "example" / "expected")
INVENTORY = str(FIXTURES / "inventory-example.csv")
WEBHOOK_BUNDLE = str(DATA / "olmv1" / "regression" / "bundles" / "webhook-operator.v0.0.5")
WORLD = (
    'bundle "world-operator.v1.0.0" has a dependency declared via property "olm.gvk.required" '
    "which is currently not supported"
)


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_check_text_and_exit_status() -> None:
    code, out, err = invoke("olmv1", "check", EXAMPLE_DB)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == f"OLM v1 check (operator-controller v1.11.0): {EXAMPLE_DB}"
    assert "✓ hello-operator  hello-operator.v0.2.0 (0.2.0)  channels stable  installable" in lines
    assert f"    - olmv1.resolve.dependency-property {WORLD}" in lines
    assert lines[-2:] == [
        "3 bundles: 2 installable, 1 refused",
        "  refused by olmv1.resolve.dependency-property: 1",
    ]


def test_check_installable_only_exits_0() -> None:
    code, out, _ = invoke("olmv1", "check", EXAMPLE_FBC, "-p", "hello-operator", "--all")
    assert code == 0
    assert out.splitlines()[-1] == "3 bundles: 3 installable"


def test_check_json_document() -> None:
    code, out, _ = invoke("olmv1", "check", EXAMPLE_DB, "--format", "json")
    assert code == 1
    document = json.loads(out)
    assert document["schema"] == "olmcat.olmv1-check.v1"
    assert document["featureGates"]["SingleOwnNamespaceInstallSupport"] is False
    assert document["summary"] == {
        "bundles": 3,
        "installable": 2,
        "refused": 1,
        "unknown": 0,
        "refusedByRule": {"olmv1.resolve.dependency-property": 1},
    }
    world = document["bundles"][-1]
    assert world["verdict"] == "refused"
    assert world["reasons"] == [{"rule": "olmv1.resolve.dependency-property", "message": WORLD}]


def test_check_markdown() -> None:
    code, out, _ = invoke("olmv1", "check", EXAMPLE_DB, "--format", "markdown")
    assert code == 1
    assert out.startswith(f"### OLM v1 check: `{EXAMPLE_DB}`\n")
    assert "| `olmv1.resolve.dependency-property` | 1 |" in out
    assert "| ❌ | world-operator | world-operator.v1.0.0 (1.0.0) | alpha | **refused** | " in out


def test_check_html_is_self_contained() -> None:
    code, out, _ = invoke("olmv1", "check", EXAMPLE_DB, "--format", "html")
    assert code == 1
    assert out.startswith("<!DOCTYPE html>")
    assert content_security_policy() in out
    assert "world-operator.v1.0.0" in out and "olmv1.resolve.dependency-property" in out
    assert 'src="http' not in out and 'href="http' not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--feature-gates", "Nope=true"], "unrecognized feature gate: Nope"),
        (["--feature-gates", "DeploymentConfig=maybe"], "invalid value of DeploymentConfig=maybe"),
        (["--format", "yaml"], "Invalid value for '--format'"),
    ],
)
def test_check_usage_errors_exit_2(args: list[str], message: str) -> None:
    code, out, err = invoke("olmv1", "check", EXAMPLE_DB, *args)
    assert code == 2 and out == ""
    assert message in err


def test_check_needs_a_reference() -> None:
    code, _, err = invoke("olmv1", "check")
    assert code == 2 and "missing argument 'CATALOG|BUNDLE...'" in err


def test_check_bad_input_is_one_line_exit_1(tmp_path: Path) -> None:
    code, out, err = invoke("olmv1", "check", str(tmp_path / "nothing"))
    assert (code, out) == (1, "")
    assert err.startswith("olmcat: error: ") and err.count("\n") == 1
    code, out, err = invoke("olmv1", "check", EXAMPLE_DB, "-p", "nope")
    assert (code, out) == (1, "")
    assert "no package 'nope'" in err


def test_check_gates_change_the_verdict() -> None:
    code, out, _ = invoke("olmv1", "check", WEBHOOK_BUNDLE)
    assert code == 0 and out.splitlines()[-1] == "1 bundle: 1 installable"
    off = "WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false"
    code, out, _ = invoke("olmv1", "check", WEBHOOK_BUNDLE, "--feature-gates", off)
    assert code == 1
    assert (
        "    - olmv1.provider.webhooks-disabled unsupported bundle: webhookDefinitions are not "
        "supported"
    ) in out.splitlines()


def test_check_report_file(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    code, _, _ = invoke("olmv1", "check", EXAMPLE_DB, "--report", str(report))
    assert code == 1
    assert json.loads(report.read_text())["schema"] == "olmcat.report.v1"


# -- plan ----------------------------------------------------------------------------------------


def test_plan_text() -> None:
    code, out, err = invoke("olmv1", "plan", "--installed", INVENTORY, EXAMPLE_FBC)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == f"OLM v1 plan (operator-controller v1.11.0): catalog {EXAMPLE_FBC}"
    assert "✓ hello  package hello-operator  channel beta  installable" in lines
    assert (
        f"    install: olmcat olmv1 install hello-operator --catalog {EXAMPLE_FBC} "
        "--namespace hello --channel beta --version 0.1.0"
    ) in lines
    assert "✗ world  package world-operator  channel alpha  blocked" in lines
    assert lines[-1] == "2 operators: 1 installable, 1 blocked"


def test_plan_json_and_stdin() -> None:
    inventory = Path(INVENTORY).read_text()
    code, out, _ = invoke(
        "olmv1", "plan", "--installed", "-", EXAMPLE_FBC, "--format", "json", stdin=inventory
    )
    assert code == 1
    document = json.loads(out)
    assert document["schema"] == "olmcat.olmv1-plan.v1"
    assert document["summary"]["installable"] == 1 and document["summary"]["blocked"] == 1
    hello, world = document["operators"]
    assert hello["installed"]["name"] == "hello-operator.v0.1.0"
    assert hello["newest"]["name"] == "hello-operator.v0.3.0"
    assert hello["newest"]["verdict"] == "installable"
    assert world["installCommand"] is None
    assert world["installed"]["reasons"][0]["message"] == WORLD


def test_plan_markdown_and_html() -> None:
    code, out, _ = invoke(
        "olmv1", "plan", "--installed", INVENTORY, EXAMPLE_FBC, "--format", "markdown"
    )
    assert code == 1 and out.startswith(f"### OLM v1 plan: `{EXAMPLE_FBC}`\n")
    assert "| ❌ | world | world-operator | alpha | **blocked** |" in out
    code, out, _ = invoke(
        "olmv1", "plan", "--installed", INVENTORY, EXAMPLE_FBC, "--format", "html"
    )
    assert code == 1 and out.startswith("<!DOCTYPE html>")
    assert "olmcat olmv1 install hello-operator" in out


def test_plan_only_installable_exits_0(tmp_path: Path) -> None:
    inventory = tmp_path / "inv.csv"
    inventory.write_text("package,channel,version,namespace\nhello-operator,stable,0.2.0,hi\n")
    code, out, _ = invoke("olmv1", "plan", "--installed", str(inventory), EXAMPLE_DB)
    assert code == 0
    assert out.splitlines()[-1] == "1 operator: 1 installable"


def test_plan_usage_errors() -> None:
    code, _, err = invoke("olmv1", "plan", EXAMPLE_FBC)
    assert code == 2 and "--installed" in err
    code, _, err = invoke(
        "olmv1", "plan", "--installed", INVENTORY, EXAMPLE_FBC, "--feature-gates", "X=1"
    )
    assert code == 2 and "unrecognized feature gate: X" in err


ARGOCD = str(DATA / "olmv1" / "regression" / "bundles" / "argocd-operator.v0.6.0")


def test_check_with_a_configuration(tmp_path: Path) -> None:
    single_own = ("--feature-gates", "SingleOwnNamespaceInstallSupport=true")
    code, out, _ = invoke(
        "olmv1", "check", ARGOCD, *single_own, "-n", "argocd", "--watch-namespace", "argocd"
    )
    assert code == 0
    assert out.splitlines()[1] == (
        "feature gates: SingleOwnNamespaceInstallSupport=true; checked: the bundles given; install "
        'namespace argocd, spec.config.inline {"watchNamespace":"argocd"}'
    )
    config = tmp_path / "config.yaml"
    config.write_text("deploymentConfig:\n  env:\n  - name: A\n    value: b\n")
    code, out, _ = invoke("olmv1", "check", ARGOCD, "--config", str(config))
    assert code == 1
    assert (
        "    - olmv1.config.invalid invalid ClusterExtension configuration: invalid "
        'configuration: unknown field "deploymentConfig"'
    ) in out.splitlines()
    code, out, _ = invoke(
        "olmv1",
        "check",
        ARGOCD,
        "--config",
        str(config),
        "--feature-gates",
        "DeploymentConfig=true",
    )
    assert code == 0
    code, out, _ = invoke(
        "olmv1", "check", ARGOCD, "--watch-namespace", "Bad_NS", "--format", "json"
    )
    assert code == 1
    (reason,) = json.loads(out)["bundles"][0]["reasons"]
    assert reason["rule"] == "olmv1.config.invalid"
    assert reason["message"].splitlines()[-1] == (
        '  - field "watchNamespace" must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"'
    )


def test_check_config_file_missing_is_one_line(tmp_path: Path) -> None:
    code, out, err = invoke("olmv1", "check", ARGOCD, "--config", str(tmp_path / "none.yaml"))
    assert (code, out) == (1, "")
    assert err.startswith("olmcat: error: ") and err.count("\n") == 1


def test_list_rules() -> None:
    from olmcat.olmv1.check import rules

    code, out, err = invoke("olmv1", "check", "--list-rules")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == [rule.id for rule in rules()]
    assert len(lines) == 1 + 9 + 13 + 1
