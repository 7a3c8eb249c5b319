"""Run olmcat and the opm oracle on the same input and compare what they write.

An *outcome* is what one side produced for an input: the bytes of every ``<package>/catalog.*``
file, or a refusal. Two outcomes agree when both refuse, or both succeed with the same packages
and byte-identical files, except for one list: the related images of a bundle that names one image
more than once are ordered by Go's unstable sort, whose constants changed in Go 1.22 (olmcat
follows current Go, the oracle is built with Go 1.19), so ``relatedImages`` is compared as a
multiset and everything else byte for byte.

Used by tests/differential and by ``scripts/differential.py`` (real trees nobody tuned for).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from olmcat.errors import OlmcatError
from tests.support import oracle


@dataclass(slots=True)
class Outcome:
    """What one side wrote: ``files`` maps a package name to its catalog file's bytes."""

    ok: bool
    files: dict[str, bytes] = field(default_factory=dict)
    error: str = ""

    def __str__(self) -> str:
        return f"{len(self.files)} packages" if self.ok else f"refused: {self.error}"


def read_catalog_dir(out: Path, output: str = "json") -> dict[str, bytes]:
    """``<out>/<package>/catalog.<json|yaml>`` files by package (every file an FBC dir holds)."""
    files: dict[str, bytes] = {}
    if not out.is_dir():
        return files
    for package_dir in sorted(out.iterdir()):
        for path in sorted(package_dir.rglob("*")) if package_dir.is_dir() else [package_dir]:
            if path.is_file():
                key = package_dir.name
                if path.name != f"catalog.{output}":
                    key = str(path.relative_to(out))
                files[key] = path.read_bytes()
    return files


# -- the oracle -----------------------------------------------------------------------------------


def oracle_database(tree: Path, work: Path, *, permissive: bool = True) -> tuple[Path, oracle.Run]:
    """``initializer [--permissive] -m TREE``: the legacy loader's database of a tree."""
    work.mkdir(parents=True, exist_ok=True)
    db = work / "initializer.db"
    db.unlink(missing_ok=True)
    run = oracle.initializer(tree, db, cwd=work, permissive=permissive)
    return db, run


def oracle_migrate(db: Path, work: Path, output: str = "json") -> Outcome:
    """``opm migrate [-o yaml]`` of (a copy of) ``db``."""
    out = work / f"opm-{output}"
    shutil.rmtree(out, ignore_errors=True)
    run = oracle.migrate(db, out, cwd=work, output=output)
    if not run.ok:
        return Outcome(False, error=run.fatal() or run.stderr.strip()[-500:])
    return Outcome(True, read_catalog_dir(out, output))


def oracle_pkgman(
    tree: Path, work: Path, outputs: Iterable[str] = ("json",), *, permissive: bool = True
) -> dict[str, Outcome]:
    """``initializer [--permissive]`` then ``opm migrate`` once per output format."""
    db, run = oracle_database(tree, work, permissive=permissive)
    if not run.ok or not db.is_file():
        refusal = Outcome(False, error=run.fatal() or run.stderr.strip()[-500:])
        return {output: refusal for output in outputs}
    return {output: oracle_migrate(db, work, output) for output in outputs}


# -- olmcat ---------------------------------------------------------------------------------------


def olmcat_pkgman(
    tree: Path, work: Path, output: str = "json", *, permissive: bool = True
) -> Outcome:
    """``olmcat migrate pkgman [--permissive] TREE OUT`` through the library."""
    from olmcat.migrate import migrate_pkgman

    out = work / f"olmcat-{output}"
    shutil.rmtree(out, ignore_errors=True)
    try:
        migrate_pkgman(tree, out, output=output, permissive=permissive)  # type: ignore[arg-type]
    except OlmcatError as error:
        return Outcome(False, error=str(error))
    return Outcome(True, read_catalog_dir(out, output))


