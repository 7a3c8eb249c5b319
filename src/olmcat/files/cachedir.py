"""Where olmcat's caches live, and the one policy every cache directory must pass.

The root is ``$OLMCAT_CACHE_DIR``, else ``$XDG_CACHE_HOME/olmcat``, else ``~/.cache/olmcat``.
The image blob cache (:mod:`olmcat.oci.cache`) and the rendered-bundle cache
(:mod:`olmcat.readers.bundlecache`) share it.

A cache feeds what it holds back into catalogs, so a directory that someone else can change is
refused, with one line naming it: a symbolic link, a directory owned by another user, or one
that its group or everyone may write. Each directory above it must be owned by this user or by
root and, when others may write it, have the sticky bit (``/tmp``): otherwise the cache could be
renamed away and replaced. Directories olmcat creates are private (mode 0700).
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from olmcat.errors import OutputError

__all__ = ["cache_dir_ready", "check_cache_dir", "default_cache_dir", "ensure_cache_dir"]


def default_cache_dir() -> Path:
    explicit = os.environ.get("OLMCAT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "olmcat"


def _refuse(path: Path, why: str) -> OutputError:
    return OutputError(
        f"{path}: refusing to use this cache directory: {why} (fix it, or set OLMCAT_CACHE_DIR "
        "to a directory only you can write)"
    )


def _others_may_write(info: os.stat_result) -> bool:
    return bool(info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def check_cache_dir(root: Path) -> None:
    """Refuse ``root`` (an existing directory) and its parents unless only this user (and root)
    can change them; OutputError of one line otherwise."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    path = Path(os.path.abspath(root))
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise _refuse(path, "it is a symbolic link")
    if not stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "it is not a directory")
    if uid is None:
        return  # no owners to compare (not POSIX)
    if info.st_uid != uid:
        raise _refuse(path, f"it belongs to another user (uid {info.st_uid})")
    if _others_may_write(info):
        raise _refuse(path, f"other users may write it (mode {stat.S_IMODE(info.st_mode):04o})")
    for parent in path.parents:
        try:
            above = os.stat(parent)
        except OSError:
            continue
        if above.st_uid not in (uid, 0):
            raise _refuse(path, f"{parent} above it belongs to another user (uid {above.st_uid})")
        if _others_may_write(above) and not above.st_mode & stat.S_ISVTX:
            raise _refuse(
                path,
                f"other users may write {parent} above it "
                f"(mode {stat.S_IMODE(above.st_mode):04o}, no sticky bit)",
            )


def ensure_cache_dir(root: Path) -> Path:
    """``root``, created private when missing, once it passes :func:`check_cache_dir`."""
    missing = []
    for path in (Path(os.path.abspath(root)), *Path(os.path.abspath(root)).parents):
        if os.path.lexists(path):
            break
        missing.append(path)
    try:
        for path in reversed(missing):  # each one private, whatever the umask
            with contextlib.suppress(FileExistsError):  # another run made it meanwhile
                os.mkdir(path, 0o700)
    except OSError as exc:
        raise OutputError(
            f"{root}: cannot create the cache directory ({exc.strerror}); set OLMCAT_CACHE_DIR "
            "to a writable directory"
        ) from exc
    try:
        check_cache_dir(root)
    except FileNotFoundError:
        raise _refuse(Path(root), "it does not exist") from None
    return Path(root)


def cache_dir_ready(root: Path, create: bool) -> bool:
    """Apply the policy to ``root``: created when missing with ``create``; False when it does
    not exist and ``create`` is off (a cache that was never written has nothing to give)."""
    if create:
        ensure_cache_dir(root)
    elif os.path.lexists(root):
        check_cache_dir(root)
    else:
        return False
    return True
