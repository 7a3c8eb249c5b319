"""A write that does not fit is reported as a failure to write what was being written (issue 21).

Every command that writes is run twice: with a file-size limit (``ulimit -f``: ``RLIMIT_FSIZE``,
SIGXFSZ ignored, so the write fails with ``EFBIG``) small enough that its output file cannot be
written, and with standard output on ``/dev/full`` (``ENOSPC``). Either way the one error line
must name what could not be written -- the output, standard output, or olmcat's temporary file --
and what to do; never the input, which was read fine ("unexpected failure reading ...",
"cannot read ...").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import hostile_inputs as make
from tests.support.builders import BundleSpec, PackageSpec, make_index_db
from tests.support.hostile import Result, Sandbox

pytestmark = pytest.mark.slow

KiB = 1 << 10


def nested_value(count: int = 300) -> dict[str, object]:
    """A property value that opm's indented output makes ~10x larger than the input holds it."""
    return {
        "items": [{"name": f"n{i}", "spec": {"a": {"b": {"c": [i, i + 1]}}}} for i in range(count)]
    }


def wide_fbc(root: Path, packages: tuple[str, ...] = ("big", "small")) -> Path:
    """Packages ``big`` (catalog.json 15 KB in, ~136 KB out: opm's indentation) and ``small``."""
    blobs = {
        "big": [
            {"schema": "olm.package", "name": "big", "defaultChannel": "stable"},
            {"schema": "olm.channel", "name": "stable", "package": "big",
             "entries": [{"name": "big.v1.0.0"}]},
            {"schema": "olm.bundle", "name": "big.v1.0.0", "package": "big",
             "image": "quay.io/example/big-bundle:v1.0.0",
             "properties": [
                 {"type": "olm.package", "value": {"packageName": "big", "version": "1.0.0"}},
                 {"type": "example.com/nested", "value": nested_value()}]},
        ],
        "small": [
            {"schema": "olm.package", "name": "small", "defaultChannel": "stable"},
            {"schema": "olm.channel", "name": "stable", "package": "small",
             "entries": [{"name": "small.v1.0.0"}]},
            {"schema": "olm.bundle", "name": "small.v1.0.0", "package": "small",
             "image": "quay.io/example/small-bundle:v1.0.0",
             "properties": [
                 {"type": "olm.package", "value": {"packageName": "small", "version": "1.0.0"}}]},
        ],
    }  # fmt: skip
    for package in packages:
        items = blobs[package]
        (root / package).mkdir(parents=True)
        text = "\n".join(json.dumps(b, separators=(",", ":")) for b in items)
        (root / package / "catalog.json").write_text(text)
    return root


def wide_db(path: Path) -> Path:
    """The ``big`` package of :func:`wide_fbc` as an index database, with 800 related images
    (so that a mirror plan's mapping.txt is large too)."""
    bundle = BundleSpec(
        "big.v1.0.0",
        "1.0.0",
        image="quay.io/example/big-bundle:v1.0.0",
        properties=[("example.com/nested", json.dumps(nested_value()))],
        related_images=[f"quay.io/example/related-{i:04d}:v1" for i in range(800)],
    )
    return make_index_db(path, [PackageSpec("big", "stable", {"stable": [bundle]})])


def big_csv_tree(root: Path) -> Path:
    """The example package-manifest tree, world-operator's CSV grown to ~43 KB (a long
    description): its copy, and its package's catalog.json, are the largest files written."""
    make.pkgman_tree(root)
    (csv_file,) = (root / "world-operator").glob("*/*clusterserviceversion.yaml")
    lines = "".join(f"    line {i} of a long description\n" for i in range(1200))
    text = csv_file.read_text()
    old = "  description: Answers the greetings of hello-operator (needs its Hello v1 API).\n"
    assert old in text
    csv_file.write_text(text.replace(old, f"  description: |\n{lines}"))
    return root


def build(box: Sandbox) -> None:
    wide_fbc(box.input / "c")
    wide_fbc(box.input / "small", packages=("small",))
    wide_db(box.input / "index.db")
    big_csv_tree(box.input / "m")
    make.oci_archive(
        box.input / "img.oci.tar",
        make.tar_bytes({"database/index.db": (box.input / "index.db").read_bytes()}),
    )


@dataclass(frozen=True)
class Case:
    args: tuple[str, ...]
    names: str  # what the error line must name
    limit: int = 64 * KiB
    prepare: Callable[[Sandbox], None] | None = None
    code: int = 1
    reason: str = "File too large"

    def __str__(self) -> str:
        return " ".join(self.args)


def _out_dir(box: Sandbox) -> None:
    box.out.mkdir()


