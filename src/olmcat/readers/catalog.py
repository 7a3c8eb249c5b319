"""Catalog references: one resolver for every command that takes a catalog.

A reference is an FBC directory or file (or ``-`` for stdin), an SQLite index database, a
package-manifest / bundle-format directory tree, an index image archive (OCI layout directory,
``oci-archive`` tar, ``docker save`` tar), or an image in one of the transport forms of
:mod:`olmcat.oci.transport` (``docker://HOST/REPO:TAG``, plain ``HOST/REPO:TAG`` when no such path
exists, ``oci:DIR[:REF]``, ``oci-archive:FILE[:REF]``, ``docker-archive:FILE``), whose catalog is
pulled out into a temporary directory (registry blobs through the shared cache).
Whatever the form, the result is a :class:`Catalog`: packages streamed one at a time, by name.
"""

from __future__ import annotations

import contextvars
import dataclasses
import shutil
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeVar

from olmcat.errors import InputError, OlmcatError
from olmcat.files import safe
from olmcat.model import Meta, PackageCatalog
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers.source import CatalogSource

if TYPE_CHECKING:
    from olmcat.oci.options import RegistryOptions
    from olmcat.readers.bundlecache import RenderCache

Kind = Literal["fbc", "sqlite", "pkgman", "image"]
ProgressHook = Callable[[Iterator[PackageCatalog], int, str], Iterator[PackageCatalog]]

# Wraps every Catalog.packages() stream (the CLI shows a progress bar with it); the library sets
# none, so it never prints.
package_progress: contextvars.ContextVar[ProgressHook | None] = contextvars.ContextVar(
    "olmcat_package_progress", default=None
)


@dataclass(slots=True)
class Catalog:
    """An opened catalog reference. Use as a context manager; packages stream in name order."""

    reference: str
    kind: Kind
    source: CatalogSource
    detail: str = ""  # e.g. "sqlite in image archive" or the schema of a database
    _cleanup: list[Callable[[], None]] = field(default_factory=list)

    def package_names(self) -> list[str]:
        return self.source.package_names()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        packages = self.source.packages(only)
        hook = package_progress.get()
        if hook is None:
            return packages
        names = self.source.package_names()
        total = len(names) if only is None else len(set(only) & set(names))
        return hook(iter(packages), total, self.reference)

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def global_others(self) -> list[Meta]:
        return self.source.global_others()

    def close(self) -> None:
        self.source.close()
        for cleanup in reversed(self._cleanup):
            cleanup()
        self._cleanup.clear()

    def __enter__(self) -> Catalog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _has_legacy_layout(root: Path) -> bool:
    """True when a tree holds package manifests or bundle-format directories."""
    from olmcat.readers.pkgman import is_package_file

    safe.add_root(root)
    for directory, dirnames, filenames in safe.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        if any(is_package_file(directory / f) for f in filenames):
            return True
        annotations = directory / "metadata" / "annotations.yaml"
        if "manifests" in dirnames and annotations.is_file():
            return True
    return False


def detect(reference: str) -> Kind:
    """Which reader a reference needs, from cheap checks only."""
    if reference == "-":
        return "fbc"
    from olmcat.oci.transport import parse_location

    if parse_location(reference) is not None:
        return "image"
    path = Path(reference)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    from olmcat.readers.sqlite import is_sqlite_file

    if path.is_file() and (is_sqlite_file(path) or path.suffix in (".db", ".sqlite", ".sqlite3")):
        return "sqlite"
    # only now: a database does not need the archive reader (tarfile, gzip, ...: ~10 ms)
    from olmcat.oci.archive import is_image_archive, looks_like_tar

    if path.is_file():
        if is_image_archive(path) or looks_like_tar(path):
            return "image"
        return "fbc"
    if not path.is_dir():
        kind = safe.file_kind(path.stat().st_mode)
        raise InputError(f"{path}: {kind}, not a catalog (expected a regular file or a directory)")
    if is_image_archive(path):
        return "image"
    if _has_legacy_layout(path):
        return "pkgman"
    return "fbc"


def open_catalog(
    reference: str | Path,
    *,
    notify: NoticeSink = discard,
    permissive: bool = False,
    all_documents: bool = False,
    image_ref_template: str | None = None,
    platform: str | None = None,
    expect: tuple[Kind, ...] | None = None,
    registry: RegistryOptions | None = None,
    cache: RenderCache | Literal["default"] | None = "default",
) -> Catalog:
    """Open any catalog reference. ``expect`` limits the accepted kinds (images always pass
    through to what they contain). Readers report what they leave out or doubt to ``notify``.
    ``registry`` says how to reach registries (default: the options of
    :func:`olmcat.oci.options.use_options`, which the CLI sets). ``cache``: where bundle
    directories of a legacy tree rendered before are taken from (default: the cache of
    :func:`olmcat.readers.bundlecache.use_cache`, which the CLI sets unless ``--no-cache``;
    None renders them all)."""
    ref = str(reference)
    kind = detect(ref)
    if expect is not None and kind != "image" and kind not in expect:
        found = "a directory" if Path(ref).is_dir() else f"a {_describe(kind)}"
        if kind == "fbc" and ref != "-" and not _is_text(Path(ref)):
            found = "binary data that is no SQLite database or image archive"
        raise InputError(f"{ref}: not a file holding a {_describe(expect[0])} (found {found})")
    if kind == "image":
        return _open_image(ref, notify=notify, platform=platform, expect=expect, registry=registry)
    return Catalog(
        ref,
        kind,
        _open_plain(
            ref,
            kind,
            notify=notify,
            permissive=permissive,
            all_documents=all_documents,
            image_ref_template=image_ref_template,
            cache=cache,
        ),
    )


