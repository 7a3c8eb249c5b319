"""scripts/bench.py: the process-tree memory sampler, and the smoke run CI does (no timings
asserted: only that every workload ran, was measured and, against opm, wrote the same bytes)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.paths import ROOT

BENCH = ROOT / "scripts" / "bench.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("olmcat_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_peak_memory_counts_every_process_of_the_tree(tmp_path: Path) -> None:
    # A parent that starts two workers, each holding 80 MiB at the same time: the tree's peak is
    # at least 160 MiB although no single process ever exceeds about 90. Each holds its block
    # until both hold theirs, then a second more (however late the other one started).
    ready = tmp_path / "ready"
    ready.mkdir()
    worker = (
        "import os, time; block = b'x' * (80 << 20); "
        f"open(os.path.join({str(ready)!r}, str(os.getpid())), 'w').close()\n"
        f"while len(os.listdir({str(ready)!r})) < 2: time.sleep(0.01)\n"
        "time.sleep(1.0)"
    )
    parent = textwrap.dedent(
        f"""
        import subprocess, sys
        workers = [subprocess.Popen([sys.executable, "-c", {worker!r}]) for _ in range(2)]
        for w in workers:
            w.wait()
        """
    )
    bench = load_bench()
    measured = bench.measure([sys.executable, "-c", parent], cwd=tmp_path)
    assert measured.peak_rss >= 160
    assert measured.wall >= 1.0
    assert measured.samples > 10


@pytest.mark.parametrize("how", ["gnu-time", "python"])
def test_a_command_is_not_charged_with_the_benchmarks_own_memory(tmp_path: Path, how: str) -> None:
    # A child forked straight from a process that holds 300 MiB starts with that process's peak
    # as its own ru_maxrss; started by the launcher, a small command reports what it used.
    bench = load_bench()
    if how == "gnu-time" and bench.launcher() != "gnu-time":
        pytest.skip("GNU time (/usr/bin/time) is not installed")
    script = textwrap.dedent(
        f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("b", {str(BENCH)!r})
        bench = importlib.util.module_from_spec(spec)
        sys.modules["b"] = bench
        spec.loader.exec_module(bench)
        ballast = bytearray(300 << 20)
        for i in range(0, len(ballast), 4096):
            ballast[i] = 1
        small = bench.measure([sys.executable, "-S", "-c", "pass"], cwd=sys.argv[1], how={how!r})
        grown = bench.measure(
            [sys.executable, "-S", "-c", "b = b'x' * (120 << 20)"], cwd=sys.argv[1], how={how!r}
        )
        print(small.peak_rss, grown.peak_rss, small.cpu)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    small, grown, cpu = map(float, done.stdout.split())
    assert small < 40  # a bare interpreter: ~8 MiB, not the 300 MiB of its parent
    assert 120 <= grown < 200
    assert cpu > 0


def test_a_failing_command_is_reported_with_its_stderr(tmp_path: Path) -> None:
    bench = load_bench()
    with pytest.raises(bench.BenchError, match="exited with 3: boom"):
        bench.measure(
            [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"],
            cwd=tmp_path,
        )


@pytest.mark.slow
def test_smoke_run_measures_every_workload(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH),
            "--smoke",
            "--runs",
            "2",
            "--json",
            "--cache",
            str(tmp_path / "cache"),
            "--scratch",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["schema"] == "olmcat.bench.v1"
    names = [w["name"] for w in report["workloads"]]
    for expected in ("import", "migrate-sqlite-json-x1", "migrate-sqlite-yaml-x1"):
        assert expected in names
    assert "migrate-pkgman" in names
    for prefix in ("validate", "validate-vs-read", "diff-vs-read", "filter", "images"):
        assert f"{prefix}-x1" in names
    assert "render-graph-x1" in names
    assert "upgrade-check-x1" in names
    assert report["machine"]["launcher"] in ("gnu-time", "python")
    # the modern rows run on a tiny big set made from fixtures/ (no snapshot needed)
    assert "render-dirs-big" in names and "migrate-pkgman-tree" in names
    # diff --crd-safety of the tree's pair: here the example against itself, migrated once
    assert "diff-crd-safety-tree" in names
    # the incremental row: a cold run that fills the cache, one bundle changed, a warm run
    incremental = next(w for w in report["workloads"] if w["name"].endswith("-incremental"))
    assert incremental["reference"] == "cold"
    assert len(incremental["reference_result"]["runs"]) == 2
    # the changed package's output differs from the cold run's, every other one is identical
    assert incremental["changed_output"] and incremental["identical_output"] is True
    # olmv1 check of the tree from a warm cache: the cold run is the warm-up, measured once
    check = next(w for w in report["workloads"] if w["name"] == "olmv1-check-tree")
    assert check["reference"] == "cold"
    assert len(check["reference_result"]["runs"]) == 1
    skipped = {s["name"]: s["reason"] for s in report["skipped"]}
    registry_rows = ("render-archives-big", "template-basic-big", "template-semver-big")
    for name in registry_rows:
        assert (name in names) != (name in skipped), name
    assert ("render-images-big" in names) != ("render-images-big" in skipped)
    assert report["machine"]["loadavg_before"] and report["duration_s"] > 0
    for workload in report["workloads"]:
        olmcat = workload["olmcat"]
        # the diff --crd-safety rows (no target yet) and olmv1 check of the tree (a cold run
        # first) are measured once (max_runs=1)
        once = workload["name"].startswith("diff-crd-safety-") or workload["name"] == (
            "olmv1-check-tree"
        )
        assert len(olmcat["runs"]) == (1 if once else 2), workload["name"]
        for run in olmcat["runs"]:
            assert run["wall"] > 0 and run["cpu"] > 0 and run["peak_rss"] > 5
        if workload["reference"] is not None:
            assert workload["ratio"]["wall"]["min"] <= workload["ratio"]["wall"]["max"]
    by_name = {w["name"]: w for w in report["workloads"]}
    if report["opm"]:
        for name in ("migrate-sqlite-json-x1", "migrate-sqlite-yaml-x1", "migrate-pkgman"):
            assert by_name[name]["reference"] == "opm"
            assert by_name[name]["identical_output"] is True
        # olmcat and opm render the same bundle images (saved / on the loopback registry) and
        # the same templates to the same bytes
        for name in registry_rows:
            if name in by_name:
                assert by_name[name]["identical_output"] is True, name
    for name in ("render-dirs-big", "migrate-pkgman-tree"):
        assert by_name[name]["reference"] == "floor"
        assert by_name[name]["mb_per_s"] > 0
    assert by_name["diff-vs-read-x1"]["reference"] == "read once"
    # nothing lands in the repository: scaled inputs go to the cache, outputs to scratch
    assert not list(ROOT.glob("*.db"))
    table = load_bench().table(report)
    for name in names:
        assert name in table
