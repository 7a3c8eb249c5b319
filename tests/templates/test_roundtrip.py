"""Templates made from catalogs, checked by the round trip the issue asks for.

* Basic: with ``--inline-bundles`` every catalog comes back exactly; by image, exactly except for
  the bundles the report names as left out (no image, or a shared one).
* Semver: the lossiness report lists exactly what ``olmcat diff`` finds between the catalog and
  the rendered templates (rendered here independently: ``render-template --resolve-from``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from olmcat.diff.compare import diff_catalogs
from olmcat.readers.catalog import open_catalog
from olmcat.readers.memory import MemoryCatalog
from olmcat.templates import (
    BundleResolver,
    generate_templates,
    render_template,
    write_rendered_directory,
)
from tests.support.paths import CORPUS, FIXTURES


def corpus_catalogs() -> list[str]:
    if not CORPUS.is_dir():
        return []
    found = [str(p.relative_to(CORPUS)) for p in sorted((CORPUS / "sqlite").rglob("*.db"))]
    found += [str(p.relative_to(CORPUS)) for p in sorted((CORPUS / "images").glob("*.tar"))]
    found += [
        str(p.relative_to(CORPUS))
        for p in sorted((CORPUS / "expected").iterdir())
        if p.suffix in (".json", ".yaml") and p.is_dir()
    ]
    found += ["pkgman/upstream-subset"]
    return found


# Catalogs of 221 bundles, and the package-manifest tree (slow to read): the slow suite.
HEAVY = {
    "sqlite/index-upstream.db",
    "sqlite/index-upstream-old.db",
    "sqlite/index-upstream-synth.db",
    "images/test-index-v1.oci.tar",
    "images/test-index-v0-old.oci.tar",
    "expected/index-upstream.json",
    "expected/index-upstream-old.json",
    "expected/index-upstream-synth.json",
    "pkgman/upstream-subset",
}
# The schema databases hold the same packages; three of them stand for the rest by default.
SCHEMA_SAMPLE = {"v1.0.1-small.db", "v1.7.0-small.db", "v1.18.0-small.db"}


def _slow(reference: str) -> bool:
    name = reference.rsplit("/", 1)[-1]
    return reference in HEAVY or ("/schemas/" in reference and name not in SCHEMA_SAMPLE)


CATALOGS = [pytest.param(c, marks=pytest.mark.slow) if _slow(c) else c for c in corpus_catalogs()]


def catalog_path(reference: str) -> Path:
    if reference.startswith("fixtures/"):
        return FIXTURES.parent / reference
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent")
    return CORPUS / reference


EXAMPLES = ["fixtures/example/expected", "fixtures/example/sqlite/schema-13.db"]


@pytest.mark.parametrize("reference", EXAMPLES + CATALOGS)
def test_basic_round_trip(reference: str, tmp_path: Path) -> None:
    catalog = catalog_path(reference)
    inline = generate_templates(catalog, tmp_path / "inline", "basic", inline_bundles=True)
    assert inline.exact, [p.diff.to_json() for p in inline.packages if p.diff]
    by_image = generate_templates(catalog, tmp_path / "by-image", "basic")
    for pkg in by_image.packages:
        if pkg.exact:
            assert not pkg.left_out
            continue
        assert pkg.diff is not None
        # only the bundles a template cannot name by image are missing, nothing else changes
        assert not pkg.diff.channels and not pkg.diff.default_channel
        assert {b.name for b in pkg.diff.bundles if b.status == "removed"} == set(pkg.left_out)
        assert all(b.status == "removed" for b in pkg.diff.bundles)


@pytest.mark.parametrize("reference", EXAMPLES + CATALOGS)
def test_semver_report_is_what_diff_finds(reference: str, tmp_path: Path) -> None:
    catalog = catalog_path(reference)
    report = generate_templates(catalog, tmp_path / "templates", "semver")
    rendered = tmp_path / "rendered"
    rendered.mkdir()
    with BundleResolver(catalogs=(catalog,)) as resolver:
        for index, pkg in enumerate(report.packages):
            if not pkg.file:
                continue
            text = Path(pkg.file).read_text()
            config = render_template("semver", text, resolver)
            write_rendered_directory(config, rendered / str(index), "json", "1.26")
    # one catalog of every rendered package, and the source restricted to the same packages
    merged = tmp_path / "merged"
    merged.mkdir()
    for part in rendered.iterdir():
        for package_dir in part.iterdir():
            package_dir.rename(merged / package_dir.name)
    names = {p.name for p in report.packages}
    templates = open_catalog(merged) if any(merged.iterdir()) else MemoryCatalog([])
    with open_catalog(catalog) as source:
        found = diff_catalogs(source.packages(names), templates.packages(), packages=names)
    templates.close()
    expected = {p.name: p.diff.to_json() for p in report.packages if p.diff is not None}
    assert {p.name: p.to_json() for p in found.packages} == expected
    document = report.to_json()
    assert document["summary"]["differences"] == found.summary()
    json.dumps(document)  # the report is plain JSON
