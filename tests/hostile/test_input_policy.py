"""Every read of catalog input goes through olmcat.files (the input policy and the bounded YAML
loader), so a reader added later cannot bring back an alias bomb or a read through a link."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import ROOT

SOURCE = ROOT / "src" / "olmcat"

# Raw YAML parsing: only files/yaml.py may call into PyYAML's loaders.
RAW_YAML = re.compile(r"\byaml\.(?:safe_load|load|load_all|full_load|unsafe_load|compose|parse)\b")
# Walking or reading input files directly; files/safe.py holds the policy.
RAW_READ = re.compile(r"\bos\.walk\(|\.read_text\(|\.read_bytes\(|\.rglob\(")
# Opening an input file for reading (readers and validate only: writers open their output).
RAW_OPEN = re.compile(r"(?<!tarfile)(?<!\bos)\.open\(|\bopen\(")
# Files that are no catalog input: the user's own registry credentials, olmcat's own blob cache
# (content verified by digest) and the catalog tree olmcat staged itself for an image build.
NOT_INPUT = {"oci/auth.py", "oci/cache.py", "oci/build.py"}
# Files olmcat wrote itself: spill files of a run, and any file opened for writing.
OWN_FILES = re.compile(r"\bspill\b|\.open\(\"w")
# Sniffing the first bytes of the path the user named (a regular file) is no tree read; the
# rendered-bundle cache reads olmcat's own modules (its code digest) and its own entries
# (checked against the digest inside each); it reads input through the policy.
ALLOWED_READS = {
    ("readers/bundlecache.py", "code_fingerprint"),
    ("readers/bundlecache.py", "get"),
    ("readers/bundlecache.py", "_read_entry"),
    ("readers/bundlecache.py", "package"),
    ("readers/bundlecache.py", "package_meta"),
    ("readers/sqlite.py", "is_sqlite_file"),
    ("readers/catalog.py", "_is_text"),
    ("oci/archive.py", "looks_like_tar"),
}


def _sources(*layers: str) -> list[Path]:
    return sorted(p for layer in layers for p in (SOURCE / layer).rglob("*.py"))


def _function_at(lines: list[str], index: int) -> str:
    for line in reversed(lines[: index + 1]):
        match = re.match(r"\s*def (\w+)", line)
        if match:
            return match.group(1)
    return ""


def test_yaml_is_parsed_only_by_the_bounded_loader() -> None:
    offenders = [
        f"{path.relative_to(SOURCE)}:{number}"
        for path in _sources(".")
        if path.parent.name != "files"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if RAW_YAML.search(line)
    ]
    assert not offenders, (
        f"parse YAML input with olmcat.files.yaml.load_all / read_documents: {offenders}"
    )


def test_readers_read_files_through_the_input_policy() -> None:
    offenders = []
    for path in _sources("readers", "oci", "validate", "migrate", "writers"):
        lines = path.read_text().splitlines()
        relative = str(path.relative_to(SOURCE))
        if relative in NOT_INPUT:
            continue
        input_side = relative.startswith(("readers/", "validate/"))
        for index, line in enumerate(lines):
            raw = RAW_READ.search(line) or (input_side and RAW_OPEN.search(line))
            if not raw or "safe." in line or OWN_FILES.search(line):
                continue
            if (relative, _function_at(lines, index)) in ALLOWED_READS:
                continue
            offenders.append(f"{relative}:{index + 1}: {line.strip()}")
    assert not offenders, (
        "read input with olmcat.files.safe (read_text, read_bytes, open_text, walk): "
        + "; ".join(offenders)
    )
