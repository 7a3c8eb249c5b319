"""Bundle-format trees written in code, and the oracle's view of them (``bundle-index``).

``write_bundle`` writes one ``<root>/<package>/<dir>/{manifests/, metadata/}``; the spec classes
describe whole trees for hypothesis. ``oracle_index`` / ``oracle_render`` run the oracle's
``bundle-index`` on a tree and return what ``opm migrate`` / ``opm render`` made of it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from olmcat.errors import ValidationError
from olmcat.readers.bundledir import BundleDirCatalog, read_package
from olmcat.readers.update_modes import Mode
from olmcat.writers.fbc import blobs, render_json
from tests.support import oracle
from tests.support.builders import crd_doc
from tests.support.builders import csv as csv_doc

ANNOTATION_PACKAGE = "operators.operatorframework.io.bundle.package.v1"
ANNOTATION_CHANNELS = "operators.operatorframework.io.bundle.channels.v1"
ANNOTATION_DEFAULT_CHANNEL = "operators.operatorframework.io.bundle.channel.default.v1"
# The image refs bundle-index gives bundle dirs (no "+" in the dir names used here).
IMAGE_PREFIX = "127.0.0.1:5000"
IMAGE_TEMPLATE = IMAGE_PREFIX + "/{package}-bundle:{dir}"


def deployment(*images: str) -> dict[str, Any]:
    containers = [{"name": f"c{i}", "image": image} for i, image in enumerate(images)]
    return {
        "strategy": "deployment",
        "spec": {
            "deployments": [
                {"name": "op", "spec": {"template": {"spec": {"containers": containers}}}}
            ]
        },
    }


def write_bundle(
    root: Path,
    package: str,
    version: str,
    *,
    dirname: str | None = None,
    channels: str | None = "stable",
    default: str | None = "stable",
    csv: dict[str, Any] | None = None,
    docs: list[dict[str, Any]] = (),  # type: ignore[assignment]
    dependencies: list[dict[str, Any]] | str | None = None,
    properties: list[dict[str, Any]] | str | None = None,
    replaces: str | None = None,
    skips: list[str] | None = None,
    name: str | None = None,
) -> Path:
    """<root>/<package>/<dirname or version>/{manifests/, metadata/annotations.yaml[, ...]}.

    ``dependencies`` / ``properties`` are entries (written as YAML) or a file's text."""
    bundle = root / package / (dirname or version)
    (bundle / "manifests").mkdir(parents=True)
    (bundle / "metadata").mkdir()
    if csv is None:
        spec: dict[str, Any] = {}
        if replaces:
            spec["replaces"] = replaces
        if skips:
            spec["skips"] = skips
        csv = csv_doc(name or f"{package}.v{version}", version, **spec)
    for index, doc in enumerate([csv, *docs]):
        filename = f"{index:02d}-{doc['metadata']['name']}.yaml"
        (bundle / "manifests" / filename).write_text(yaml.safe_dump(doc))
    annotations = {ANNOTATION_PACKAGE: package}
    if channels is not None:
        annotations[ANNOTATION_CHANNELS] = channels
    if default is not None:
        annotations[ANNOTATION_DEFAULT_CHANNEL] = default
    (bundle / "metadata" / "annotations.yaml").write_text(
        yaml.safe_dump({"annotations": annotations})
    )
    for filename, key, value in (
        ("dependencies.yaml", "dependencies", dependencies),
        ("properties.yaml", "properties", properties),
    ):
        if value is not None:
            text = value if isinstance(value, str) else yaml.safe_dump({key: value})
            (bundle / "metadata" / filename).write_text(text)
    return bundle


def chain(root: Path, package: str, *versions: str, **kwargs: Any) -> list[Path]:
    """Bundles where each CSV replaces the previous version."""
    out = []
    for index, version in enumerate(versions):
        previous = f"{package}.v{versions[index - 1]}" if index else None
        out.append(write_bundle(root, package, version, replaces=previous, **kwargs))
    return out


# -- tree specs (hypothesis draws these) --------------------------------------------------------


