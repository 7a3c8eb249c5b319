#!/usr/bin/env python3
"""Benchmark olmcat against opm on the same inputs, in the same run.

Every workload runs the real command in a child process (interpreter start-up included, as a user
sees it), N times, alternating olmcat with its reference -- opm from ``../shared/tools/oracle``
where there is an opm counterpart, or olmcat merely reading the same catalogs where the target is
"within k x the time to read them" -- so that load from other processes on the machine hits both
sides alike and the ratios stay meaningful even when absolute timings are noisy.

Measured per run: wall time, CPU time (user + system of the process and every descendant it
waited for) and peak memory: the peak of the summed RSS of the whole process tree, sampled from
/proc (worker processes count), never less than the largest single process's own peak.

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
import hashlib
import json
import os
import platform
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
    """

    def __init__(self, root: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval = interval
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
        total = sum(_rss_bytes(pid) for pid in self._tree)
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


def measure(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str] | None = None,
    interval: float = 0.01,
    ok: frozenset[int] = frozenset({0}),
) -> Measurement:
    """Run ``argv`` once; its stdout is discarded, its stderr kept for the error message."""
    with tempfile.TemporaryFile() as stderr:
        started = time.perf_counter()
        process = subprocess.Popen(
            list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=stderr
        )
        sampler = TreeSampler(process.pid, interval)
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
    # ru_maxrss is the largest single process's peak (KiB on Linux): a floor for the tree's peak
    # that also catches a spike shorter than the sampling interval.
    peak = max(sampler.peak, usage.ru_maxrss * 1024)
    return Measurement(wall, usage.ru_utime + usage.ru_stime, peak / MIB, sampler.samples)


# -- workloads ---------------------------------------------------------------------------------

Prepare = Callable[[Path], list[str]]  # scratch dir -> argv (may copy inputs into scratch)


@dataclass(slots=True)
class Side:
    label: str  # "olmcat", "opm", "read once"
    prepare: Prepare
    output: str | None = None  # path inside scratch of what the command writes, to compare
    ok: frozenset[int] = frozenset({0})  # exit statuses that mean success


@dataclass(slots=True)
class Workload:
    name: str
    description: str
    subject: Side
    reference: Side | None = None
    inputs: tuple[Path, ...] = ()
    compare_outputs: bool = False  # the subject's and the opm reference's outputs must match


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
                        olmcat("migrate", "sqlite", "-q", "-o", output, db, "{scratch}/out"),
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
                        olmcat("migrate", "sqlite", "-q", db, "{scratch}/out"),
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
                "olmcat", olmcat("migrate", "pkgman", "-q", inputs.pkgman, "{scratch}/out"), "out"
            ),
            Side("opm", initializer_then_opm(inputs.pkgman), "out") if oracle else None,
            inputs=(inputs.pkgman,),
            compare_outputs=oracle,
        )
    )

    big = scaled_db(inputs.new_db, inputs.pair_scale, cache, log)
    pair: dict[int, tuple[Path, Path]] = {1: (inputs.old_fbc, inputs.fbc)}
    if inputs.pair_scale > 1:
        old_big = scaled_db(inputs.old_db, inputs.pair_scale, cache, log)
        pair[inputs.pair_scale] = (fbc_of(old_big, cache, log), fbc_of(big, cache, log))
    for factor, (old_fbc, new_fbc) in pair.items():
        suffix = f"x{factor}"
        every = factor == 1 or inputs.every_scale
        scaled: list[Workload] = []
        scaled.append(
            Workload(
                f"validate-{suffix}",
                f"validate {new_fbc.name}",
                Side("olmcat", olmcat("validate", "-q", new_fbc)),
                Side("opm", opm_plain("validate", new_fbc)) if oracle else None,
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
                Side("opm", opm_plain("alpha", "render-graph", new_fbc)) if oracle else None,
                inputs=(new_fbc,),
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
    ]


# -- running -----------------------------------------------------------------------------------


def _warm(paths: Sequence[Path]) -> None:
    """Read the inputs once so that neither side pays for a cold page cache."""
    for path in paths:
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        for file in files:
            with file.open("rb") as fh:
                while fh.read(1 << 20):
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
    _warm(workload.inputs)
    sides = [workload.subject] + ([workload.reference] if workload.reference else [])
    measured: dict[str, list[Measurement]] = {side.label: [] for side in sides}
    identical: bool | None = None
    for index in range(runs):
        # Alternate which side goes first, so neither always inherits the other's warm caches.
        order = sides if index % 2 == 0 else sides[::-1]
        with contextlib.ExitStack() as stack:
            dirs = {side.label: stack.enter_context(_scratch(scratch_base)) for side in order}
            for side in order:
                argv = side.prepare(dirs[side.label])
                env = olmcat_env() if side.label != "opm" else None
                measured[side.label].append(
                    measure(argv, cwd=dirs[side.label], env=env, interval=interval, ok=side.ok)
                )
            if index == 0 and workload.compare_outputs and workload.reference:
                subject, reference = workload.subject, workload.reference
                assert subject.output and reference.output
                identical = _outputs_equal(
                    dirs[subject.label] / subject.output, dirs[reference.label] / reference.output
                )
    result: dict[str, Any] = {
        "name": workload.name,
        "description": workload.description,
        "inputs": [str(p) for p in workload.inputs],
        "input_mb": round(sum(_size(p) for p in workload.inputs) / 1e6, 1),
        "olmcat": _side_summary(measured[workload.subject.label]),
        "reference": workload.reference.label if workload.reference else None,
        "ratio": None,
        "identical_output": identical,
    }
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
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


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
        f"{report['machine']['load_after']:.1f})",
        "wall / cpu: min and median seconds; peak: median MiB of the process tree; "
        "ratio: olmcat / reference, median (min-max) over the alternating pairs",
        "",
    ]
    header = (
        f"{'workload':26} {'side':9} {'wall min':>8} {'wall med':>8} {'cpu min':>8} "
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
                f"{name:26} {label:9} {side['wall']['min']:8.3f} {side['wall']['median']:8.3f} "
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
                    text += "  same output" if result["identical_output"] else "  OUTPUT DIFFERS"
            lines.append(text.rstrip())
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
        help="only workloads whose name contains TEXT (repeatable)",
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
    try:
        inputs = smoke_inputs(args.cache, log) if args.smoke else corpus_inputs(args.cache, log)
        selected = [
            w
            for w in workloads(inputs, args.cache, log, oracle)
            if not args.select or any(text in w.name for text in args.select)
        ]
        if args.list:
            for workload in selected:
                reference = workload.reference.label if workload.reference else "-"
                print(f"{workload.name:28} vs {reference:10} {workload.description}")
            return 0
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(ROOT / "src")],
            check=True,
            env=olmcat_env(),
        )
        load_before = os.getloadavg()[0]
        results = []
        for workload in selected:
            log(f"{workload.name}: {args.runs} runs ...")
            results.append(run_workload(workload, args.runs, args.interval, args.scratch))
            log("  " + _progress_line(results[-1]))
    except BenchError as error:
        print(f"bench: {error}", file=sys.stderr)
        return 1
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
            "load_before": load_before,
            "load_after": os.getloadavg()[0],
        },
        "workloads": results,
        "targets": evaluated,
    }
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
