"""Where the test data lives, and FBC stream parsing that does not use olmcat's own readers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "tools" / "oracle"
FIXTURES = ROOT / "fixtures"
DATA = ROOT / "tests" / "data"


def corpus_path(*parts: str) -> Path:
    """A path inside ../shared/corpus; skips the test when the corpus is not there."""
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent: conformance data lives in ../shared (read-only corpus)")
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is missing from the corpus")
    return path


def parse_stream(text: str) -> list[dict[str, Any]]:
    """Concatenated JSON documents -> list of objects (independent of olmcat's own readers)."""
    decoder = json.JSONDecoder()
    blobs: list[dict[str, Any]] = []
    index = 0
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return blobs
        blob, index = decoder.raw_decode(text, index)
        blobs.append(blob)


def catalog_blobs(directory: Path) -> Iterator[dict[str, Any]]:
    """Every blob of an FBC directory written as <pkg>/catalog.json."""
    for path in sorted(directory.glob("*/catalog.json")):
        yield from parse_stream(path.read_text())