@dataclass
class BundleSpec:
    """One bundle dir. ``None`` leaves a field or file out."""

    dirname: str
    csv_name: str
    version: str | None
    channels: str | None
    default: str | None = None
    replaces: str = ""
    skips: list[str] = field(default_factory=list)
    skip_range: str = ""
    substitutes_for: str = ""
    dependencies: list[dict[str, Any]] | None = None
    properties: list[dict[str, Any]] | None = None
    csv_properties: str | None = None  # the CSV's olm.properties annotation
    related_images: list[dict[str, str]] | None = None
    operator_images: list[str] = field(default_factory=list)
    crds: list[tuple[str, str, str, list[str]]] = field(default_factory=list)  # owned CRDs
    metadata_as_json: bool = False  # dependencies and properties files as JSON
    stray_files: dict[str, str] = field(default_factory=dict)  # manifests/<name> -> text

    def csv(self) -> dict[str, Any]:
        spec: dict[str, Any] = {}
        if self.replaces:
            spec["replaces"] = self.replaces
        if self.skips:
            spec["skips"] = self.skips
        if self.related_images is not None:
            spec["relatedImages"] = self.related_images
        if self.operator_images:
            spec["install"] = deployment(*self.operator_images)
        if self.crds:
            spec["customresourcedefinitions"] = {
                "owned": [
                    {"name": f"{p}.{g}", "kind": k, "version": vs[0]} for p, g, k, vs in self.crds
                ]
            }
        doc = csv_doc(self.csv_name, self.version or "", **spec)
        if self.version is None:
            del doc["spec"]["version"]
        annotations: dict[str, str] = {}
        if self.skip_range:
            annotations["olm.skipRange"] = self.skip_range
        if self.substitutes_for:
            annotations["olm.substitutesFor"] = self.substitutes_for
        if self.csv_properties is not None:
            annotations["olm.properties"] = self.csv_properties
        if annotations:
            doc["metadata"]["annotations"] = annotations
        return doc


@dataclass
class PackageSpec:
    name: str  # package dir name and package annotation
    bundles: list[BundleSpec]
    update_graph: str | None = None  # ci.yaml updateGraph


def _dump(value: Any, as_json: bool) -> str:
    return json.dumps(value, indent=1) if as_json else yaml.safe_dump(value)


def write_tree(root: Path, packages: list[PackageSpec]) -> Path:
    for package in packages:
        package_dir = root / package.name
        package_dir.mkdir(parents=True)
        if package.update_graph is not None:
            (package_dir / "ci.yaml").write_text(
                yaml.safe_dump({"updateGraph": package.update_graph, "reviewers": ["someone"]})
            )
        for spec in package.bundles:
            bundle = package_dir / spec.dirname
            (bundle / "manifests").mkdir(parents=True)
            (bundle / "metadata").mkdir()
            (bundle / "manifests" / "csv.yaml").write_text(yaml.safe_dump(spec.csv()))
            for plural, group, kind, versions in spec.crds:
                crd = crd_doc(plural, group, kind, versions)
                (bundle / "manifests" / f"{plural}.crd.yaml").write_text(yaml.safe_dump(crd))
            for filename, text in spec.stray_files.items():
                (bundle / "manifests" / filename).write_text(text)
            annotations = {ANNOTATION_PACKAGE: package.name}
            if spec.channels is not None:
                annotations[ANNOTATION_CHANNELS] = spec.channels
            if spec.default is not None:
                annotations[ANNOTATION_DEFAULT_CHANNEL] = spec.default
            # Always annotations.yaml: the oracle's bundle-index reads the image labels from it.
            (bundle / "metadata" / "annotations.yaml").write_text(
                yaml.safe_dump({"annotations": annotations})
            )
            suffix = "json" if spec.metadata_as_json else "yaml"
            if spec.dependencies is not None:
                (bundle / "metadata" / f"dependencies.{suffix}").write_text(
                    _dump({"dependencies": spec.dependencies}, spec.metadata_as_json)
                )
            if spec.properties is not None:
                (bundle / "metadata" / f"properties.{suffix}").write_text(
                    _dump({"properties": spec.properties}, spec.metadata_as_json)
                )
    return root


# -- the oracle ---------------------------------------------------------------------------------


def blob_texts(text: str) -> list[tuple[dict[str, Any], str]]:
    """Each blob of an opm JSON stream with its exact text (newline included)."""
    decoder, out, index = json.JSONDecoder(), [], 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return out
        blob, end = decoder.raw_decode(text, index)
        out.append((blob, text[index : end + 1]))
        index = end + 1


@dataclass
class IndexedPackage:
    """What ``bundle-index index`` + ``opm migrate`` made of one package."""

    mode: str  # the mode bundle-index used (after a fallback: semver)
    added: int  # images added
    note: str
    graph: str | None = None  # exact text of the package and channel blobs; None: not in the DB
    bundles: list[str] = field(default_factory=list)  # olm.bundle names


@dataclass
class OracleIndex:
    packages: dict[str, IndexedPackage]
    migrate_error: str = ""  # opm migrate's fatal line, when it refused the whole DB
    stderr: str = ""


