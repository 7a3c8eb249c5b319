"""Mutated real catalogs (bit flips, truncation, zeroed pages, random bytes) through every reader,
each run in a subprocess with 1 GiB of address space and a timeout (issue 12).

A seeded mutator, so every failure reproduces: the test id names the seed. The default run tries
a few dozen mutations; ``-m slow`` runs a few hundred (``OLMCAT_FUZZ_COUNT`` / ``OLMCAT_FUZZ_SEED``
change the count and the seed). A mutated input may still be valid, so the assertion is: success,
or exit 1/2 with exactly one error line (warnings allowed) -- never a traceback, a crash, a hang,
a signal death, a file outside OUT, a leftover temporary file or a changed input.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support import hostile_inputs as make
from tests.support.hostile import Sandbox, assert_clean_outcome
from tests.support.paths import CORPUS


@dataclass(frozen=True)
class Seed:
    """A valid input to break, and the commands that read it (``{in}`` is its path)."""

    name: str
    build: Callable[[Path], Path]
    commands: tuple[tuple[str, ...], ...]


def _corpus(*parts: str) -> Path | None:
    path = CORPUS.joinpath(*parts)
    return path if path.exists() else None


def _copy(source: Path) -> Callable[[Path], Path]:
    def build(dest: Path) -> Path:
        if source.is_dir():
            return make.copy_tree(source, dest)
        shutil.copyfile(source, dest)
        return dest

    return build


def _corpus_packages(root: Path, names: tuple[str, ...]) -> Callable[[Path], Path]:
    def build(dest: Path) -> Path:
        dest.mkdir()
        for name in names:
            make.copy_tree(root / name, dest / name)
        return dest

    return build


def _example_image(dest: Path) -> Path:
    db = (make.EXAMPLE / "sqlite" / "schema-13.db").read_bytes()
    return make.oci_archive(dest, make.tar_bytes({"database/index.db": db}))


def _example_bundles(dest: Path) -> Path:
    make.bundle_dir(dest / "op" / "1.0.0", version="1.0.0")
    bundle = make.bundle_dir(dest / "op" / "1.1.0", version="1.1.0")
    (bundle / "metadata" / "dependencies.yaml").write_text(
        "dependencies:\n- type: olm.package\n  value:\n    packageName: other\n"
        "    version: '>=1.0.0'\n"
    )
    return dest


def seeds() -> list[Seed]:
    found = [
        Seed("example-db", _copy(make.EXAMPLE / "sqlite" / "schema-13.db"),
             (("migrate", "sqlite", "{in}", "out"), ("images", "{in}"))),
        Seed("example-old-schema-db", _copy(make.EXAMPLE / "sqlite" / "pre-migration.db"),
             (("migrate", "sqlite", "{in}", "out"),)),
        Seed("example-pkgman", make.pkgman_tree,
             (("migrate", "pkgman", "{in}", "out"),
              ("convert", "pkgman-to-bundles", "{in}", "out"))),
        Seed("example-fbc", make.fbc_tree,
             (("filter", "{in}", "out"), ("validate", "{in}"), ("render-graph", "{in}"))),
        Seed("example-bundles", _example_bundles, (("migrate", "pkgman", "{in}", "out"),)),
        Seed("example-image", _example_image,
             (("migrate", "sqlite", "{in}", "out"), ("images", "{in}"))),
    ]  # fmt: skip
    corpus_seeds = [
        ("corpus-small-db", _corpus("sqlite", "small.db"), (("migrate", "sqlite", "{in}", "out"),)),
        ("corpus-image", _corpus("images", "test-index-v1.oci.tar"),
         (("migrate", "sqlite", "{in}", "out"), ("images", "--unique", "{in}"))),
        ("corpus-fbc", _corpus("expected", "small.json"), (("diff", "{in}", "{in}"),)),
    ]  # fmt: skip
    for name, path, commands in corpus_seeds:
        if path is not None:
            found.append(Seed(name, _copy(path), commands))
    pkgman = _corpus("pkgman", "upstream-subset")
    if pkgman is not None:
        found.append(
            Seed(
                "corpus-pkgman",
                _corpus_packages(pkgman, ("aqua", "awss3-operator-registry")),
                (("migrate", "pkgman", "{in}", "out"),),
            )
        )
    bundles = _corpus("bundles", "upstream")
    if bundles is not None:
        found.append(
            Seed(
                "corpus-bundles",
                _corpus_packages(bundles, ("node-healthcheck-operator", "keda")),
                (("migrate", "pkgman", "{in}", "out"), ("validate", "{in}")),
            )
        )
    return found


# -- mutations -------------------------------------------------------------------------------------


def flip_bits(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice((1, 2, 8, 32))):
        index = rng.randrange(len(out))
        out[index] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data))]


def zero_page(data: bytes, rng: random.Random) -> bytes:
    page = rng.choice((512, 4096))
    start = rng.randrange(max(1, len(data) // page)) * page
    return data[:start] + bytes(min(page, len(data) - start)) + data[start + page :]


def random_range(data: bytes, rng: random.Random) -> bytes:
    start = rng.randrange(len(data))
    length = rng.randrange(1, 256)
    return data[:start] + rng.randbytes(length) + data[start + length :]


def random_file(data: bytes, rng: random.Random) -> bytes:
    return rng.randbytes(rng.choice((0, 1, 100, len(data))))


def splice_special(data: bytes, rng: random.Random) -> bytes:
    """Text-level havoc: YAML/JSON indicators, aliases, deep openers, odd characters."""
    pieces = [b"&a ", b"*a", b"<<: ", b"[" * 300, b"{" * 300, b"\x85", b"\xef\xbb\xbf",
              b"\x00", b"- - - - ", b"\t", b"!!python/object ", b": ", b"'", b'"', b"\n" * 3,
              b"9" * 5000, b".inf", b"\xe2\x80\xae"]  # fmt: skip
    index = rng.randrange(len(data) + 1)
    return data[:index] + rng.choice(pieces) + data[index:]


MUTATORS = (flip_bits, truncate, zero_page, random_range, random_file, splice_special)


def _files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())


def mutate(target: Path, rng: random.Random) -> str:
    """Apply one mutation to one file of ``target``; describe it."""
    files = _files(target)
    chosen = rng.choice(files)
    data = chosen.read_bytes()
    mutator = rng.choice(MUTATORS)
    if not data and mutator is not random_file:
        mutator = splice_special
    chosen.write_bytes(mutator(data, rng))
    return f"{mutator.__name__} of {chosen.relative_to(target.parent)}"


DEFAULT_COUNT = 24
SLOW_COUNT = 250
BASE_SEED = int(os.environ.get("OLMCAT_FUZZ_SEED", "20261123"))


def _run_mutations(tmp_path: Path, count: int, offset: int) -> None:
    available = seeds()
    failures: list[str] = []
    for number in range(offset, offset + count):
        rng = random.Random(BASE_SEED * 1_000_003 + number)
        seed = rng.choice(available)
        box = Sandbox(tmp_path / f"case-{number}")
        target = seed.build(box.input / seed.name)
        what = mutate(target, rng)
        box.seal()
        command = rng.choice(seed.commands)
        args = [f"input/{seed.name}" if a == "{in}" else a for a in command]
        args.insert(2 if args[0] in ("migrate", "convert") else 1, "-q")
        result = box.run(*args, timeout=90)
        try:
            assert_clean_outcome(result)
            assert box.leftovers() == [], box.leftovers()
            if result.code != 0:
                assert not box.out.exists(), "partial output"
        except AssertionError as error:
            failures.append(f"case {number} ({seed.name}, {what}): {error}")
        shutil.rmtree(box.root, ignore_errors=True)
    assert not failures, "\n\n".join(failures)


def test_mutated_inputs_short(tmp_path: Path) -> None:
    count = int(os.environ.get("OLMCAT_FUZZ_COUNT", DEFAULT_COUNT))
    _run_mutations(tmp_path, count, 0)


@pytest.mark.slow
def test_mutated_inputs_long(tmp_path: Path) -> None:
    count = int(os.environ.get("OLMCAT_FUZZ_COUNT", SLOW_COUNT))
    _run_mutations(tmp_path, count, 10_000)
