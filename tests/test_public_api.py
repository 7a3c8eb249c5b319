"""The public library API: every name in olmcat.__all__ resolves, lazily."""

from __future__ import annotations

import subprocess
import sys

import olmcat


def test_every_public_name_resolves() -> None:
    for name in olmcat.__all__:
        assert getattr(olmcat, name) is not None, name
    assert sorted(olmcat.__all__) == dir(olmcat)


def test_importing_olmcat_loads_no_reader() -> None:
    # The CLI imports the package first: it must stay cheap (readers load on first use).
    code = "import sys, olmcat; print(sorted(m for m in sys.modules if m.startswith('olmcat')))"
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert loaded.strip() == "['olmcat']"


def test_unknown_names_raise_attribute_error() -> None:
    try:
        olmcat.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as error:
        assert "no_such_thing" in str(error)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_public_names_survive_importing_every_subpackage() -> None:
    # A subpackage import sets an attribute on olmcat: a public function must not share its name.
    code = (
        "import importlib, pkgutil, olmcat\n"
        "for m in pkgutil.walk_packages(olmcat.__path__, 'olmcat.'):\n"
        "    if not m.name.endswith('__main__'): importlib.import_module(m.name)\n"
        "import types\n"
        "bad = [n for n in olmcat.__all__ if isinstance(getattr(olmcat, n), types.ModuleType)]\n"
        "print(bad)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
