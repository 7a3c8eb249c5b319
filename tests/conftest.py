"""Session-wide fixtures and markers. Helpers live in tests/support (never import a test module)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import CORPUS

# Session fixtures that start real registries (docker-registry on 127.0.0.1).
pytest_plugins = ("tests.support.registry",)


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS} is absent: conformance data lives in ../shared (read-only corpus)")
    return CORPUS


_MARK_BY_DIRECTORY = {"conformance": "conformance", "differential": "differential"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests under tests/conformance and tests/differential carry their marker, so
    ``pytest -m conformance`` or ``-m "not differential"`` selects them without decorating each."""
    for item in items:
        parts = Path(str(item.fspath)).parts
        for directory, marker in _MARK_BY_DIRECTORY.items():
            if directory in parts:
                item.add_marker(getattr(pytest.mark, marker))
