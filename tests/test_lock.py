"""The locks CI installs agree with pyproject.toml's ranges, and the CI scripts are sound shell.

A range changed without running requirements/lock.sh fails here, before CI installs a set that
no longer satisfies the project (or lacks a new dependency).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.paths import ROOT

LOCKS = ("requirements/ci.txt", "requirements/lowest.txt")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def _direct() -> list[Requirement]:
    """Every requirement pyproject.toml states: dependencies, every extra, the build backend."""
    with (ROOT / "pyproject.toml").open("rb") as f:
        project = tomllib.load(f)
    texts = list(project["project"]["dependencies"])
    for extra in project["project"].get("optional-dependencies", {}).values():
        texts += extra
    texts += project["build-system"]["requires"]
    return [Requirement(text) for text in texts]


def _pins(lock: str) -> dict[str, set[str]]:
    pins: dict[str, set[str]] = {}
    for name, version in _PIN.findall((ROOT / lock).read_text()):
        pins.setdefault(canonicalize_name(name), set()).add(version)
    return pins


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_pins_every_stated_requirement_within_its_range(lock: str) -> None:
    pins = _pins(lock)
    checked = 0
    for requirement in _direct():
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        versions = pins.get(canonicalize_name(requirement.name))
        assert versions, f"{requirement.name} is not in {lock}: run requirements/lock.sh"
        outside = [v for v in versions if not requirement.specifier.contains(v, prereleases=True)]
        assert not outside, f"{lock} pins {requirement.name} {outside}, outside {requirement}"
        checked += 1
    assert checked >= 20  # the dependencies, the test extra and the build backend at least


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_carries_hashes(lock: str) -> None:
    # pip's --require-hashes refuses a pin without one; say which, before CI does.
    entries = re.split(r"\n(?=[A-Za-z0-9])", (ROOT / lock).read_text())
    pinned = [entry for entry in entries if _PIN.match(entry)]
    assert len(pinned) >= 30
    for entry in pinned:
        assert "--hash=sha256:" in entry, entry.splitlines()[0]


def test_the_lowest_lock_is_lower_than_the_locked_set() -> None:
    # lowest.txt holds each direct dependency at its floor: never above what ci.txt locks.
    newest, lowest = _pins(LOCKS[0]), _pins(LOCKS[1])
    for requirement in _direct():
        name = canonicalize_name(requirement.name)
        if name in newest and name in lowest:
            assert max(map(Version, lowest[name])) <= max(map(Version, newest[name])), name


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_ci_and_lock_scripts_pass_shellcheck() -> None:
    scripts = [ROOT / ".ci" / "run", ROOT / ".ci" / "range-ends", ROOT / "requirements" / "lock.sh"]
    result = subprocess.run(
        ["shellcheck", "--severity=warning", *map(str, scripts)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout
