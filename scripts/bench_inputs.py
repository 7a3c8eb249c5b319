#!/usr/bin/env python3
"""Build the modern benchmark inputs (bundles of 2025-2026, CRDs of megabytes) from public data.

The source is a git snapshot of a community catalog repository laid out as
``operators/<package>/<version>/{manifests,metadata}`` with ``operators/<package>/ci.yaml`` --
``redhat-openshift-ecosystem/community-operators-prod`` is the one used (333 packages, ~7,000
bundle directories; its service-mesh, monitoring and cloud-controller operators -- sailoperator,
prometheus, the ack-*-controller family -- are in it). It is read with git alone (``git ls-tree``,
``git cat-file``): a bare snapshot without a work tree will do. Written under ``--out``
(default ``$XDG_CACHE_HOME/olmcat-bench/modern``), never into the repository:

* ``big/<package>/<version>/`` (+ ``big/<package>/ci.yaml``): the **big-CRD set** -- the packages
  whose newest two bundles hold the largest single manifests, two bundles each (the two highest
  version directories), taken in that order until there are at least 30 bundles and 100 MB;
* ``tree/<package>/<version>/`` (+ ``tree/<package>/ci.yaml``): the **community tree** -- every
  bundle directory of the snapshot (``manifests/`` and ``metadata/`` only: no tests, Dockerfiles
  or catalog templates), as published: no bundle is replicated or renamed;
* ``tree-old/``: the same community tree at an older commit, ``OLD_COMMIT`` (2026-06-03, 2.5
  months before the snapshot's head of 2026-08-22): with ``tree`` at HEAD, a real version pair of
  one catalog (``scripts/bench.py`` migrates both to FBC for ``diff --crd-safety``);
* in every set, a bundle directory holding a YAML or JSON file libyaml cannot read is left out (its
  package's ``ci.yaml`` too when no bundle is left) and listed under ``left_out`` in the record:
  one broken file must not stop the run that is being timed;
* ``templates/basic.yaml`` and ``templates/semver-<package>.yaml``: a basic template over every
  bundle of the big set (one channel per package, the newer bundle replacing the older) and one
  semver template per package (opm's semver templates take one package each), with image
  references ``BENCH_REGISTRY/<package>-bundle:<version>`` (``+`` -> ``_``) -- ``scripts/bench.py``
  replaces ``BENCH_REGISTRY`` with its loopback registry;
* ``big.json``, ``tree.json``, ``tree-old.json``: what was selected, from which commit, with
  sizes and a digest.

The output depends only on the snapshot's commit: same input, same bytes (files and their mtimes,
which are set to the commit's time). A directory is written beside its final place and renamed
into it, so an interrupted build leaves nothing half-made; a complete one is not rebuilt unless
the commit changed or ``--force`` is given.

    python scripts/bench_inputs.py --source /path/to/community-operators-prod   # all three
    python scripts/bench_inputs.py --only big                                   # just (a)
    python scripts/bench_inputs.py --only tree-old                              # just tree-old
    python scripts/bench_inputs.py --check      # sizes and counts; re-hashes every file

Exit status: 0 done (or, with --check, every input present and intact), 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Where the project's `fetch` tool leaves snapshots, next to the checkouts (like ../shared).
DEFAULT_SOURCE = (
    ROOT.parent / ".mirror" / "redhat-openshift-ecosystem+community-operators-prod" / "repo"
)
SCHEMA = "olmcat.bench-inputs.v1"
RULES = 2  # bump when what is selected or how it is laid out changes: built inputs are redone
REGISTRY_PLACEHOLDER = "BENCH_REGISTRY"
# The big-CRD set: stop once both hold.
BIG_MIN_BUNDLES = 30
BIG_MIN_BYTES = 105_000_000
BIG_PER_PACKAGE = 2
BUNDLE_PARTS = ("manifests", "metadata")
# tree-old's commit: fixed, so that the pair is the same wherever it is built (the snapshot must
# hold it: a full-history one does)
OLD_COMMIT = "412744b5ec2e474384d418d828436ec5e773365f"  # 2026-06-03
SETS = ("big", "tree", "tree-old")


class InputsError(Exception):
    """One line for the user."""


# -- the snapshot --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Blob:
    path: str  # relative to operators/: <package>/<version>/manifests/<file> or <package>/ci.yaml
    oid: str
    size: int


@dataclass(slots=True)
class Bundle:
    package: str
    version: str  # the directory's name
    files: list[Blob] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def largest(self) -> Blob:
        return max(self.files, key=lambda f: (f.size, f.path))


@dataclass(slots=True)
class Snapshot:
    source: Path
    commit: str
    time: int  # the commit's time, for every file's mtime
    bundles: dict[tuple[str, str], Bundle]
    ci: dict[str, Blob]  # package -> its ci.yaml


def git(source: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", f"--git-dir={git_dir(source)}", *args],
            input=stdin,
            capture_output=True,
            check=False,
        )
    except OSError as error:
        raise InputsError(f"git: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise InputsError(f"git {' '.join(args[:2])} in {source}: {' | '.join(message[-2:])}")
    return done.stdout


def git_dir(source: Path) -> Path:
    """A bare snapshot is its own git dir; a clone has ``.git``."""
    return source / ".git" if (source / ".git").exists() else source


def read_snapshot(source: Path, rev: str) -> Snapshot:
    if not source.exists():
        raise InputsError(
            f"{source} does not exist: fetch github:redhat-openshift-ecosystem/"
            "community-operators-prod (or clone it) and pass --source"
        )
    commit = git(source, "rev-parse", "--verify", f"{rev}^{{commit}}").decode().strip()
    when = int(git(source, "show", "-s", "--format=%ct", commit).decode().strip())
    listing = git(source, "ls-tree", "-r", "-l", "-z", commit, "--", "operators/")
    bundles: dict[tuple[str, str], Bundle] = {}
    ci: dict[str, Blob] = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid, size = meta.decode().split()
        path = raw_path.decode()
        parts = path.split("/")
        if kind != "blob" or mode not in ("100644", "100755") or len(parts) < 3:
            continue  # symlinks and submodules are no part of a bundle
        rel = "/".join(parts[1:])
        if size == "-":
            raise InputsError(f"{path}: the snapshot has no size for it")
        if len(parts) == 3 and parts[2] == "ci.yaml":
            ci[parts[1]] = Blob(rel, oid, int(size))
        elif len(parts) == 5 and parts[3] in BUNDLE_PARTS:
            key = (parts[1], parts[2])
            bundles.setdefault(key, Bundle(*key)).files.append(Blob(rel, oid, int(size)))
    # a bundle directory has both halves and its annotations
    complete = {
        key: bundle
        for key, bundle in bundles.items()
        if any(f.path.endswith("/metadata/annotations.yaml") for f in bundle.files)
        and any(f.path.split("/")[2] == "manifests" for f in bundle.files)
    }
    if not complete:
        raise InputsError(f"{source}: no operators/<package>/<version>/manifests at {commit[:12]}")
    for bundle in complete.values():
        bundle.files.sort(key=lambda f: f.path)
    return Snapshot(source, commit, when, dict(sorted(complete.items())), ci)


_NUMBER = re.compile(r"\d+")


def version_key(text: str) -> tuple[Any, ...]:
    """Order version directories as semver does (release above its pre-releases), tolerating
    names that are not versions (they sort below every version, by name)."""
    core, _, _build = text.lstrip("v").partition("+")
    release, dash, pre = core.partition("-")
    numbers = release.split(".")
    if not numbers or not all(n.isdigit() for n in numbers):
        return (0, text)
    pre_key: tuple[Any, ...] = (1,)  # a release sorts above any of its pre-releases
    if dash:
        pre_key = (
            0,
            *((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")),
        )
    return (1, tuple(int(n) for n in numbers), pre_key, text)


def select_big(snapshot: Snapshot) -> list[Bundle]:
    """Two newest bundles of each package, packages ranked by the largest manifest among them."""
    by_package: dict[str, list[Bundle]] = defaultdict(list)
    for bundle in snapshot.bundles.values():
        by_package[bundle.package].append(bundle)
    ranked = []
    for package, bundles in by_package.items():
        newest = sorted(bundles, key=lambda b: version_key(b.version), reverse=True)
        newest = newest[:BIG_PER_PACKAGE]
        largest = max(b.largest.size for b in newest)
        ranked.append((-largest, package, newest))
    ranked.sort(key=lambda item: (item[0], item[1]))
    chosen: list[Bundle] = []
    for _, _, newest in ranked:
        if len(chosen) >= BIG_MIN_BUNDLES and sum(b.size for b in chosen) >= BIG_MIN_BYTES:
            break
        chosen.extend(sorted(newest, key=lambda b: version_key(b.version)))
    return chosen


# -- writing -------------------------------------------------------------------------------------


def cat_blobs(source: Path, oids: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """Each object's content, in the order asked, from one ``git cat-file --batch``."""
    wanted = list(oids)
    with subprocess.Popen(
        ["git", f"--git-dir={git_dir(source)}", "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        # a writer thread would be needed if the answers could fill the pipe before the
        # questions are all written; asking in slices keeps both sides moving without one
        for start in range(0, len(wanted), 256):
            chunk = wanted[start : start + 256]
            process.stdin.write("".join(oid + "\n" for oid in chunk).encode())
            process.stdin.flush()
            for oid in chunk:
                header = process.stdout.readline().decode().split()
                if len(header) != 3 or header[1] != "blob":
                    raise InputsError(f"git cat-file: {oid}: {' '.join(header) or 'no answer'}")
                data = process.stdout.read(int(header[2]))
                process.stdout.read(1)  # the newline after each object
                yield oid, data
        process.stdin.close()


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def unparsable(blob: Blob, data: bytes) -> str | None:
    """Why libyaml cannot read a bundle's YAML or JSON file (None: it can)."""
    if not blob.path.endswith((".yaml", ".yml", ".json")) or blob.path.count("/") < 3:
        return None
    from yaml import YAMLError
    from yaml._yaml import CParser

    try:
        parser = CParser(data.decode("utf-8"))
        while parser.get_event() is not None:
            pass
    except UnicodeDecodeError:
        return "not UTF-8"
    except YAMLError as error:
        return str(error).splitlines()[0]
    return None


def write_files(snapshot: Snapshot, blobs: list[Blob], target: Path) -> dict[str, str]:
    """Write ``blobs`` under ``target`` (staged beside it, renamed into place), leaving out every
    bundle directory with a file libyaml cannot read; returns {file: why} of those files."""
    staging = target.with_name(f"{target.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    by_oid: dict[str, list[Blob]] = defaultdict(list)
    for blob in blobs:
        by_oid[blob.oid].append(blob)
    refused: dict[str, str] = {}
    for done, (oid, data) in enumerate(cat_blobs(snapshot.source, sorted(by_oid)), 1):
        why = unparsable(by_oid[oid][0], data)
        for blob in by_oid[oid]:
            if why is not None:
                refused[blob.path] = why
            path = staging / blob.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            os.utime(path, (snapshot.time, snapshot.time))
        if done % 5000 == 0:
            print(f"  {target.name}: {done}/{len(by_oid)} distinct files", file=sys.stderr)
    for path in sorted(refused):
        package = staging / path.split("/")[0]
        shutil.rmtree(package / path.split("/")[1], ignore_errors=True)
        if package.is_dir() and not any(p.is_dir() for p in package.iterdir()):
            shutil.rmtree(package)  # no bundle left: its ci.yaml goes too
    for directory, _, _ in os.walk(staging, topdown=False):
        os.utime(directory, (snapshot.time, snapshot.time))
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return refused


def content_digest(blobs: Iterable[Blob]) -> str:
    """One digest of every (path, git blob id): equal digests, equal trees."""
    digest = hashlib.sha256()
    for blob in sorted(blobs, key=lambda b: b.path):
        digest.update(f"{blob.path}\0{blob.oid}\n".encode())
    return digest.hexdigest()


def describe(
    snapshot: Snapshot, name: str, bundles: list[Bundle], blobs: list[Blob]
) -> dict[str, Any]:
    packages = sorted({b.package for b in bundles})
    largest = sorted((f for b in bundles for f in b.files), key=lambda f: (-f.size, f.path))[:10]
    return {
        "schema": SCHEMA,
        "name": name,
        "source": {"repository": snapshot.source.name, "commit": snapshot.commit},
        "generator": generator_digest(),
        "packages": len(packages),
        "bundles": len(bundles),
        "ci_yaml": sum(1 for b in blobs if b.path.count("/") == 1),
        "files": len(blobs),
        "bytes": sum(b.size for b in blobs),
        "largest_files": [{"path": f.path, "bytes": f.size} for f in largest],
        "digest": content_digest(blobs),
        "selection": [
            {"package": b.package, "version": b.version, "bytes": b.size} for b in bundles
        ]
        if name == "big"
        else None,
        # every file and its git blob id, so --check can prove the bytes
        "listing": {blob.path: blob.oid for blob in sorted(blobs, key=lambda b: b.path)},
    }


def generator_digest() -> str:
    """Changes when the selection or layout rules change (bump RULES): the inputs are rebuilt."""
    return f"rules-{RULES}"


def blobs_of(snapshot: Snapshot, bundles: list[Bundle]) -> list[Blob]:
    packages = {b.package for b in bundles}
    files = [f for b in bundles for f in b.files]
    files += [snapshot.ci[p] for p in sorted(packages) if p in snapshot.ci]
    return files


def build_set(
    snapshot: Snapshot, out: Path, name: str, bundles: list[Bundle], force: bool
) -> list[Bundle]:
    """Write one set; returns the bundles written (those libyaml can read)."""
    candidates = content_digest(blobs_of(snapshot, bundles))
    meta = out / f"{name}.json"
    target = out / name
    if not force and target.is_dir() and meta.is_file():
        try:
            old = json.loads(meta.read_text())
        except (OSError, ValueError):
            old = {}
        if old.get("candidates") == candidates and old.get("generator") == generator_digest():
            print(f"{target}: up to date ({snapshot.commit[:12]})", file=sys.stderr)
            left_out = {(b["package"], b["version"]) for b in old.get("left_out", [])}
            return [b for b in bundles if (b.package, b.version) not in left_out]
    print(
        f"writing {target}: {len(bundles)} bundles, "
        f"{sum(b.size for b in bundles) / 1e6:.1f} MB ...",
        file=sys.stderr,
    )
    out.mkdir(parents=True, exist_ok=True)
    meta.unlink(missing_ok=True)  # no record of a tree that is being replaced
    refused = write_files(snapshot, blobs_of(snapshot, bundles), target)
    gone = {tuple(path.split("/")[:2]) for path in refused}
    kept = [b for b in bundles if (b.package, b.version) not in gone]
    record = describe(snapshot, name, kept, blobs_of(snapshot, kept))
    record["candidates"] = candidates
    record["left_out"] = [
        {"package": b.package, "version": b.version, "file": path, "reason": refused[path]}
        for b in bundles
        if (b.package, b.version) in gone
        for path in sorted(refused)
        if path.startswith(f"{b.package}/{b.version}/")
    ]
    for item in record["left_out"]:
        print(f"  left out {item['file']}: {item['reason']}", file=sys.stderr)
    write_json(meta, record)
    return kept


def write_json(path: Path, value: Any) -> None:
    partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
    partial.write_text(json.dumps(value, indent=1, sort_keys=True) + "\n")
    partial.rename(path)


# -- templates over the big set -------------------------------------------------------------------


def image_ref(package: str, version: str) -> str:
    return f"{REGISTRY_PLACEHOLDER}/{package}-bundle:{version.replace('+', '_')}"


def bundle_facts(directory: Path) -> dict[str, Any]:
    """The CSV's name and version and the default channel, as the templates need them."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    annotations = yaml.load((directory / "metadata" / "annotations.yaml").read_text(), loader)
    labels = annotations.get("annotations", {}) if isinstance(annotations, dict) else {}
    channels = str(labels.get("operators.operatorframework.io.bundle.channels.v1", "")).split(",")
    default = labels.get("operators.operatorframework.io.bundle.channel.default.v1") or channels[0]
    csv = None
    for path in sorted((directory / "manifests").iterdir()):
        text = path.read_text(errors="replace")
        if "ClusterServiceVersion" not in text[:4096] and "ClusterServiceVersion" not in text:
            continue
        document = next(iter(yaml.load_all(text, loader)), None)
        if isinstance(document, dict) and document.get("kind") == "ClusterServiceVersion":
            csv = document
            break
    if csv is None:
        raise InputsError(f"{directory}: no ClusterServiceVersion in manifests/")
    return {
        "name": csv["metadata"]["name"],
        "version": str(csv.get("spec", {}).get("version", "")),
        "package": labels.get("operators.operatorframework.io.bundle.package.v1"),
        "channel": str(default).strip(),
    }


_STRICT_SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(-(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?"
    r"(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$"
)


def write_templates(out: Path, bundles: list[Bundle]) -> dict[str, Any]:
    """basic.yaml over every bundle; semver-<package>.yaml per package whose versions opm's
    semver template accepts (strict semver)."""
    staging = out / f"templates.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    by_package: dict[str, list[tuple[Bundle, dict[str, Any]]]] = defaultdict(list)
    for bundle in bundles:
        facts = bundle_facts(out / "big" / bundle.package / bundle.version)
        by_package[bundle.package].append((bundle, facts))
    documents: list[str] = []
    semver_packages = []
    for package, members in sorted(by_package.items()):
        name = members[0][1]["package"] or package
        channel = members[-1][1]["channel"] or "stable"
        documents.append(f"schema: olm.package\nname: {name}\ndefaultChannel: {channel}\n")
        entries, previous = [], None
        for _, facts in members:
            entries.append(f"  - name: {facts['name']}\n")
            if previous:
                entries[-1] += f"    replaces: {previous}\n"
            previous = facts["name"]
        documents.append(
            f"schema: olm.channel\npackage: {name}\nname: {channel}\nentries:\n" + "".join(entries)
        )
        for bundle, _ in members:
            documents.append(f"schema: olm.bundle\nimage: {image_ref(package, bundle.version)}\n")
        if all(_STRICT_SEMVER.match(facts["version"]) for _, facts in members):
            semver_packages.append(package)
            images = "".join(
                f"  - Image: {image_ref(package, bundle.version)}\n" for bundle, _ in members
            )
            (staging / f"semver-{package}.yaml").write_text(
                # one stream kind: with both, opm v1.26.5 picks the default channel in Go's
                # random map order
                "Schema: olm.semver\nGenerateMajorChannels: true\nGenerateMinorChannels: false\n"
                f"Stable:\n  Bundles:\n{images}"
            )
    (staging / "basic.yaml").write_text("".join("---\n" + d for d in documents))
    target = out / "templates"
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return {"basic": len(bundles), "semver_packages": semver_packages}


# -- the example set (--smoke) and the images (--serve) -------------------------------------------


def write_example(manifests: Path, out: Path) -> None:
    """Package-manifest directories (``<package>/<package>.package.yaml`` + a directory per
    version) as bundle directories under ``out/big``, with templates: the big set's shape on
    inputs of a few KB, for the benchmark's smoke run."""
    import yaml

    shutil.rmtree(out, ignore_errors=True)
    bundles = []
    for package_dir in sorted(p for p in manifests.iterdir() if p.is_dir()):
        manifest = yaml.safe_load(next(package_dir.glob("*.package.yaml")).read_text())
        channels = sorted({c["name"] for c in manifest["channels"]})
        default = manifest.get("defaultChannel") or channels[0]
        for version_dir in sorted(p for p in package_dir.iterdir() if p.is_dir()):
            target = out / "big" / package_dir.name / version_dir.name
            shutil.copytree(version_dir, target / "manifests")
            (target / "metadata").mkdir()
            (target / "metadata" / "annotations.yaml").write_text(
                "annotations:\n"
                "  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n"
                "  operators.operatorframework.io.bundle.manifests.v1: manifests/\n"
                "  operators.operatorframework.io.bundle.metadata.v1: metadata/\n"
                f"  operators.operatorframework.io.bundle.package.v1: {manifest['packageName']}\n"
                f"  operators.operatorframework.io.bundle.channels.v1: {','.join(channels)}\n"
                f"  operators.operatorframework.io.bundle.channel.default.v1: {default}\n"
            )
            bundles.append(Bundle(package_dir.name, version_dir.name))
    write_templates(out, bundles)


def serve(big: Path, work: Path) -> int:
    """Start a docker-registry on 127.0.0.1, push the bundle image of every bundle directory
    under ``big`` (``<package>/<version>``) as ``<package>-bundle:<version>`` -- one layer of
    manifests/ + metadata/, labels from annotations.yaml, as the oracle's bundle-index builds
    them -- and save each as an OCI layout under ``work/layouts`` naming its reference. Prints
    one JSON line (host, refs, layouts), then keeps the registry up until stdin closes."""
    import yaml

    sys.path.insert(0, str(ROOT))
    from tests.support import registry as support

    server = support.start_registry(work / "registry")
    try:
        refs, layouts = [], []
        bundles = sorted(p.parent.parent for p in big.glob("*/*/metadata/annotations.yaml"))
        for index, bundle in enumerate(bundles):
            document = yaml.safe_load((bundle / "metadata" / "annotations.yaml").read_text())
            labels = {
                str(k): "true"
                if v is True
                else "false"
                if v is False
                else ""
                if v is None
                else str(v)
                for k, v in ((document or {}).get("annotations") or {}).items()
            }
            files = {
                **support.directory_files(bundle / "manifests", "manifests"),
                **support.directory_files(bundle / "metadata", "metadata"),
            }
            image = support.make_image([files], labels=labels)
            repository, tag = f"{bundle.parent.name}-bundle", bundle.name.replace("+", "_")
            support.push(server, repository, tag, image)
            ref = f"{server.host}/{repository}:{tag}"
            refs.append(ref)
            layouts.append(str(save_layout(image, ref, work / "layouts" / f"{index:03d}")))
        print(json.dumps({"host": server.host, "refs": refs, "layouts": layouts}), flush=True)
        sys.stdin.read()  # until the benchmark closes it
    finally:
        server.stop()
    return 0


def save_layout(image: Any, ref: str, layout: Path) -> Path:
    """An image as an OCI layout directory whose index names ``ref``."""
    blobs = layout / "blobs" / "sha256"
    blobs.mkdir(parents=True)
    for blob in (image.manifest, *image.all_blobs()):
        (blobs / blob.digest.split(":", 1)[1]).write_bytes(blob.data)
    (layout / "oci-layout").write_text('{"imageLayoutVersion":"1.0.0"}')
    descriptor = image.manifest.descriptor(annotations={"org.opencontainers.image.ref.name": ref})
    (layout / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": [descriptor]}))
    return layout


# -- checking ------------------------------------------------------------------------------------


def check(out: Path, names: list[str]) -> int:
    failures = 0
    for name in names:
        meta, target = out / f"{name}.json", out / name
        if not meta.is_file() or not target.is_dir():
            print(f"{name}: missing ({target}); build it with scripts/bench_inputs.py")
            failures += 1
            continue
        record = json.loads(meta.read_text())
        listing: dict[str, str] = record["listing"]
        found = sorted(p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file())
        bad = [p for p in found if p not in listing]
        missing = [p for p in listing if not (target / p).is_file()]
        changed = [
            p
            for p in found
            if p in listing and git_blob_id((target / p).read_bytes()) != listing[p]
        ]
        bundles = {tuple(p.split("/")[:2]) for p in found if p.count("/") >= 3}
        size = sum((target / p).stat().st_size for p in found)
        print(
            f"{name}: {len({b[0] for b in bundles})} packages, {len(bundles)} bundle directories, "
            f"{sum(1 for p in found if p.endswith('/ci.yaml') and p.count('/') == 1)} ci.yaml, "
            f"{len(found)} files, {size / 1e6:.1f} MB; commit {record['source']['commit'][:12]}, "
            f"digest {record['digest'][:16]}"
        )
        largest = record["largest_files"][:3]
        print(
            "  largest: " + ", ".join(f"{f['path']} ({f['bytes'] / 1e6:.2f} MB)" for f in largest)
        )
        problems = (("not in the record", bad), ("missing", missing), ("changed", changed))
        for label, paths in problems:
            if paths:
                failures += 1
                print(f"  {len(paths)} files {label}, e.g. {paths[0]}")
    templates = out / "templates"
    if "big" in names:
        if (templates / "basic.yaml").is_file():
            semver = sorted(templates.glob("semver-*.yaml"))
            print(f"templates: basic.yaml, {len(semver)} semver templates")
        else:
            print("templates: missing")
            failures += 1
    return 1 if failures else 0


def default_out() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "olmcat-bench" / "modern"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--source",
        type=Path,
        default=Path(os.environ.get("OLMCAT_BENCH_SOURCE") or DEFAULT_SOURCE),
        help="git snapshot (bare or a clone) of community-operators-prod "
        "(default: $OLMCAT_BENCH_SOURCE, else %(default)s)",
    )
    parser.add_argument("--rev", default="HEAD", help="commit to read (default HEAD)")
    parser.add_argument("--out", type=Path, default=default_out(), help="default: %(default)s")
    parser.add_argument("--only", choices=SETS, help="build one set (default: all three)")
    parser.add_argument(
        "--old-rev",
        default=OLD_COMMIT,
        help="commit tree-old is read at (default %(default)s, 2026-06-03)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even when up to date")
    parser.add_argument(
        "--check",
        action="store_true",
        help="print sizes and counts, verify every file; build nothing",
    )
    parser.add_argument(
        "--example",
        type=Path,
        metavar="MANIFESTS",
        help="write a tiny big set (and templates) from these package manifests into --out",
    )
    parser.add_argument(
        "--serve",
        type=Path,
        metavar="BIG",
        help="push BIG's bundle images to a loopback registry, save them under --out, print "
        "one JSON line and keep the registry up until stdin closes (what scripts/bench.py runs)",
    )
    args = parser.parse_args(argv)
    names = [args.only] if args.only else list(SETS)
    if args.example:
        write_example(args.example, args.out)
        return 0
    if args.serve:
        return serve(args.serve, args.out)
    try:
        if args.check:
            return check(args.out, names)
        snapshot = read_snapshot(args.source, args.rev)
        if "tree-old" in names:
            old = read_snapshot(args.source, args.old_rev)
            build_set(old, args.out, "tree-old", list(old.bundles.values()), args.force)
        if "big" in names:
            big = build_set(snapshot, args.out, "big", select_big(snapshot), args.force)
            templates = write_templates(args.out, big)
            print(
                f"templates: basic over {templates['basic']} bundles, semver for "
                f"{len(templates['semver_packages'])} packages",
                file=sys.stderr,
            )
        if "tree" in names:
            build_set(snapshot, args.out, "tree", list(snapshot.bundles.values()), args.force)
        return check(args.out, names)
    except InputsError as error:
        print(f"bench_inputs: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
