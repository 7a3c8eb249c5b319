"""``diff --crd-safety`` and ``upgrade-check --crd-safety`` on two small FBC catalogs
(tests/data/olmv1/crdupgrade/catalogs): ``widgets`` moves from a bundle carrying
fixtures/crds/widgets-v1.yaml to one carrying widgets-v2.yaml (six findings, worked out by hand
in docs/olmv1-crd-upgrade.md); ``gadgets``' old head carries no ``olm.bundle.object`` and an image
that does not exist, so its CRDs cannot be read and that is said."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import olmcat
from olmcat.cli import cli
from olmcat.notices import NoticeLog
from olmcat.olmv1.crdupgrade.catalogs import CODE_UNREAD
from tests.support.paths import DATA

CATALOGS = DATA / "olmv1" / "crdupgrade" / "catalogs"
OLD = str(CATALOGS / "old")
NEW = str(CATALOGS / "new")
RULES = ["existingFieldRemoval", "required", "enum", "type", "maximum", "minimum"]


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_library_diff_crd_safety() -> None:
    log = NoticeLog()
    report = olmcat.diff_crd_safety(OLD, NEW, notify=log)
    by_name = {p.package: p for p in report.packages}
    widgets = by_name["widgets"]
    assert [(c.channel, c.from_bundle, c.to_bundle) for c in widgets.checks] == [
        ("stable", "widgets.v1.0.0", "widgets.v2.0.0")
    ]
    assert [f.rule for f in widgets.findings] == RULES
    gadgets = by_name["gadgets"]
    assert gadgets.checks == ()
    assert [b for b, _ in gadgets.unread] == ["gadgets.v1.0.0"]
    unread = [n for n in log.notices if n.code == CODE_UNREAD]
    assert len(unread) == 1 and unread[0].bundle == "gadgets.v1.0.0"


def test_diff_text_lists_findings_and_unread_bundles() -> None:
    code, out, err = _invoke("diff", "--crd-safety", OLD, NEW)
    assert code == 1  # the catalogs differ
    assert (
        "CRD upgrade safety (operator-controller v1.11.0 preflight): 2 packages checked, "
        "1 refused, 6 findings, 1 bundle not read"
    ) in out
    assert (
        '    validating upgrade for CRD "widgets.example.com": v1alpha1: ^.spec.size: maximum: '
        "maximum decreased : 10 -> 5 [maximum]"
    ) in out.splitlines()
    assert "gadgets: bundle gadgets.v1.0.0: CRDs not read:" in out
    assert "its CRDs could not be read" in err


def test_diff_fail_on_crd_is_a_gate() -> None:
    code, _, _ = _invoke("diff", "--fail-on", "crd", OLD, NEW)
    assert code == 1
    code, _, _ = _invoke("diff", "--fail-on", "crd", OLD, OLD)
    assert code == 0


def test_diff_json_markdown_html() -> None:
    code, out, _ = _invoke("diff", "--crd-safety", "--format", "json", OLD, NEW)
    assert code == 1
    section = json.loads(out)["crdSafety"]
    assert (section["packages"], section["refused"], section["findings"]) == (2, 1, 6)
    widgets = next(r for r in section["results"] if r["package"] == "widgets")
    assert [f["rule"] for f in widgets["checks"][0]["findings"]] == RULES
    code, out, _ = _invoke("diff", "--crd-safety", "--format", "markdown", OLD, NEW)
    assert "## CRD upgrade safety" in out
    assert "| widgets | stable | `widgets.v1.0.0` → `widgets.v2.0.0` | 1 | 6 |" in out
    code, out, _ = _invoke("diff", "--crd-safety", "--format", "html", OLD, NEW)
    assert '<section class="crd-safety">' in out
    # the quotes of the finding are escaped for HTML
    assert "validating upgrade for CRD &quot;widgets.example.com&quot;" in out


def test_upgrade_check_crd_safety(tmp_path: Path) -> None:
    inventory = tmp_path / "inventory.csv"
    inventory.write_text("package,channel,version\nwidgets,stable,1.0.0\n")
    code, out, _ = _invoke("upgrade-check", OLD, NEW, "--installed", str(inventory), "--crd-safety")
    assert code == 1  # nothing else blocks: the refused CRD upgrade does
    assert "widgets: widgets.v1.0.0 -> widgets.v2.0.0 (channel stable): refused" in out
    code, out, _ = _invoke(
        "upgrade-check", OLD, NEW, "--installed", str(inventory), "--json", "--fail-on", "crd"
    )
    assert code == 1
    assert json.loads(out)["crdSafety"]["findings"] == 6
    code, out, _ = _invoke(
        "upgrade-check", OLD, NEW, "--installed", str(inventory), "--crd-safety", "--format", "html"
    )
    assert '<section class="crd-safety">' in out
    report = olmcat.upgrade_crd_safety(OLD, NEW, list(olmcat.load_inventory(str(inventory))))
    assert [f.rule for f in report.findings] == RULES


def test_contents_come_from_the_bundle_images_when_the_catalog_lacks_them(tmp_path: Path) -> None:
    """No olm.bundle.object: each bundle's CRDs are read from its image (here image archives)."""
    import shutil

    from tests.support.bundleimages import single_layer
    from tests.support.paths import FIXTURES

    images = {}
    for version, crd in (("1.0.0", "widgets-v1.yaml"), ("2.0.0", "widgets-v2.yaml")):
        bundle = tmp_path / f"bundle-{version}"
        shutil.copytree(FIXTURES / "olmv1" / "webhook-bundle", bundle)
        (bundle / "manifests" / "webhook.operators.coreos.io_webhooktests.yaml").unlink()
        shutil.copy(FIXTURES / "crds" / crd, bundle / "manifests" / "widgets.yaml")
        archive = single_layer(bundle).write_oci_archive(tmp_path / f"widgets-{version}.tar")
        images[version] = f"oci-archive:{archive}"

    def bundle_blob(version: str) -> dict[str, object]:
        return {
            "schema": "olm.bundle",
            "name": f"widgets.v{version}",
            "package": "widgets",
            "image": images[version],
            "properties": [
                {"type": "olm.package", "value": {"packageName": "widgets", "version": version}}
            ],
        }

    package = {"schema": "olm.package", "name": "widgets", "defaultChannel": "stable"}
    entries = [{"name": "widgets.v1.0.0"}]
    for side, blobs in (
        (
            "old",
            [
                package,
                {
                    "schema": "olm.channel",
                    "name": "stable",
                    "package": "widgets",
                    "entries": entries,
                },
                bundle_blob("1.0.0"),
            ],
        ),
        (
            "new",
            [
                package,
                {
                    "schema": "olm.channel",
                    "name": "stable",
                    "package": "widgets",
                    "entries": [*entries, {"name": "widgets.v2.0.0", "replaces": "widgets.v1.0.0"}],
                },
                bundle_blob("1.0.0"),
                bundle_blob("2.0.0"),
            ],
        ),
    ):
        (tmp_path / side).mkdir()
        (tmp_path / side / "catalog.json").write_text("".join(json.dumps(b) for b in blobs))
    report = olmcat.diff_crd_safety(str(tmp_path / "old"), str(tmp_path / "new"))
    assert [p.unread for p in report.packages] == [()]
    assert [f.rule for f in report.findings] == RULES
