"""``crd_upgrade``: the CRDs of OLD against those of NEW, as v1.11.0's preflight would judge them.

OLD and NEW are each a CRD file (YAML or JSON, one or more documents, ``List`` objects
flattened), a bundle directory or a bundle image. Every CRD present in both (by name) is
compared with :func:`olmcat.olmv1.crdupgrade.engine.compare_crds` under v1.11.0's configuration;
a CRD only NEW has has nothing to break, one only OLD has is not the preflight's business (it
only looks at the CRDs the new bundle applies): both are listed in the result, not judged.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.files.yaml import load_all
from olmcat.model import manifests
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.olmv1.crdupgrade.engine import OLM_V1_11, CrdComparison, Finding, compare_crds

if TYPE_CHECKING:
    from olmcat.oci.registry import RegistryOptions

__all__ = ["CODE_STORED_VERSIONS", "CrdUpgradeResult", "crd_upgrade", "load_crds"]

CRD_KIND = "CustomResourceDefinition"
CODE_STORED_VERSIONS = "olmv1.crd.stored-versions-assumed"


@dataclass(frozen=True)
class CrdUpgradeResult:
    """Every CRD compared, in NEW's order, and the CRDs only one side has."""

    old: str
    new: str
    compared: tuple[CrdComparison, ...]
    only_old: tuple[str, ...] = ()
    only_new: tuple[str, ...] = ()

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(f for c in self.compared for f in c.findings)

    @property
    def safe(self) -> bool:
        return not self.findings

    def error(self) -> str:
        """The error v1.11.0's preflight returns for the whole upgrade (``errors.Join`` of each
        refused CRD's error); "" when it is safe."""
        return "\n".join(c.error() for c in self.compared if c.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "safe": self.safe,
            "crds": [
                {
                    "name": c.name,
                    "safe": c.safe,
                    "findings": [f.to_json() for f in c.findings],
                }
                for c in self.compared
            ],
            "onlyOld": list(self.only_old),
            "onlyNew": list(self.only_new),
        }


def _flatten(document: Any) -> list[dict[str, Any]]:
    if not isinstance(document, dict):
        return []
    if manifests.kind(document) == "List" or (
        document.get("kind", "").endswith("List") and isinstance(document.get("items"), list)
    ):
        return [o for item in document["items"] for o in _flatten(item)]
    return [document]


def _crds_of_file(path: Path) -> list[dict[str, Any]]:
    text = safe.read_text(path)
    objects = [o for d in load_all(text, where=str(path)) for o in _flatten(d)]
    return [o for o in objects if manifests.kind(o) == CRD_KIND]


def load_crds(
    source: str,
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    notify: NoticeSink = discard,
) -> list[dict[str, Any]]:
    """The CRDs a CRD file, a bundle directory or a bundle image holds, in their order."""
    from olmcat.olmv1.bundle import read_bundle

    path = Path(source)
    if path.suffix.lower() in (".yaml", ".yml", ".json") and not path.exists():
        raise InputError(f"{source}: no such file")
    if path.is_file() and path.suffix.lower() in (".yaml", ".yml", ".json"):
        crds = _crds_of_file(path)
        if not crds:
            raise InputError(f"{source}: holds no CustomResourceDefinition")
        return crds
    if path.is_dir() and not (path / "manifests").is_dir():
        raise InputError(f"{source}: not a bundle directory (no manifests/)")
    bundle = read_bundle(source, platform=platform, options=options, notify=notify)
    return list(bundle.crds)


def compare_crd_lists(
    old: list[dict[str, Any]],
    new: list[dict[str, Any]],
    *,
    notify: NoticeSink = discard,
    package: str = "",
    bundle: str = "",
) -> tuple[tuple[CrdComparison, ...], tuple[str, ...], tuple[str, ...]]:
    """Compare the CRDs both lists hold (by name, NEW's order): (compared, only old, only new)."""
    by_name = {manifests.name(c): c for c in old}
    new_names = [manifests.name(c) for c in new]
    compared = []
    for crd in new:
        name = manifests.name(crd)
        if name not in by_name:
            continue
        result = compare_crds(by_name[name], crd, OLM_V1_11, assume_stored_versions=True)
        if result.stored_versions_assumed:
            notify(
                Notice(
                    CODE_STORED_VERSIONS,
                    f"CRD {name}: the old CRD has no status.storedVersions; its storage version "
                    "is taken as stored, as the API server records it",
                    severity="info",
                    package=package,
                    bundle=bundle,
                )
            )
        compared.append(result)
    only_old = tuple(n for n in by_name if n not in new_names)
    only_new = tuple(n for n in new_names if n not in by_name)
    return tuple(compared), only_old, only_new


def crd_upgrade(
    old: str,
    new: str,
    *,
    platform: str | None = None,
    options: RegistryOptions | None = None,
    notify: NoticeSink = discard,
) -> CrdUpgradeResult:
    """Compare every CRD OLD and NEW both hold as operator-controller v1.11.0's CRD
    upgrade-safety preflight does; OLD and NEW are CRD files, bundle directories or images."""
    old_crds = load_crds(old, platform=platform, options=options, notify=notify)
    new_crds = load_crds(new, platform=platform, options=options, notify=notify)
    compared, only_old, only_new = compare_crd_lists(old_crds, new_crds, notify=notify)
    return CrdUpgradeResult(old, new, compared, only_old, only_new)