EFBIG_CASES = [
    Case(("migrate", "sqlite", "input/index.db", "out"), "out/big/catalog.json"),
    Case(("migrate", "sqlite", "-o", "yaml", "input/index.db", "out"), "out/big/catalog.yaml"),
    Case(("migrate", "sqlite", "input/img.oci.tar", "out"), "out/big/catalog.json", 160 * KiB),
    # the database in the image is larger than the limit: extracting it is what fails
    Case(
        ("migrate", "sqlite", "input/img.oci.tar", "out"),
        "/database/index.db of input/img.oci.tar",
        limit=16 * KiB,
    ),
    Case(("migrate", "pkgman", "input/m", "out"), "out/world-operator/catalog.json", 40_000),
    Case(
        ("convert", "pkgman-to-bundles", "input/m", "out"),
        "out/world-operator/1.0.0/manifests/world-operator.v1.0.0.clusterserviceversion.yaml",
        40_000,
    ),
    Case(("filter", "input/index.db", "out"), "out/big/catalog.json"),
    Case(("filter", "input/c", "out"), "out/big/catalog.json"),
    # SQLite keeps the errno to itself: its own words, and every likely cause
    Case(
        ("export", "sqlite", "input/index.db", "out/x.db"),
        "out/x.db",
        prepare=_out_dir,
        reason="disk I/O error",
    ),
    Case(("diff", "input/small", "input/c", "--emit-delta", "out"), "out/big/catalog.json", code=2),
    Case(
        ("mirror", "plan", "input/index.db", "mirror.example.com/olm", "out"),
        "out/imageTagMirrorSet.yaml",
    ),
    # templates/ writes without naming its files; the staged output directory is named instead
    Case(("template", "basic", "--inline-bundles", "input/index.db", "out"), "out:"),
    Case(("rm", "input/c", "small", "out"), "out/big/catalog.json"),
    Case(("prune", "-k", "big", "input/c", "out"), "out/big/catalog.json"),
    Case(("prune-stranded", "input/c", "out"), "out/big/catalog.json"),
    # in place: the catalog named (not its staged copy), and left as it was
    Case(("rm", "--in-place", "input/c", "small"), "input/c/big/catalog.json"),
    # a report larger than the limit (80 notices), behind a catalog that fits
    Case(
        (
            "migrate",
            "pkgman",
            "--permissive",
            "--report",
            "out/report.json",
            "input/junk",
            "out/fbc",
        ),
        "the report out/report.json",
        limit=20 * KiB,
        prepare=lambda box: _tree_with_notices(box),
    ),
]


def _tree_with_notices(box: Sandbox) -> None:
    """The example tree with 80 files --permissive ignores, each with a notice."""
    box.out.mkdir()
    tree = make.pkgman_tree(box.input / "junk")
    for index in range(80):
        (tree / "hello-operator" / "0.1.0" / f"junk-{index}.yaml").write_text("kind: [open\n")


def assert_one_error_line(result: Result, code: int) -> str:
    """Exit ``code``, no traceback, one error line (warnings about the input may precede it)."""
    assert result.code == code, result.describe()
    assert "Traceback" not in result.stderr, result.describe()
    errors = [line for line in result.lines if not line.startswith("olmcat: warning: ")]
    assert len(errors) == 1 and errors[0].startswith("olmcat: "), result.describe()
    return errors[0]


@pytest.mark.parametrize("case", EFBIG_CASES, ids=str)
def test_a_file_size_limit_names_the_output(tmp_path: Path, case: Case) -> None:
    box = Sandbox(tmp_path)
    build(box)
    if case.prepare is not None:
        case.prepare(box)
    result = box.run(*case.args, file_size=case.limit)
    line = assert_one_error_line(result, case.code)
    assert f"cannot write {case.names}" in line, result.describe()
    assert case.reason in line and "raise the" in line and "limit" in line, result.describe()
    assert "reading" not in line and "cannot read" not in line, result.describe()
    assert box.leftovers() == []


STDOUT_CASES = [
    Case(("images", "input/index.db"), ""),
    Case(("render-graph", "input/index.db"), ""),
    Case(("query", "input/index.db", "packages"), ""),
    Case(("validate", "-o", "json", "input/index.db"), ""),
    Case(("diff", "input/small", "input/index.db"), "", code=2),  # diff's "trouble"
    Case(("migrate", "sqlite", "input/index.db", "-"), ""),
    Case(("migrate", "sqlite", "input/img.oci.tar", "-"), ""),
    Case(("migrate", "pkgman", "input/m"), ""),
    Case(("filter", "input/c", "-"), ""),
    Case(("export", "sqlite", "input/index.db", "-"), ""),
    Case(("render", "input/bundle"), "", prepare=lambda box: make.bundle_dir(box.input / "bundle")),
    Case(("cache", "info"), ""),
    Case(
        ("upgrade-check", "--installed", "input/installed.csv", "input/small", "input/c"),
        "",
        prepare=lambda box: (box.input / "installed.csv").write_text(
            "package,channel,version\nsmall,stable,1.0.0\n"
        ),
        code=2,  # upgrade-check's "trouble"
    ),
]


@pytest.mark.parametrize("case", STDOUT_CASES, ids=str)
def test_a_full_disk_behind_stdout_names_standard_output(tmp_path: Path, case: Case) -> None:
    box = Sandbox(tmp_path)
    build(box)
    if case.prepare is not None:
        case.prepare(box)
    with open("/dev/full", "wb") as full:
        result = box.run(*case.args, stdout=full.fileno())
    line = assert_one_error_line(result, case.code)
    assert "cannot write standard output: No space left on device" in line, result.describe()
    assert "free space there or write it elsewhere" in line, result.describe()
    assert box.leftovers() == []
