"""``mirror copy``: carry out a mirror plan -- registry to registry, to disk, and disk to registry.

What is copied is what ``mirror plan`` decides (:mod:`olmcat.mirror.naming`): every image the
catalog references (bundle and related images), the index image itself when it is known, each to
the target ``oc`` would name. Three directions:

* registry -> registry: ``mirror copy CATALOG|PLAN registry.example.com/ns``;
* registry -> disk: ``mirror copy CATALOG oci:DIR`` -- one OCI layout holding every image, each
  named (``org.opencontainers.image.ref.name``) by its source reference with Docker defaults
  (``quay.io/org/op@sha256:...``), to be carried into the disconnected site;
* disk -> registry: ``mirror copy --from oci:DIR CATALOG registry.internal/ns`` -- the same plan,
  every image read from the layout by its source name.

Images are copied as their manifest bytes (manifest lists whole), so the digests the catalog pins
stay valid in the mirror. A target that already holds the source's digest is left alone: an
interrupted copy, run again, copies only what is missing. With ``catalog_image`` the catalog is
also written as a file-based catalog image (:mod:`olmcat.oci.build`) and pushed with the rest.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from olmcat.errors import InputError, OlmcatError
from olmcat.files import safe
from olmcat.mirror.naming import parse_destination, plan_mappings
from olmcat.model import PackageCatalog
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.oci.auth import AuthError
from olmcat.oci.options import RegistryOptions, current_options
from olmcat.oci.reference import ImageReference, parse_reference
from olmcat.oci.transport import DOCKER_PREFIX, parse_location, registry_reference

__all__ = [
    "REPORT_SCHEMA",
    "CopyOptions",
    "CopyReport",
    "CopyWatcher",
    "ImageCopy",
    "layout_name",
    "mirror_copy",
]

REPORT_SCHEMA = "olmcat.mirror-copy.v1"
Status = Literal["copied", "present", "failed", "planned"]
_MAX_MAPPING_BYTES = 256 << 20


@dataclass(frozen=True, slots=True)
class CopyOptions:
    """``workers`` images at a time; ``max_components`` as ``mirror plan``; ``index_image`` the
    catalog image as published (default: CATALOG itself when it is a registry reference);
    ``catalog_image`` ``REPO[:TAG]`` under the destination for the rebuilt FBC image;
    ``from_layout`` the OCI layout to read images from (disk to registry)."""

    workers: int = 4
    dry_run: bool = False
    max_components: int = 2
    index_image: str | None = None
    catalog_image: str | None = None
    platform: str | None = None
    from_layout: Path | None = None


@dataclass(slots=True)
class ImageCopy:
    """One line of the report."""

    source: str
    target: str
    status: Status = "planned"
    digest: str = ""
    bytes: int = 0
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "source": self.source,
            "target": self.target,
            "status": self.status,
            "digest": self.digest,
            "bytes": self.bytes,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass(slots=True)
class CopyReport:
    source: str
    destination: str
    dry_run: bool
    images: list[ImageCopy] = field(default_factory=list)
    seconds: float = 0.0
    catalog_image: str = (
        ""  # where the rebuilt catalog image is: pull spec by digest, or oci:DIR:NAME
    )
    catalog_digest: str = ""

    def count(self, status: Status) -> int:
        return sum(1 for image in self.images if image.status == status)

    @property
    def bytes(self) -> int:
        return sum(image.bytes for image in self.images)

    @property
    def ok(self) -> bool:
        return self.count("failed") == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": REPORT_SCHEMA,
            "source": self.source,
            "destination": self.destination,
            "dry_run": self.dry_run,
            "summary": {
                "images": len(self.images),
                "copied": self.count("copied"),
                "present": self.count("present"),
                "failed": self.count("failed"),
                "planned": self.count("planned"),
                "bytes": self.bytes,
                "seconds": round(self.seconds, 3),
            },
            "catalog_image": self.catalog_image or None,
            "catalog_digest": self.catalog_digest or None,
            "images": [image.to_json() for image in self.images],
        }

    def render_text(self) -> str:
        lines = []
        for image in self.images:
            if image.status == "failed":
                lines.append(f"failed   {image.source} -> {image.target}: {image.reason}")
        for image in self.images:
            if image.status == "planned":
                lines.append(f"to copy  {image.source} -> {image.target}")
        verb = "would copy" if self.dry_run else "copied"
        count = self.count("planned") if self.dry_run else self.count("copied")
        summary = (
            f"{verb} {count} of {len(self.images)} images to {self.destination} "
            f"({_size(self.bytes)} in {self.seconds:.1f} s; {self.count('present')} already "
            f"present, {self.count('failed')} failed)"
        )
        if self.catalog_image:
            summary += f"\ncatalog image: {self.catalog_image}"
            if not self.catalog_image.endswith(self.catalog_digest):
                summary += f" ({self.catalog_digest})"
        return "\n".join([*lines, summary]) + "\n"


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


class CopyWatcher(Protocol):
    """Progress: bytes as they flow, and each image as it finishes."""

    def start(self, images: int) -> None: ...

    def transferred(self, count: int) -> None: ...

    def finished(self, image: ImageCopy, done: int, total: int) -> None: ...


def layout_name(image: str) -> str:
    """The name an image gets in a mirror-to-disk layout: its reference with Docker defaults
    (``quay.io/org/op@sha256:...``, ``docker.io/library/busybox:latest``)."""
    return registry_reference(image.removeprefix(DOCKER_PREFIX)).exact()


# --------------------------------------------------------------------------------------------
# What to copy


@dataclass(frozen=True, slots=True)
class _Task:
    source: str  # as the catalog / plan writes it
    source_ref: ImageReference  # Docker defaults applied
    target: str  # registry pull spec, or the layout name
    target_ref: ImageReference | None  # None for a layout destination


def _repository(ref: ImageReference) -> str:
    return f"{ref.namespace}/{ref.name}" if ref.namespace else ref.name


def _is_plan(source: str) -> Path | None:
    path = Path(source)
    if path.is_dir() and (path / "mapping.txt").is_file():
        return path / "mapping.txt"
    if path.is_file() and path.name == "mapping.txt":
        return path
    return None


def _read_mapping(path: Path) -> list[tuple[str, str]]:
    if path.stat().st_size > _MAX_MAPPING_BYTES:
        raise InputError(f"{path}: larger than {_MAX_MAPPING_BYTES} bytes")
    pairs = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        source, sep, target = line.partition("=")
        if not sep or not source or not target:
            raise InputError(f"{path}:{number}: expected SOURCE=TARGET, got {line[:120]!r}")
        pairs.append((source, target))
    return pairs


@dataclass
class _Destination:
    text: str
    layout: Path | None = None
    registry: str = ""  # registry[/namespace...] as mirror plan takes it


def _destination(dest: str) -> _Destination:
    location = parse_location(dest, plain_paths_exist=False)
    if location is not None and location.transport == "oci":
        if location.ref:
            raise InputError(f"destination {dest!r}: name no image in an oci: destination")
        assert location.path is not None
        return _Destination(dest, layout=location.path)
    if location is not None and location.transport in ("oci-archive", "docker-archive"):
        raise InputError(
            f"destination {dest!r}: {location.transport} destinations are not supported; use "
            "oci:DIR (an OCI layout directory)"
        )
    text = dest.removeprefix(DOCKER_PREFIX).rstrip("/")
    try:
        parse_destination(text)  # registry[:port][/namespace...]
    except InputError as error:
        raise InputError(f"{error}; to copy into a directory, use oci:DIR") from None
    return _Destination(dest, registry=text)


def _plan_tasks(mapping: Path, destination: _Destination) -> list[_Task]:
    tasks = []
    prefix = destination.registry + "/"
    for source, target in _read_mapping(mapping):
        if target.startswith("file://"):
            raise InputError(
                f"{mapping}: target {target} is a file:// path; plan for a registry, or copy "
                "to disk with an oci:DIR destination"
            )
        source_ref = registry_reference(source)
        if destination.layout is not None:
            tasks.append(_Task(source, source_ref, layout_name(source), None))
            continue
        if not target.startswith(prefix):
            raise InputError(
                f"{mapping}: target {target} is not under the destination {destination.text}; "
                "make the plan for this destination or give its registry"
            )
        tasks.append(_Task(source, source_ref, target, parse_reference(target)))
    return tasks


def _catalog_tasks(
    images: set[str], index_image: str | None, destination: _Destination, max_components: int
) -> list[_Task]:
    tasks = []
    if destination.layout is not None:
        for image in sorted(images | ({index_image} if index_image else set())):
            tasks.append(_Task(image, registry_reference(image), layout_name(image), None))
        return tasks
    for mapping in plan_mappings(
        images, destination.registry, max_components=max_components, index=index_image
    ):
        source = mapping.source_text
        target_ref = mapping.target
        target_text = mapping.target_text
        tasks.append(_Task(source, registry_reference(source), target_text, target_ref))
    return tasks


# --------------------------------------------------------------------------------------------
# Running


class _Copier:
    def __init__(
        self,
        options: CopyOptions,
        destination: _Destination,
        src_registry: RegistryOptions,
        dest_registry: RegistryOptions,
    ) -> None:
        from olmcat.oci.copy import BlobLocks, LayoutEndpoint
        from olmcat.oci.layout import OciLayout
        from olmcat.oci.registry import RegistryPool

        self.options = options
        self.destination = destination
        self.src_pool = RegistryPool(src_registry, side="src")
        self.dest_pool = RegistryPool(dest_registry, cache=self.src_pool.cache, side="dest")
        self.locks = BlobLocks()
        self.source_layout = (
            LayoutEndpoint(OciLayout(options.from_layout)) if options.from_layout else None
        )
        self.dest_layout = None
        if destination.layout is not None and not options.dry_run:
            self.dest_layout = LayoutEndpoint(OciLayout(destination.layout, create=True))

    def close(self) -> None:
        self.src_pool.close()
        self.dest_pool.close()

    def source(self, task: _Task) -> tuple[Any, str, str | None]:
        """(endpoint, reference in it, digest the source must have)."""
        from olmcat.oci.copy import RegistryEndpoint

        ref = task.source_ref
        pinned = ref.digest or None
        if self.source_layout is not None:
            return self.source_layout, layout_name(task.source), pinned
        endpoint = RegistryEndpoint(self.src_pool.get(ref.registry), _repository(ref))
        return endpoint, ref.digest or ref.tag, pinned

    def target(self, task: _Task) -> tuple[Any, str]:
        from olmcat.oci.copy import LayoutEndpoint, RegistryEndpoint
        from olmcat.oci.layout import OciLayout

        if task.target_ref is None:
            if self.dest_layout is None:  # dry run into a layout that may not exist yet
                assert self.destination.layout is not None
                if not (self.destination.layout / "index.json").is_file():
                    return None, task.target
                return LayoutEndpoint(OciLayout(self.destination.layout)), task.target
            return self.dest_layout, task.target
        ref = task.target_ref
        endpoint = RegistryEndpoint(self.dest_pool.get(ref.registry), _repository(ref))
        return endpoint, ref.tag or ref.digest

    def run(self, task: _Task, progress: Callable[[int], None]) -> ImageCopy:
        from olmcat.oci.copy import copy_image

        row = ImageCopy(task.source, task.target)
        try:
            source, source_ref, pinned = self.source(task)
            target, target_ref = self.target(task)
            if self.options.dry_run:
                digest = source.manifest_digest(source_ref)
                if digest is None:
                    raise InputError(f"{source}: no image {source_ref}")
                row.digest = digest
                present = target is not None and target.manifest_digest(target_ref) == digest
                row.status = "present" if present else "planned"
                return row
            result = copy_image(
                source,
                source_ref,
                target,
                target_ref,
                progress=progress,
                locks=self.locks,
                expect_digest=pinned,
            )
            row.digest = result.digest
            row.bytes = result.bytes
            row.status = "present" if result.present else "copied"
        except AuthError as error:
            if self.destination.layout is None and error.host in self.dest_pool.hosts():
                raise  # the destination refuses us: every other image would fail the same way
            row.status = "failed"
            row.reason = str(error)
        except OlmcatError as error:
            row.status = "failed"
            row.reason = str(error)
        return row


def _collect_catalog(
    reference: str,
    options: CopyOptions,
    src_registry: RegistryOptions,
    scratch: Path | None,
    notify: NoticeSink,
) -> set[str]:
    """Every image the catalog references; with ``scratch``, also its FBC written there."""
    from olmcat.mirror.images import package_images
    from olmcat.readers.catalog import open_catalog

    images: set[str] = set()

    def collecting(packages: Iterator[PackageCatalog]) -> Iterator[PackageCatalog]:
        for pkg in packages:
            images.update(row.image for row in package_images(pkg))
            yield pkg

    with open_catalog(
        reference, notify=notify, platform=options.platform, registry=src_registry
    ) as catalog:
        if scratch is None:
            for _ in collecting(catalog.packages()):
                pass
        else:
            from olmcat.writers.fbc import write_directory

            write_directory(
                collecting(catalog.packages()),
                scratch,
                global_others=catalog.global_others(),
            )
    return images


def mirror_copy(
    source: str,
    dest: str,
    options: CopyOptions | None = None,
    *,
    src_registry: RegistryOptions | None = None,
    dest_registry: RegistryOptions | None = None,
    watcher: CopyWatcher | None = None,
    notify: NoticeSink = discard,
) -> CopyReport:
    """Copy what the plan ``source`` (a ``mirror plan`` directory or its mapping.txt) or the
    catalog ``source`` needs to ``dest`` (``registry[/ns]``, ``docker://registry[/ns]`` or
    ``oci:DIR``). Per-image failures are reported, not raised; a bad source, destination or
    option raises :class:`InputError`. Readers' notices and one ``mirror.copy.failed`` error
    notice per failed image go to ``notify``."""
    options = options or CopyOptions()
    src_registry = src_registry or current_options()
    dest_registry = dest_registry or current_options()
    if options.workers < 1:
        raise InputError("--workers must be at least 1")
    started = time.perf_counter()
    destination = _destination(dest)
    if options.from_layout is not None and destination.layout is not None:
        raise InputError("--from oci:DIR copies to a registry; the destination is a layout too")
    report = CopyReport(source, dest, options.dry_run)
    mapping = _is_plan(source)
    scratch: Path | None = None
    try:
        if mapping is not None:
            if options.catalog_image or options.index_image:
                raise InputError(
                    f"{source} is a plan: --catalog-image and --index-image need the catalog"
                )
            tasks = _plan_tasks(mapping, destination)
        else:
            catalog_ref = source
            location = parse_location(source)
            index_image = options.index_image
            if location is not None and location.is_registry:
                index_image = index_image or source.removeprefix(DOCKER_PREFIX)
                if options.from_layout is not None:
                    catalog_ref = f"oci:{options.from_layout}:{layout_name(source)}"
            if options.catalog_image:
                scratch = safe.scratch_dir("catalog") / "configs"
            images = _collect_catalog(catalog_ref, options, src_registry, scratch, notify)
            tasks = _catalog_tasks(images, index_image, destination, options.max_components)
        copier = _Copier(options, destination, src_registry, dest_registry)
        try:
            built = None
            if scratch is not None and options.catalog_image:
                built = _catalog_task(scratch, options.catalog_image, destination)
            report.images = _run_all(copier, tasks, options, watcher, built)
            if built is not None:
                image, row = built
                if row.status in ("copied", "present", "planned"):
                    report.catalog_digest = image.digest
                    if destination.layout is not None:
                        report.catalog_image = f"oci:{destination.layout}:{row.target}"
                    else:
                        report.catalog_image = f"{_without_tag(row.target)}@{image.digest}"
        finally:
            copier.close()
    finally:
        if scratch is not None:
            shutil.rmtree(scratch.parent, ignore_errors=True)
    for row in report.images:
        if row.status == "failed":
            notify(Notice("mirror.copy.failed", f"{row.source}: {row.reason}", "error"))
    report.seconds = time.perf_counter() - started
    return report


def _without_tag(target: str) -> str:
    return parse_reference(target).as_repository().exact()


def _catalog_task(scratch: Path, name: str, destination: _Destination) -> tuple[Any, ImageCopy]:
    from olmcat.oci.build import build_catalog_image

    image = build_catalog_image(scratch)
    if destination.layout is not None:
        return image, ImageCopy("(rebuilt catalog)", name)
    repository, _, tag = name.partition(":")
    target = f"{destination.registry}/{repository}:{tag or 'latest'}"
    parse_reference(target)  # a bad --catalog-image fails before anything is copied
    return image, ImageCopy("(rebuilt catalog)", target)


def _run_all(
    copier: _Copier,
    tasks: list[_Task],
    options: CopyOptions,
    watcher: CopyWatcher | None,
    built: tuple[Any, ImageCopy] | None,
) -> list[ImageCopy]:
    total = len(tasks) + (1 if built else 0)
    if watcher is not None:
        watcher.start(total)
    lock = threading.Lock()
    done = 0

    def progress(count: int) -> None:
        if watcher is not None:
            watcher.transferred(count)

    def finish(row: ImageCopy) -> ImageCopy:
        nonlocal done
        with lock:
            done += 1
            if watcher is not None:
                watcher.finished(row, done, total)
        return row

    def one(task: _Task) -> ImageCopy:
        return finish(copier.run(task, progress))

    pool = ThreadPoolExecutor(max_workers=options.workers)
    try:
        rows = list(pool.map(one, tasks))
    except BaseException:
        # Ctrl-C or a crash: start no further image; those in flight finish or fail on their own.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    if built is not None:
        rows.append(finish(_copy_built(copier, built, progress)))
    return rows


def _copy_built(
    copier: _Copier, built: tuple[Any, ImageCopy], progress: Callable[[int], None]
) -> ImageCopy:
    from olmcat.oci.copy import RegistryEndpoint, copy_image

    image, row = built
    row.digest = image.digest
    try:
        if copier.destination.layout is not None:
            target, reference = copier.target(_Task("", ImageReference(), row.target, None))
        else:
            ref = parse_reference(row.target)
            target = RegistryEndpoint(copier.dest_pool.get(ref.registry), _repository(ref))
            reference = ref.tag
        if copier.options.dry_run:
            present = target is not None and target.manifest_digest(reference) == image.digest
            row.status = "present" if present else "planned"
            return row
        result = copy_image(image, image.digest, target, reference, progress=progress)
        row.status = "present" if result.present else "copied"
        row.bytes = result.bytes
    except OlmcatError as error:
        row.status = "failed"
        row.reason = str(error)
    return row
