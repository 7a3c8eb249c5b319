"""The CLI boundary: closed pipes, full disks, closed standard streams, the catch-all, and the
common options (``--debug``, ``-q``, ``-``) on every command in any position (issue 12)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from olmcat.cli import COMMANDS, cli
from olmcat.commands._errors import one_line
from tests.support import hostile_inputs as make
from tests.support.hostile import Sandbox, assert_one_line_failure
from tests.support.terminal import run_on_terminal


def big_fbc(root: Path, packages: int = 300) -> Path:
    """An FBC whose `images` listing is far larger than a pipe buffer."""
    root.mkdir(parents=True)
    for index in range(packages):
        name = f"pkg-{index:04d}"
        blobs = [
            {"schema": "olm.package", "name": name, "defaultChannel": "stable"},
            {"schema": "olm.channel", "name": "stable", "package": name,
             "entries": [{"name": f"{name}.v1.0.0"}]},
            {"schema": "olm.bundle", "name": f"{name}.v1.0.0", "package": name,
             "image": f"quay.io/example/{name}-bundle:v1.0.0",
             "properties": [{"type": "olm.package",
                             "value": {"packageName": name, "version": "1.0.0"}}],
             "relatedImages": [{"name": f"img{i}", "image": f"quay.io/example/{name}-{i}:v1"}
                               for i in range(10)]},
        ]  # fmt: skip
        (root / name).mkdir()
        (root / name / "catalog.json").write_text("\n".join(json.dumps(b) for b in blobs))
    return root


# -- stdout: closed pipe, full disk, closed --------------------------------------------------------


def test_closed_pipe_ends_quietly_with_status_0(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    big_fbc(box.input / "c")
    # `olmcat images X | head -1` under `set -o pipefail`: olmcat's status must not fail it.
    script = (
        f"set -o pipefail; {sys.executable} -m olmcat images input/c | head -1 > first.txt; "
        "echo $? > status.txt"
    )
    env = box.environment()
    done = subprocess.run(
        ["bash", "-c", script], cwd=box.root, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.stderr == "", done.stderr
    assert (box.root / "status.txt").read_text().strip() == "0"
    assert (box.root / "first.txt").read_text().startswith("quay.io/example/pkg-0000")
    (box.root / "status.txt").unlink()
    (box.root / "first.txt").unlink()
    assert box.leftovers() == []


@pytest.mark.parametrize(
    "args",
    [
        ["images", "input/c"],
        ["migrate", "pkgman", "input/m"],
        ["migrate", "sqlite", "input/index.db", "-"],
        ["filter", "input/c", "-"],
        ["render-graph", "input/c"],
        ["query", "input/c", "packages"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_stdout_on_a_full_disk(tmp_path: Path, args: list[str]) -> None:
    box = Sandbox(tmp_path)
    big_fbc(box.input / "c", packages=20)
    make.pkgman_tree(box.input / "m")
    make.index_db(box.input / "index.db")
    with open("/dev/full", "wb") as full:
        result = box.run(*args, stdout=full.fileno())
    assert_one_line_failure(result, codes=(1,))
    assert "No space left on device" in result.lines[0], result.describe()
    assert box.leftovers() == []


def mount_tiny_tmpfs(path: Path, size: str = "96k") -> bool:
    path.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


@pytest.mark.parametrize(
    "args",
    [
        ["migrate", "pkgman", "input/m", "disk/out"],
        ["migrate", "sqlite", "input/index.db", "disk/out"],
        ["filter", "input/c", "disk/out"],
        ["convert", "pkgman-to-bundles", "input/m", "disk/out"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_directory_output_on_a_full_disk(tmp_path: Path, args: list[str]) -> None:
    box = Sandbox(tmp_path, allowed_extra=("disk",))
    if not mount_tiny_tmpfs(box.root / "disk"):
        pytest.skip("cannot mount a small tmpfs here (needs root) to fill a disk")
    try:
        (box.root / "disk" / "filler").write_bytes(b"x" * (88 << 10))
        make.pkgman_tree(box.input / "m")
        make.index_db(box.input / "index.db")
        big_fbc(box.input / "c", packages=20)
        result = box.run(*args)
        assert_one_line_failure(result, codes=(1,))
        assert "No space left on device" in result.lines[0], result.describe()
        assert "disk/out" in result.lines[0], result.describe()
        assert sorted(p.name for p in (box.root / "disk").iterdir()) == ["filler"]
        assert box.leftovers() == []
    finally:
        subprocess.run(["umount", str(box.root / "disk")], check=False, timeout=10)


def test_image_extraction_on_a_full_tmpdir(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    db = make.index_db(box.outside / "index.db").read_bytes()
    make.oci_archive(box.input / "img.oci.tar", make.tar_bytes({"database/index.db": db}))
    shutil.rmtree(box.tmp)
    if not mount_tiny_tmpfs(box.tmp, size="16k"):
        pytest.skip("cannot mount a small tmpfs here (needs root) to fill a disk")
    try:
        result = box.run("migrate", "sqlite", "input/img.oci.tar", "out")
        assert_one_line_failure(result, codes=(1,))
        assert "No space left on device" in result.lines[0], result.describe()
        assert "img.oci.tar" in result.lines[0] and "TMPDIR" in result.lines[0]
        assert box.leftovers() == []
    finally:
        subprocess.run(["umount", str(box.tmp)], check=False, timeout=10)


def test_closed_stdout_and_stdin(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    make.pkgman_tree(box.input / "m")
    env = box.environment()
    olmcat = f"{sys.executable} -m olmcat"
    for script, expected in [
        (f"{olmcat} migrate pkgman input/m >&-", "stdout is closed"),
        (f"{olmcat} images input/m >&-", "stdout is closed"),
        (f"{olmcat} images - <&-", "closed"),
        (f"{olmcat} migrate sqlite - out <&-", "stdin is closed"),
    ]:
        done = subprocess.run(
            ["bash", "-c", script], cwd=box.root, env=env, capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
        assert done.returncode == 1, (script, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and expected in lines[0], (script, done.stderr)
    done = subprocess.run(
        ["bash", "-c", f"{olmcat} validate - <&-"],
        cwd=box.root, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "closed" in done.stdout + done.stderr, done
    assert len(done.stderr.splitlines()) == 1
    assert box.leftovers() == []


# -- the catch-all ---------------------------------------------------------------------------------


def test_unexpected_errors_become_one_line_naming_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from olmcat.files import godecode

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("an internal mistake\nspanning lines")

    monkeypatch.setenv("OLMCAT_WORKERS", "1")
    monkeypatch.setattr(godecode, "first_document", broken)
    tree = make.pkgman_tree(tmp_path / "m")
    result = CliRunner().invoke(cli, ["migrate", "pkgman", str(tree), str(tmp_path / "out")])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert str(tree) in lines[0] and "--debug" in lines[0] and "ValueError" in lines[0]
    assert "Traceback" not in result.stderr
    # --debug anywhere after the command name shows the real exception instead.
    for args in (
        ["--debug", "migrate", "pkgman", str(tree), str(tmp_path / "out")],
        ["migrate", "--debug", "pkgman", str(tree), str(tmp_path / "out")],
        ["migrate", "pkgman", str(tree), str(tmp_path / "out"), "--debug"],
    ):
        result = CliRunner().invoke(cli, args)
        assert isinstance(result.exception, ValueError), args


def test_an_interrupt_wrapped_by_python_is_still_an_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11 wraps a Ctrl-C that lands in a class body's ``__set_name__`` (an import
    creating a dataclass) in a RuntimeError: still one line and 130 (seen under load)."""
    from olmcat.files import godecode

    def wrapped(*args: object, **kwargs: object) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as interrupt:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance") from interrupt

    monkeypatch.setenv("OLMCAT_WORKERS", "1")
    monkeypatch.setattr(godecode, "first_document", wrapped)
    tree = make.pkgman_tree(tmp_path / "m")
    for debug in ([], ["--debug"]):
        args = ["migrate", "pkgman", *debug, str(tree), str(tmp_path / "out")]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 130, (args, result.stderr)
        assert result.stderr.splitlines() == ["olmcat: interrupted"], args
        assert not (tmp_path / "out").exists()


