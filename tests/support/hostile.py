"""Running olmcat as a hostile input would meet it: a subprocess with a memory limit and a timeout,
in a sandbox directory whose every byte is checked afterwards.

``Sandbox`` holds one case: ``input/`` (what olmcat reads; must come out byte for byte unchanged),
``outside/`` (files beside the input that links may point at; unchanged too), ``out/`` (the only
place olmcat may write), a private ``TMPDIR`` (must be empty again afterwards) and ``HOME``.
``run`` starts ``python -m olmcat`` there with ``RLIMIT_AS`` (1 GiB by default) and a timeout, and
returns what happened.
"""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MEMORY_LIMIT = 1 << 30
TIMEOUT = 60.0


@dataclass
class Result:
    args: list[str]
    code: int | None  # None: killed by the timeout
    stdout: bytes
    stderr: str
    seconds: float

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()

    def describe(self) -> str:
        return f"olmcat {' '.join(self.args)} -> {self.code} in {self.seconds:.1f}s\n{self.stderr}"


def _limit_memory(limit: int, file_size: int | None = None) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if file_size is not None:
            # A write past the limit then fails with EFBIG (instead of killing the process).
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return apply


def tree_digest(root: Path) -> dict[str, str]:
    """Path -> what it is (file content hash, link target, directory, special file kind)."""
    found: dict[str, str] = {}
    if not os.path.lexists(root):
        return found
    for directory, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(directory) / name
            info = path.lstat()
            key = str(path.relative_to(root))
            if stat.S_ISLNK(info.st_mode):
                found[key] = "link:" + os.readlink(path)
            elif stat.S_ISDIR(info.st_mode):
                found[key] = "dir"
            elif stat.S_ISREG(info.st_mode):
                found[key] = "file:" + hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                found[key] = f"special:{stat.S_IFMT(info.st_mode)}"
    return found


def _prefixed(digest: dict[str, str]) -> dict[str, str]:
    return {f"outside/{key}": value for key, value in digest.items()}


@dataclass
class Sandbox:
    root: Path
    env: dict[str, str] = field(default_factory=dict)
    allowed_extra: tuple[str, ...] = ()  # more names olmcat may create beside out/

    def __post_init__(self) -> None:
        for name in ("input", "outside", "tmp", "home"):
            (self.root / name).mkdir(parents=True, exist_ok=True)
        self._before: dict[str, str] | None = None

    @property
    def input(self) -> Path:
        return self.root / "input"

    @property
    def outside(self) -> Path:
        return self.root / "outside"

    @property
    def out(self) -> Path:
        return self.root / "out"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    def seal(self) -> None:
        """Remember the input as it is now (call once the case is built)."""
        self._before = {**tree_digest(self.input), **_prefixed(tree_digest(self.outside))}

    def environment(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("OLMCAT_", "COV_", "PYTEST_"))
        }
        # OLMCAT_HOSTILE_SRC=<dir>/src runs the suite against another checkout of olmcat.
        other = os.environ.get("OLMCAT_HOSTILE_SRC")
        env.update(
            TMPDIR=str(self.tmp),
            HOME=str(self.root / "home"),
            OLMCAT_CACHE_DIR=str(self.root / "cache"),  # the caches' place, checked as well
            PYTHONPATH=os.pathsep.join([*([other] if other else []), *(p for p in sys.path if p)]),
            COLUMNS="200",
        )
        env.update(self.env)
        return env

    def run(
        self,
        *args: str | os.PathLike[str],
        stdin: bytes | int | None = b"",
        timeout: float = TIMEOUT,
        memory: int = MEMORY_LIMIT,
        stdout: int | None = None,
        file_size: int | None = None,
    ) -> Result:
        """Run olmcat; ``file_size`` sets RLIMIT_FSIZE (``ulimit -f``) for it, in bytes."""
        if self._before is None:
            self.seal()
        argv = [str(a) for a in args]
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "olmcat", *argv],
            cwd=self.root,
            env=self.environment(),
            stdin=subprocess.PIPE if isinstance(stdin, bytes) else stdin,
            stdout=subprocess.PIPE if stdout is None else stdout,
            stderr=subprocess.PIPE,
            preexec_fn=_limit_memory(memory, file_size),
            start_new_session=True,
        )
        try:
            out, err = process.communicate(
                stdin if isinstance(stdin, bytes) else None, timeout=timeout
            )
            code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            code = None
        return Result(
            argv, code, out or b"", err.decode("utf-8", "replace"), time.monotonic() - started
        )

    def leftovers(self) -> list[str]:
        """Everything that is not as it should be after a run: changed input, files written
        outside out/, temporary files left behind."""
        problems: list[str] = []
        if self._before is not None:
            after = {**tree_digest(self.input), **_prefixed(tree_digest(self.outside))}
            changed = sorted(
                k for k in {*self._before, *after} if self._before.get(k) != after.get(k)
            )
            problems += [f"input changed: {k}" for k in changed]
        allowed = {"input", "outside", "out", "tmp", "home", "cache", *self.allowed_extra}
        extra = [p.name for p in self.root.iterdir() if p.name not in allowed]
        problems += [f"written outside out/: {name}" for name in extra]
        if (self.root / "cache").exists():  # whole entries only, each renamed into place
            problems += [f"left in the cache: {p.name}" for p in (self.root / "cache").rglob(".*")]
        problems += [f"left in TMPDIR: {p.name}" for p in self.tmp.iterdir()]
        problems += [f"written to HOME: {p.name}" for p in (self.root / "home").iterdir()]
        return problems