def olmcat_sqlite(db: Path, work: Path, output: str = "json") -> Outcome:
    """``olmcat migrate sqlite DB OUT`` through the library."""
    from olmcat.migrate import migrate_sqlite

    out = work / f"olmcat-sqlite-{output}"
    shutil.rmtree(out, ignore_errors=True)
    try:
        migrate_sqlite(db, out, output=output)  # type: ignore[arg-type]
    except OlmcatError as error:
        return Outcome(False, error=str(error))
    return Outcome(True, read_catalog_dir(out, output))


# -- comparison -----------------------------------------------------------------------------------

_JSON_RELATED = re.compile(r'(?m)^( *)"relatedImages": \[\n(.*?)\n\1\]', re.DOTALL)
_YAML_RELATED = re.compile(r"(?m)^relatedImages:\n((?:[- ] .*\n)+)")


def _sorted_json_items(match: re.Match[str]) -> str:
    indent, body = match.group(1), match.group(2)
    item_indent = indent + "    "
    items = re.split(rf"(?m)(?<=^{item_indent}}}),\n(?={item_indent}{{)", body)
    return f'{indent}"relatedImages": [\n' + ",\n".join(sorted(items)) + f"\n{indent}]"


def _sorted_yaml_items(match: re.Match[str]) -> str:
    items = re.split(r"(?m)^(?=- )", match.group(1))
    return "relatedImages:\n" + "".join(sorted(i for i in items if i))


def related_images_as_multiset(text: bytes) -> bytes:
    """The catalog file with every ``relatedImages`` list sorted textually item by item (JSON as
    opm indents it, or YAML), so lists that differ only in the order of items compare equal."""
    decoded = text.decode("utf-8", errors="surrogateescape")
    decoded = _JSON_RELATED.sub(_sorted_json_items, decoded)
    decoded = _YAML_RELATED.sub(_sorted_yaml_items, decoded)
    return decoded.encode("utf-8", errors="surrogateescape")


def differences(expected: Outcome, actual: Outcome) -> list[str]:
    """Why ``actual`` (olmcat) does not agree with ``expected`` (the oracle); empty if it does."""
    if not expected.ok or not actual.ok:
        if expected.ok == actual.ok:
            return []
        if expected.ok:
            return [f"olmcat refused ({actual.error}); opm wrote {len(expected.files)} packages"]
        return [f"opm refused ({expected.error}); olmcat wrote {len(actual.files)} packages"]
    problems: list[str] = []
    for name in sorted(set(expected.files) | set(actual.files)):
        if name not in actual.files:
            problems.append(f"{name}: missing from olmcat's output")
        elif name not in expected.files:
            problems.append(f"{name}: olmcat wrote it, opm did not")
        elif expected.files[name] != actual.files[name] and related_images_as_multiset(
            expected.files[name]
        ) != related_images_as_multiset(actual.files[name]):
            problems.append(f"{name}: {first_difference(expected.files[name], actual.files[name])}")
    return problems


def package_differences(expected: Outcome, actual: Outcome) -> dict[str, bool]:
    """Per package of either side: True when identical (related-image order aside)."""
    names = set(expected.files) | set(actual.files)
    return {
        name: name in expected.files
        and name in actual.files
        and related_images_as_multiset(expected.files[name])
        == related_images_as_multiset(actual.files[name])
        for name in sorted(names)
    }


def first_difference(expected: bytes, actual: bytes) -> str:
    """The first differing line of two files, for a readable failure message."""
    old, new = expected.decode(errors="replace"), actual.decode(errors="replace")
    for number, (a, b) in enumerate(zip(old.splitlines(), new.splitlines(), strict=False), 1):
        if a != b:
            return f"line {number}: opm {a[:160]!r} / olmcat {b[:160]!r}"
    return f"opm has {len(old.splitlines())} lines, olmcat {len(new.splitlines())}"


def scratch(prefix: str = "olmcat-diff-") -> Path:
    """A scratch directory (the oracle drops bundle_tmp* dirs in its cwd)."""
    return Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("TMPDIR")))


def scratch_in(parent: Path) -> Path:
    """A fresh directory inside ``parent`` (one per hypothesis example)."""
    return Path(tempfile.mkdtemp(dir=parent))
