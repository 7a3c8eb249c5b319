"""The input policy: roots and symbolic links, regular files only, size bounds, tree walks,
scratch directories."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from olmcat.errors import InputError
from olmcat.files import json as jsonio
from olmcat.files import safe


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.yaml").write_text("a: 1\n")
    (tmp_path / "outside.yaml").write_text("secret: 1\n")
    (tmp_path / "outside-dir").mkdir()
    (tmp_path / "outside-dir" / "b.yaml").write_text("b: 2\n")
    safe.add_root(root)
    return root


def test_links_inside_the_root_are_followed(tree: Path) -> None:
    (tree / "link.yaml").symlink_to("sub/a.yaml")
    (tree / "linked-dir").symlink_to("sub", target_is_directory=True)
    assert safe.read_text(tree / "link.yaml") == "a: 1\n"
    assert safe.read_text(tree / "linked-dir" / "a.yaml") == "a: 1\n"
    with (
        safe.using(safe.Limits(follow_symlinks=False)),
        pytest.raises(InputError, match=r"link\.yaml: symbolic link \(links are not followed"),
    ):
        safe.read_text(tree / "link.yaml")


def test_links_leading_outside_are_refused_naming_the_link(tree: Path) -> None:
    (tree / "sub" / "kubeconfig.yaml").symlink_to(tree.parent / "outside.yaml")
    (tree / "elsewhere").symlink_to(tree.parent / "outside-dir", target_is_directory=True)
    (tree / "up.yaml").symlink_to("../outside.yaml")
    for path, link in [
        (tree / "sub" / "kubeconfig.yaml", tree / "sub" / "kubeconfig.yaml"),
        (tree / "elsewhere" / "b.yaml", tree / "elsewhere"),
        (tree / "up.yaml", tree / "up.yaml"),
    ]:
        with pytest.raises(InputError, match="leads outside") as raised:
            safe.read_text(path)
        assert str(raised.value).startswith(f"{link}: a symbolic link to ")


def test_walk_descends_into_inside_links_and_refuses_outside_ones_and_loops(tree: Path) -> None:
    (tree / "again").symlink_to("sub", target_is_directory=True)
    seen = {str(d.relative_to(tree)): sorted(f) for d, _, f in safe.walk(tree)}
    assert seen == {".": [], "sub": ["a.yaml"], "again": ["a.yaml"]}
    (tree / "sub" / "loop").symlink_to("..", target_is_directory=True)
    with pytest.raises(InputError, match="loop"):
        list(safe.walk(tree))
    (tree / "sub" / "loop").unlink()
    (tree / "out").symlink_to(tree.parent / "outside-dir", target_is_directory=True)
    with pytest.raises(InputError, match=r"out: a symbolic link .* leads outside"):
        list(safe.walk(tree))
    # A pruned directory is never entered, so its link does no harm.
    for _, dirnames, _ in safe.walk(tree):
        dirnames[:] = [d for d in dirnames if d != "out"]


def test_special_files_are_refused_without_blocking(tree: Path) -> None:
    os.mkfifo(tree / "pipe.yaml")
    raised: list[BaseException] = []

    def read() -> None:
        try:
            safe.read_text(tree / "pipe.yaml")
        except BaseException as exc:
            raised.append(exc)

    # Opening a FIFO nobody writes blocks forever: the read runs in a thread, and a reader that
    # blocked is set free by a writer (the bound only keeps the test from waiting forever).
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=60)
    blocked = reader.is_alive()
    if blocked:
        with open(tree / "pipe.yaml", "wb"):
            pass
        reader.join()
    assert not blocked, "reading a FIFO blocked"
    assert len(raised) == 1 and isinstance(raised[0], InputError), raised
    assert re.search(r"pipe\.yaml: a FIFO \(named pipe\), not a regular", str(raised[0]))
    with pytest.raises(InputError, match="a character device"):
        safe.read_bytes("/dev/zero")  # not under a root: named directly, still refused


def test_size_limit_counts_what_is_read(tree: Path) -> None:
    big = tree / "big.json"
    big.write_bytes(b"x" * 5000)
    with safe.using(safe.Limits(max_file_size=4096)):
        with pytest.raises(InputError, match=r"larger than the 4 KiB limit .*--max-file-size"):
            safe.read_bytes(big)
        # A file that grows while it is read is cut off as well.
        small = tree / "grows.json"
        small.write_bytes(b"y" * 100)
        with safe.open_binary(small) as fh:
            with small.open("ab") as writer:
                writer.write(b"z" * 8000)
            with pytest.raises(InputError, match="larger than"):
                fh.read()


def test_standard_input_is_bounded_and_may_be_closed() -> None:
    import io

    with safe.using(safe.Limits(max_file_size=10)):
        assert safe.read_stream_text(io.StringIO("0123456789"), "<stdin>") == "0123456789"
        with pytest.raises(InputError, match="larger than"):
            safe.read_stream_text(io.StringIO("0123456789x"), "<stdin>")
    with pytest.raises(InputError, match="<stdin>: is closed"):
        safe.read_stream_text(None, "<stdin>")


def test_utf8_errors_name_the_byte(tree: Path) -> None:
    (tree / "latin1.yaml").write_bytes(b"name: caf\xe9\n")
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 0xe9 at offset 9\)"):
        safe.read_text(tree / "latin1.yaml")


def test_stale_scratch_directories_are_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"olmcat-image-{dead.pid}-x1"
    stale.mkdir()
    (stale / "index.db").write_bytes(b"db")
    live = tmp_path / f"olmcat-image-{os.getpid()}-x2"
    live.mkdir()
    unrelated = tmp_path / "olmcat-image-x3"
    unrelated.mkdir()
    assert safe.clean_stale_scratch(str(tmp_path)) == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, unrelated.name])


def test_an_interrupted_run_removes_its_own_scratch_directories(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    made = safe.scratch_dir("image")
    (made / "index.db").write_bytes(b"db")
    # As if mkdtemp had made it but a Ctrl-C came before it returned: found by its name.
    cut_short = tmp_path / f"olmcat-pkgman-{os.getpid()}-x1"
    cut_short.mkdir()
    other_process = tmp_path / f"olmcat-image-{os.getppid()}-x2"
    other_process.mkdir()
    safe.remove_own_scratch()
    assert sorted(p.name for p in tmp_path.iterdir()) == [other_process.name]


def test_bidi_controls_in_names_are_reported() -> None:
    from olmcat.notices import NoticeLog

    log = NoticeLog()
    with safe.notices_to(log):
        safe.check_path_name("plain-name", "package name")
        safe.check_path_name("evil\u202egnp.exe", "package name", package="x")
    assert [n.code for n in log] == ["input.bidi-control-in-name"]
    assert "U+202E" in log.notices[0].message and "\u202e" not in log.notices[0].message


def test_notices_reach_the_sink_of_the_current_context_only() -> None:
    from olmcat.notices import Notice, NoticeLog

    outer, inner = NoticeLog(), NoticeLog()
    with safe.notices_to(outer):
        with safe.notices_to(inner):
            safe.notify(Notice("x.y", "inner"))
        safe.notify(Notice("x.y", "outer"))
        other: list[Notice] = []
        thread = threading.Thread(target=lambda: other.append(safe.current_sink()))  # type: ignore[func-returns-value]
        thread.start()
        thread.join()
    assert [n.message for n in inner] == ["inner"]
    assert [n.message for n in outer] == ["outer"]


def test_json_depth_and_digits() -> None:
    with pytest.raises(InputError, match="nested deeper than 256"):
        jsonio.loads("[" * 300 + "]" * 300, "x.json")
    with pytest.raises(InputError, match="nested deeper"):
        jsonio.loads("[" * 100_000 + "]" * 100_000, "x.json")  # past the recursion limit
    with pytest.raises(InputError, match="4300"):
        jsonio.loads("1" * 5000, "x.json")
    assert jsonio.loads('{"a": [1.50]}', "x.json") == {"a": [jsonio.RawNumber("1.50")]}
    import io

    documents = list(jsonio.iter_documents(io.StringIO('{"a": 1} [2]\n"x"'), "s.json"))
    assert documents == [(1, {"a": 1}), (2, [2]), (3, "x")]
    with pytest.raises(InputError, match=r"s\.json: document 2: nested deeper"):
        list(jsonio.iter_documents(io.StringIO("{} " + "[" * 400 + "]" * 400), "s.json"))


_CTRL_C_IN_THE_TEMP_DIR_PROBE = """
import os, signal, sys, tempfile
from olmcat.files import safe

def interrupted(signum, frame):  # olmcat's start-up handler: one line, then _exit
    os._exit(130)

signal.signal(signal.SIGINT, interrupted)

def probe():  # what tempfile's first choice does: a file made, Ctrl-C, the file removed
    name = os.path.join(os.environ["TMPDIR"], "probe0001")
    open(name, "w").close()
    os.kill(os.getpid(), signal.SIGINT)
    os.unlink(name)
    return os.environ["TMPDIR"]

tempfile._get_default_tempdir = probe
safe.clean_stale_scratch()
"""


def test_ctrl_c_while_tempfile_chooses_its_directory_leaves_no_probe_file(tmp_path: Path) -> None:
    # Seen once in the signal tests: a Ctrl-C landing inside tempfile's first choice of
    # directory ended the process between the probe file's creation and its removal.
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", _CTRL_C_IN_THE_TEMP_DIR_PROBE],
        env={**os.environ, "TMPDIR": str(tmp)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 130  # the interrupt still ends the run, after the probe
    assert list(tmp.iterdir()) == []
