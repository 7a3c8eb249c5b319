"""``olmcat olmv1 render`` on the command line: the YAML stream, --out files, refusals (one line,
exit 1) and usage errors (exit 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.files.yaml import load_all
from tests.support.paths import DATA, FIXTURES

REGRESSION = DATA / "olmv1" / "regression"
ARGOCD = REGRESSION / "bundles" / "argocd-operator.v0.6.0"
WEBHOOK = FIXTURES / "olmv1" / "webhook-bundle"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_stream_is_the_rendered_objects_in_generator_order() -> None:
    code, out, err = invoke("olmv1", "render", str(WEBHOOK), "--namespace", "webhook-system")
    assert (code, err) == (0, "")
    kinds = [d["kind"] for d in load_all(out)]
    assert kinds == [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "Deployment",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "Service",
    ]
    assert out.startswith("---\napiVersion: v1\nkind: ServiceAccount\n")


def test_out_writes_the_regression_files_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "own"
    code, stdout, err = invoke(
        "olmv1", "render", str(ARGOCD), "-n", "argocd-system",
        "--watch-namespace", "argocd-system", "--out", str(out),
    )  # fmt: skip
    assert (code, stdout, err) == (0, "", "")
    expected = REGRESSION / "expected-manifests" / "argocd-operator.v0.6.0" / "own-namespace"
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in expected.iterdir())
    for path in expected.iterdir():
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name


def test_cert_manager_adds_issuer_and_certificate() -> None:
    code, out, _ = invoke(
        "olmv1", "render", str(WEBHOOK), "-n", "webhook-system", "--cert-provider", "cert-manager"
    )
    assert code == 0
    docs = list(load_all(out))
    assert [d["kind"] for d in docs][-2:] == ["Issuer", "Certificate"]
    crd = next(d for d in docs if d["kind"] == "CustomResourceDefinition")
    assert crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"] == (
        "webhook-system/webhook-operator-controller-manager-service-cert"
    )


def test_config_file_is_validated_with_v1_11_messages(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("watchNamespace: argocd-watch\ndeploymentConfig:\n  selector: {}\n")
    code, out, err = invoke(
        "olmv1", "render", str(ARGOCD), "-n", "argocd-system", "--config", str(config)
    )
    assert (code, out) == (1, "")
    assert err == (
        "olmcat: error: invalid ClusterExtension configuration: invalid configuration: "
        'unknown field "selector"\n'
    )


def test_config_deployment_options_reach_the_deployment(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"deploymentConfig": {"nodeSelector": {"kubernetes.io/os": "linux"}}}')
    code, out, _ = invoke(
        "olmv1", "render", str(ARGOCD), "-n", "argocd-system", "--config", str(config)
    )
    assert code == 0
    deployment = next(d for d in load_all(out) if d["kind"] == "Deployment")
    assert deployment["spec"]["template"]["spec"]["nodeSelector"] == {"kubernetes.io/os": "linux"}


def test_watch_namespace_the_bundle_cannot_watch_is_one_line() -> None:
    code, out, err = invoke(
        "olmv1", "render", str(WEBHOOK), "-n", "webhook-system", "--watch-namespace", "other"
    )
    assert (code, out) == (1, "")
    assert err == (
        "olmcat: error: invalid ClusterExtension configuration: invalid configuration: "
        'unknown field "watchNamespace"\n'
    )


def test_invalid_bundle_lists_every_reason_on_one_line(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(WEBHOOK, bundle)
    csv = bundle / "manifests" / "webhook-operator.clusterserviceversion.yaml"
    csv.write_text(
        csv.read_text().replace("generateName: vwebhooktest-v1.kb.io", "generateName: -bad")
    )
    (bundle / "manifests" / "job.yaml").write_text(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: my-job\n"
    )
    code, out, err = invoke("olmv1", "render", str(bundle), "-n", "ns")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert "webhook of type 'ValidatingAdmissionWebhook' has invalid name '-bad'" in err
    assert 'unsupported resource "my-job" with kind "Job"' in err


def test_missing_bundle_is_one_line() -> None:
    code, _, err = invoke("olmv1", "render", "no/such/bundle", "-n", "ns")
    assert code == 1
    assert err.startswith("olmcat: error: no/such/bundle: no such file or directory")


def test_out_must_be_new_or_empty(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("x")
    code, _, err = invoke("olmv1", "render", str(WEBHOOK), "-n", "ns", "--out", str(tmp_path))
    assert code == 1
    assert "exists and is not empty" in err
    assert (tmp_path / "keep.txt").read_text() == "x"


def test_usage_errors_exit_2() -> None:
    assert invoke("olmv1", "render", str(WEBHOOK))[0] == 2  # no --namespace
    assert invoke("olmv1", "render", str(WEBHOOK), "-n", "x", "--cert-provider", "acme")[0] == 2


def test_help_has_examples() -> None:
    code, out, _ = invoke("olmv1", "render", "--help")
    assert code == 0
    assert "Examples:" in out and "olmcat olmv1 render fixtures/olmv1/webhook-bundle" in out
