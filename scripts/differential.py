#!/usr/bin/env python3
"""olmcat against the opm oracle on real package-manifest trees: how many packages agree.

For each TREE: ``initializer --permissive`` + ``opm migrate`` (the oracle in
``../shared/tools/oracle``) and ``olmcat migrate pkgman --permissive``, then per package: identical
(related-image order of equal images aside, see docs/differential-tests.md) or different.
``--sqlite`` also compares ``olmcat migrate sqlite`` of the initializer's database, ``--yaml`` the
YAML output, ``--strict`` the runs without ``--permissive`` (both must refuse or agree).

    python scripts/differential.py TREE [TREE ...] [--yaml] [--sqlite] [--strict] [-v]
    python scripts/differential.py --git REPO REF:PATH ...   # trees from a git repository

Prints one summary line per tree and, with ``-v``, the first difference of every package.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support import differential as diff  # noqa: E402

from olmcat.readers.bundledir import BundleDirCatalog  # noqa: E402
from olmcat.readers.pkgman import PkgmanCatalog  # noqa: E402


def extract(repo: Path, spec: str, into: Path) -> Path:
    """``REF:PATH`` of a git repository, unpacked with ``git archive`` under ``into``."""
    ref, _, path = spec.partition(":")
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref, path],
        check=True,
        capture_output=True,
    ).stdout
    target = into / spec.replace("/", "_").replace(":", "@")
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target / path


def manifest_names(tree: Path) -> set[str]:
    """Every packageName of a package manifest in the tree (loaded or not)."""
    catalog = PkgmanCatalog(tree, require=False, permissive=True)
    names = getattr(catalog, "manifest_names", None)  # older olmcat: the loaded ones
    return set(names) if names is not None else set(catalog.package_names())


def compare_tree(tree: Path, args: argparse.Namespace) -> tuple[int, int, list[str]]:
    work = diff.scratch()
    try:
        outputs = ("json", "yaml") if args.yaml else ("json",)
        expected = diff.oracle_pkgman(tree, work, outputs)
        lines: list[str] = []
        same = different = 0
        # Bundle-format packages in the tree are olmcat's addition (the initializer reads only
        # package manifests); compare the packages both sides can define.
        bundle_format = set(BundleDirCatalog(tree, exclude_dirs=set()).package_names()) - (
            manifest_names(tree)
        )
        for output in outputs:
            actual = diff.olmcat_pkgman(tree, work, output)
            actual.files = {k: v for k, v in actual.files.items() if k not in bundle_format}
            if not expected[output].ok or not actual.ok:
                lines += [f"[{output}] {p}" for p in diff.differences(expected[output], actual)]
                different += expected[output].ok != actual.ok
                continue
            per_package = diff.package_differences(expected[output], actual)
            if output == "json":
                same += sum(per_package.values())
                different += sum(not v for v in per_package.values())
            lines += [f"[{output}] {p}" for p in diff.differences(expected[output], actual)]
        if args.sqlite:
            db = work / "initializer.db"
            ours = diff.olmcat_sqlite(db, work)
            lines += [f"[sqlite] {p}" for p in diff.differences(expected["json"], ours)]
        if args.strict:
            strict_expected = diff.oracle_pkgman(tree, work / "strict", permissive=False)["json"]
            strict_actual = diff.olmcat_pkgman(tree, work / "strict", permissive=False)
            lines += [f"[strict] {p}" for p in diff.differences(strict_expected, strict_actual)]
        return same, different, lines
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--git", type=Path, help="read TREEs as REF:PATH of this repository")
    parser.add_argument("--yaml", action="store_true")
    parser.add_argument("--sqlite", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    unpacked = diff.scratch("olmcat-trees-")
    total_same = total_different = 0
    trees_clean = 0
    try:
        for spec in args.trees:
            tree = extract(args.git, spec, unpacked) if args.git else Path(spec)
            same, different, lines = compare_tree(tree, args)
            total_same += same
            total_different += different
            trees_clean += not lines
            print(f"{spec}: {same} identical, {different} different, {len(lines)} problems")
            if args.verbose:
                for line in lines:
                    print(f"    {line}")
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)
    print(
        f"total: {total_same} packages identical, {total_different} different; "
        f"{trees_clean} of {len(args.trees)} trees without any difference"
    )
    return 0 if total_different == 0 and trees_clean == len(args.trees) else 1


if __name__ == "__main__":
    sys.exit(main())
