"""``olmcat olmv1 crd-upgrade``: exit statuses and output on the fixtures and the copied
operator-controller testdata; ``olmcat.crd_upgrade`` from the library."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

import olmcat
from olmcat.cli import cli
from tests.support.bundleimages import single_layer
from tests.support.paths import DATA, FIXTURES

V1 = str(FIXTURES / "crds" / "widgets-v1.yaml")
V2 = str(FIXTURES / "crds" / "widgets-v2.yaml")
MANIFESTS = DATA / "olmv1" / "crdupgrade" / "manifests"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["olmv1", "crd-upgrade", *args])
    return result.exit_code, result.stdout, result.stderr


def test_refused_upgrade_lists_each_finding_with_its_rule() -> None:
    code, out, _ = _run(V1, V2)
    assert code == 1
    assert out.splitlines() == [
        'validating upgrade for CRD "widgets.example.com": existingFieldRemoval: removed field : '
        "v1alpha1.^.spec.owner [existingFieldRemoval]",
        'validating upgrade for CRD "widgets.example.com": v1alpha1: ^.spec: required: '
        "new required fields: [mode] [required]",
        'validating upgrade for CRD "widgets.example.com": v1alpha1: ^.spec.mode: enum: '
        'allowed enum values removed : ["Unmanaged"] [enum]',
        'validating upgrade for CRD "widgets.example.com": v1alpha1: ^.spec.owner: type: '
        'type changed : "string" -> "" [type]',
        'validating upgrade for CRD "widgets.example.com": v1alpha1: ^.spec.size: maximum: '
        "maximum decreased : 10 -> 5 [maximum]",
        'validating upgrade for CRD "widgets.example.com": v1alpha1: ^.spec.size: minimum: '
        "minimum increased : 1 -> 2 [minimum]",
        "refused: 1 CRD compared, 6 findings",
    ]


def test_safe_upgrade_exits_0() -> None:
    code, out, _ = _run(V1, V1)
    assert (code, out) == (0, "safe: 1 CRD compared, no finding\n")
    # a new enum value and a new optional field are allowed by v1.11.0
    code, _, _ = _run(
        str(MANIFESTS / "crd-optional-field-old.json"),
        str(MANIFESTS / "crd-optional-field-new.json"),
    )
    assert code == 0


def test_json_and_markdown() -> None:
    code, out, _ = _run("--format", "json", V1, V2)
    assert code == 1
    document = json.loads(out)
    assert document["safe"] is False
    assert [f["rule"] for f in document["crds"][0]["findings"]] == [
        "existingFieldRemoval",
        "required",
        "enum",
        "type",
        "maximum",
        "minimum",
    ]
    code, out, _ = _run("--format", "markdown", V1, V2)
    assert code == 1
    assert "| `widgets.example.com` | enum | v1alpha1 | `^.spec.mode` |" in out


def test_trouble_exits_2_with_one_line() -> None:
    code, _, err = _run(str(FIXTURES / "crds" / "absent.yaml"), V1)
    assert code == 2
    assert err.strip().endswith("absent.yaml: no such file")
    assert len(err.strip().splitlines()) == 1
    code, _, err = _run(str(MANIFESTS / "no-crds.json"), V1)
    assert code == 2
    assert "holds no CustomResourceDefinition" in err


def test_library_call() -> None:
    result = olmcat.crd_upgrade(V1, V2)
    assert not result.safe
    assert len(result.findings) == 6
    assert result.only_old == () and result.only_new == ()
    assert result.error().split("\n")[0] == (
        'validating upgrade for CRD "widgets.example.com": existingFieldRemoval: removed field : '
        "v1alpha1.^.spec.owner"
    )
    assert len(result.error().split("\n")) == 6


def _bundle_with(root: Path, crd_file: Path) -> Path:
    """fixtures/olmv1/webhook-bundle with its CRD replaced by ``crd_file``."""
    bundle = root / crd_file.stem
    shutil.copytree(FIXTURES / "olmv1" / "webhook-bundle", bundle)
    (bundle / "manifests" / "webhook.operators.coreos.io_webhooktests.yaml").unlink()
    shutil.copy(crd_file, bundle / "manifests" / "widgets.yaml")
    return bundle


def test_bundle_directories_and_a_bundle_image(tmp_path: Path) -> None:
    old = _bundle_with(tmp_path, FIXTURES / "crds" / "widgets-v1.yaml")
    new = _bundle_with(tmp_path, FIXTURES / "crds" / "widgets-v2.yaml")
    code, out, _ = _run(str(old), str(new))
    assert code == 1
    assert out.splitlines()[-1] == "refused: 1 CRD compared, 6 findings"
    archive = single_layer(new).write_oci_archive(tmp_path / "new.tar")
    code, out, _ = _run(str(old), f"oci-archive:{archive}")
    assert code == 1
    assert out.splitlines()[-1] == "refused: 1 CRD compared, 6 findings"
    code, out, _ = _run(f"oci-archive:{archive}", f"oci-archive:{archive}")
    assert (code, out) == (0, "safe: 1 CRD compared, no finding\n")