def _is_text(path: Path) -> bool:
    """Whether a file starts like text (no NUL byte, UTF-8) rather than binary data."""
    try:
        with path.open("rb") as fh:
            head = fh.read(8192)
    except OSError:
        return False
    if b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start > len(head) - 4  # a character cut at the end of the sample
    return True


def _describe(kind: str) -> str:
    return {
        "fbc": "file-based catalog",
        "sqlite": "SQLite index database",
        "pkgman": "package-manifest / bundle directory",
        "image": "index image archive",
    }.get(kind, kind)


def _open_plain(
    ref: str,
    kind: Kind,
    *,
    notify: NoticeSink,
    permissive: bool,
    all_documents: bool,
    image_ref_template: str | None,
    cache: RenderCache | Literal["default"] | None = None,
) -> CatalogSource:
    if kind == "sqlite":
        from olmcat.readers.sqlite import SqliteCatalog

        return SqliteCatalog(Path(ref), notify=notify)
    if kind == "pkgman":
        from olmcat.readers.bundlecache import current_cache
        from olmcat.readers.directory import DirectoryCatalog

        return DirectoryCatalog(
            Path(ref),
            permissive=permissive,
            all_documents=all_documents,
            image_ref_template=image_ref_template,
            notify=notify,
            cache=current_cache() if cache == "default" else cache,
        )
    from olmcat.readers.fbc import FbcCatalog

    return FbcCatalog(ref)


def _open_image(
    ref: str,
    *,
    notify: NoticeSink,
    platform: str | None,
    expect: tuple[Kind, ...] | None,
    registry: RegistryOptions | None = None,
) -> Catalog:
    from olmcat.oci.pull import extract_image_catalog

    scratch = safe.scratch_dir("image")
    try:
        found = extract_image_catalog(ref, scratch / "root", platform=platform, options=registry)
        inner: Kind = "sqlite" if found.kind == "sqlite" else "fbc"
        if expect is not None and inner not in expect:
            raise InputError(
                f"{ref}: the image holds a {_describe(inner)}, expected a {_describe(expect[0])}"
            )
        # Messages name the image and the path inside it, not the scratch copy.
        relabel = _Relabel(str(found.path), f"{ref}:/{found.image_path.lstrip('/')}")
        inner_notify = relabel.notify(notify)
        source: CatalogSource
        if inner == "sqlite":
            from olmcat.readers.sqlite import SqliteCatalog

            source = relabel.call(lambda: SqliteCatalog(found.path, notify=inner_notify))
        else:
            from olmcat.readers.fbc import FbcCatalog

            source = relabel.call(lambda: FbcCatalog(found.path))
        source = _RelabelledSource(source, relabel)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    catalog = Catalog(ref, "image", source, detail=f"{_describe(inner)} at {found.image_path}")
    catalog._cleanup.append(lambda: shutil.rmtree(scratch, ignore_errors=True))
    return catalog


T = TypeVar("T")


class _Relabel:
    """Rewrites messages that name a scratch path to name what the user gave instead."""

    def __init__(self, scratch: str, shown: str) -> None:
        self.scratch = scratch
        self.shown = shown

    def text(self, message: str) -> str:
        return message.replace(self.scratch, self.shown)

    def notify(self, notify: NoticeSink) -> NoticeSink:
        def relabelled(notice: Notice) -> None:
            notify(
                dataclasses.replace(
                    notice, message=self.text(notice.message), file=self.text(notice.file)
                )
            )

        return relabelled

    def call(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except OlmcatError as error:
            error.args = (self.text(str(error)),)
            raise


class _RelabelledSource:
    """A catalog source whose errors name the archive instead of the scratch copy."""

    def __init__(self, source: CatalogSource, relabel: _Relabel) -> None:
        self._source = source
        self._relabel = relabel

    def package_names(self) -> list[str]:
        return self._relabel.call(self._source.package_names)

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        iterator = self._relabel.call(lambda: iter(self._source.packages(only)))
        while True:
            try:
                item = self._relabel.call(lambda: next(iterator))
            except StopIteration:
                return
            yield item

    def global_others(self) -> list[Meta]:
        return self._relabel.call(self._source.global_others)

    def close(self) -> None:
        self._source.close()
