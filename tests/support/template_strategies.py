"""Bundle directories and catalog templates for the template tests (plain data and hypothesis).

The bundle pool is a handful of small bundle-format directories with versions chosen to exercise
the semver template's rules: several majors and minors, patch runs, a pre-release, a version that
differs from another only by build metadata, 0.0.0 (opm v1.26.5's empty default channel), and a
bundle of a second package. Image references follow bundle-index's scheme
(``127.0.0.1:5000/<package>-bundle:<version dir>``) so the oracle registry can serve them.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

PREFIX = "127.0.0.1:5000"

# One transparent pixel: a real PNG, so icons decode.
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a5dc0000000049454e44ae426082"
    )
).decode()


@dataclass(frozen=True, slots=True)
class PoolBundle:
    package: str
    version: str
    channels: str = "stable"
    default: str = "stable"
    description: str = ""
    icon: bool = False
    skip_range: str = ""

    @property
    def name(self) -> str:
        return f"{self.package}.v{self.version}"

    @property
    def directory(self) -> str:
        return self.version

    @property
    def ref(self) -> str:
        return f"{PREFIX}/{self.package}-bundle:{self.directory.replace('+', '_')}"


POOL: tuple[PoolBundle, ...] = (
    PoolBundle("demo", "0.0.0"),
    PoolBundle("demo", "0.1.0"),
    PoolBundle("demo", "0.1.1"),
    PoolBundle("demo", "0.2.0"),
    PoolBundle("demo", "1.0.0-rc.1"),
    PoolBundle("demo", "1.0.0", description="Demo one"),
    PoolBundle("demo", "1.0.1"),
    PoolBundle("demo", "1.1.0", icon=True),
    PoolBundle("demo", "1.1.0+build.7"),
    PoolBundle("demo", "1.2.3", skip_range="<1.2.3"),
    PoolBundle("demo", "2.0.0", description="Demo <two> & more", icon=True),
    PoolBundle("demo", "2.1.0"),
    PoolBundle("demo", "2.1.5"),
    PoolBundle("demo", "10.0.0"),
    PoolBundle("other", "1.0.0"),
)


def csv_manifest(bundle: PoolBundle) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "version": bundle.version,
        "displayName": bundle.package,
        "install": {"strategy": "deployment", "spec": {"deployments": []}},
    }
    if bundle.description:
        spec["description"] = bundle.description
    if bundle.icon:
        spec["icon"] = [{"base64data": PIXEL, "mediatype": "image/png"}]
    metadata: dict[str, Any] = {"name": bundle.name}
    if bundle.skip_range:
        metadata["annotations"] = {"olm.skipRange": bundle.skip_range}
    return {
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": metadata,
        "spec": spec,
    }


def write_bundle_dir(root: Path, bundle: PoolBundle) -> Path:
    """``<root>/<package>/<version>/{manifests/csv.yaml, metadata/annotations.yaml}``."""
    directory = root / bundle.package / bundle.directory
    (directory / "manifests").mkdir(parents=True, exist_ok=True)
    (directory / "metadata").mkdir(exist_ok=True)
    (directory / "manifests" / "csv.yaml").write_text(yaml.safe_dump(csv_manifest(bundle)))
    annotations = {
        "operators.operatorframework.io.bundle.mediatype.v1": "registry+v1",
        "operators.operatorframework.io.bundle.manifests.v1": "manifests/",
        "operators.operatorframework.io.bundle.metadata.v1": "metadata/",
        "operators.operatorframework.io.bundle.package.v1": bundle.package,
        "operators.operatorframework.io.bundle.channels.v1": bundle.channels,
        "operators.operatorframework.io.bundle.channel.default.v1": bundle.default,
    }
    (directory / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )
    return directory


def write_pool(root: Path, pool: tuple[PoolBundle, ...] = POOL) -> dict[str, Path]:
    """Every pool bundle as a directory; returns image reference -> directory."""
    return {b.ref: write_bundle_dir(root, b) for b in pool}


def mapping_file(path: Path, refs: dict[str, Path]) -> Path:
    path.write_text("".join(f"{ref}={directory}\n" for ref, directory in refs.items()))
    return path


DEMO_REFS = [b.ref for b in POOL if b.package == "demo"]
ALL_REFS = [b.ref for b in POOL]


# -- semver templates --------------------------------------------------------------------------


@st.composite
def semver_templates(draw: st.DrawFn, refs: list[str] = DEMO_REFS) -> str:
    """A semver template as YAML or JSON text; mostly valid, sometimes not (bad flag combination,
    a duplicate, a bundle of another package, nothing at all)."""
    doc: dict[str, Any] = {"schema": "olm.semver"}
    for flag in ("generateMajorChannels", "generateMinorChannels"):
        value = draw(st.sampled_from([None, True, False, True]))
        if value is not None:
            doc[flag] = value
    for archetype in ("candidate", "fast", "stable"):
        chosen = draw(st.lists(st.sampled_from(refs), max_size=6, unique=True))
        if chosen or draw(st.booleans()):
            doc[archetype] = {"bundles": [{"image": r} for r in chosen]}
    if draw(st.integers(0, 9)) == 0:
        target = draw(st.sampled_from(["candidate", "fast", "stable"]))
        doc.setdefault(target, {"bundles": []})["bundles"].append(
            {"image": draw(st.sampled_from(ALL_REFS))}
        )
    if draw(st.booleans()):
        return yaml.safe_dump(doc, sort_keys=draw(st.booleans()))
    return json.dumps(doc, indent=draw(st.sampled_from([None, 2])))


# -- basic templates ----------------------------------------------------------------------------

_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.", min_size=1, max_size=12)
_texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20
)
_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.sampled_from([1.5, 0.25, -2.0, 1e-7, 3e21])
    | _texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_names, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _properties(draw: st.DrawFn) -> list[dict[str, Any]]:
    return draw(
        st.lists(
            st.builds(
                lambda t, v: {"type": t, "value": v}, st.sampled_from(["x.a", "x.b"]), _values
            ),
            max_size=2,
        )
    )


@st.composite
def basic_templates(draw: st.DrawFn, refs: list[str] = ALL_REFS) -> str:
    """An opm v1.26.5 basic template (plain FBC stream) as JSON or YAML text."""
    blobs: list[dict[str, Any]] = []
    packages = draw(
        st.lists(st.sampled_from(["demo", "other", "zeta"]), min_size=1, max_size=2, unique=True)
    )
    for package in packages:
        blob: dict[str, Any] = {"schema": "olm.package", "name": package}
        if draw(st.booleans()):
            blob["defaultChannel"] = draw(_names)
        if draw(st.booleans()):
            data = PIXEL
            if draw(st.booleans()):  # Go's base64 decoder skips line breaks
                data = data[:20] + "\n" + data[20:]
            blob["icon"] = {"base64data": data, "mediatype": "image/png"}
        if draw(st.booleans()):
            blob["description"] = draw(_texts)
        if draw(st.booleans()):
            blob["properties"] = draw(_properties())
        if draw(st.booleans()):
            blob["extra"] = draw(_values)  # unknown fields disappear
        blobs.append(blob)
        for channel in draw(st.lists(_names, max_size=2, unique=True)):
            entries: list[dict[str, Any]] | None = []
            for name in draw(st.lists(_names, max_size=3, unique=True)):
                entry: dict[str, Any] = {"name": name}
                if draw(st.booleans()):
                    entry["replaces"] = draw(_names)
                if draw(st.booleans()):
                    entry["skips"] = draw(st.lists(_names, max_size=2))
                if draw(st.booleans()):
                    entry["skipRange"] = draw(st.sampled_from(["<1.0.0", ">=0.1.0 <2.0.0"]))
                entries.append(entry)  # type: ignore[union-attr]
            if not entries and draw(st.booleans()):
                entries = None
            channel_blob: dict[str, Any] = {"schema": "olm.channel", "package": package}
            channel_blob["name"] = channel
            if entries is not None:
                channel_blob["entries"] = entries
            blobs.append(channel_blob)
        if draw(st.booleans()):
            blobs.append(
                {
                    "schema": "olm.deprecations",
                    "package": package,
                    "entries": [{"reference": {"schema": "olm.package"}, "message": "old"}],
                }
            )
    for ref in draw(st.lists(st.sampled_from(refs), max_size=3)):
        blob = {"schema": "olm.bundle", "image": ref}
        if draw(st.integers(0, 4)) == 0:
            blob = {"image": ref, "schema": "olm.bundle", "name": "ignored"}
        blobs.append(blob)
    for _ in range(draw(st.integers(0, 2))):
        other: dict[str, Any] = {
            "schema": draw(st.sampled_from(["acme.note", "a.first", "zz.last"]))
        }
        if draw(st.booleans()):
            other["package"] = draw(st.sampled_from(packages))
        other["data"] = draw(_values)
        blobs.append(other)
    blobs = draw(st.permutations(blobs))
    if draw(st.booleans()):
        return "".join(json.dumps(b, indent=draw(st.sampled_from([None, 1]))) + "\n" for b in blobs)
    return "".join("---\n" + yaml.safe_dump(b, allow_unicode=True) for b in blobs)
