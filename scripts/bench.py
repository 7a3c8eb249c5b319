#!/usr/bin/env python3
"""Benchmark olmcat against opm on the same inputs, in the same run.

Every workload runs the real command in a child process (interpreter start-up included, as a user
sees it), N times, alternating olmcat with its reference -- opm from ``../shared/tools/oracle``
where there is an opm counterpart, or olmcat merely reading the same catalogs where the target is
"within k x the time to read them" -- so that load from other processes on the machine hits both
sides alike and the ratios stay meaningful even when absolute timings are noisy.

Measured per run: wall time, CPU time (user + system of the process and every descendant it
waited for) and peak memory: the peak of the summed RSS of the whole process tree, sampled from
/proc (worker processes count), never less than the largest single process's own peak. Each
command is started by a small launcher (GNU time, else a bare Python one) that forks it and
reports its own ``ru_maxrss``: the kernel starts a forked child's peak at its parent's, so a
command started by the benchmark directly would be charged with the benchmark's own memory.

    python scripts/bench.py                 # the full suite (needs ../shared/corpus)
    python scripts/bench.py --runs 3 -k sqlite -k pkgman
    python scripts/bench.py --json > bench.json
    python scripts/bench.py --smoke         # tiny inputs from fixtures/, seconds (CI runs this)

Scaled databases (``../shared/tools/scale-db.py``) and the FBC directories made from them are
cached under ``--cache`` (default ``$XDG_CACHE_HOME/olmcat-bench``), never in the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import filecmp
import functools
import hashlib
import importlib.util
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
ORACLE = SHARED / "tools" / "oracle"
SCALE_TOOL = SHARED / "tools" / "scale-db.py"
FIXTURES = ROOT / "fixtures" / "example"
SCHEMA = "olmcat.bench.v1"
MIB = 1024 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")


# -- measuring one process tree ----------------------------------------------------------------


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")"
    return int(stat[stat.rindex(b")") + 2 :].split(None, 2)[1])


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


class TreeSampler(threading.Thread):
    """Polls /proc: the summed RSS of a process and all its descendants, keeping the peak.

    Each poll lists /proc and classifies only pids it has not seen before (one read of their
    ``stat``), so a poll costs well under a millisecond however many processes the machine runs.
    ``count_root=False`` leaves the root itself out of the sum (a launcher, not the command).
    """

    def __init__(self, root: int, interval: float, *, count_root: bool = True) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
        self.count_root = count_root
        self.peak = 0
        self.samples = 0
        self._tree = {root}
        self._seen = {root}
        self._halt = threading.Event()

    def _discover(self) -> None:
        try:
            pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
        except OSError:
            return
        fresh = sorted(pid for pid in pids if pid not in self._seen)
        parents = {pid: _parent_of(pid) for pid in fresh}
        self._seen.update(fresh)
        grew = True
        while grew:  # a grandchild may be listed before its parent joined the tree
            grew = False
            for pid, parent in parents.items():
                if pid not in self._tree and parent in self._tree:
                    self._tree.add(pid)
                    grew = True

    def poll(self) -> None:
        self._discover()
        total = sum(_rss_bytes(pid) for pid in self._tree if self.count_root or pid != self.root)
        self.peak = max(self.peak, total)
        self.samples += 1

    def run(self) -> None:
        while not self._halt.is_set():
            self.poll()
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join()


@dataclass(slots=True)
class Measurement:
    wall: float  # seconds
    cpu: float  # seconds, user + system, the process and its reaped descendants
    peak_rss: float  # MiB, peak of the sampled sum over the process tree
    samples: int


class BenchError(Exception):
    """A workload failed or its inputs are missing: one line for the user."""


# The launcher when GNU time is absent: forks the command from a process of ~8 MiB (instead of
# the benchmark's 20-80 MiB), waits for it and writes its user and system CPU seconds and its
# peak RSS (KiB) to the file in argv[1]. It adds ~20 ms of start-up to the wall time (GNU time
# ~1 ms).
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(f"{usage.ru_utime!r} {usage.ru_stime!r} {usage.ru_maxrss}")
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


@functools.cache
def launcher() -> str:
    """``gnu-time`` (/usr/bin/time, ~1 MiB: the floor it leaves a command's peak at) or
    ``python`` (~8 MiB)."""
    time_tool = Path("/usr/bin/time")
    if time_tool.is_file() and os.access(time_tool, os.X_OK):
        done = subprocess.run(
            [str(time_tool), "--version"], capture_output=True, text=True, check=False
        )
        if "GNU" in done.stdout + done.stderr:
            return "gnu-time"
    return "python"


def _launched(argv: Sequence[str], peak_file: Path, how: str) -> list[str]:
    if how == "gnu-time":
        # --quiet: no "Command exited with non-zero status" line; %M: the command's ru_maxrss
        return ["/usr/bin/time", "--quiet", "-o", str(peak_file), "-f", "%M", *argv]
    return [sys.executable, "-I", "-S", "-c", LAUNCHER, str(peak_file), *argv]


def measure(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    interval: float = 0.01,
    ok: frozenset[int] = frozenset({0}),
    stdout: Path | None = None,
    how: str | None = None,
) -> Measurement:
    """Run ``argv`` once under the launcher; its stdout is discarded (or written to
    ``stdout``), its stderr kept for the error message."""
    with contextlib.ExitStack() as stack:
        stderr = stack.enter_context(tempfile.TemporaryFile())
        peak_file = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "peak"
        out: Any = stack.enter_context(stdout.open("wb")) if stdout else subprocess.DEVNULL
        command = _launched(argv, peak_file, how or launcher())
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=stderr)
        sampler = TreeSampler(process.pid, interval, count_root=False)
        sampler.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            sampler.stop()
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode not in ok:
            stderr.seek(0)
            tail = stderr.read().decode(errors="replace").strip().splitlines()[-3:]
            raise BenchError(
                f"{' '.join(map(str, argv))} exited with {process.returncode}: " + " | ".join(tail)
            )
        # CPU: everything the launcher waited for (GNU time's own ~1 ms included; the Python
        # launcher reports its child's alone)
        cpu = usage.ru_utime + usage.ru_stime
        try:
            reported = peak_file.read_text().split()
            # the command's own ru_maxrss (KiB): the largest single process of its tree, a floor
            # for the tree's peak that also catches a spike shorter than the sampling interval
            largest = int(reported[-1]) * 1024
            if len(reported) == 3:
                cpu = float(reported[0]) + float(reported[1])
        except (OSError, ValueError, IndexError):
            raise BenchError(f"{' '.join(map(str, argv))}: the launcher reported no peak") from None
    peak = max(sampler.peak, largest)
    return Measurement(wall, cpu, peak / MIB, sampler.samples)


# -- workloads ---------------------------------------------------------------------------------

Prepare = Callable[[Path], list[str]]  # scratch dir -> argv (may copy inputs into scratch)


@dataclass(slots=True)
class Side:
    label: str  # "olmcat", "opm", "read once"
    prepare: Prepare
    output: str | None = None  # path inside scratch of what the command writes, to compare
    ok: frozenset[int] = frozenset({0})  # exit statuses that mean success
    stdout: str | None = None  # file inside scratch that receives stdout (else discarded)


@dataclass(slots=True)
class Workload:
    name: str
    description: str
    subject: Side
    reference: Side | None = None
    inputs: tuple[Path, ...] = ()
    compare_outputs: bool = False  # the subject's and the opm reference's outputs must match
    max_runs: int | None = None  # long workloads: at most this many runs per side
    throughput: bool = False  # report MB/s of input (input_mb / median wall)
    # An incremental row: each run, in one scratch directory and one OLMCAT_CACHE_DIR (caches
    # on), ``setup`` prepares the scratch, the reference runs (cold), ``between`` changes the
    # input, then the subject runs (warm): never alternated.
    setup: Callable[[Path], None] | None = None
    between: Callable[[Path], None] | None = None
    changed_output: str | None = None  # the one output subdirectory the change may alter
    # Made (once, cached) when the row is about to run, never timed: inputs too costly to make
    # for every listing or every other row (the community trees' FBCs).
    make_inputs: Callable[[], None] | None = None

    @property
    def incremental(self) -> bool:
        return self.between is not None


@dataclass(slots=True)
class Target:
    name: str
    limit: float
    value: Callable[[dict[str, dict[str, Any]]], float | None]


def olmcat_argv() -> list[str]:
    """The olmcat a user runs: the console script next to this interpreter, else ``-m``."""
    script = Path(sys.executable).parent / "olmcat"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "olmcat"]


def olmcat_env() -> dict[str, str]:
    """Benchmark this checkout's olmcat even when another one is installed, with its bytecode
    cached as on a user's machine (PYTHONDONTWRITEBYTECODE would recompile every module on every
    start, ~0.1 s)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env


