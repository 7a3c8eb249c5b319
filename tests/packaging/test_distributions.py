"""What `python -m build` makes: an sdist and a wheel that `twine check --strict` accepts (the
README renders on PyPI), that hold what they should and nothing local, and that install into a
fresh virtualenv -- directly and with pipx -- and run.

Slow (a build, a virtualenv and pipx, each installing the dependencies from the package index,
at the versions of requirements/ci.txt); skipped where `build` or `twine` is not installed
(`pip install -e '.[test]'` brings them)."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import olmcat
from tests.support.paths import FIXTURES, ROOT

pytestmark = pytest.mark.slow

pytest.importorskip("build", reason="`build` is not installed (pip install -e '.[test]')")
pytest.importorskip("twine", reason="`twine` is not installed (pip install -e '.[test]')")

VERSION = olmcat.__version__
# what a working checkout has lying around and a distribution must never carry
JUNK = (
    ".venv/bin/python",
    "site/index.html",
    "out/example/x.json",
    "src/olmcat/__pycache__/x.pyc",
    ".hypothesis/examples/x",
    ".mypy_cache/x.json",
    "build/lib/x.py",
)
LOCAL_ONLY = {
    ".git",
    ".venv",
    "site",
    "out",
    "build",
    ".hypothesis",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "__pycache__",
}


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def locked_versions(out: Path) -> dict[str, str]:
    """PIP_CONSTRAINT for every pip these tests start (build isolation, the fresh virtualenv,
    pipx): the versions of the CI lock, so nothing unlocked is installed. A constraints file
    cannot carry hashes; the pins are kept (markers included)."""
    lock = ROOT / "requirements" / "ci.txt"
    if not lock.is_file():
        return {}
    pins = [
        line.rstrip(" \\")
        for line in lock.read_text().splitlines()
        if line and not line.startswith((" ", "#", "-"))
    ]
    out.write_text("\n".join(pins) + "\n")
    return {"PIP_CONSTRAINT": str(out)}


@pytest.fixture(scope="module")
def constraints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return locked_versions(tmp_path_factory.mktemp("lock") / "constraints.txt")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the working tree (without its local state), plus the junk a real one has."""
    tree = tmp_path_factory.mktemp("checkout") / "olmcat"
    shutil.copytree(
        ROOT,
        tree,
        ignore=shutil.ignore_patterns(*LOCAL_ONLY, "*.egg-info", ".cache"),
        symlinks=True,
    )
    for junk in JUNK:
        (tree / junk).parent.mkdir(parents=True, exist_ok=True)
        (tree / junk).write_text("junk\n")
    return tree


@pytest.fixture(scope="module")
def dist(
    checkout: Path, constraints: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--outdir", out, checkout, env={**os.environ, **constraints})
    return out


def sdist(dist: Path) -> Path:
    (found,) = dist.glob("olmcat-*.tar.gz")
    return found


def wheel(dist: Path) -> Path:
    (found,) = dist.glob("olmcat-*-py3-none-any.whl")
    return found


def test_build_makes_one_sdist_and_one_wheel_of_this_version(dist: Path) -> None:
    assert sdist(dist).name == f"olmcat-{VERSION}.tar.gz"
    assert wheel(dist).name == f"olmcat-{VERSION}-py3-none-any.whl"


def test_twine_accepts_both_and_the_readme_renders(dist: Path) -> None:
    out = run(sys.executable, "-m", "twine", "check", "--strict", sdist(dist), wheel(dist))
    assert out.count("PASSED") == 2


def test_the_sdist_holds_the_tests_fixtures_and_docs_and_no_junk(dist: Path) -> None:
    with tarfile.open(sdist(dist)) as archive:
        names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    for wanted in (
        "README.md",
        "CHANGELOG.md",
        "pyproject.toml",
        "mkdocs.yml",
        "src/olmcat/__init__.py",
        "src/olmcat/py.typed",
        "tests/test_readme.py",
        "fixtures/example/sqlite/schema-13.db",
        "docs/index.md",
        "scripts/bench.py",
    ):
        assert wanted in names, wanted
    parts = {part for name in names for part in name.split("/")}
    assert not parts & LOCAL_ONLY, parts & LOCAL_ONLY
    assert not [n for n in names if n.endswith((".pyc", ".pyo"))]
    assert sdist(dist).stat().st_size < 3 * 2**20


def test_the_wheel_holds_only_the_package(dist: Path) -> None:
    with zipfile.ZipFile(wheel(dist)) as archive:
        names = archive.namelist()
        metadata = email.message_from_bytes(archive.read(f"olmcat-{VERSION}.dist-info/METADATA"))
        entry_points = archive.read(f"olmcat-{VERSION}.dist-info/entry_points.txt").decode()
    assert {n.split("/", 1)[0] for n in names} == {"olmcat", f"olmcat-{VERSION}.dist-info"}
    assert "olmcat/py.typed" in names and "olmcat/commands/completion.py" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert metadata["Version"] == VERSION
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert "Typing :: Typed" in metadata.get_all("Classifier")
    assert "olmcat = olmcat.__main__:run" in entry_points


def fresh_env(home: Path) -> dict[str, str]:
    """The environment without this virtualenv (nothing of it leaks into the fresh one)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != bin_dir)
    env["HOME"] = str(home)
    return env


def base_python() -> str:
    """The interpreter this virtualenv was made from (a venv made from a venv works too, but
    this is what a user has)."""
    return getattr(sys, "_base_executable", sys.executable)


def test_the_wheel_installs_into_a_fresh_venv_and_runs(
    dist: Path, constraints: dict[str, str], tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    env = {**fresh_env(tmp_path), **constraints}
    run(base_python(), "-m", "venv", venv, env=env)
    run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel(dist), env=env)
    olmcat_bin = venv / "bin" / "olmcat"
    assert run(olmcat_bin, "--version", env=env).strip() == f"olmcat, version {VERSION}"
    # the installed program does the main job, and its library is the installed one
    out = tmp_path / "out"
    run(
        olmcat_bin,
        "migrate",
        "-q",
        "sqlite",
        FIXTURES / "example/sqlite/schema-13.db",
        out,
        env=env,
    )
    run("diff", "-r", FIXTURES / "example/expected", out)
    where = run(venv / "bin" / "python", "-c", "import olmcat; print(olmcat.__file__)", env=env)
    assert where.startswith(str(venv))
    assert "_OLMCAT_COMPLETE" in run(olmcat_bin, "completion", "bash", env=env)


def test_pipx_installs_the_checkout(
    checkout: Path, constraints: dict[str, str], tmp_path: Path
) -> None:
    pytest.importorskip("pipx", reason="pipx is not installed (pip install -e '.[test]')")
    env = {**fresh_env(tmp_path), **constraints}
    env.update(
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "bin"),
        PIPX_MAN_DIR=str(tmp_path / "man"),
        PIPX_DEFAULT_PYTHON=base_python(),
    )
    run(sys.executable, "-m", "pipx", "install", checkout, env=env)
    version = run(tmp_path / "bin" / "olmcat", "--version", env=env)
    assert version.strip() == f"olmcat, version {VERSION}"
