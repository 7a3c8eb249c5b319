"""``olmcat migrate sqlite`` through click: exit codes, one-line errors, atomic output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError
from tests.support.builders import BundleSpec, PackageSpec, make_index_db, simple_package
from tests.support.paths import ROOT, parse_stream


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_migrates_and_prints_a_summary(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package("a"), simple_package("b")])
    code, out, err = invoke("migrate", "sqlite", str(db), str(tmp_path / "out"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["a", "b"]
    assert (tmp_path / "out" / "a" / "catalog.json").read_text().startswith('{\n    "schema"')
    assert "wrote 2 packages, 2 channels, 4 bundles" in err
    assert out == ""


def test_quiet_prints_nothing(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package()])
    code, out, err = invoke("migrate", "sqlite", "-q", str(db), str(tmp_path / "out"))
    assert (code, out, err) == (0, "", "")


def test_yaml_output_writes_catalog_yaml(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package()])
    code, _, err = invoke("migrate", "sqlite", "-q", "-o", "yaml", str(db), str(tmp_path / "out"))
    assert code == 0, err
    text = (tmp_path / "out" / "demo" / "catalog.yaml").read_text()
    assert text.startswith("---\ndefaultChannel: stable\n")


def test_existing_non_empty_output_is_refused(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package()])
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, _, err = invoke("migrate", "sqlite", str(db), str(out))
    assert code == 1
    assert (
        err.strip()
        == f"olmcat: error: output directory {out} is not empty; remove it or choose another path"
    )
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_empty_existing_output_directory_is_used(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package()])
    (tmp_path / "out").mkdir()
    code, _, err = invoke("migrate", "sqlite", "-q", str(db), str(tmp_path / "out"))
    assert code == 0, err
    assert (tmp_path / "out" / "demo" / "catalog.json").is_file()


BAD_INPUTS = {
    "not-a-file": (lambda p: p.mkdir(), "not a file holding a SQLite index database"),
    "not-sqlite": (
        lambda p: p.write_text("plain text"),
        "not an SQLite database (wrong file header)",
    ),
    "truncated": (
        lambda p: p.write_bytes(
            make_index_db(
                p.with_suffix(".full"), [simple_package(f"p{i}") for i in range(40)]
            ).read_bytes()[:20000]
        ),
        "corrupt",
    ),
    "unknown-schema": (
        lambda p: make_index_db(p, [simple_package()], schema_version=42),
        "unknown index schema version 42",
    ),
    "bad-bundle-json": (
        lambda p: make_index_db(
            p,
            [
                PackageSpec(
                    "demo",
                    "stable",
                    {"stable": [BundleSpec("demo.v1", "1.0.0", bundle_text="{oops")]},
                )
            ],
        ),
        "package 'demo': bundle 'demo.v1': manifest 1 is not valid JSON",
    ),
    "unsafe-package-name": (
        lambda p: make_index_db(p, [simple_package("../escape")]),
        "package name '../escape' cannot be used as a directory name: it contains a path separator",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_exit_1_and_nothing_written(case: str, tmp_path: Path) -> None:
    setup, message = BAD_INPUTS[case]
    db = tmp_path / "input.db"
    setup(db)
    out = tmp_path / "out"
    code, stdout, err = invoke("migrate", "sqlite", str(db), str(out))
    assert code == 1
    assert stdout == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("olmcat: error: "), err
    assert message in lines[0]
    assert not out.exists()
    assert not list(tmp_path.glob(".out*"))  # no staging directory left behind


def test_debug_shows_the_exception(tmp_path: Path) -> None:
    (tmp_path / "x.db").write_text("nope")
    result = CliRunner().invoke(
        cli, ["--debug", "migrate", "sqlite", str(tmp_path / "x.db"), str(tmp_path / "o")]
    )
    assert result.exit_code == 1
    assert isinstance(result.exception, InputError)


@pytest.mark.parametrize(
    "args",
    [
        ["migrate", "sqlite"],
        ["migrate", "sqlite", "a.db"],
        ["migrate", "sqlite", "-o", "xml", "a.db", "out"],
        ["migrate", "sqlite", "--migrate-level", "all", "a.db", "out"],
        ["migrate", "nosuch"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    code, _, err = invoke(*args)
    assert code == 2
    assert "Usage:" in err or "Error:" in err


def test_every_command_has_help() -> None:
    for args in (["--help"], ["migrate", "--help"], ["migrate", "sqlite", "--help"]):
        code, out, _ = invoke(*args)
        assert code == 0 and "Usage:" in out and len(out.splitlines()) > 3


def test_python_dash_m_entry_point(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "olmcat", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout.startswith("olmcat, version ")


_STOPS_AFTER_50_PACKAGES = """
import os, signal, sys
import olmcat.writers.fbc as fbc
from olmcat.__main__ import run

written = 0
write_file = fbc._write_file

def write_and_stop(path, chunks):
    global written
    write_file(path, chunks)
    written += 1
    if written == 50:
        os.kill(os.getpid(), signal.SIGSTOP)  # the test kills it here