ORACLE_RELEASE = "1.26"  # ../shared/tools/oracle is opm v1.26.5


@functools.cache
def _chooses_release(*command: str) -> bool:
    done = subprocess.run(
        [*olmcat_argv(), *command, "--help"],
        capture_output=True,
        text=True,
        env=olmcat_env(),
        check=False,
    )
    return "--opm-version" in done.stdout


def as_oracle(*command: str) -> list[str]:
    """An olmcat command pinned to the oracle's opm release where it lets one choose (its
    default may be the newest release, whose output the v1.26.5 oracle would not match)."""
    if _chooses_release(*command):
        return [*command, "--opm-version", ORACLE_RELEASE]
    return list(command)


def olmcat(*args: str | Path) -> Prepare:
    def prepare(scratch: Path) -> list[str]:
        return [*olmcat_argv(), *(str(a).replace("{scratch}", str(scratch)) for a in args)]

    return prepare


def read_once(*catalogs: Path) -> Prepare:
    """The floor of any command over these catalogs: open each and build every package's model."""
    code = (
        "import sys, olmcat\n"
        "for ref in sys.argv[1:]:\n"
        "    with olmcat.open_catalog(ref) as catalog:\n"
        "        for package in catalog.packages():\n"
        "            pass\n"
    )

    def prepare(scratch: Path) -> list[str]:
        return [sys.executable, "-c", code, *map(str, catalogs)]

    return prepare


# The least any migration of an index database must do, as a bare loop: read each bundle's row,
# split and parse its manifests (opm rejects invalid JSON there too), base64 them and write one
# file per package. No channels, properties or layout: the floor for ``migrate sqlite``.
FLOOR_SQLITE = """
import base64, json, os, sqlite3, sys
db, out = sys.argv[1], sys.argv[2]
conn = sqlite3.connect("file:" + db + "?mode=ro&immutable=1", uri=True)
decoder = json.JSONDecoder()
members = conn.execute(
    "SELECT DISTINCT package_name, operatorbundle_name FROM channel_entry ORDER BY 1, 2"
).fetchall()
os.mkdir(out)
current, fh = None, None
for package, name in members:
    if package != current:
        if fh:
            fh.close()
        os.mkdir(os.path.join(out, package))
        fh = open(os.path.join(out, package, "catalog.json"), "w")
        current = package
    row = conn.execute("SELECT bundle FROM operatorbundle WHERE name = ?", (name,)).fetchone()
    text = row[0] if row and row[0] else b""
    text = text.decode() if isinstance(text, bytes) else text
    documents, index = [], 0
    while True:
        while index < len(text) and text[index] in " \\t\\r\\n":
            index += 1
        if index >= len(text):
            break
        _, stop = decoder.raw_decode(text, index)
        documents.append(text[index:stop])
        index = stop
    values = ",".join(
        '{"type":"olm.bundle.object","value":{"data":"%s"}}'
        % base64.b64encode(d.encode()).decode()
        for d in documents
    )
    fh.write('{"schema":"olm.bundle","name":%s,"package":%s,"properties":[%s]}\\n'
             % (json.dumps(name), json.dumps(package), values))
if fh:
    fh.close()
"""


def floor_sqlite(db: Path) -> Prepare:
    def prepare(scratch: Path) -> list[str]:
        return [sys.executable, "-c", FLOOR_SQLITE, str(db), str(scratch / "out")]

    return prepare


def oracle_tool(name: str) -> str:
    return str(ORACLE / name)


def opm_migrate(db: Path, *extra: str) -> Prepare:
    """opm upgrades a database's schema in place: it always gets a fresh copy."""

    def prepare(scratch: Path) -> list[str]:
        copy = scratch / "opm-input.db"
        shutil.copyfile(db, copy)
        return [oracle_tool("opm"), "migrate", *extra, str(copy), str(scratch / "out")]

    return prepare


def initializer_then_opm(tree: Path) -> Prepare:
    """The legacy route for package manifests: initializer builds a DB, opm migrates it. One
    shell runs both so that the pair is one process tree (its peak is the larger step's)."""

    def prepare(scratch: Path) -> list[str]:
        script = '"$1" --permissive -m "$3" -o "$4/x.db" && exec "$2" migrate "$4/x.db" "$4/out"'
        return [
            "sh",
            "-c",
            script,
            "sh",
            oracle_tool("initializer"),
            oracle_tool("opm"),
            str(tree),
            str(scratch),
        ]

    return prepare


def opm_plain(*args: str | Path) -> Prepare:
    def prepare(scratch: Path) -> list[str]:
        return [oracle_tool("opm"), *map(str, args)]

    return prepare


def have_oracle() -> bool:
    return (ORACLE / "opm").is_file() and shutil.which("xz") is not None


# -- inputs --------------------------------------------------------------------------------------


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "olmcat-bench"


def _stamp(path: Path) -> str:
    """Short and stable while the file is unchanged: cached derivatives are rebuilt otherwise."""
    stat = path.stat()
    key = f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()
    return hashlib.sha256(key).hexdigest()[:8]