def oracle_index(
    tree: Path, work: Path, modes: dict[str, str] | None = None, mode: str | None = None
) -> OracleIndex:
    """``bundle-index index`` (with ``--mode``s) then ``opm migrate`` of the DB."""
    work.mkdir(parents=True, exist_ok=True)
    db = work / "index.db"
    args: list[str | Path] = ["index", tree, db]
    if mode is not None:
        args += ["--mode", mode]
    for package, package_mode in sorted((modes or {}).items()):
        args += ["--mode", f"{package}={package_mode}"]
    run = oracle.bundle_index(*args, cwd=work, timeout=1800)
    packages: dict[str, IndexedPackage] = {}
    for line in run.stdout.splitlines()[1:]:
        name, used, added, note = [*line.split("\t"), "", "", ""][:4]
        packages[name] = IndexedPackage(used, int(added or 0), note)
    result = OracleIndex(packages, stderr=run.stderr)
    if not db.exists():
        return result
    out = work / "migrated"
    migrated = oracle.migrate(db, out, cwd=work)
    if not migrated.ok:
        result.migrate_error = migrated.fatal() or migrated.stderr[-2000:]
        return result
    for catalog in sorted(out.glob("*/catalog.json")):
        items = blob_texts(catalog.read_text())
        name = catalog.parent.name
        entry = packages.setdefault(name, IndexedPackage("?", 0, ""))
        entry.graph = "".join(text for blob, text in items if blob["schema"] != "olm.bundle")
        entry.bundles = sorted(blob["name"] for blob, _ in items if blob["schema"] == "olm.bundle")
    shutil.rmtree(out, ignore_errors=True)
    return result


@dataclass
class OracleRenders:
    texts: dict[str, str]  # "<pkgdir>-<verdir>" -> opm render output
    failures: dict[str, str]  # image ref -> opm's error line
    stderr: str = ""


def oracle_render(tree: Path, work: Path) -> OracleRenders:
    """``bundle-index render``: ``opm render`` of each bundle dir's image."""
    work.mkdir(parents=True, exist_ok=True)
    out = work / "renders"
    run = oracle.bundle_index("render", tree, out, cwd=work, timeout=1800)
    texts = {p.stem: p.read_text() for p in sorted(out.glob("*.json"))} if out.is_dir() else {}
    failures = {}
    for line in run.stderr.splitlines():
        prefix = "bundle-index: render failed: "
        if line.startswith(prefix):
            ref, _, error = line[len(prefix) :].partition(": ")
            failures[ref] = error
    return OracleRenders(texts, failures, run.stderr)


# -- comparing ------------------------------------------------------------------------------------


def _skips_as_sets(text: str) -> list[dict[str, Any]]:
    out = []
    for blob, _ in blob_texts(text):
        for entry in blob.get("entries", []):
            entry["skips"] = sorted(entry.get("skips", []))
        out.append(blob)
    return out


