"""``--no-cache`` and ``--cache-verify``: the rendered-bundle cache of every command that reads
bundle directories (legacy directory trees, ``render`` and templates of directories).

``@cache_options`` adds both options and lets the command's readers use the cache while it runs
(:func:`olmcat.readers.bundlecache.use_cache`) -- the command's own signature does not change.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["cache_options"]

_NO_CACHE_HELP = (
    "Render every bundle directory again instead of reusing (and storing) renderings in the "
    "cache ($OLMCAT_CACHE_DIR; see `olmcat cache info`)."
)
_VERIFY_HELP = (
    "Hash every input file again instead of trusting the digests remembered by each file's "
    "size, times and inode (for a filesystem that does not keep change times; see "
    "docs/performance.md)."
)


def cache_options(function: F) -> F:
    """Add ``--no-cache`` (also ``OLMCAT_NO_CACHE``) and ``--cache-verify`` to a command."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from olmcat.readers.bundlecache import use_cache

        enabled = not kwargs.pop("no_cache")
        verify = kwargs.pop("cache_verify")
        # Held until the click context closes, so a group's subcommands see it too.
        click.get_current_context().with_resource(use_cache(enabled, verify=verify))
        return function(*args, **kwargs)

    decorated: Any = click.option("--cache-verify", is_flag=True, help=_VERIFY_HELP)(wrapper)
    decorated = click.option(
        "--no-cache", is_flag=True, envvar="OLMCAT_NO_CACHE", help=_NO_CACHE_HELP
    )(decorated)
    return decorated  # type: ignore[no-any-return]