def test_one_line_escapes_line_breaks_and_terminal_controls() -> None:
    text = one_line("a\nb\r\nc\x85d\u2028e\x1b[2Jf\u202eg")
    assert len(text.splitlines()) == 1
    assert "\x1b" not in text and "\u202e" not in text
    assert text == "a; b; c; d; e\\x1b[2Jf\\u202eg"


# -- common options everywhere ---------------------------------------------------------------------


def leaf_commands() -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            found += [(name, sub) for sub in command.commands]
        else:
            found.append((name,))
    return found


def test_every_command_and_group_has_the_common_options() -> None:
    ctx = click.Context(cli)
    for path in leaf_commands():
        command: click.Command | None = cli.get_command(ctx, path[0])
        chain = [command]
        for name in path[1:]:
            assert isinstance(command, click.Group)
            command = command.commands[name]
            chain.append(command)
        for each in chain:
            assert each is not None
            flags = {flag for p in each.params for flag in (*p.opts, *p.secondary_opts)}
            for flag in (
                "--debug",
                "-q",
                "--follow-symlinks",
                "--max-file-size",
                "--max-depth",
                "--max-yaml-alias-ratio",
                "--max-archive-ratio",
                "--max-archive-size",
            ):
                assert flag in flags, (path, each.name, flag)  # fmt: skip


