"""File digests remembered by stat: what a change to a file does to its remembered digest.

A digest is trusted while the file's device, inode, size, mtime and ctime are unchanged. Every
way a user can change a file's content changes one of them -- the ctime even when the mtime is
set back -- so each is tested here with the content's digest as the judge; what stat cannot show
(a change the kernel hid from ctime) is what ``verify`` is for.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from olmcat.files import digests, safe
from olmcat.files.digests import FileIndex


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(digests, "RACY_SECONDS", 0.0)


class Store:
    """An index's bytes kept in memory, as the cache keeps them in a file."""

    def __init__(self) -> None:
        self.data: bytes | None = None
        self.damage: list[str] = []

    def index(self, *, verify: bool = False) -> FileIndex:
        return FileIndex(lambda: self.data, self.save, verify=verify, damaged=self.damage.append)

    def save(self, data: bytes) -> None:
        self.data = data


def digest_of(index: FileIndex, path: Path) -> bytes | None:
    return index.digest(str(path), os.stat(path))


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def test_an_unchanged_file_is_not_read_again(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    store = Store()
    first = store.index()
    assert digest_of(first, file) == sha(b"kind: A\n") and first.hashed == 1
    first.save()
    second = store.index()
    assert digest_of(second, file) == sha(b"kind: A\n")
    assert (second.hashed, second.remembered) == (0, 1)
    assert not second.changed  # nothing new: a warm run writes no index


def test_touch_reads_the_file_again_and_finds_the_same_digest(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    store = Store()
    index = store.index()
    digest_of(index, file)
    index.save()
    os.utime(file)  # touch: new mtime (and ctime), same content
    again = store.index()
    assert digest_of(again, file) == sha(b"kind: A\n") and again.hashed == 1


def test_a_same_size_edit_with_the_mtime_set_back_is_seen_by_its_ctime(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    before = os.stat(file)
    store = Store()
    index = store.index()
    digest_of(index, file)
    index.save()
    file.write_bytes(b"kind: B\n")  # same size
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime as it was
    after = os.stat(file)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )
    if after.st_ctime_ns == before.st_ctime_ns:
        pytest.skip("the filesystem kept the ctime (coarse timestamps): nothing to tell apart")
    again = store.index()
    assert digest_of(again, file) == sha(b"kind: B\n") and again.hashed == 1


def test_a_replaced_file_is_seen_by_its_inode(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    store = Store()
    index = store.index()
    digest_of(index, file)
    index.save()
    replacement = tmp_path / "new.yaml"
    replacement.write_bytes(b"kind: C\n")
    os.replace(replacement, file)  # an editor's save
    again = store.index()
    assert digest_of(again, file) == sha(b"kind: C\n")


def test_what_stat_cannot_show_is_found_by_verify(tmp_path: Path) -> None:
    """A change that left every stat field as it was (possible only by writing below the
    filesystem, or on one that keeps no ctime) is trusted; ``verify`` reads every file."""
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    store = Store()
    index = store.index()
    digest_of(index, file)
    index.save()
    # Simulate it: the index's entry for the file holds another content's digest.
    assert store.data is not None
    store.data = store.data  # (unchanged bytes: the forgery is done through the index API)
    forged = store.index()
    forged._new[str(file)] = digests._packed(os.stat(file)) + sha(b"kind: X\n")
    forged._changed = True
    forged.save()
    trusting = store.index()
    assert digest_of(trusting, file) == sha(b"kind: X\n")  # stat says unchanged: trusted
    checking = store.index(verify=True)
    assert digest_of(checking, file) == sha(b"kind: A\n") and checking.hashed == 1
    checking.save()  # and the fresh digest replaces the wrong one
    assert digest_of(store.index(), file) == sha(b"kind: A\n")


def test_a_file_changed_within_the_racy_window_is_not_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timestamps have a granularity: a file hashed in the same tick as it was written could
    change again without a new mtime or ctime, so it is hashed again until it is older."""
    monkeypatch.setattr(digests, "RACY_SECONDS", 3600.0)
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    store = Store()
    index = store.index()
    digest_of(index, file)
    assert not index.changed
    index.save()
    again = store.index()
    assert digest_of(again, file) == sha(b"kind: A\n") and again.hashed == 1


def test_the_input_policy_still_applies_to_a_remembered_file(tmp_path: Path) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"x" * 100)
    store = Store()
    index = store.index()
    digest_of(index, file)
    index.save()
    with safe.using(safe.Limits(max_file_size=10)):
        assert digest_of(store.index(), file) is None  # over the limit: the read refuses it
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert digest_of(store.index(), fifo) is None


@pytest.mark.parametrize("damage", ["flip", "truncate", "magic"])
def test_a_damaged_index_is_reported_and_rebuilt(tmp_path: Path, damage: str) -> None:
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    store = Store()
    index = store.index()
    digest_of(index, file)
    index.save()
    assert store.data is not None
    data = bytearray(store.data)
    if damage == "flip":
        data[-3] ^= 1
    elif damage == "truncate":
        del data[len(data) // 2 :]
    else:
        data[:8] = b"SOMEWHAT"
    store.data = bytes(data)
    again = store.index()
    assert len(store.damage) == 1 and store.damage[0]
    assert digest_of(again, file) == sha(b"kind: A\n") and again.hashed == 1


def test_memos_are_kept_with_the_digests(tmp_path: Path) -> None:
    store = Store()
    index = store.index()
    assert index.memo("k") is None
    index.remember("k", ("anything", 1))
    index.save()
    assert store.index().memo("k") == ("anything", 1)


def test_entries_of_files_that_are_gone_are_dropped(tmp_path: Path) -> None:
    files = []
    for number in range(10):
        file = tmp_path / f"{number}.yaml"
        file.write_text(str(number))
        files.append(file)
    store = Store()
    index = store.index()
    for file in files:
        digest_of(index, file)
    index.save()
    partial = store.index()  # a run that looked at some files only keeps the others
    digest_of(partial, files[0])
    partial.remember("m", 1)
    partial.save()
    kept = store.index()
    assert digest_of(kept, files[9]) is not None and kept.hashed == 0
    size = len(store.data or b"")
    for file in files[1:]:
        file.unlink()
    shrunk = store.index()
    digest_of(shrunk, files[0])
    shrunk.remember("n", 2)
    shrunk.save()
    assert len(store.data or b"") < size - 9 * 40
    assert store.index().memo("m") == 1  # memos stay while they are few


def test_a_same_size_rewrite_in_the_same_tick_is_not_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the real racy window: a file hashed just after it was written is not remembered,
    so a rewrite of the same size within the same timestamp tick (its mtime identical -- here
    set back to be sure) is hashed again on the next run, whatever its ctime says. The clock
    reads 10 ms after the write however long the machine took to get there."""
    digests.RACY_SECONDS = 2.0  # as shipped (the autouse fixture restores 0.0 after)
    file = tmp_path / "a.yaml"
    file.write_bytes(b"kind: A\n")
    before = os.stat(file)
    just_after = max(before.st_mtime_ns, before.st_ctime_ns) + 10_000_000
    monkeypatch.setattr(digests.time, "time_ns", lambda: just_after)
    store = Store()
    index = store.index()
    assert digest_of(index, file) == sha(b"kind: A\n")
    index.save()
    file.write_bytes(b"kind: B\n")
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))
    again = store.index()
    assert digest_of(again, file) == sha(b"kind: B\n") and again.hashed == 1
