"""The opm oracle (../shared/tools/oracle, operator-registry v1.26.5) for differential tests.

Every helper runs the real binaries in a scratch directory (opm drops ``bundle_tmp*`` dirs in its
cwd), on copies of databases (opm upgrades schemas in place), with a timeout. Tests that need the
oracle call :func:`require_oracle` (or :func:`require_bundle_index`) and are skipped with a reason
where it is absent.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import ORACLE

TIMEOUT = 300


@dataclass(frozen=True, slots=True)
class Run:
    """One oracle invocation: exit status and output (stderr holds opm's logs)."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def fatal(self) -> str:
        """opm's ``level=fatal`` / ``level=error`` log lines, for refusal comparisons."""
        lines = [
            line
            for line in self.stderr.splitlines()
            if "level=fatal" in line or "level=error" in line
        ]
        return "\n".join(lines)


def require_oracle() -> Path:
    if not (ORACLE / "opm").is_file():
        pytest.skip(f"no {ORACLE} (opm oracle): differential tests need ../shared/tools/oracle")
    if shutil.which("xz") is None:
        pytest.skip("xz is not installed: the oracle binaries are xz-packed")
    return ORACLE


def require_bundle_index() -> Path:
    """bundle-index builds images and runs a loopback registry in a private network namespace:
    it needs root (it apt-installs docker-registry) or an installed docker-registry."""
    oracle = require_oracle()
    if os.geteuid() != 0 and shutil.which("docker-registry") is None:
        pytest.skip("bundle-index needs root or an installed docker-registry (Debian package)")
    if shutil.which("unshare") is None:
        pytest.skip("bundle-index --netns needs unshare (util-linux)")
    return oracle


def _run(tool: str, *args: str | Path, cwd: Path, timeout: int = TIMEOUT) -> Run:
    oracle = require_oracle()
    done = subprocess.run(
        [str(oracle / tool), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr)


def opm(*args: str | Path, cwd: Path, timeout: int = TIMEOUT) -> Run:
    return _run("opm", *args, cwd=cwd, timeout=timeout)


def initializer(tree: Path, db: Path, *, cwd: Path, permissive: bool = True) -> Run:
    """``initializer [--permissive] -m TREE -o DB``: a package-manifest tree as the legacy loader
    builds it into a database."""
    flags = ["--permissive"] if permissive else []
    return _run("initializer", *flags, "-m", tree, "-o", db, cwd=cwd)


def migrate(db: Path, out: Path, *, cwd: Path, output: str = "json") -> Run:
    """``opm migrate`` of a COPY of ``db`` into ``out`` (opm rewrites the schema in place)."""
    copy = cwd / f".oracle-copy-{db.name}"
    shutil.copyfile(db, copy)
    try:
        args: list[str | Path] = ["migrate", copy, out]
        if output != "json":
            args[1:1] = ["-o", output]
        return opm(*args, cwd=cwd)
    finally:
        copy.unlink(missing_ok=True)


def bundle_index(*args: str | Path, cwd: Path, timeout: int = TIMEOUT) -> Run:
    """``bundle-index SUBCOMMAND ... --netns`` (a private loopback per run, so runs never clash)."""
    require_bundle_index()
    subcommand, *rest = args
    return _run("bundle-index", subcommand, "--netns", *rest, cwd=cwd, timeout=timeout)
