"""Version policy: one named parser per question, so every call site says which one it means.

The same version string is read differently by the tools olmcat imitates, and each question has
one right reader:

* :func:`opm_version` — **what opm's model sees**: blang ``semver.Parse`` (strict). Used where
  olmcat answers as ``opm`` would: ``render-graph``, ``query`` ordering, ``olm.package`` checks.
* :func:`olm_v0_version` — **what OLM v0's resolver sees**: blang ``semver.ParseTolerant`` (a
  leading ``v``, missing minor/patch and surrounding spaces are forgiven). Used for upgrade
  reachability (``diff``'s stranded installs) and skipRange matching, which OLM v0 evaluates
  with blang ranges.
* :func:`olm_v1_version` — **what OLM v1 / catalogd range selection sees**: tolerant blang first,
  then Masterminds ``NewVersion`` for the forms only Masterminds accepts. Used by ``filter``'s
  version bounds and ranges (OLM 1.0 range syntax, Masterminds constraints).

Each returns ``None`` for a version its tool would reject; callers decide what that means. Ranges
have their own readers: :func:`skip_range` (blang, as OLM v0 reads ``olm.skipRange``) and
:func:`version_range` (Masterminds, as OLM v1 reads ``versionRange``).
"""

from __future__ import annotations

import functools
from typing import Protocol

from olmcat.errors import InputError
from olmcat.go.semver import (
    Constraint,
    SkipRange,
    Version,
    parse_constraint,
    parse_constraint_version,
    parse_skip_range,
    parse_version,
    parse_version_tolerant,
)

__all__ = [
    "ZERO",
    "Constraint",
    "SkipRange",
    "Version",
    "Versioned",
    "olm_v0_version",
    "olm_v1_version",
    "opm_version",
    "skip_range",
    "version_key",
    "version_range",
]

ZERO = Version(0, 0, 0)


class Versioned(Protocol):
    """Anything with a version string, such as :class:`olmcat.model.Bundle` (its ``olm.package``
    version); this module sits below the model types, so it knows them only by this shape."""

    @property
    def version(self) -> str: ...


def _text(value: str | Versioned | None) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else value.version


@functools.lru_cache(maxsize=65536)
def _opm(text: str) -> Version | None:
    try:
        return parse_version(text)
    except InputError:
        return None


@functools.lru_cache(maxsize=65536)
def _olm_v0(text: str) -> Version | None:
    try:
        return parse_version_tolerant(text)
    except InputError:
        return None


@functools.lru_cache(maxsize=65536)
def _olm_v1(text: str) -> Version | None:
    for parse in (parse_version_tolerant, parse_constraint_version):
        try:
            return parse(text)
        except InputError:
            continue
    return None


def opm_version(value: str | Versioned | None) -> Version | None:
    """A version (or a bundle's ``olm.package`` version) as opm's model parses it (strict)."""
    text = _text(value)
    return _opm(text) if text else None


def olm_v0_version(value: str | Versioned | None) -> Version | None:
    """A version as OLM v0's resolver parses it (blang, tolerant)."""
    text = _text(value)
    return _olm_v0(text) if text else None


def olm_v1_version(value: str | Versioned | None) -> Version | None:
    """A version as OLM v1 range selection reads it (tolerant blang, else Masterminds)."""
    text = _text(value)
    return _olm_v1(text) if text else None


@functools.lru_cache(maxsize=4096)
def skip_range(text: str) -> SkipRange | None:
    """An ``olm.skipRange`` as OLM v0 reads it, or None when invalid (it then covers nothing)."""
    try:
        return parse_skip_range(text)
    except InputError:
        return None


def version_range(text: str, *, include_prerelease: bool = False) -> Constraint:
    """An OLM v1 version range (Masterminds constraint syntax); raises InputError when invalid."""
    return parse_constraint(text, include_prerelease=include_prerelease)


def version_key(version: Version | None, name: str) -> tuple[bool, Version, str]:
    """Sort key: unknown versions first, then by version, then by name (ascending)."""
    return (version is not None, version or ZERO, name)
