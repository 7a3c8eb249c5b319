"""kill -9 and Ctrl-C at random points of migrate (database, package manifests, image archive):
no OUT or a complete one, no orphaned worker, one line and exit 130 for Ctrl-C, and nothing left
in TMPDIR or beside OUT once the next run is done (issue 12).

The moments are drawn from a seeded generator (the test id names the draw); the default run tries
one kill and one Ctrl-C per input, ``-m slow`` several more.

Nothing here depends on how fast the machine is. ``migrate pkgman`` remembers the digests of
input files older than a 2-second window (in the cache directory, which it then creates): whether
the input is that old when the run starts is not left to the machine's speed but chosen
(:func:`age_input`), SIGKILL and odd draws with the digests remembered, the others without, and
the sandbox is checked for exactly what each case leaves.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import hostile_inputs as make
from tests.support.builders import make_index_db, simple_package
from tests.support.hostile import MEMORY_LIMIT, Sandbox, age_input, cache_problems, tree_digest
from tests.support.paths import CORPUS

SEED = 1123


def _pkgman_input(dest: Path) -> Path:
    corpus = CORPUS / "pkgman" / "upstream-subset"
    if corpus.is_dir():
        dest.mkdir(parents=True)
        for name in ("aqua", "infinispan", "apicurio-registry", "awss3-operator-registry"):
            make.copy_tree(corpus / name, dest / name)
        return dest
    # Without the corpus: many packages with large manifests, so the run lasts a while.
    make.pkgman_tree(dest / ".template")
    padding = "\n".join(f"  note{i}: {'x' * 200}" for i in range(4000))
    for index in range(24):
        name = f"op{index:02d}"
        package = dest / name
        (package / "1.0.0").mkdir(parents=True)
        (package / f"{name}.package.yaml").write_text(
            f"packageName: {name}\nchannels:\n- name: stable\n  currentCSV: {name}.v1.0.0\n"
        )
        csv = make.CSV_TEMPLATE.format(name=name, version="1.0.0")
        (package / "1.0.0" / "csv.yaml").write_text(csv + "  extra:\n" + padding + "\n")
    shutil.rmtree(dest / ".template")
    return dest


def _database(dest: Path) -> Path:
    corpus = CORPUS / "sqlite" / "upstream-subset.db"
    dest.parent.mkdir(parents=True, exist_ok=True)
    if corpus.is_file():
        shutil.copyfile(corpus, dest)
        return dest
    return make_index_db(dest, [simple_package(f"pkg{i:03d}") for i in range(300)])


def _image(dest: Path) -> Path:
    corpus = CORPUS / "images" / "test-index-v1.oci.tar"
    if corpus.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(corpus, dest)
        return dest
    db = _database(dest.parent / "db" / "index.db")
    make.oci_archive(dest, make.tar_bytes({"database/index.db": db.read_bytes()}))
    shutil.rmtree(db.parent)
    return dest


INPUTS: dict[str, tuple[Callable[[Path], Path], list[str]]] = {
    "pkgman": (_pkgman_input, ["migrate", "pkgman", "-q", "input/x", "out"]),
    "sqlite": (_database, ["migrate", "sqlite", "-q", "input/x", "out"]),
    "image": (_image, ["migrate", "sqlite", "-q", "input/x", "out"]),
}


def _children(pid: int) -> set[int]:
    """Every live descendant of ``pid``."""
    found: set[int] = set()
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        done = subprocess.run(["pgrep", "-P", str(parent)], capture_output=True, text=True)
        for line in done.stdout.split():
            found.add(int(line))
            frontier.append(int(line))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _start(box: Sandbox, args: list[str]) -> subprocess.Popen[bytes]:
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.Popen(
        [sys.executable, "-m", "olmcat", *args],
        cwd=box.root,
        env=box.environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=limit,
        start_new_session=True,  # a terminal's Ctrl-C reaches the whole process group
    )


@pytest.fixture(scope="module")
def expected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, float]]:
    """Each input migrated without interruption: the complete OUT, and how long it took."""
    found: dict[str, tuple[Path, float]] = {}
    for kind, (build, args) in INPUTS.items():
        box = Sandbox(tmp_path_factory.mktemp(kind), env={"OLMCAT_WORKERS": "2"})
        build(box.input / "x")
        result = box.run(*args, timeout=300)
        assert result.code == 0, result.describe()
        found[kind] = (box.out, result.seconds)
    return found


def _interrupt(
    tmp_path: Path,
    kind: str,
    how: signal.Signals,
    draw: int,
    expected: dict[str, tuple[Path, float]],
) -> None:
    build, args = INPUTS[kind]
    complete, seconds = expected[kind]
    box = Sandbox(tmp_path, env={"OLMCAT_WORKERS": "2"})
    build(box.input / "x")
    remembered = how == signal.SIGKILL if draw == 0 else draw % 2 == 1
    age_input(box.input, remembered=remembered)
    box.seal()
    rng = random.Random(SEED * 100 + draw)
    delay = rng.uniform(0.2, max(0.3, seconds * 0.9))

    process = _start(box, args)
    seen: set[int] = set()
    if kind == "pkgman":
        # Kill while worker processes exist: that is what must not leave orphans.
        give_up = time.monotonic() + 300  # (a bound against hanging only)
        while not seen and process.poll() is None and time.monotonic() < give_up:
            seen |= _children(process.pid)
            time.sleep(0.02)
        delay *= 0.3
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline and process.poll() is None:
        seen |= _children(process.pid)
        time.sleep(0.05)
    finished_first = process.poll() is not None
    assert finished_first or kind != "pkgman" or seen, "no worker processes to check"
    try:
        if how == signal.SIGKILL:
            process.kill()
        else:
            os.killpg(process.pid, how)  # as a terminal delivers Ctrl-C: to the whole group
    except ProcessLookupError:
        finished_first = True  # it ended just before the signal
    _, err = process.communicate(timeout=60)
    stderr = err.decode("utf-8", "replace")

    # No worker outlives olmcat (a killed process may take a moment to be reaped; the bound
    # only keeps a real orphan from waiting forever).
    give_up = time.monotonic() + 60
    while any(_alive(pid) for pid in seen) and time.monotonic() < give_up:
        time.sleep(0.1)
    assert not [pid for pid in seen if _alive(pid)], f"orphaned workers after {how.name}"

    if not finished_first and how == signal.SIGINT and process.returncode != 0:
        # (0 only when the run completed as the signal came: then OUT is complete, see below)
        assert process.returncode == 130, stderr
        lines = [line for line in stderr.splitlines() if not line.startswith("olmcat: warning:")]
        assert lines == ["olmcat: interrupted"], stderr
        assert list(box.tmp.iterdir()) == [], "Ctrl-C left temporary files"
    # No OUT, or a complete one.
    if box.out.exists():
        assert tree_digest(box.out) == tree_digest(complete), "partial OUT"
        shutil.rmtree(box.out)

    # The next run completes and leaves nothing behind (it cleans what the killed one left).
    again = box.run(*args, timeout=300)
    assert again.code == 0, again.describe()
    assert tree_digest(box.out) == tree_digest(complete)
    assert box.leftovers() == [], box.leftovers()
    # The digests of an input older than the racy window are kept in the cache directory (by
    # whichever run got that far), and it holds whole entries only; a younger input makes none.
    caches = ["cache"] if remembered and kind == "pkgman" else []
    names = sorted(p.name for p in box.root.iterdir())
    assert names == sorted(["home", "input", "out", "outside", "tmp", *caches])
    if caches:
        assert cache_problems(box.root / "cache") == []
        assert list((box.root / "cache").rglob("*.idx")), "no file digests kept"


@pytest.mark.parametrize("kind", sorted(INPUTS))
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=lambda s: s.name)
def test_interrupted_migration(
    tmp_path: Path, kind: str, how: signal.Signals, expected: dict[str, tuple[Path, float]]
) -> None:
    _interrupt(tmp_path, kind, how, 0, expected)


@pytest.mark.slow
@pytest.mark.parametrize("draw", range(1, 4))
@pytest.mark.parametrize("kind", sorted(INPUTS))
@pytest.mark.parametrize(
    "how", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name
)
def test_interrupted_migration_at_more_moments(
    tmp_path: Path,
    kind: str,
    how: signal.Signals,
    draw: int,
    expected: dict[str, tuple[Path, float]],
) -> None:
    _interrupt(tmp_path, kind, how, draw, expected)


def test_ctrl_c_while_starting_is_one_line_too(tmp_path: Path) -> None:
    """Ctrl-C while the program imports its modules or parses options, as well as later: one
    line and 130 whenever it lands once olmcat's code runs. The moments start 50 ms after the
    start and move 20 ms later each time until enough of them landed in olmcat's code or the
    run finished first: however slowly the interpreter starts (a busy machine), some land
    after it and before the end."""
    interrupted = step = 0
    complete = tree_digest(make.EXAMPLE / "expected")
    while step < 13 or (interrupted < 3 and step < 400):
        box = Sandbox(tmp_path / str(step))
        make.pkgman_tree(box.input / "m")
        box.seal()
        process = _start(box, ["migrate", "pkgman", "-q", "input/m", "out"])
        time.sleep(0.05 + step * 0.02)
        step += 1
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
        if process.returncode == 0:
            if step > 13:
                break  # it ended before the signal: later moments land after the end too
            continue
        if b"olmcat: " not in err and b"in run\n" not in err:
            # It landed while the interpreter was still starting, before the entry point's
            # run() took over (no Python program can handle that moment).
            continue
        interrupted += 1
        assert process.returncode == 130, err
        assert err.decode().splitlines() == ["olmcat: interrupted"]
        if box.out.exists():  # the signal came after OUT was in place
            assert tree_digest(box.out) == complete, "partial OUT"
            shutil.rmtree(box.out)
        again = box.run("migrate", "pkgman", "-q", "input/m", "out")
        assert again.code == 0 and tree_digest(box.out) == complete, again.describe()
        assert box.leftovers() == []
    assert interrupted


def test_stale_scratch_directories_of_dead_processes_are_removed(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = box.tmp / f"olmcat-image-{dead.pid}-abc123"
    (stale / "root" / "database").mkdir(parents=True)
    (stale / "root" / "database" / "index.db").write_bytes(b"x" * 1000)
    mine = box.tmp / f"olmcat-image-{os.getpid()}-live"  # a live process's: kept
    mine.mkdir()
    other = box.tmp / "olmcat-image-notapid"  # not ours to judge: kept
    other.mkdir()
    make.fbc_tree(box.input / "c")
    result = box.run("images", "input/c")
    assert result.code == 0, result.describe()
    assert sorted(p.name for p in box.tmp.iterdir()) == sorted([mine.name, other.name])


def test_blob_cache_scratch_of_dead_processes_is_removed(tmp_path: Path) -> None:
    from olmcat.oci.cache import BlobCache

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    tmp = tmp_path / "cache" / "tmp"
    (tmp / f"pull-{dead.pid}-abc" / "blobs").mkdir(parents=True)
    (tmp / f"blob-{dead.pid}-def").write_bytes(b"half a layer")
    (tmp / f"pull-{os.getpid()}-live").mkdir()
    (tmp / "unnamed").mkdir()
    created = BlobCache(tmp_path / "cache").scratch_dir("pull-")
    assert sorted(p.name for p in tmp.iterdir()) == sorted(
        [f"pull-{os.getpid()}-live", "unnamed", created.name]
    )