def olmcat_graphs(
    tree: Path, modes: dict[str, Mode]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Package and channel blob text per package, and bundle names, from ``--permissive``."""
    catalog = BundleDirCatalog(
        tree, image_ref_template=IMAGE_TEMPLATE, package_modes=modes, permissive=True
    )
    graphs, bundles = {}, {}
    for pkg in catalog.packages():
        texts = blob_texts("".join(render_json(blobs(pkg))))
        graphs[pkg.name] = "".join(t for b, t in texts if b["schema"] != "olm.bundle")
        bundles[pkg.name] = sorted(b.name for b in pkg.bundles)
    return graphs, bundles


def compare(tree: Path, oracle: OracleIndex, modes: dict[str, Mode]) -> list[str]:
    """Differences between olmcat and the oracle, one line per package."""
    assert not oracle.migrate_error, oracle.migrate_error
    graphs, bundles = olmcat_graphs(tree, modes)
    catalog = BundleDirCatalog(tree, image_ref_template=IMAGE_TEMPLATE, package_modes=modes)
    problems = []
    for name in sorted(p.name for p in tree.iterdir()):
        theirs = oracle.packages.get(name)
        if theirs is None or theirs.graph is None:
            if name in graphs:
                problems.append(f"{name}: oracle has no package ({theirs}), olmcat has one")
            continue
        if graphs.get(name) != theirs.graph and not (
            # opm writes a skippatch bundle's synthesized skips in Go map order (run to run
            # different); olmcat sorts them. Compared as sets there, byte for byte elsewhere.
            theirs.mode == "semver-skippatch"
            and _skips_as_sets(graphs.get(name, "")) == _skips_as_sets(theirs.graph)
        ):
            problems.append(
                f"{name}: graphs differ\n  oracle: {theirs.graph!r}\n  olmcat: {graphs.get(name)!r}"
                f"\n  note: {theirs.note}"
            )
        elif bundles[name] != theirs.bundles:
            problems.append(f"{name}: bundles {bundles[name]} != oracle {theirs.bundles}")
        # Without --permissive, a bundle the oracle failed to add is a refusal.
        refused = theirs.added < len(catalog.bundle_dirs(name))
        try:
            read_package(
                name,
                catalog.bundle_dirs(name),
                mode=catalog.mode_of(name),
                image_ref_template=IMAGE_TEMPLATE,
            )
        except ValidationError as error:
            if not refused:
                problems.append(f"{name}: olmcat refuses ({error}), the oracle did not")
        else:
            if refused:
                problems.append(f"{name}: the oracle refused a bundle ({theirs.note}), olmcat not")
    return problems


# -- bundle images saved to disk ----------------------------------------------------------------


def _tar(files: list[tuple[str, bytes | None]]) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in files:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _sha(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


def bundle_image(bundle_dir: Path, path: Path, *, ref: str = "", form: str = "oci-archive") -> Path:
    """Write the image bundle-index builds of ``bundle_dir`` (one layer with manifests/ and
    metadata/, labels = annotations.yaml) as an OCI layout dir, oci-archive or docker-archive."""
    import gzip

    entries: list[tuple[str, bytes | None]] = []
    for top in ("manifests", "metadata"):
        entries.append((top, None))
        for item in sorted((bundle_dir / top).rglob("*")):
            name = item.relative_to(bundle_dir).as_posix()
            entries.append((name, None if item.is_dir() else item.read_bytes()))
    layer = _tar(entries)
    layer_gz = gzip.compress(layer, mtime=0)
    annotations = yaml.safe_load((bundle_dir / "metadata" / "annotations.yaml").read_text())
    labels = {str(k): str(v) for k, v in (annotations.get("annotations") or {}).items()}
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Labels": labels},
            "rootfs": {"type": "layers", "diff_ids": [_sha(layer)]},
        }
    ).encode()
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": _sha(config),
                "size": len(config),
            },
            "layers": [
                {
                    "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                    "digest": _sha(layer_gz),
                    "size": len(layer_gz),
                }
            ],
        }
    ).encode()
    if form == "docker-archive":
        docker_manifest = [
            {
                "Config": _sha(config)[7:] + ".json",
                "RepoTags": [ref] if ref else [],
                "Layers": [_sha(layer)[7:] + "/layer.tar"],
            }
        ]
        files = [
            (_sha(config)[7:] + ".json", config),
            (_sha(layer)[7:] + "/layer.tar", layer),
            ("manifest.json", json.dumps(docker_manifest).encode()),
        ]
        path.write_bytes(_tar(files))
        return path
    annotations_of_ref = {"org.opencontainers.image.ref.name": ref} if ref else {}
    index = json.dumps(
        {
            "schemaVersion": 2,
            "manifests": [
                {
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "digest": _sha(manifest),
                    "size": len(manifest),
                    "annotations": annotations_of_ref,
                }
            ],
        }
    ).encode()
    blobs = [(f"blobs/sha256/{_sha(b)[7:]}", b) for b in (config, layer_gz, manifest)]
    layout = [("oci-layout", b'{"imageLayoutVersion": "1.0.0"}'), ("index.json", index), *blobs]
    if form == "oci-layout":
        for name, data in layout:
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_bytes(data)
        return path
    path.write_bytes(_tar([("blobs", None), ("blobs/sha256", None), *layout]))
    return path


# -- operator directories as operator pipelines lay them out (issue 29) ----------------------------


def nest_bundle(
    root: Path, package: str, version: str, inner: str = "bundle", **kwargs: Any
) -> Path:
    """``<root>/<package>/<version>/<inner>/{manifests,metadata}``: a bundle one level below its
    version directory (no pipeline builds it)."""
    scratch = root / f".nest-{package}-{version}"
    made = write_bundle(scratch, package, version, **kwargs)
    target = root / package / version / inner
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(made), str(target))
    shutil.rmtree(scratch)
    return target


# Files operator pipelines keep beside bundles: none is a manifest. Relative to the operator
# directory; "{v}" is a version directory of the operator.
PIPELINE_FILES: dict[str, str] = {
    # channels as a list of strings: no package manifest's channels.
    "ci.yaml": 'updateGraph: replaces-mode\nreviewers:\n  - someone\nchannels: ["stable"]\n',
    "catalog-templates/basic.yaml": "schema: olm.template.basic\nentries: [\n",  # does not parse
    "catalog-templates/semver.yaml": "Schema: olm.semver\nStable:\n  Bundles: []\n",
    "{v}/tests/scorecard/config.yaml": "",  # empty
    "README.md": "# An operator\n\nIts ClusterServiceVersion lives in each version's manifests/.\n",
    "Makefile": "bundle:\n\topm alpha bundle build\n",
    "{v}/release-config.yaml": "catalog_templates:\n  - template_name: basic.yaml\n",
}


def write_pipeline_files(
    operator_dir: Path, version: str, names: list[str] | None = None
) -> list[Path]:
    """The files of PIPELINE_FILES (or those named) in an operator directory; their paths."""
    out = []
    for name in names if names is not None else list(PIPELINE_FILES):
        path = operator_dir / name.replace("{v}", version)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(PIPELINE_FILES[name])
        out.append(path)
    return out
