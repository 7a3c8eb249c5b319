"""An OCI image layout directory that images are copied into and out of (mirror to disk).

The layout is the standard one (``oci-layout``, ``index.json``, ``blobs/<alg>/<hex>``), readable by
skopeo (``oci:DIR:NAME``), podman and olmcat's archive reader. Each image copied in is named in
``index.json`` by its ``org.opencontainers.image.ref.name`` annotation; manifest lists keep their
children as blobs, so the digests stay those of the source.

Writes are crash- and concurrency-safe: a blob goes to a private temporary file, is verified and
renamed into place; ``index.json`` is rewritten to a temporary file and renamed, under an
exclusive ``flock`` so two runs into the same layout never lose each other's entries.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from olmcat.errors import InputError
from olmcat.files import safe
from olmcat.files.output import cannot_write, guarded, writing
from olmcat.oci.media import OCI_INDEX, Descriptor, is_digest, parse_json_object

__all__ = ["REF_ANNOTATION", "OciLayout"]

REF_ANNOTATION = "org.opencontainers.image.ref.name"
_LAYOUT_FILE = '{"imageLayoutVersion":"1.0.0"}'
_MAX_INDEX = 64 << 20
_CHUNK = 1 << 20


class OciLayout:
    """An OCI layout at ``root``; ``create=True`` makes it when absent."""

    def __init__(self, root: Path, *, create: bool = False) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        if create:
            self._create()
        elif not (self.root / "index.json").is_file():
            raise InputError(f"{self.root}: not an OCI image layout (no index.json)")

    def __repr__(self) -> str:
        return f"OciLayout({str(self.root)!r})"

    def _create(self) -> None:
        try:
            (self.root / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
            marker = self.root / "oci-layout"
            if not marker.exists():
                marker.write_text(_LAYOUT_FILE)
            index = self.root / "index.json"
            if not index.exists():
                self._write_index({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": []})
        except OSError as exc:
            raise cannot_write(f"the OCI layout {self.root}", exc) from None

    # -- blobs -----------------------------------------------------------------------------

    def blob_path(self, digest: str) -> Path:
        if not is_digest(digest):
            raise InputError(f"{self.root}: unsupported digest {digest!r}")
        algorithm, encoded = digest.split(":", 1)
        return self.root / "blobs" / algorithm / encoded

    def has_blob(self, digest: str, size: int | None = None) -> bool:
        try:
            actual = self.blob_path(digest).stat().st_size
        except FileNotFoundError:
            return False
        return size is None or actual == size

    def write_blob(self, digest: str, chunks: Iterable[bytes], what: str) -> int:
        """Write and verify a blob; returns its size. Already present: nothing is written."""
        final = self.blob_path(digest)
        algorithm = digest.split(":", 1)[0]
        hasher = hashlib.new(algorithm)
        # Only the writing is guarded: ``chunks`` may come off the network, and a failure there
        # is not a failure to write ``final``.
        with writing(final):
            final.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=".tmp-", dir=final.parent)
        temporary = Path(name)
        size = 0
        try:
            with guarded(os.fdopen(handle, "wb"), final) as out:
                for chunk in chunks:
                    hasher.update(chunk)
                    size += len(chunk)
                    out.write(chunk)
            got = f"{algorithm}:{hasher.hexdigest()}"
            if got != digest:
                raise InputError(f"{what}: digest mismatch: expected {digest}, got {got}")
            with writing(final):
                os.replace(temporary, final)
        finally:
            temporary.unlink(missing_ok=True)
        return size

    def blob_chunks(self, digest: str, size: int | None = None) -> Iterator[bytes]:
        """A blob's content, verified against its digest as it is read."""
        path = self.blob_path(digest)
        if not path.is_file():
            raise InputError(f"{self.root}: blob {digest} is missing")
        hasher = hashlib.new(digest.split(":", 1)[0])
        count = 0
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                hasher.update(chunk)
                count += len(chunk)
                yield chunk
        got = f"{digest.split(':', 1)[0]}:{hasher.hexdigest()}"
        if got != digest or (size is not None and count != size):
            raise InputError(f"{self.root}: blob {digest} is corrupt (content hashes to {got})")

    def read_blob(self, digest: str, limit: int = _MAX_INDEX) -> bytes:
        path = self.blob_path(digest)
        try:
            if path.stat().st_size > limit:
                raise InputError(f"{self.root}: blob {digest} is larger than {limit} bytes")
        except FileNotFoundError:
            raise InputError(f"{self.root}: blob {digest} is missing") from None
        return b"".join(self.blob_chunks(digest))

    # -- index.json ------------------------------------------------------------------------

    def _read_index(self) -> dict[str, Any]:
        path = self.root / "index.json"
        try:
            if path.stat().st_size > _MAX_INDEX:
                raise InputError(f"{path}: larger than {_MAX_INDEX} bytes")
            data = safe.read_bytes(path)  # a regular file, inside the layout
        except FileNotFoundError:
            raise InputError(f"{self.root}: not an OCI image layout (no index.json)") from None
        document = parse_json_object(data, str(path))
        if not isinstance(document.get("manifests", []), list):
            raise InputError(f"{path}: manifests is not a list")
        return document

    def _write_index(self, document: dict[str, Any]) -> None:
        index = self.root / "index.json"
        with writing(index):
            handle, name = tempfile.mkstemp(prefix=".index-", dir=self.root)
        try:
            with guarded(os.fdopen(handle, "w"), index) as out:
                json.dump(document, out, indent=2, sort_keys=True)
                out.write("\n")
            with writing(index):
                os.replace(name, index)
        finally:
            Path(name).unlink(missing_ok=True)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock, (self.root / ".olmcat-lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def refs(self) -> dict[str, Descriptor]:
        """Every named image: ref name -> descriptor (the last entry wins for a repeated name)."""
        out: dict[str, Descriptor] = {}
        for i, raw in enumerate(self._read_index().get("manifests", [])):
            annotations = raw.get("annotations") if isinstance(raw, dict) else None
            name = annotations.get(REF_ANNOTATION) if isinstance(annotations, dict) else None
            if isinstance(name, str) and name:
                out[name] = Descriptor.from_json(raw, f"{self.root}/index.json entry {i}")
        return out

    def find(self, name: str) -> Descriptor | None:
        return self.refs().get(name)

    def set_ref(self, name: str, descriptor: Descriptor) -> None:
        """Name ``descriptor`` ``name`` in index.json (replacing an older image of that name)."""
        entry: dict[str, Any] = {
            "mediaType": descriptor.media_type,
            "digest": descriptor.digest,
            "size": descriptor.size,
            "annotations": {REF_ANNOTATION: name},
        }
        with self._locked():
            document = self._read_index()
            kept = [
                m
                for m in document.get("manifests", [])
                if not (
                    isinstance(m, dict)
                    and isinstance(m.get("annotations"), dict)
                    and m["annotations"].get(REF_ANNOTATION) == name
                )
            ]
            kept.append(entry)
            kept.sort(key=lambda m: str((m.get("annotations") or {}).get(REF_ANNOTATION, "")))
            document["manifests"] = kept
            document.setdefault("schemaVersion", 2)
            document.setdefault("mediaType", OCI_INDEX)
            self._write_index(document)