def assert_one_line_failure(
    result: Result, codes: Sequence[int] = (1, 2), prefix: str = "olmcat: "
) -> None:
    """Exit 1 or 2, exactly one line on stderr, no traceback."""
    assert result.code is not None, f"timed out: {result.describe()}"
    assert result.code in codes, result.describe()
    assert "Traceback" not in result.stderr, result.describe()
    assert len(result.lines) == 1, result.describe()
    assert result.lines[0].startswith(prefix), result.describe()


def assert_clean_outcome(result: Result) -> None:
    """For mutated inputs, which may still be valid: success, or one error line (warnings
    allowed above it), never a traceback, crash, hang or signal death. Run with ``-q``."""
    assert result.code is not None, f"timed out: {result.describe()}"
    assert result.code in (0, 1, 2), result.describe()
    assert "Traceback" not in result.stderr, result.describe()
    errors = [line for line in result.lines if not line.startswith("olmcat: warning: ")]
    if result.code == 0:
        assert errors == [], result.describe()
    elif result.args[0] == "validate" and not errors:
        assert result.stdout, result.describe()  # the problems, reported as data
    else:
        assert len(errors) == 1 and errors[0].startswith("olmcat: "), result.describe()


def age_input(tree: Path, *, remembered: bool) -> None:
    """Put every file of ``tree`` on a chosen side of the racy window of
    :mod:`olmcat.files.digests` (a digest is remembered only for a file whose mtime and ctime are
    older than ``RACY_SECONDS`` when it is hashed), whatever the machine's speed.

    ``remembered``: wait until the newest time is older than the window (the window counts from
    the ctime too, which no call can set back). Otherwise: mtimes an hour ahead, so the files
    stay inside the window however late the run starts."""
    from olmcat.files.digests import RACY_SECONDS

    files = [p for p in tree.rglob("*") if p.is_file() and not p.is_symlink()]
    if remembered:
        newest = max((max(p.stat().st_mtime, p.stat().st_ctime) for p in files), default=0.0)
        wait = newest + RACY_SECONDS + 0.5 - time.time()
        if wait > 0:
            time.sleep(wait)
    else:
        ahead = time.time() + 3600
        for path in files:
            os.utime(path, (ahead, ahead))


def cache_problems(root: Path) -> list[str]:
    """Anything in the cache directory ``root`` (``OLMCAT_CACHE_DIR``) that is not a whole entry
    of the rendered-bundle cache, each checked as olmcat reads it (header, length, digest,
    decoding): a temporary file, a damaged entry, a file of an unknown kind."""
    from olmcat.files import safe
    from olmcat.files.digests import FileIndex
    from olmcat.notices import NoticeLog
    from olmcat.readers.bundlecache import INDEX_SUFFIX, PACKAGE_SUFFIX, SUBDIR, RenderCache

    problems: list[str] = []
    cache = RenderCache(root)
    log = NoticeLog()
    with safe.notices_to(log):
        for path in sorted(root.rglob("*")):
            shown = str(path.relative_to(root))
            if path.name.startswith("."):
                problems.append(f"temporary file: {shown}")
            elif path.is_dir():
                if path.parent not in (root, root / SUBDIR):
                    problems.append(f"unexpected directory: {shown}")
            elif path.parent.parent != root / SUBDIR:
                problems.append(f"unexpected file: {shown}")
            elif path.name.endswith(INDEX_SUFFIX):
                why: list[str] = []
                FileIndex(path.read_bytes, None, damaged=why.append)
                problems += [f"damaged file index {shown}: {w}" for w in why]
            elif path.name.endswith(PACKAGE_SUFFIX):
                found = cache.package(path.name.removesuffix(PACKAGE_SUFFIX), shown)
                if found is None:
                    problems.append(f"damaged finished package: {shown}")
                else:
                    found.close()
            elif cache.get(path.name, shown) is None:
                problems.append(f"damaged rendered bundle: {shown}")
    return problems + [notice.message for notice in log]
