#!/usr/bin/env python3
"""Benchmark ``olmcat migrate``: wall seconds and peak RSS of the whole process.

Runs the real command in a child process (so interpreter start-up is included, as a user sees it)
several times and reports the median wall time and the largest peak RSS.

    python scripts/bench_migrate.py DB [DB ...] [--runs 5] [--output json|yaml]
    python scripts/bench_migrate.py --scale 10 ../shared/corpus/sqlite/upstream-subset.db
    python scripts/bench_migrate.py --pkgman ../shared/corpus/pkgman/upstream-subset

``--scale N`` first builds an N-times larger copy of each DB with ``../shared/tools/scale-db.py``
(in a temporary directory) and benchmarks both, printing the ratios the issue targets.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCALE_TOOL = ROOT.parent / "shared" / "tools" / "scale-db.py"


def run_once(db: Path, output: str, workdir: Path, kind: str = "sqlite") -> tuple[float, float]:
    """One migration in a child process: (wall seconds, peak RSS in MiB)."""
    out = workdir / "out"
    shutil.rmtree(out, ignore_errors=True)
    command = [
        sys.executable,
        "-m",
        "olmcat",
        "migrate",
        kind,
        "-q",
        "-o",
        output,
        str(db),
        str(out),
    ]
    started = time.perf_counter()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"migration of {db} failed with exit status {process.returncode}")
    return wall, usage.ru_maxrss / 1024  # Linux reports KiB


def _size(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def bench(db: Path, runs: int, output: str, kind: str = "sqlite") -> tuple[float, float]:
    with tempfile.TemporaryDirectory(prefix="olmcat-bench-") as tmp:
        results = [run_once(db, output, Path(tmp), kind) for _ in range(runs)]
    wall = statistics.median(r[0] for r in results)
    rss = max(r[1] for r in results)
    size = _size(db)
    print(
        f"{db.name:32} {size:7.1f} MB  wall {wall:6.3f} s (median of {runs})"
        f"  peak RSS {rss:6.1f} MiB"
    )
    return wall, rss


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("databases", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--output", choices=("json", "yaml"), default="json")
    parser.add_argument("--scale", type=int, default=0, help="also benchmark an N-times copy")
    parser.add_argument(
        "--pkgman", action="store_true", help="the inputs are package-manifest directories"
    )
    args = parser.parse_args()
    kind = "pkgman" if args.pkgman else "sqlite"
    for db in args.databases:
        base_wall, base_rss = bench(db, args.runs, args.output, kind)
        if args.pkgman:
            continue
        if args.scale > 1:
            if not SCALE_TOOL.exists():
                raise SystemExit(f"{SCALE_TOOL} not found: --scale needs ../shared/tools")
            with tempfile.TemporaryDirectory(prefix="olmcat-scale-") as tmp:
                big = Path(tmp) / f"{db.stem}-x{args.scale}.db"
                subprocess.run(
                    [sys.executable, str(SCALE_TOOL), str(db), str(big), str(args.scale)],
                    check=True,
                )
                wall, rss = bench(big, args.runs, args.output)
            print(
                f"{'':32} x{args.scale}: wall ratio {wall / base_wall:.2f} "
                f"(target <= {args.scale + 1}), "
                f"peak RSS ratio {rss / base_rss:.2f} (target <= 1.5)"
            )


if __name__ == "__main__":
    main()
