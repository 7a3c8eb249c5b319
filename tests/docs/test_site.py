"""The documentation site builds with `mkdocs build --strict` (no broken link, anchor or page left
out of the navigation), its pages load nothing from the network, and the generated references are
in it. Skipped where the docs extra is not installed (`pip install -e '.[docs]'`; CI has it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
pytest.importorskip("material", reason="the docs extra is not installed: pip install -e '.[docs]'")

# what makes a browser fetch something: scripts, stylesheets, images, frames, preconnects, CSS
REMOTE = re.compile(
    r"""<(?:script|img|iframe|source|audio|video)\b[^>]*\bsrc=["']?(?:https?:)?//"""
    r"""|<link\b[^>]*\bhref=["']?(?:https?:)?//"""
    r"""|@import\s+(?:url\()?["']?(?:https?:)?//"""
    r"""|url\(["']?(?:https?:)?//""",
    re.I,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out


def test_every_page_is_built(site: Path) -> None:
    for page in (ROOT / "docs").glob("*.md"):
        built = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        assert built.is_file(), page.name


def test_pages_load_nothing_from_the_network(site: Path) -> None:
    loads = []
    for path in [*site.rglob("*.html"), *site.rglob("*.css")]:
        for match in REMOTE.finditer(path.read_text(errors="replace")):
            loads.append(f"{path.relative_to(site)}: {match.group(0)}")
    assert not loads
    # Material fetches mermaid from a CDN only for diagrams; the pages have none
    assert not [p for p in site.rglob("*.html") if 'class="mermaid"' in p.read_text()]


def test_the_generated_references_are_in_the_site(site: Path) -> None:
    commands = (site / "commands" / "index.html").read_text()
    for anchor in ("olmcat-migrate-sqlite", "olmcat-query-upgrades", "olmcat-mirror-copy"):
        assert f'id="{anchor}"' in commands
    assert "Examples:" in commands
    library = (site / "library" / "index.html").read_text()
    assert 'id="olmcat.diff.catalogs.compare"' in library
    assert ":class:" not in library  # Sphinx roles are dropped


def test_the_readme_sections_are_included_not_copied(site: Path) -> None:
    deviations = (site / "deviations" / "index.html").read_text()
    assert "Everything else that differs is a bug" in deviations
    assert "--8&lt;--" not in deviations and "--8<--" not in deviations
    performance = (site / "performance" / "index.html").read_text()
    assert "Latest run:" in performance
