"""``olmv1 check`` reading bundle images from a real registry (docker-registry on 127.0.0.1):
a catalog that carries only ``olm.csv.metadata`` is checked from each bundle's image, and the
image reference itself can be checked; an unreachable image is ``unknown``, never a silent yes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.support.paths import DATA
from tests.support.registry import Registries, clean_env, directory_files, make_image, push

pytestmark = pytest.mark.registry

BUNDLE = DATA / "olmv1" / "regression" / "bundles" / "webhook-operator.v0.0.5"
NO_WEBHOOKS = "WebhookProviderCertManager=false,WebhookProviderOpenshiftServiceCA=false"


def _olmcat(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olmcat", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def image(registries: Registries) -> str:
    """The webhook operator's bundle as an image in the plain registry."""
    annotations = yaml.safe_load((BUNDLE / "metadata" / "annotations.yaml").read_text())
    labels = {str(k): str(v) for k, v in annotations["annotations"].items()}
    files = {
        **directory_files(BUNDLE / "manifests", "manifests"),
        **directory_files(BUNDLE / "metadata", "metadata"),
    }
    push(registries.plain, "webhook-bundle", "v0.0.5", make_image([files], labels=labels))
    return f"{registries.plain.host}/webhook-bundle:v0.0.5"


def _metadata_only_catalog(directory: Path, image: str) -> Path:
    """One package whose one bundle the catalog describes only by olm.csv.metadata."""
    directory.mkdir()
    blobs = [
        {"schema": "olm.package", "name": "webhook-operator", "defaultChannel": "alpha"},
        {
            "schema": "olm.channel",
            "package": "webhook-operator",
            "name": "alpha",
            "entries": [{"name": "webhook-operator.v0.0.5"}],
        },
        {
            "schema": "olm.bundle",
            "name": "webhook-operator.v0.0.5",
            "package": "webhook-operator",
            "image": image,
            "properties": [
                {
                    "type": "olm.package",
                    "value": {"packageName": "webhook-operator", "version": "0.0.5"},
                },
                {
                    "type": "olm.csv.metadata",
                    "value": {"installModes": [{"type": "AllNamespaces", "supported": True}]},
                },
            ],
        },
    ]
    (directory / "catalog.json").write_text("\n".join(json.dumps(b) for b in blobs) + "\n")
    return directory


def test_metadata_only_catalog_is_checked_from_the_image(image: str, tmp_path: Path) -> None:
    catalog = _metadata_only_catalog(tmp_path / "catalog", image)
    env = clean_env(tmp_path)
    done = _olmcat(env, "olmv1", "check", str(catalog), "--use-http", "--format", "json")
    assert done.returncode == 0, done.stderr
    (bundle,) = json.loads(done.stdout)["bundles"]
    assert (bundle["verdict"], bundle["source"]) == ("installable", f"image {image}")
    # The webhooks are known only from the image's files: with both providers off, refused.
    done = _olmcat(
        env, "olmv1", "check", str(catalog), "--use-http", "--feature-gates", NO_WEBHOOKS
    )
    assert done.returncode == 1
    assert (
        "    - olmv1.provider.webhooks-disabled unsupported bundle: webhookDefinitions are not "
        "supported"
    ) in done.stdout.splitlines()


def test_the_image_reference_itself(image: str, tmp_path: Path) -> None:
    done = _olmcat(clean_env(tmp_path), "olmv1", "check", image, "--use-http", "--format", "json")
    assert done.returncode == 0, done.stderr
    (bundle,) = json.loads(done.stdout)["bundles"]
    assert (bundle["name"], bundle["source"], bundle["verdict"]) == (
        "webhook-operator.v0.0.5",
        "bundle image",
        "installable",
    )


def test_an_image_that_is_not_there_is_unknown(registries: Registries, tmp_path: Path) -> None:
    missing = f"{registries.plain.host}/no-such-bundle:v1"
    catalog = _metadata_only_catalog(tmp_path / "catalog", missing)
    done = _olmcat(clean_env(tmp_path), "olmv1", "check", str(catalog), "--use-http")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[3].startswith(
        "? webhook-operator  webhook-operator.v0.0.5 (0.0.5)  channels alpha"
    )
    assert (
        "could not run because the catalog has no olm.bundle.object and the bundle image"
        in (lines[3])
    )
    assert "olmcat: warning: bundle webhook-operator.v0.0.5: " in done.stderr
    assert missing in done.stderr
