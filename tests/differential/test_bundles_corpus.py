"""The corpus bundle tree (39 packages, 221 bundle dirs) built in each update mode by the oracle
(``bundle-index index --mode MODE``) against ``olmcat migrate pkgman --mode MODE``: per package,
the package and channel blobs byte-identical, or the same refusal.

The default mode (each package's ci.yaml) is checked without the oracle against the corpus index
(tests/conformance/test_bundles.py). Each mode here is a full oracle build (1-2 minutes): slow.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from olmcat.readers.bundledir import BundleDirCatalog
from olmcat.readers.update_modes import Mode
from tests.support.bundletrees import compare, oracle_index
from tests.support.oracle import require_bundle_index
from tests.support.paths import corpus_path


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["replaces", "semver", "semver-skippatch"])
def test_corpus_tree_in_each_mode_matches_opm_registry_add(tmp_path: Path, mode: Mode) -> None:
    require_bundle_index()
    tree = corpus_path("bundles/upstream")
    names = BundleDirCatalog(tree).package_names()
    modes: dict[str, Mode] = {name: mode for name in names}
    oracle = oracle_index(tree, tmp_path / "oracle", modes)
    problems = compare(tree, oracle, modes)
    assert not problems, "\n".join(problems)