def test_quiet_and_limits_in_any_position(tmp_path: Path) -> None:
    tree = make.pkgman_tree(tmp_path / "m")
    for index, args in enumerate(
        [
            ["-q", "migrate", "pkgman", str(tree), "OUT"],
            ["migrate", "-q", "pkgman", str(tree), "OUT"],
            ["migrate", "pkgman", str(tree), "OUT", "-q"],
        ]
    ):
        out = str(tmp_path / f"out{index}")
        result = CliRunner().invoke(cli, [out if a == "OUT" else a for a in args])
        assert (result.exit_code, result.stderr) == (0, ""), (args, result.stderr)
    for index, args in enumerate(
        [
            ["--max-file-size", "1K", "migrate", "pkgman", str(tree), "OUT"],
            ["migrate", "--max-file-size", "1K", "pkgman", str(tree), "OUT"],
            ["migrate", "pkgman", str(tree), "OUT", "--max-file-size", "1K"],
        ]
    ):
        out = str(tmp_path / f"small{index}")
        result = CliRunner().invoke(cli, [out if a == "OUT" else a for a in args])
        assert result.exit_code == 1 and "--max-file-size" in result.stderr, (args, result.stderr)
    # Limits set on one run do not leak into the next one in the same process (library use).
    result = CliRunner().invoke(cli, ["migrate", "pkgman", "-q", str(tree), str(tmp_path / "z")])
    assert result.exit_code == 0, result.stderr


def test_dash_means_stdin_and_stdout(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    db = make.index_db(box.input / "index.db")
    make.pkgman_tree(box.input / "m")
    expected = b"".join(
        (make.EXAMPLE / "expected" / name / "catalog.json").read_bytes()
        for name in ("hello-operator", "world-operator")
    )
    from_stdin = box.run("migrate", "sqlite", "-q", "-", "-", stdin=db.read_bytes())
    assert (from_stdin.code, from_stdin.stderr) == (0, ""), from_stdin.describe()
    assert from_stdin.stdout == expected
    pkgman = box.run("migrate", "pkgman", "-q", "input/m", "-")
    assert (pkgman.code, pkgman.stdout) == (0, expected), pkgman.describe()
    piped = box.run("images", "-", stdin=expected)
    assert piped.code == 0 and b"quay.io/example/hello-operator" in piped.stdout
    for args in (
        ["convert", "pkgman-to-bundles", "input/m", "-"],
        ["mirror", "plan", "input/m", "mirror.example.com", "-"],
        ["migrate", "pkgman", "-", "out"],
    ):
        result = box.run(*args)
        assert_one_line_failure(result, codes=(2,))
        assert "'-'" in result.lines[0]
    corrupt = box.run("migrate", "sqlite", "-", "out", stdin=b"SQLite format 3\x00" + bytes(600))
    assert_one_line_failure(corrupt, codes=(1,))
    assert corrupt.lines[0].startswith("olmcat: error: <stdin>"), corrupt.describe()
    assert box.leftovers() == []


# -- progress bars, and warnings above them --------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["filter", "input/c", "out1"],
        ["images", "input/c"],
        ["mirror", "plan", "input/c", "mirror.example.com", "out2"],
        ["diff", "input/c", "input/c"],
    ],
    ids=lambda a: a[0],
)
def test_long_commands_show_progress_on_a_terminal_and_not_with_quiet(
    tmp_path: Path, args: list[str]
) -> None:
    big_fbc(tmp_path / "input" / "c", packages=60)
    shown = run_on_terminal(args, tmp_path)
    assert "reading" in shown and "pkg" in shown and "\r" in shown, shown
    quiet = run_on_terminal([*args[:1], "-q", *args[1:]], tmp_path)
    assert "reading" not in quiet, quiet


def test_warnings_print_on_their_own_line_above_the_bar(tmp_path: Path) -> None:
    tree = make.pkgman_tree(tmp_path / "input" / "m")
    path = tree / "world-operator" / "world-operator.package.yaml"
    path.write_text(path.read_text() + "defaultChannel: stable\n" * 2)
    shown = run_on_terminal(["migrate", "pkgman", "input/m", "out"], tmp_path)
    lines = [line.split("\r")[-1] for line in shown.replace("\r\n", "\n").split("\n")]
    warning = [line for line in lines if "appears twice" in line]
    assert warning and warning[0].startswith("olmcat: warning: "), shown