fbc._write_file = write_and_stop
sys.argv[0] = "olmcat"
run()
"""


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] == "T"


def test_killed_run_leaves_no_partial_output(tmp_path: Path) -> None:
    """SIGKILL in the middle of a migration: <out> must not exist; the next run cleans up. The
    run stops itself once it has written 50 packages, so the kill lands in the middle however
    fast or slow the machine is."""
    packages = [simple_package(f"pkg{i:05d}", ("0.3.0", "0.2.0", "0.1.0")) for i in range(200)]
    db = make_index_db(tmp_path / "big.db", packages)
    out = tmp_path / "out"
    command = [sys.executable, "-c", _STOPS_AFTER_50_PACKAGES, "migrate", "sqlite", "-q"]
    process = subprocess.Popen([*command, str(db), str(out)])
    deadline = time.monotonic() + 300  # (a bound against hanging only)
    while not _stopped(process.pid):
        assert process.poll() is None, "migration finished before it could be killed"
        assert time.monotonic() < deadline, "the migration never reached its 50th package"
        time.sleep(0.01)
    staging = list(tmp_path.glob(".out.olmcat-partial-*"))
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert staging, "the migration never started writing"
    assert len(list(staging[0].iterdir())) == 50
    assert not out.exists()
    # A later run removes the dead run's staging directory and completes.
    small = make_index_db(tmp_path / "small.db", [simple_package()])
    code, _, err = invoke("migrate", "sqlite", "-q", str(small), str(out))
    assert code == 0, err
    assert not list(tmp_path.glob(".out.olmcat-partial-*"))


def test_missing_parent_directories_are_created(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package()])
    out = tmp_path / "a" / "b" / "out"
    code, _, err = invoke("migrate", "sqlite", "-q", str(db), str(out))
    assert code == 0, err
    assert (out / "demo" / "catalog.json").is_file()


def test_failed_run_removes_the_parents_it_created(tmp_path: Path) -> None:
    db = make_index_db(tmp_path / "index.db", [simple_package("../bad")])
    code, _, _ = invoke("migrate", "sqlite", str(db), str(tmp_path / "a" / "b" / "out"))
    assert code == 1
    assert not (tmp_path / "a").exists()


def test_migrate_level_replaces_objects_by_csv_metadata(tmp_path: Path) -> None:
    with_image = BundleSpec(
        "demo.v1", "1.0.0", image="quay.io/demo:1", csv_spec={"displayName": "Demo <beta>"}
    )
    without_image = BundleSpec("demo.v0", "0.1.0")
    with_image.replaces = "demo.v0"
    db = make_index_db(
        tmp_path / "index.db",
        [PackageSpec("demo", "stable", {"stable": [with_image, without_image]})],
    )
    code, _, err = invoke(
        "migrate",
        "sqlite",
        "-q",
        "--migrate-level",
        "bundle-object-to-csv-metadata",
        str(db),
        str(tmp_path / "out"),
    )
    assert code == 0, err
    blobs = {
        b["name"]: b
        for b in parse_stream((tmp_path / "out" / "demo" / "catalog.json").read_text())
        if b["schema"] == "olm.bundle"
    }
    types = [p["type"] for p in blobs["demo.v1"]["properties"]]
    assert types[-1] == "olm.csv.metadata" and "olm.bundle.object" not in types
    assert blobs["demo.v1"]["properties"][-1]["value"]["displayName"] == "Demo <beta>"
    # opm leaves bundles without an image alone.
    assert "olm.bundle.object" in [p["type"] for p in blobs["demo.v0"]["properties"]]


def test_every_registered_command_loads_and_has_help() -> None:
    from olmcat.cli import COMMANDS

    for name in COMMANDS:
        code, out, _ = invoke(name, "--help")
        assert code == 0 and "Usage:" in out, name
    code, out, _ = invoke("--help")
    assert all(name in out for name in COMMANDS)


def test_the_summary_counts_the_input_layers_warnings_too(tmp_path: Path) -> None:
    """A duplicate key is reported by the YAML loader (the input layer), not by the migration:
    the closing line still counts it, as many warnings as --report holds."""
    import json
    import shutil

    tree = tmp_path / "manifests"
    shutil.copytree(ROOT / "fixtures" / "example" / "manifests", tree)
    crd = tree / "hello-operator" / "0.3.0" / "hellos.example.com.crd.yaml"
    crd.write_text(crd.read_text() + "kind: CustomResourceDefinition\n")  # `kind` again
    report = tmp_path / "report.json"
    code, _, err = invoke(
        "migrate", "pkgman", str(tree), str(tmp_path / "out"), "--report", str(report)
    )
    assert code == 0, err
    records = json.loads(report.read_text())["notices"]
    warnings = [r for r in records if r["severity"] == "warning"]
    assert any(r["code"] == "yaml.duplicate-key" for r in warnings), records
    assert f"({len(warnings)} warnings" in err.splitlines()[-1], err
