"""The ``opm index`` verbs for file-based catalogs: add, rm, prune, prune-stranded and
deprecate-truncate, each reading any catalog form and writing a new FBC (or replacing an FBC
directory in place, atomically), each reporting its upgrade-graph effect as a diff.
"""

from __future__ import annotations

from olmcat.maintain.add import add_bundles
from olmcat.maintain.deprecate import deprecate_truncate
from olmcat.maintain.remove import prune_packages, prune_stranded, remove_packages
from olmcat.maintain.rewrite import MaintainResult

__all__ = [
    "MaintainResult",
    "add_bundles",
    "deprecate_truncate",
    "prune_packages",
    "prune_stranded",
    "remove_packages",
]
