"""How to reach registries, without importing the HTTP stack (the CLI builds these on every run).

The CLI's registry options (``--authfile``, ``--cert-dir``, ``--tls-verify``, ``--use-http``) become
one :class:`RegistryOptions`; :func:`use_options` makes it the default of every registry access in
its context, so library functions that only pass a catalog reference along need no new parameter.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from olmcat.oci.cache import BlobCache

__all__ = ["RegistryOptions", "current_options", "use_options"]


@dataclass(frozen=True, slots=True)
class RegistryOptions:
    """How to reach registries: skopeo's ``--authfile``, ``--cert-dir``, ``--tls-verify``, opm's
    ``--use-http``; retry and upload tuning; where the blob cache is."""

    authfile: Path | None = None
    cert_dir: Path | None = None
    tls_verify: bool = True
    use_http: bool = False
    retries: int = 4
    backoff: float = 0.5
    timeout: float = 120.0
    # Blobs up to this size go up in one PUT; larger ones in PATCH chunks of ``chunk_size``.
    monolithic_limit: int = 64 << 20
    chunk_size: int = 16 << 20
    cache_dir: Path | None = None

    def cache(self) -> BlobCache:
        from olmcat.oci.cache import BlobCache

        return BlobCache(self.cache_dir)


_current: contextvars.ContextVar[RegistryOptions | None] = contextvars.ContextVar(
    "olmcat_registry_options", default=None
)


def current_options() -> RegistryOptions:
    """The options set by :func:`use_options` (the CLI sets them per command), else defaults."""
    return _current.get() or RegistryOptions()


@contextlib.contextmanager
def use_options(options: RegistryOptions) -> Iterator[RegistryOptions]:
    """Make ``options`` the default of every registry access in this context."""
    token = _current.set(options)
    try:
        yield options
    finally:
        _current.reset(token)
