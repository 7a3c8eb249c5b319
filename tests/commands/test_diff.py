"""``olmcat diff`` on the command line: formats, options and diff(1) exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.model import PackageCatalog
from olmcat.readers.fbc import FbcCatalog
from olmcat.writers.fbc import write_directory
from tests.support.diff_strategies import LINEAR, A, B, C, D, E, channel, package

GROWN = package(
    [channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name), E(D.name, C.name))],
    [A, B, C, D],
)
# B is gone and nothing bridges it: installs of A lose their path.
BROKEN = package([channel("stable", E(A.name), E(C.name, B.name))], [A, C])


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def fbc(tmp_path: Path, name: str, *packages: PackageCatalog) -> str:
    out = tmp_path / name
    write_directory(list(packages), out)
    return str(out)


@pytest.fixture
def catalogs(tmp_path: Path) -> dict[str, str]:
    return {
        "linear": fbc(tmp_path, "linear", LINEAR),
        "grown": fbc(tmp_path, "grown", GROWN),
        "broken": fbc(tmp_path, "broken", BROKEN),
    }


def test_registered() -> None:
    code, out, _ = invoke("--help")
    assert code == 0 and "diff" in out


def test_identical_exits_0(catalogs: dict[str, str]) -> None:
    code, out, err = invoke("diff", catalogs["linear"], catalogs["linear"])
    assert (code, out, err) == (0, "catalogs are identical\n", "")


def test_different_exits_1_with_text(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke("diff", catalogs["linear"], catalogs["grown"])
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "~ package etcd"
    assert f"    ~ channel stable  head {C.name} -> {D.name}" in lines
    assert f"        + entry {D.name}  replaces {C.name}" in lines
    assert any(line.startswith(f"    + bundle {D.name}  3.0.0") for line in lines)
    assert lines[-1].startswith("1 package differs (1 changed)")
    assert "\x1b[" not in out


def test_stranded_install_in_text(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke("diff", catalogs["linear"], catalogs["broken"])
    assert code == 1
    assert f"    ! stranded install {A.name} (1.0.0) in channel stable" in out
    assert "stranded installs: 1" in out


def test_fail_on_stranded(catalogs: dict[str, str]) -> None:
    assert invoke("diff", "--fail-on", "stranded", catalogs["linear"], catalogs["grown"])[0] == 0
    assert invoke("diff", "--fail-on", "stranded", catalogs["linear"], catalogs["broken"])[0] == 1
    assert invoke("diff", "--fail-on", "any", catalogs["linear"], catalogs["grown"])[0] == 1


def test_json(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke("diff", "--format", "json", catalogs["linear"], catalogs["broken"])
    assert code == 1
    document = json.loads(out)
    assert document["schema"] == "olmcat.diff.v1" and document["identical"] is False
    assert document["summary"]["impact"]["stranded"] == 1
    assert document["packages"][0]["impact"]["stranded"][0]["bundle"] == A.name
    code, out, _ = invoke("diff", "--format", "json", catalogs["linear"], catalogs["linear"])
    assert code == 0 and json.loads(out)["identical"] is True


def test_json_summary(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke(
        "diff", "--format", "json", "--summary", catalogs["linear"], catalogs["grown"]
    )
    assert code == 1
    document = json.loads(out)
    assert document["packages"] == [{"name": "etcd", "status": "changed"}]
    assert document["summary"]["bundles"]["added"] == 1


def test_text_summary(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke("diff", "--summary", catalogs["linear"], catalogs["grown"])
    assert code == 1
    assert out.splitlines()[0] == "~ etcd  channels ~1; bundles +1"


def test_markdown(catalogs: dict[str, str]) -> None:
    code, out, _ = invoke("diff", "--format", "markdown", catalogs["linear"], catalogs["broken"])
    assert code == 1
    assert out.startswith("### Catalog diff: `")
    assert "**⚠️ Upgrade impact** — 1 stranded install" in out
    assert "| `etcd` | ✏️ changed |" in out
    assert "```diff\n~ package etcd\n" in out
    # markers first, so GitHub colours the lines of the diff block
    assert f"\n-         entry {B.name}  replaces {A.name}\n" in out
    code, out, _ = invoke(
        "diff", "--format", "markdown", "--summary", catalogs["linear"], catalogs["broken"]
    )
    assert "<details>" not in out


def test_color(catalogs: dict[str, str]) -> None:
    _, out, _ = invoke("diff", "--color", "always", catalogs["linear"], catalogs["grown"])
    assert "\x1b[32m" in out and "\x1b[0m" in out
    _, out, _ = invoke("diff", "--color", "never", catalogs["linear"], catalogs["grown"])
    assert "\x1b[" not in out
    _, out, _ = invoke("diff", catalogs["linear"], catalogs["grown"])  # auto: not a terminal
    assert "\x1b[" not in out
    _, out, _ = invoke(
        "diff", "--color", "always", "--format", "json", catalogs["linear"], catalogs["grown"]
    )
    assert "\x1b[" not in out


def test_package_filter(tmp_path: Path, catalogs: dict[str, str]) -> None:
    zeta = PackageCatalog(
        replace(GROWN.package, name="zeta"),
        tuple(replace(c, package="zeta") for c in GROWN.channels),
        tuple(replace(b, package="zeta") for b in GROWN.bundles),
    )
    both = fbc(tmp_path, "both", GROWN, zeta)
    code, out, _ = invoke("diff", "--package", "zeta", catalogs["linear"], both)
    assert code == 1 and out.startswith("+ package zeta")
    assert "package etcd" not in out
    code, out, _ = invoke("diff", "-p", "etcd", catalogs["grown"], both)
    assert (code, out) == (0, "catalogs are identical\n")


def test_unknown_package_is_trouble(catalogs: dict[str, str]) -> None:
    code, out, err = invoke("diff", "-p", "nope", catalogs["linear"], catalogs["grown"])
    assert code == 2 and out == ""
    assert err == "olmcat: error: no package 'nope' in either catalog\n"


def test_bad_input_exits_2_with_one_line(tmp_path: Path, catalogs: dict[str, str]) -> None:
    code, _, err = invoke("diff", str(tmp_path / "missing"), catalogs["linear"])
    assert code == 2
    assert err.startswith("olmcat: error: ") and err.count("\n") == 1 and "missing" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "olm.package", "name": "x"} {not json')
    code, _, err = invoke("diff", catalogs["linear"], str(bad))
    assert code == 2 and "not valid JSON" in err and err.count("\n") == 1
    code, _, err = invoke("diff", "-", "-")
    assert code == 2 and "both" in err


def test_usage_error_exits_2(catalogs: dict[str, str]) -> None:
    assert invoke("diff", catalogs["linear"])[0] == 2
    assert invoke("diff", "--format", "yaml", catalogs["linear"], catalogs["linear"])[0] == 2


def test_unexpected_failure_is_trouble_not_difference(
    monkeypatch: pytest.MonkeyPatch, catalogs: dict[str, str]
) -> None:
    import olmcat.diff.catalogs

    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(olmcat.diff.catalogs, "diff_package", boom)
    code, _, err = invoke("diff", catalogs["linear"], catalogs["grown"])
    assert code == 2
    assert err == (
        "olmcat: error: unexpected RuntimeError: kaput (run with --debug for a traceback)\n"
    )
    result = CliRunner().invoke(cli, ["--debug", "diff", catalogs["linear"], catalogs["grown"]])
    assert isinstance(result.exception, RuntimeError)


def test_emit_delta(tmp_path: Path, catalogs: dict[str, str]) -> None:
    out = tmp_path / "delta"
    code, text, err = invoke(
        "diff", "--emit-delta", str(out), catalogs["linear"], catalogs["grown"]
    )
    assert code == 1 and "~ package etcd" in text
    assert err == f"olmcat: wrote delta catalog (1 package, 1 channel, 1 bundle) to {out}\n"
    with FbcCatalog(out) as delta:
        (pkg,) = list(delta)
    assert [e.name for e in pkg.channels[0].entries] == [D.name]
    # the output directory must be new or empty: trouble, and nothing is half-written
    code, _, err = invoke("diff", "--emit-delta", str(out), catalogs["linear"], catalogs["grown"])
    assert code == 2 and "not empty" in err


def test_emit_delta_when_nothing_is_new(tmp_path: Path, catalogs: dict[str, str]) -> None:
    # Only removals: the diff differs, but there is nothing to put in a delta.
    out = tmp_path / "delta"
    code, _, err = invoke("diff", "--emit-delta", str(out), catalogs["grown"], catalogs["linear"])
    assert code == 1 and not out.exists()
    assert err == "olmcat: NEW adds or changes nothing: no delta catalog written\n"
    code, _, _ = invoke("diff", "--emit-delta", str(out), catalogs["linear"], catalogs["linear"])
    assert code == 0 and not out.exists()
    out.mkdir()  # an empty directory given by the user stays
    assert invoke("diff", "--emit-delta", str(out), catalogs["linear"], catalogs["linear"])[0] == 0
    assert out.is_dir()


def test_reads_sqlite_and_fbc_alike(tmp_path: Path, catalogs: dict[str, str]) -> None:
    from tests.support.builders import BundleSpec, PackageSpec, make_index_db

    db = make_index_db(
        tmp_path / "index.db",
        [
            PackageSpec(
                "etcd",
                "stable",
                {
                    "stable": [
                        BundleSpec("etcd.v2.0.0", "2.0.0", replaces="etcd.v1.0.0"),
                        BundleSpec("etcd.v1.0.0", "1.0.0"),
                    ]
                },
            )
        ],
    )
    migrated = tmp_path / "migrated"
    assert invoke("migrate", "sqlite", str(db), str(migrated))[0] == 0
    code, out, _ = invoke("diff", str(db), str(migrated))
    assert (code, out) == (0, "catalogs are identical\n")


def test_real_process(catalogs: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "olmcat", "diff", catalogs["linear"], catalogs["broken"]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "stranded install" in done.stdout


def test_semantics_option_decides_what_is_stranded(tmp_path: Path) -> None:
    # 1.0.0 <- 1.5.0 grows a 2.0.0: nothing stranded along replaces, both 1.x stranded by semver
    old = fbc(tmp_path, "old", package([channel("stable", E(A.name), E(B.name, A.name))], [A, B]))
    major = fbc(
        tmp_path,
        "major",
        package([channel("stable", E(A.name), E(B.name, A.name), E(C.name, B.name))], [A, B, C]),
    )
    code, out, _ = invoke("diff", "--fail-on", "stranded", old, major)
    assert code == 0 and "stranded installs: 0" in out
    code, out, _ = invoke("diff", "--fail-on", "stranded", "--semantics", "semver", old, major)
    assert code == 1 and "stranded installs: 2" in out