def scaled_db(source: Path, factor: int, cache: Path, log: Callable[[str], None]) -> Path:
    """An N-times larger copy of ``source`` (cached; rebuilt when the source changes)."""
    if factor == 1:
        return source
    if not SCALE_TOOL.is_file():
        raise BenchError(f"{SCALE_TOOL} is missing: scaled workloads need ../shared/tools")
    target = cache / f"{source.stem}-x{factor}-{_stamp(source)}.db"
    if not target.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        log(f"building {target.name} ({factor}x {source.name}) ...")
        partial = target.with_name(target.name + f".partial-{os.getpid()}")
        subprocess.run(
            [sys.executable, str(SCALE_TOOL), str(source), str(partial), str(factor)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        partial.rename(target)
    return target


def fbc_of(db: Path, cache: Path, log: Callable[[str], None]) -> Path:
    """The FBC directory of a database, made once with this olmcat (its output equals opm's)."""
    target = cache / (f"{db.stem}.fbc" if db.parent == cache else f"{db.stem}-{_stamp(db)}.fbc")
    if not target.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        log(f"migrating {db.name} to {target.name} ...")
        shutil.rmtree(target.with_name(target.name + ".partial"), ignore_errors=True)
        subprocess.run(
            [*olmcat_argv(), "migrate", "sqlite", "-q", str(db), str(target) + ".partial"],
            check=True,
            env=olmcat_env(),
        )
        Path(str(target) + ".partial").rename(target)
    return target


# Every package of a catalog installed at the oldest bundle its default channel's head
# replaces back to: upgrade-check then walks every package's whole replaces chain.
INVENTORY = """
import sys, olmcat
rows = ["package,channel,version,namespace,name"]
with olmcat.open_catalog(sys.argv[1]) as catalog:
    for package in catalog.packages():
        channel = package.channel(package.package.default_channel)
        if channel is None or not channel.entries:
            continue
        names = {e.name for e in channel.entries}
        heads = [e.name for e in channel.entries if e.name not in
                 {edge for other in channel.entries for edge in other.edges()}]
        oldest = channel.replaces_chain(sorted(heads)[0])[-1] if heads else channel.entries[0].name
        bundle = package.bundle(oldest) if oldest in names else None
        if bundle is None or not bundle.version:
            continue
        rows.append(f"{package.name},{channel.name},{bundle.version},ns-{package.name},{oldest}")
print("\\n".join(rows))
"""


def inventory_of(fbc: Path, cache: Path, log: Callable[[str], None]) -> Path:
    """An upgrade-check inventory over every package of ``fbc`` (made once, cached)."""
    target = cache / f"inventory-{fbc.name}-{_stamp(fbc)}.csv"
    if not target.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        log(f"listing {fbc.name}'s packages for an upgrade-check inventory ...")
        done = subprocess.run(
            [sys.executable, "-c", INVENTORY, str(fbc)],
            check=True,
            capture_output=True,
            text=True,
            env=olmcat_env(),
        )
        partial = target.with_name(target.name + f".partial-{os.getpid()}")
        partial.write_text(done.stdout)
        partial.rename(target)
    return target


def _lines(path: Path) -> int:
    return max(0, len(path.read_text().splitlines()) - 1)


@dataclass(slots=True)
class Inputs:
    """What the workloads run on: the full corpus, or the bundled example for --smoke."""

    db: Path  # the largest index database: migrate runs on it
    new_db: Path  # a release of an index (diff's NEW) ...
    old_db: Path  # ... and the release before it (diff's OLD)
    fbc: Path  # new_db as an FBC directory
    old_fbc: Path
    pkgman: Path  # a package-manifest tree
    scales: tuple[int, ...]  # copies of db to benchmark migrate on (1 = db itself)
    pair_scale: int  # the scaled diff / validate / read pair
    opm_scales: tuple[int, ...]  # where opm runs too (opm's memory grows with the DB)
    every_scale: bool = True  # filter / images / render-graph / validate on the scaled pair too
    growth_scale: int = 1  # every FBC command on this copy too: its cost against the 1x run


def corpus_inputs(cache: Path, log: Callable[[str], None]) -> Inputs:
    if not CORPUS.is_dir():
        raise BenchError(f"{CORPUS} is absent: the full benchmark needs ../shared/corpus")
    databases = sorted(
        (CORPUS / "sqlite").glob("*.db"), key=lambda p: p.stat().st_size, reverse=True
    )
    # diff, validate and the read-only commands run on the corpus's one release pair
    new, old = CORPUS / "sqlite" / "index-upstream.db", CORPUS / "sqlite" / "index-upstream-old.db"
    for path in (new, old):
        if not path.is_file():
            raise BenchError(f"{path} is missing from the corpus")
    expected = CORPUS / "expected"
    fbc, old_fbc = expected / f"{new.stem}.json", expected / f"{old.stem}.json"
    return Inputs(
        db=databases[0],
        new_db=new,
        old_db=old,
        fbc=fbc if fbc.is_dir() else fbc_of(new, cache, log),
        old_fbc=old_fbc if old_fbc.is_dir() else fbc_of(old, cache, log),
        pkgman=CORPUS / "pkgman" / "upstream-subset",
        scales=(1, 10, 30),
        pair_scale=10,
        opm_scales=(1, 10),
        growth_scale=30,
    )


def smoke_inputs(cache: Path, log: Callable[[str], None]) -> Inputs:
    sqlite_dir = FIXTURES / "sqlite"
    scales = (1, 2) if SCALE_TOOL.is_file() else (1,)
    return Inputs(
        db=sqlite_dir / "schema-13.db",
        new_db=sqlite_dir / "schema-13.db",
        old_db=sqlite_dir / "schema-7.db",
        fbc=FIXTURES / "expected",
        old_fbc=FIXTURES / "expected",
        pkgman=FIXTURES / "manifests",
        scales=scales,
        pair_scale=scales[-1],
        opm_scales=scales,
        every_scale=False,
    )


def workloads(
    inputs: Inputs, cache: Path, log: Callable[[str], None], oracle: bool
) -> list[Workload]:
    found: list[Workload] = [
        Workload(
            "import",
            "olmcat --help (interpreter start-up and imports)",
            Side("olmcat", olmcat("--help")),
        )
    ]
    dbs = {factor: scaled_db(inputs.db, factor, cache, log) for factor in inputs.scales}
    for output in ("json", "yaml"):
        for factor, db in dbs.items():
            if output == "yaml" and factor == inputs.scales[-1] and factor > 1:
                continue  # memory growth is what the largest copy is for; JSON shows it
            with_opm = oracle and factor in inputs.opm_scales
            found.append(
                Workload(
                    f"migrate-sqlite-{output}-x{factor}",
                    f"migrate sqlite -o {output} {db.name}",
                    Side(
                        "olmcat",
                        olmcat(
                            *as_oracle("migrate", "sqlite"), "-q", "-o", output, db, "{scratch}/out"
                        ),
                        "out",
                    ),
                    Side("opm", opm_migrate(db, "-o", output), "out") if with_opm else None,
                    inputs=(db,),
                    compare_outputs=with_opm,
                )
            )
    for factor, db in dbs.items():
        if factor in inputs.opm_scales:
            found.append(
                Workload(
                    f"migrate-sqlite-vs-floor-x{factor}",
                    f"migrate sqlite {db.name} against a bare loop over its rows",
                    Side(
                        "olmcat",
                        olmcat(*as_oracle("migrate", "sqlite"), "-q", db, "{scratch}/out"),
                    ),
                    Side("floor", floor_sqlite(db)),
                    inputs=(db,),
                )
            )
    found.append(
        Workload(
            "migrate-pkgman",
            f"migrate pkgman {inputs.pkgman.name} (opm: initializer + opm migrate)",
            Side(
                "olmcat",
                olmcat(*as_oracle("migrate", "pkgman"), "-q", inputs.pkgman, "{scratch}/out"),
                "out",
            ),
            Side("opm", initializer_then_opm(inputs.pkgman), "out") if oracle else None,
            inputs=(inputs.pkgman,),
            compare_outputs=oracle,
        )
    )

    pair: dict[int, tuple[Path, Path]] = {1: (inputs.old_fbc, inputs.fbc)}
    for factor in sorted({inputs.pair_scale, inputs.growth_scale} - {1}):
        new_big = scaled_db(inputs.new_db, factor, cache, log)
        old_big = scaled_db(inputs.old_db, factor, cache, log)
        pair[factor] = (fbc_of(old_big, cache, log), fbc_of(new_big, cache, log))
    for factor, (old_fbc, new_fbc) in pair.items():
        suffix = f"x{factor}"
        every = factor == 1 or inputs.every_scale or factor == inputs.growth_scale
        with_opm = oracle and factor in inputs.opm_scales
        scaled: list[Workload] = []
        scaled.append(
            Workload(
                f"validate-{suffix}",
                f"validate {new_fbc.name}",
                Side("olmcat", olmcat("validate", "-q", new_fbc)),
                Side("opm", opm_plain("validate", new_fbc)) if with_opm else None,
                inputs=(new_fbc,),
            )
        )
        scaled.append(
            Workload(
                f"validate-vs-read-{suffix}",
                f"validate {new_fbc.name} against reading it once",
                Side("olmcat", olmcat("validate", "-q", new_fbc)),
                Side("read once", read_once(new_fbc)),
                inputs=(new_fbc,),
            )
        )
        scaled.append(
            Workload(
                f"diff-vs-read-{suffix}",
                f"diff {old_fbc.name} {new_fbc.name} against reading both once",
                # diff(1) exit statuses: 1 means "different", which the pair is
                Side(
                    "olmcat",
                    olmcat("diff", "--color", "never", old_fbc, new_fbc),
                    ok=frozenset({0, 1}),
                ),
                Side("read once", read_once(old_fbc, new_fbc)),
                inputs=(old_fbc, new_fbc),
            )
        )
        scaled.append(
            Workload(
                f"filter-{suffix}",
                f"filter --heads-only {new_fbc.name}",
                Side(
                    "olmcat",
                    olmcat("filter", "-q", "--heads-only", new_fbc, "{scratch}/out"),
                ),
                inputs=(new_fbc,),
            )
        )
        scaled.append(
            Workload(
                f"images-{suffix}",
                f"images {new_fbc.name}",
                Side("olmcat", olmcat("images", new_fbc)),
                inputs=(new_fbc,),
            )
        )
        scaled.append(
            Workload(
                f"render-graph-{suffix}",
                f"render-graph {new_fbc.name} (opm alpha render-graph)",
                Side("olmcat", olmcat("render-graph", new_fbc)),
                Side("opm", opm_plain("alpha", "render-graph", new_fbc)) if with_opm else None,
                inputs=(new_fbc,),
            )
        )
        if factor == 1:
            scaled.append(
                Workload(
                    f"diff-crd-safety-{suffix}",
                    f"diff --crd-safety {old_fbc.name} {new_fbc.name} (OLM v1 CRD preflight, "
                    "contents from olm.bundle.object)",
                    # exit 1: the catalogs differ
                    Side(
                        "olmcat",
                        olmcat("diff", "--crd-safety", "--color", "never", old_fbc, new_fbc),
                        ok=frozenset({0, 1}),
                    ),
                    inputs=(old_fbc, new_fbc),
                    max_runs=1,  # measured once; no target yet
                )
            )
        inventory = inventory_of(old_fbc, cache, log)
        scaled.append(
            Workload(
                f"upgrade-check-{suffix}",
                f"upgrade-check {old_fbc.name} {new_fbc.name} ({_lines(inventory)} operators)",
                # exit 1: something blocks (some operators of the pair do)
                Side(
                    "olmcat",
                    olmcat("upgrade-check", "--json", "--installed", inventory, old_fbc, new_fbc),
                    ok=frozenset({0, 1}),
                ),
                inputs=(old_fbc, new_fbc),
            )
        )
        found.extend(w for w in scaled if every or "-vs-read-" in w.name)
    return found


def targets(inputs: Inputs) -> list[Target]:
    """The issue's targets, evaluated on this run's results (ratios: median of the pairs)."""
    top = inputs.scales[-1]
    pair = inputs.pair_scale

    def ratio(workload: str, metric: str) -> Callable[[dict[str, dict[str, Any]]], float | None]:
        def value(results: dict[str, dict[str, Any]]) -> float | None:
            ratios = results.get(workload, {}).get("ratio")
            return None if not ratios else float(ratios[metric]["median"])

        return value

    def growth(results: dict[str, dict[str, Any]]) -> float | None:
        small = results.get("migrate-sqlite-json-x1", {}).get("olmcat")
        large = results.get(f"migrate-sqlite-json-x{top}", {}).get("olmcat")
        if not small or not large or top == 1:
            return None
        return float(large["peak_rss"]["median"] / small["peak_rss"]["median"])

    def seconds(results: dict[str, dict[str, Any]]) -> float | None:
        run = results.get("import", {}).get("olmcat")
        return None if not run else float(run["wall"]["median"])

    def olmcat_side(workload: str, metric: str, scale: float = 1.0) -> Callable[..., float | None]:
        def value(results: dict[str, dict[str, Any]]) -> float | None:
            run = results.get(workload, {}).get("olmcat")
            return None if not run else float(run[metric]["median"]) / scale

        return value

    def grown(workload: str, metric: str) -> Callable[[dict[str, dict[str, Any]]], float | None]:
        """olmcat's median at the growth scale over its median at 1x."""

        def value(results: dict[str, dict[str, Any]]) -> float | None:
            small = results.get(f"{workload}-x1", {}).get("olmcat")
            large = results.get(f"{workload}-x{inputs.growth_scale}", {}).get("olmcat")
            if not small or not large or inputs.growth_scale == 1:
                return None
            return float(large[metric]["median"] / small[metric]["median"])

        return value

    large = inputs.growth_scale
    growth_targets = []
    commands = ("validate", "diff-vs-read", "filter", "images", "upgrade-check", "render-graph")
    for command in commands:
        label = command.removesuffix("-vs-read")
        growth_targets += [
            Target(f"{label} x{large}: peak RSS / x1", 2.0, grown(command, "peak_rss")),
            Target(f"{label} x{large}: wall / x1", 35.0, grown(command, "wall")),
        ]

    return [
        Target("migrate sqlite x1: wall / opm", 0.12, ratio("migrate-sqlite-json-x1", "wall")),
        Target("migrate sqlite x1: peak RSS / opm", 0.08, ratio("migrate-sqlite-json-x1", "rss")),
        Target(f"migrate sqlite x{top}: peak RSS / x1", 1.5, growth),
        Target("migrate pkgman: wall / opm", 0.15, ratio("migrate-pkgman", "wall")),
        Target("migrate pkgman: peak RSS / opm", 0.25, ratio("migrate-pkgman", "rss")),
        Target(f"diff x{pair}: wall / read once", 2.0, ratio(f"diff-vs-read-x{pair}", "wall")),
        Target(
            f"validate x{pair}: wall / read once", 2.0, ratio(f"validate-vs-read-x{pair}", "wall")
        ),
        Target("olmcat --help: wall seconds", 0.150, seconds),
        Target("render images (big): wall / opm", 0.4, ratio("render-images-big", "wall")),
        Target(
            "render dirs (big): CPU / yaml.load floor",
            1.3,
            ratio("render-dirs-vs-load-big", "cpu"),
        ),
        Target("render dirs (big): CPU / events floor", 1.3, ratio("render-dirs-big", "cpu")),
        Target(
            "migrate pkgman (tree): wall minutes",
            5.0,
            olmcat_side("migrate-pkgman-tree", "wall", 60),
        ),
        Target(
            "migrate pkgman (tree): peak GiB",
            1.0,
            olmcat_side("migrate-pkgman-tree", "peak_rss", 1024),
        ),
        Target(
            "migrate pkgman (tree): one change, warm / cold wall",
            0.05,
            ratio("migrate-pkgman-tree-incremental", "wall"),
        ),
        Target(
            "olmv1 check (tree, warm cache): wall seconds",
            60.0,
            olmcat_side("olmv1-check-tree", "wall"),
        ),
        *growth_targets,
    ]


# -- modern inputs: bundles of today (scripts/bench_inputs.py) --------------------------------

INPUTS_TOOL = ROOT / "scripts" / "bench_inputs.py"
REGISTRY_PLACEHOLDER = "BENCH_REGISTRY"  # in the templates bench_inputs.py writes

# The parse floors of YAML-heavy work, over every manifest and metadata file: "events" is
# libyaml's event parser -- what olmcat's YAML reader (files/yaml.py) builds its documents from
# -- with nothing built; "load" is PyYAML's libyaml loader building every document
# (yaml.load_all with CSafeLoader), the "bare libyaml parse" issue 22 compared with. If olmcat
# moves to another parser, these loops must move with it.
FLOOR_YAML = """
import os, sys
import yaml
from yaml._yaml import CParser
from yaml import YAMLError
mode, roots = sys.argv[1], sys.argv[2:]
events = 0
for root in roots:
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        if os.path.basename(directory) not in ("manifests", "metadata"):
            continue
        for name in sorted(files):
            if not name.endswith((".yaml", ".yml", ".json")):
                continue
            with open(os.path.join(directory, name), "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
            try:
                if mode == "load":
                    events += sum(1 for _ in yaml.load_all(text, Loader=yaml.CSafeLoader))
                    continue
                parser = CParser(text)
                while parser.get_event() is not None:
                    events += 1
            except YAMLError:
                pass
print(events)
"""


def floor_yaml(mode: str, *roots: Path) -> Prepare:
    def prepare(scratch: Path) -> list[str]:
        return [sys.executable, "-c", FLOOR_YAML, mode, *map(str, roots)]

    return prepare


@dataclass(slots=True)
class Modern:
    """The big-CRD bundle set and the community tree, as scripts/bench_inputs.py writes them."""

    big: Path  # <package>/<version>/{manifests,metadata}
    templates: Path  # basic.yaml, semver-<package>.yaml (BENCH_REGISTRY in image references)
    tree: Path | None  # the ~7,000-bundle tree (None: not built)
    tree_old: Path | None = None  # the same tree at an older commit (None: not built)

    def bundles(self) -> list[Path]:
        return sorted(p.parent.parent for p in self.big.glob("*/*/metadata/annotations.yaml"))


def _load_script(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def modern_inputs(cache: Path, log: Callable[[str], None]) -> Modern | None:
    """The modern inputs under ``cache/modern``, built first when a snapshot to build them from
    is at hand (``scripts/bench_inputs.py --source``); None when neither is there."""
    root = cache / "modern"
    missing = [
        name for name in ("big", "tree", "tree-old") if not (root / f"{name}.json").is_file()
    ]
    if missing:
        tool = _load_script(INPUTS_TOOL, "olmcat_bench_inputs")
        source = Path(os.environ.get("OLMCAT_BENCH_SOURCE") or tool.DEFAULT_SOURCE)
        if source.exists():
            for name in missing:
                log(f"building the modern inputs ({name}) from {source} ...")
                subprocess.run(
                    [
                        sys.executable,
                        str(INPUTS_TOOL),
                        "--source",
                        str(source),
                        "--out",
                        str(root),
                        "--only",
                        name,
                    ],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )
    if not (root / "big.json").is_file():
        log(
            f"no modern inputs in {root}: their rows are left out "
            "(build them with scripts/bench_inputs.py, see docs/performance.md)"
        )
        return None

    def built(name: str) -> Path | None:
        return root / name if (root / f"{name}.json").is_file() else None

    return Modern(root / "big", root / "templates", built("tree"), built("tree-old"))


def tree_fbc(tree: Path) -> Path:
    """Where the FBC of a community tree (``migrate pkgman --permissive``) is cached: beside the
    tree, named by the digest of its contents that bench_inputs.py recorded."""
    record = tree.with_name(f"{tree.name}.json")
    if not record.is_file():  # --smoke: a tree made afresh each run, beside its FBC
        return tree.with_name(f"{tree.name}.fbc")
    try:
        digest = str(json.loads(record.read_text())["digest"])[:12]
    except (OSError, ValueError, KeyError) as error:
        raise BenchError(f"{record}: no digest ({error})") from None
    return tree.with_name(f"{tree.name}-{digest}.fbc")


def migrate_tree(tree: Path, target: Path, log: Callable[[str], None]) -> None:
    """The FBC of a community tree, made once with this olmcat: bundle objects kept (olmcat's
    default, opm v1.73.0's), so that ``diff --crd-safety`` reads every CRD from the catalog."""
    if target.is_dir():
        return
    log(f"migrating {tree.name} to {target.name} (once; minutes) ...")
    partial = target.with_name(target.name + f".partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    subprocess.run(
        [
            *olmcat_argv(),
            "migrate",
            "pkgman",
            "-q",
            "--permissive",
            "--image-ref-template",
            "bench.invalid/{package}-bundle:{dir}",
            str(tree),
            str(partial),
        ],
        check=True,
        env=olmcat_env(),
    )
    partial.rename(target)


def smoke_modern(cache: Path) -> Modern:
    """The example package manifests as bundle directories: the modern rows' machinery on
    inputs of a few KB (rebuilt every time; they are ours, not a snapshot's)."""
    root = cache / "smoke-modern"
    subprocess.run(
        [
            sys.executable,
            str(INPUTS_TOOL),
            "--example",
            str(FIXTURES / "manifests"),
            "--out",
            str(root),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    # the example's bundles are both sides of the diff --crd-safety row: its machinery, no pair
    return Modern(root / "big", root / "templates", root / "big", root / "big")


class BundleRegistry:
    """The bundle images of a set of bundle directories on a docker-registry on 127.0.0.1, and
    the same images saved as OCI layouts: ``scripts/bench_inputs.py --serve`` builds and pushes
    them in a process of its own and keeps the registry up until its stdin closes. Started on
    first use, by the first run of a workload that needs it (never timed).

    Not in this process: a child's peak RSS as the kernel reports it starts from the peak of the
    process that forked it, so the benchmark itself stays small (no httpx, no image bytes)."""

    def __init__(self, big: Path, log: Callable[[str], None]) -> None:
        self._big = big
        self._log = log
        self._helper: subprocess.Popen[str] | None = None
        self._work: Path | None = None
        self._served: dict[str, Any] = {}

    @staticmethod
    def unavailable() -> str | None:
        """Why no registry can be started here (None: it can)."""
        if shutil.which("docker-registry") is None:
            return "docker-registry is not installed (apt-get install docker-registry)"
        for module in ("httpx", "pytest"):  # tests/support/registry.py pushes with them
            if importlib.util.find_spec(module) is None:
                return f"{module} is not installed (pip install -e '.[test]')"
        return None

    def _start(self) -> None:
        if self._helper is not None:
            return
        reason = self.unavailable()
        if reason:
            raise BenchError(reason)
        self._work = Path(tempfile.mkdtemp(prefix="olmcat-bench-registry-"))
        self._log(f"pushing the bundle images of {self._big} to a loopback registry ...")
        self._helper = subprocess.Popen(
            [sys.executable, str(INPUTS_TOOL), "--serve", str(self._big), "--out", str(self._work)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._helper.stdout is not None
        line = self._helper.stdout.readline()
        if not line:
            self._helper.wait()
            raise BenchError("scripts/bench_inputs.py --serve stopped before the registry was up")
        self._served = json.loads(line)

    @property
    def host(self) -> str:
        self._start()
        return str(self._served["host"])

    def refs(self) -> list[str]:
        self._start()
        return list(self._served["refs"])

    def layouts(self) -> list[Path]:
        self._start()
        return [Path(p) for p in self._served["layouts"]]

    def close(self) -> None:
        if self._helper is not None:
            assert self._helper.stdin is not None
            self._helper.stdin.close()  # the helper stops its registry and exits
            try:
                self._helper.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._helper.kill()
                self._helper.wait()
            self._helper = None
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)
            self._work = None


def olmcat_renders_registry_images() -> bool:
    """Whether this checkout's `olmcat render` pulls images (issue 23 item 3 adds it)."""
    done = subprocess.run(
        [*olmcat_argv(), "render", "--help"],
        capture_output=True,
        text=True,
        env=olmcat_env(),
        check=False,
    )
    return "--use-http" in done.stdout


def _templates_in(scratch: Path, templates: list[Path], host: str) -> list[Path]:
    """The templates with the registry's address in their image references."""
    out = []
    for template in templates:
        copy = scratch / template.name
        copy.write_text(template.read_text().replace(REGISTRY_PLACEHOLDER, host))
        out.append(copy)
    return out


def render_template(
    tool: str, kind: str, templates: list[Path], registry: BundleRegistry
) -> Prepare:
    """Render each template in turn (one process tree: a shell running them one by one)."""

    def prepare(scratch: Path) -> list[str]:
        files = _templates_in(scratch, templates, registry.host)
        if tool == "opm":
            command = [oracle_tool("opm"), "alpha", "render-template", kind, "--use-http"]
        else:
            command = [*olmcat_argv(), *as_oracle("render-template"), kind, "-q", "--use-http"]
        if len(files) == 1:
            return [*command, str(files[0])]
        script = f'for f in "$@"; do {_shell_join(command)} "$f" || exit 1; done'
        return ["sh", "-c", script, "sh", *map(str, files)]

    return prepare


CHANGE_KEY = "bench.olmcat.io/changed"


def _annotated(text: str) -> str | None:
    """``text`` (a CSV's YAML) with one more entry under ``metadata.annotations``, or None when
    the block is not laid out plainly enough to edit by lines."""
    lines = text.splitlines(keepends=True)
    in_metadata = False
    for index, line in enumerate(lines):
        if line.rstrip("\r\n") == "metadata:":
            in_metadata = True
        elif in_metadata and line[:1] not in ("", " ", "\n", "\r", "#"):
            return None  # metadata ended without an annotations block
        elif in_metadata and line.rstrip("\r\n") == "  annotations:" and index + 1 < len(lines):
            after = lines[index + 1]
            indent = len(after) - len(after.lstrip(" "))
            if indent <= 2 or ":" not in after:
                return None
            added = " " * indent + f'{CHANGE_KEY}: "true"\n'
            return "".join([*lines[: index + 1], added, *lines[index + 1 :]])
    return None


def _natural(path: Path) -> list[tuple[int, str]]:
    """Version directories in version order (0.9.0 before 0.11.0)."""
    return [
        (int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"[.-]", path.name)
    ]


@functools.cache
def _bundle_to_change(tree: Path) -> tuple[str, str]:
    """The package, and the CSV of its newest bundle directory (relative to the tree), that
    the incremental row changes: the first package, by name, whose CSV can be edited by lines."""
    for package in sorted(p for p in tree.iterdir() if p.is_dir()):
        versions = sorted(
            (v for v in package.iterdir() if (v / "manifests").is_dir()), key=_natural
        )
        for version in reversed(versions):
            for csv in sorted((version / "manifests").glob("*clusterserviceversion*.y*ml")):
                if _annotated(csv.read_text(errors="replace")) is not None:
                    return package.name, str(csv.relative_to(tree))
    raise BenchError(f"{tree}: no bundle's CSV to change for the incremental row")


def link_tree(tree: Path) -> Callable[[Path], None]:
    """Setup of the incremental row: ``scratch/tree``, the tree as hard links (the inputs are
    never written to), except the package to be changed, which is a copy (bytes and mtimes)."""

    def setup(scratch: Path) -> None:
        changed, _ = _bundle_to_change(tree)
        target = scratch / "tree"
        for directory, dirs, names in os.walk(tree):
            dirs.sort()
            relative = os.path.relpath(directory, tree)
            here = target / relative
            here.mkdir(parents=True, exist_ok=True)
            copy = relative.split(os.sep)[0] == changed
            for name in names:
                source = os.path.join(directory, name)
                if not copy:
                    with contextlib.suppress(OSError):  # another file system: copy
                        os.link(source, here / name)
                        continue
                shutil.copy2(source, here / name)
            shutil.copystat(directory, here)

    return setup


def change_one_bundle(tree: Path) -> Callable[[Path], None]:
    """Between the cold and the warm run: one more annotation in one bundle's CSV, in the
    scratch copy of its package (a new file: never a hard link to the input)."""

    def between(scratch: Path) -> None:
        _, relative = _bundle_to_change(tree)
        csv = scratch / "tree" / relative
        text = _annotated(csv.read_text(errors="replace"))
        assert text is not None
        csv.unlink()
        csv.write_text(text)

    return between


def _unchanged(scratch: Path) -> None:
    """Between the cold and the warm run of a row that times a warm cache: nothing."""


def _shell_join(argv: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def modern_workloads(
    modern: Modern, registry: BundleRegistry, oracle: bool, log: Callable[[str], None]
) -> tuple[list[Workload], list[dict[str, str]]]:
    """The rows on today's bundles, and the rows left out with the reason."""
    found: list[Workload] = []
    skipped: list[dict[str, str]] = []
    bundles = modern.bundles()
    no_registry = registry.unavailable()

    def skip(name: str, reason: str) -> None:
        skipped.append({"name": name, "reason": reason})

    def refs(tool: str) -> Prepare:
        def prepare(scratch: Path) -> list[str]:
            if tool == "opm":
                return [oracle_tool("opm"), "render", "--use-http", *registry.refs()]
            return [*olmcat_argv(), *as_oracle("render"), "-q", "--use-http", *registry.refs()]

        return prepare

    def layouts(scratch: Path) -> list[str]:
        return [*olmcat_argv(), *as_oracle("render"), "-q", *map(str, registry.layouts())]

    opm_render = Side("opm", refs("opm"), "render.json", stdout="render.json")
    if no_registry or not oracle:
        reason = no_registry or "no opm oracle (../shared/tools/oracle)"
        for name in ("render-images-big", "render-archives-big"):
            skip(name, reason)
    else:
        if olmcat_renders_registry_images():
            found.append(
                Workload(
                    "render-images-big",
                    f"render {len(bundles)} bundle images on a loopback registry",
                    Side("olmcat", refs("olmcat"), "render.json", stdout="render.json"),
                    opm_render,
                    inputs=(modern.big,),
                    compare_outputs=True,
                    throughput=True,
                )
            )
        else:
            skip(
                "render-images-big",
                "this olmcat's render reads no registry images yet (issue 23 item 3); "
                "render-archives-big renders the same images saved to disk",
            )
        found.append(
            Workload(
                "render-archives-big",
                f"render {len(bundles)} bundle images saved as OCI layouts "
                "(opm: the same images on the registry)",
                Side("olmcat", layouts, "render.json", stdout="render.json"),
                opm_render,
                inputs=(modern.big,),
                compare_outputs=True,
                throughput=True,
            )
        )
    render_dirs = olmcat(
        *as_oracle("render"),
        "-q",
        "--image-ref-template",
        "bench.invalid/{package}-bundle:{dir}",
        *bundles,
    )
    for suffix, mode, what in (
        ("", "events", "libyaml's events for their files (nothing built)"),
        ("-vs-load", "load", "yaml.load_all (CSafeLoader) of their files"),
    ):
        found.append(
            Workload(
                f"render-dirs{suffix}-big",
                f"render {len(bundles)} bundle directories against {what}",
                Side("olmcat", render_dirs),
                Side("floor", floor_yaml(mode, modern.big)),
                inputs=(modern.big,),
                throughput=True,
            )
        )
    semver = sorted(modern.templates.glob("semver-*.yaml"))
    kinds = (("basic", [modern.templates / "basic.yaml"]), ("semver", semver))
    for kind, templates in kinds:
        name = f"template-{kind}-big"
        if no_registry or not oracle:
            skip(name, no_registry or "no opm oracle (../shared/tools/oracle)")
            continue
        found.append(
            Workload(
                name,
                f"render-template {kind} over the big set ({len(templates)} template"
                f"{'s' if len(templates) > 1 else ''}, images on a loopback registry)",
                Side(
                    "olmcat",
                    render_template("olmcat", kind, templates, registry),
                    "out.json",
                    stdout="out.json",
                ),
                Side(
                    "opm",
                    render_template("opm", kind, templates, registry),
                    "out.json",
                    stdout="out.json",
                ),
                inputs=(modern.big,),
                compare_outputs=True,
                throughput=True,
            )
        )
    if modern.tree is None:
        skip("migrate-pkgman-tree", "the community tree is not built (scripts/bench_inputs.py)")
    else:
        found.append(
            Workload(
                "migrate-pkgman-tree",
                f"migrate pkgman --permissive {modern.tree.name} (the community tree) against "
                "libyaml's parse of its files",
                # --permissive: a community tree holds bundles opm refuses (e.g. a default
                # channel a semver-mode add cannot set); they are left out with a warning
                Side(
                    "olmcat",
                    olmcat(
                        *as_oracle("migrate", "pkgman"),
                        "-q",
                        "--permissive",
                        modern.tree,
                        "{scratch}/out",
                    ),
                ),
                Side("floor", floor_yaml("events", modern.tree)),
                inputs=(modern.tree,),
                max_runs=2,
                throughput=True,
            )
        )
        package, csv = _bundle_to_change(modern.tree)

        def pkgman(output: str) -> Prepare:
            return olmcat(
                *as_oracle("migrate", "pkgman"),
                "-q",
                "--permissive",
                "{scratch}/tree",
                f"{{scratch}}/{output}",
            )

        found.append(
            Workload(
                "migrate-pkgman-tree-incremental",
                f"migrate pkgman --permissive of the community tree after changing one bundle "
                f"({csv.split('/')[1]} of {package}: one more CSV annotation), warm against "
                "the cold run that filled the rendered-bundle cache",
                Side("olmcat", pkgman("warm"), "warm"),
                Side("cold", pkgman("cold"), "cold"),
                inputs=(modern.tree,),
                # the warm output equals the cold one but for the changed package
                compare_outputs=True,
                changed_output=package,
                max_runs=2,
                setup=link_tree(modern.tree),
                between=change_one_bundle(modern.tree),
            )
        )
        check = olmcat("olmv1", "check", "-q", modern.tree)
        found.append(
            Workload(
                "olmv1-check-tree",
                f"olmv1 check {modern.tree.name} (the community tree's channel heads, v1.11.0's "
                "default gates) from a warm cache, against the cold run that filled it",
                # exit 1: some heads are refused
                Side("olmcat", check, ok=frozenset({0, 1})),
                Side("cold", check, ok=frozenset({0, 1})),
                inputs=(modern.tree,),
                max_runs=1,
                # an incremental row with nothing changed: the cold run is the warm-up
                between=_unchanged,
            )
        )
    if modern.tree is None or modern.tree_old is None:
        skip(
            "diff-crd-safety-tree",
            "the community tree at both commits is not built (scripts/bench_inputs.py)",
        )
    else:
        old_tree, new_tree = modern.tree_old, modern.tree
        old_fbc, new_fbc = tree_fbc(old_tree), tree_fbc(new_tree)

        def make_pair() -> None:
            migrate_tree(old_tree, old_fbc, log)
            migrate_tree(new_tree, new_fbc, log)

        found.append(
            Workload(
                "diff-crd-safety-tree",
                f"diff --crd-safety {old_fbc.name} {new_fbc.name} (the community tree at two "
                "commits, migrated once; CRDs from olm.bundle.object)",
                # exit 1: the catalogs differ
                Side(
                    "olmcat",
                    olmcat("diff", "--crd-safety", "--color", "never", old_fbc, new_fbc),
                    ok=frozenset({0, 1}),
                ),
                inputs=(old_fbc, new_fbc),
                max_runs=1,  # measured once; no target yet
                make_inputs=make_pair,
            )
        )
    return found, skipped


# -- running -----------------------------------------------------------------------------------


def _files(path: Path) -> Iterator[str]:
    """Every file under ``path`` (or ``path`` itself), one at a time: the benchmark must not
    grow with its inputs, since every child's peak RSS starts at the benchmark's own."""
    if path.is_file():
        yield str(path)
        return
    for directory, _, names in os.walk(path):
        for name in names:
            yield os.path.join(directory, name)


def _warm(paths: Sequence[Path]) -> None:
    """Read the inputs once so that neither side pays for a cold page cache."""
    buffer = bytearray(1 << 20)
    for path in paths:
        for file in _files(path):
            with open(file, "rb", buffering=0) as fh:
                while fh.readinto(buffer):
                    pass


def _outputs_equal(left: Path, right: Path) -> bool:
    if left.is_file() or right.is_file():
        return left.is_file() and right.is_file() and filecmp.cmp(left, right, shallow=False)
    comparison = filecmp.dircmp(left, right)
    if comparison.left_only or comparison.right_only or comparison.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(left, right, comparison.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(_outputs_equal(left / d, right / d) for d in comparison.common_dirs)


def _only_changed(left: Path, right: Path, changed: str) -> bool:
    """The warm output of an incremental row against the cold one: the changed subdirectory
    differs (the change reached the output), every other one is byte-identical."""
    names = {p.name for p in left.iterdir()} | {p.name for p in right.iterdir()}
    if changed not in names:
        return False
    for name in sorted(names):
        same = _outputs_equal(left / name, right / name)
        if same == (name == changed):
            return False
    return True


def _summary(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def _side_summary(runs: list[Measurement]) -> dict[str, Any]:
    return {
        "wall": _summary([m.wall for m in runs]),
        "cpu": _summary([m.cpu for m in runs]),
        "peak_rss": _summary([m.peak_rss for m in runs]),
        "runs": [
            {"wall": m.wall, "cpu": m.cpu, "peak_rss": m.peak_rss, "samples": m.samples}
            for m in runs
        ],
    }


@contextlib.contextmanager
def _scratch(base: Path | None) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="olmcat-bench-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def run_workload(
    workload: Workload, runs: int, interval: float, scratch_base: Path | None
) -> dict[str, Any]:
    if workload.make_inputs is not None:
        workload.make_inputs()
    _warm(workload.inputs)
    runs = min(runs, workload.max_runs or runs)
    sides = [workload.subject] + ([workload.reference] if workload.reference else [])
    measured: dict[str, list[Measurement]] = {side.label: [] for side in sides}
    identical: bool | None = None
    for index in range(runs):
        # Alternate which side goes first, so neither always inherits the other's warm caches.
        order = sides if index % 2 == 0 else sides[::-1]
        with contextlib.ExitStack() as stack:
            if workload.incremental:
                assert workload.reference is not None
                order = [workload.reference, workload.subject]  # cold, then warm
                shared = stack.enter_context(_scratch(scratch_base))
                dirs = {side.label: shared for side in order}
                if workload.setup:
                    workload.setup(shared)
            else:
                dirs = {side.label: stack.enter_context(_scratch(scratch_base)) for side in order}
            for side in order:
                here = dirs[side.label]
                if workload.incremental and side is workload.subject:
                    assert workload.between is not None
                    workload.between(here)
                argv = side.prepare(here)
                env = None
                if side.label != "opm":
                    env = olmcat_env()
                    # every run starts cold: an empty blob cache, and no rendered-bundle cache
                    # (`migrate pkgman --no-cache`) but in an incremental row, whose cold run
                    # fills the cache its warm run reads
                    env["OLMCAT_CACHE_DIR"] = str(here / "olmcat-cache")
                    if not workload.incremental:
                        env["OLMCAT_NO_CACHE"] = "1"
                measured[side.label].append(
                    measure(
                        argv,
                        cwd=here,
                        env=env,
                        interval=interval,
                        ok=side.ok,
                        stdout=here / side.stdout if side.stdout else None,
                    )
                )
            if index == 0 and workload.compare_outputs and workload.reference:
                subject, reference = workload.subject, workload.reference
                assert subject.output and reference.output
                left = dirs[subject.label] / subject.output
                right = dirs[reference.label] / reference.output
                if workload.changed_output is None:
                    identical = _outputs_equal(left, right)
                else:
                    identical = _only_changed(left, right, workload.changed_output)
    input_bytes = sum(_size(p) for p in workload.inputs)
    result: dict[str, Any] = {
        "name": workload.name,
        "description": workload.description,
        "inputs": [str(p) for p in workload.inputs],
        "input_mb": round(input_bytes / 1e6, 1),
        "olmcat": _side_summary(measured[workload.subject.label]),
        "reference": workload.reference.label if workload.reference else None,
        "ratio": None,
        "identical_output": identical,
        "changed_output": workload.changed_output,
        "mb_per_s": None,
    }
    if workload.throughput:
        median_wall = result["olmcat"]["wall"]["median"]
        result["mb_per_s"] = input_bytes / 1e6 / median_wall if median_wall else None
    if workload.reference:
        reference_runs = measured[workload.reference.label]
        result["reference_result"] = _side_summary(reference_runs)
        pairs = list(zip(measured[workload.subject.label], reference_runs, strict=True))
        result["ratio"] = {
            "wall": _summary([s.wall / r.wall for s, r in pairs]),
            "cpu": _summary([s.cpu / r.cpu for s, r in pairs if r.cpu > 0] or [float("nan")]),
            "rss": _summary([s.peak_rss / r.peak_rss for s, r in pairs]),
        }
    return result


def _size(path: Path) -> int:
    return sum(os.stat(file).st_size for file in _files(path))


def _git_commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout.strip() or None


# -- output --------------------------------------------------------------------------------------


def _fmt_ratio(ratio: dict[str, float]) -> str:
    return f"{ratio['median']:.2f} ({ratio['min']:.2f}-{ratio['max']:.2f})"


def _progress_line(result: dict[str, Any]) -> str:
    """One line per finished workload on stderr, so a long run shows where it stands."""
    side = result["olmcat"]
    text = (
        f"olmcat wall {side['wall']['median']:.3f} s, cpu {side['cpu']['median']:.3f} s, "
        f"peak {side['peak_rss']['median']:.1f} MiB"
    )
    if result["ratio"]:
        ratio = result["ratio"]
        text += (
            f"; / {result['reference']}: wall {_fmt_ratio(ratio['wall'])}, "
            f"RSS {_fmt_ratio(ratio['rss'])}"
        )
    return text


def table(report: dict[str, Any]) -> str:
    lines = [
        f"olmcat benchmark {report['date']} (commit {report['commit']}, {report['runs']} runs, "
        f"{report['machine']['cpus']} CPUs, load {report['machine']['load_before']:.1f} -> "
        f"{report['machine']['load_after']:.1f}, {report.get('duration_s', 0) / 60:.1f} min)",
        "wall / cpu: min and median seconds; peak: median MiB of the process tree; "
        "ratio: olmcat / reference, median (min-max) over the alternating pairs",
        "",
    ]
    header = (
        f"{'workload':32} {'side':9} {'wall min':>8} {'wall med':>8} {'cpu min':>8} "
        f"{'cpu med':>8} {'peak MiB':>8}   {'wall ratio':>17} {'cpu ratio':>17} {'RSS ratio':>17}"
    )
    lines += [header, "-" * len(header)]
    for result in report["workloads"]:
        rows = [("olmcat", result["olmcat"])]
        if result["reference"]:
            rows.append((result["reference"], result["reference_result"]))
        for index, (label, side) in enumerate(rows):
            name = result["name"] if index == 0 else ""
            text = (
                f"{name:32} {label:9} {side['wall']['min']:8.3f} {side['wall']['median']:8.3f} "
                f"{side['cpu']['min']:8.3f} {side['cpu']['median']:8.3f} "
                f"{side['peak_rss']['median']:8.1f}"
            )
            if index == 0 and result["ratio"]:
                ratio = result["ratio"]
                text += (
                    f"   {_fmt_ratio(ratio['wall']):>17} {_fmt_ratio(ratio['cpu']):>17} "
                    f"{_fmt_ratio(ratio['rss']):>17}"
                )
                if result["identical_output"] is not None:
                    same = result["identical_output"]
                    if result.get("changed_output"):
                        text += "  only the change differs" if same else "  OUTPUT UNEXPECTED"
                    else:
                        text += "  same output" if same else "  OUTPUT DIFFERS"
            lines.append(text.rstrip())
            if index == 0 and result.get("mb_per_s"):
                lines.append(
                    f"{'':32} {'':9} {result['input_mb']:.1f} MB in, {result['mb_per_s']:.2f} MB/s"
                )
    for left_out in report.get("skipped", []):
        lines.append(f"{left_out['name']:32} left out: {left_out['reason']}")
    if report["targets"]:
        lines += ["", "targets:"]
        for target in report["targets"]:
            if target["value"] is None:
                verdict = "not measured"
            else:
                verdict = f"{target['value']:.3f}  {'met' if target['met'] else 'MISSED'}"
            lines.append(f"  {target['name']:40} <= {target['limit']:<6} {verdict}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="runs per side (default 5)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--smoke", action="store_true", help="tiny inputs from fixtures/ (what CI runs)"
    )
    parser.add_argument(
        "-k",
        dest="select",
        action="append",
        default=[],
        metavar="TEXT",
        help="only workloads whose name contains TEXT (repeatable; TEXT$: ends with TEXT)",
    )
    parser.add_argument(
        "-x",
        dest="exclude",
        action="append",
        default=[],
        metavar="TEXT",
        help="leave out workloads whose name contains TEXT (repeatable; TEXT$ as for -k)",
    )
    parser.add_argument("--no-opm", action="store_true", help="do not run the opm oracle")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="scaled inputs")
    parser.add_argument("--scratch", type=Path, help="where outputs are written (default: /tmp)")
    parser.add_argument(
        "--interval", type=float, default=0.01, help="RSS sampling interval (seconds)"
    )
    parser.add_argument("--list", action="store_true", help="list the workloads and stop")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    oracle = have_oracle() and not args.no_opm
    started = time.monotonic()
    registry: BundleRegistry | None = None
    try:
        inputs = smoke_inputs(args.cache, log) if args.smoke else corpus_inputs(args.cache, log)
        found = workloads(inputs, args.cache, log, oracle)
        skipped: list[dict[str, str]] = []
        modern = smoke_modern(args.cache) if args.smoke else modern_inputs(args.cache, log)
        if modern is not None:
            registry = BundleRegistry(modern.big, log)
            more, skipped = modern_workloads(modern, registry, oracle, log)
            found += more

        def matches(name: str, text: str) -> bool:
            # TEXT$ must end the name: -k 'validate-x1$' leaves validate-x10 out
            return name.endswith(text[:-1]) if text.endswith("$") else text in name

        def chosen(name: str) -> bool:
            if any(matches(name, text) for text in args.exclude):
                return False
            return not args.select or any(matches(name, text) for text in args.select)

        selected = [w for w in found if chosen(w.name)]
        skipped = [s for s in skipped if chosen(s["name"])]
        if args.list:
            for workload in selected:
                reference = workload.reference.label if workload.reference else "-"
                print(f"{workload.name:28} vs {reference:10} {workload.description}")
            for left_out in skipped:
                print(f"{left_out['name']:28} left out: {left_out['reason']}")
            return 0
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(ROOT / "src")],
            check=True,
            env=olmcat_env(),
        )
        load_before = os.getloadavg()
        results = []
        for workload in selected:
            log(f"{workload.name}: {min(args.runs, workload.max_runs or args.runs)} runs ...")
            results.append(run_workload(workload, args.runs, args.interval, args.scratch))
            log("  " + _progress_line(results[-1]))
    except BenchError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as error:
        print(f"bench: preparing inputs failed: {error}", file=sys.stderr)
        return 1
    finally:
        if registry is not None:
            registry.close()
    for left_out in skipped:
        log(f"{left_out['name']}: left out: {left_out['reason']}")
    by_name = {r["name"]: r for r in results}
    evaluated = []
    for target in [] if args.smoke else targets(inputs):  # tiny inputs say nothing about them
        value = target.value(by_name)
        evaluated.append(
            {
                "name": target.name,
                "limit": target.limit,
                "value": value,
                "met": None if value is None else value <= target.limit,
            }
        )
    report = {
        "schema": SCHEMA,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _git_commit(),
        "runs": args.runs,
        "smoke": args.smoke,
        "opm": oracle,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "load_before": load_before[0],
            "load_after": os.getloadavg()[0],
            "loadavg_before": list(load_before),
            "loadavg_after": list(os.getloadavg()),
            # what started every command (its memory is a command's floor, see measure())
            "launcher": launcher(),
            "bench_peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        },
        "duration_s": round(time.monotonic() - started, 1),
        "workloads": results,
        "skipped": skipped,
        "targets": evaluated,
    }
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
