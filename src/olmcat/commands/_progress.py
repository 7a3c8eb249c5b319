"""What a run shows on stderr while it works: a progress bar per package, and warning lines.

A bar shows only when stderr is a terminal and ``--quiet`` is off, one at a time (nested
readers share the outer bar); a warning is printed above the bar, not through it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

import click

from olmcat.commands._errors import one_line
from olmcat.commands._options import settings_of

if TYPE_CHECKING:  # the model costs ~10 ms to import; --help does not need it
    from olmcat.model import PackageCatalog


def warn(message: str) -> None:
    """Print one warning line on stderr (above a progress bar, if one is showing)."""
    line = f"olmcat: warning: {one_line(message)}"
    if "tqdm" in sys.modules:
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    else:
        click.echo(line, err=True)


_bar_showing = False


def _show_bars() -> bool:
    ctx = click.get_current_context(silent=True)
    return not settings_of(ctx).quiet and sys.stderr is not None and sys.stderr.isatty()


def _bar(items: Iterable[PackageCatalog], total: int, what: str) -> Iterator[PackageCatalog]:
    """A tqdm bar per package on stderr (one at a time: nested readers share the outer bar)."""
    global _bar_showing
    if _bar_showing or not _show_bars():
        yield from items
        return
    from tqdm import tqdm

    _bar_showing = True
    try:
        with tqdm(total=total, desc=what, unit="pkg", file=sys.stderr, leave=False) as bar:
            for item in items:
                bar.set_postfix_str(one_line(item.name)[:40], refresh=False)
                yield item
                bar.update(1)
    finally:
        _bar_showing = False


def progress_bar(
    quiet: bool, what: str
) -> Callable[[Iterable[PackageCatalog], int], Iterable[PackageCatalog]]:
    """A tqdm bar per package on stderr, only when stderr is a terminal and not --quiet."""

    def wrap(items: Iterable[PackageCatalog], total: int) -> Iterator[PackageCatalog]:
        if quiet:
            yield from items
            return
        yield from _bar(items, total, what)

    return wrap


def reading_progress(
    items: Iterator[PackageCatalog], total: int, reference: str
) -> Iterator[PackageCatalog]:
    """The bar every catalog reader shows while a command runs (``package_progress``)."""
    return _bar(items, total, "reading")
