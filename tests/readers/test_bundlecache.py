"""The rendered-bundle cache: warm runs give what cold runs give, and nothing else.

A run with a cache must write the same bytes and send the same notices as a run without one,
whether every bundle and package comes from the cache, some do, or an entry is damaged; its key
must change with every file the read opens and with the options and behaviour of the run; the
cache directory must be one only this user can change.
"""

from __future__ import annotations

import multiprocessing
import os
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from olmcat.cli import cli
from olmcat.errors import InputError, OutputError
from olmcat.files import cachedir, digests, safe
from olmcat.migrate import migrate_pkgman
from olmcat.notices import Notice
from olmcat.readers.bundlecache import (
    CODE_CORRUPT,
    INDEX_SUFFIX,
    PACKAGE_SUFFIX,
    RenderCache,
    behaviour_context,
    package_meta,
    parse_size,
)
from olmcat.readers.bundledir import BundleJob, index_build_job, read_bundle, take_bundle
from tests.support.bundletrees import chain, write_bundle

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "names": {"kind": "Widget", "plural": "widgets"},
        "scope": "Namespaced",
        "versions": [{"name": "v1", "served": True, "storage": True}],
    },
}


def tree(root: Path) -> Path:
    """Two packages, three bundles each; one file with a duplicate key (an input notice) and
    one with a second document (a reader notice)."""
    chain(root, "alpha", "1.0.0", "1.1.0", "1.2.0", docs=[CRD])
    chain(root, "beta", "0.1.0", "0.2.0", "0.3.0")
    (root / "alpha" / "1.1.0" / "manifests" / "03-extra.yaml").write_text(
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\ndata: {a: '1', a: '2'}\n"
        "---\nkind: ConfigMap\n"
    )
    return root


def run(
    source: Path, out: Path, cache: RenderCache | None, **options: Any
) -> tuple[Any, list[Notice]]:
    notices: list[Notice] = []
    with safe.notices_to(notices.append):
        result = migrate_pkgman(source, out, notify=notices.append, cache=cache, **options)
    return result, notices


@pytest.fixture(autouse=True)
def no_racy_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by a test are fresh: let the index remember them at once (the window is
    tested on its own)."""
    monkeypatch.setattr(digests, "RACY_SECONDS", 0.0)


def outputs(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def shown(notices: list[Notice]) -> list[tuple[str, str, str]]:
    return [(n.code, n.severity, n.message) for n in notices]


@pytest.fixture(params=["1", "2"], ids=["one process", "workers"])
def workers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OLMCAT_WORKERS", request.param)
    return str(request.param)


def test_a_warm_run_writes_and_reports_what_a_cold_run_does(tmp_path: Path, workers: str) -> None:
    source = tree(tmp_path / "src")
    _, plain = run(source, tmp_path / "plain", None)
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    cold, cold_notices = run(source, tmp_path / "cold", cache)
    warm, warm_notices = run(source, tmp_path / "warm", cache)
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "cold") == outputs(tmp_path / "plain")
    assert shown(warm_notices) == shown(cold_notices) == shown(plain)
    assert {"yaml.duplicate-key", "bundledir.later-documents-ignored"} <= {
        n.code for n in warm_notices
    }
    assert (cold.cached_bundles, warm.cached_bundles) == (0, 6)
    assert (cold.cached_packages, warm.cached_packages) == (0, 2)


@pytest.mark.parametrize("output", ["json", "yaml"])
def test_a_warm_run_to_stdout_writes_what_a_cold_run_does(tmp_path: Path, output: str) -> None:
    import io

    source = tree(tmp_path / "src")
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    texts = []
    for _ in range(3):  # cold, warm, and warm into the other form
        stream = io.StringIO()
        migrate_pkgman(source, None, stdout=stream, output=output, cache=cache)  # type: ignore[arg-type]
        texts.append(stream.getvalue())
    plain = io.StringIO()
    migrate_pkgman(source, None, stdout=plain, output=output, cache=None)  # type: ignore[arg-type]
    assert texts == [plain.getvalue()] * 3
    # Each form has its own finished packages.
    assert len([p for p in entries(tmp_path / "cache") if p.name.endswith(PACKAGE_SUFFIX)]) == 2


def test_after_one_bundle_changes_only_it_is_rendered_again(tmp_path: Path, workers: str) -> None:
    source = tree(tmp_path / "src")
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    run(source, tmp_path / "first", cache)
    manifest = source / "beta" / "0.2.0" / "manifests" / "00-beta.v0.2.0.yaml"
    document = yaml.safe_load(manifest.read_text())
    document["metadata"].setdefault("annotations", {})["changed"] = "yes"
    manifest.write_text(yaml.safe_dump(document))
    alpha_entry = _package_entry(tmp_path / "cache", "alpha")
    before = alpha_entry.stat()
    cache.hits = cache.misses = 0
    warm, warm_notices = run(source, tmp_path / "warm", cache)
    _, cold_notices = run(source, tmp_path / "cold", None)
    # beta is built again from two cached bundles and the changed one; alpha is copied whole.
    assert (warm.cached_bundles, warm.cached_packages) == (5, 1)
    assert cache.hits == 2  # (the miss may be a worker's)
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "cold")
    assert outputs(tmp_path / "warm") != outputs(tmp_path / "first")
    assert shown(warm_notices) == shown(cold_notices)
    after = alpha_entry.stat()
    assert (after.st_ino, after.st_size) == (before.st_ino, before.st_size)  # not written again


def _package_entry(cache_root: Path, name: str) -> Path:
    """The finished-package entry of package ``name``."""
    found = [
        p
        for p in entries(cache_root)
        if p.name.endswith(PACKAGE_SUFFIX) and getattr(package_meta(p), "name", None) == name
    ]
    assert len(found) == 1, found
    return found[0]


def entries(cache_root: Path) -> list[Path]:
    return sorted(p for p in (cache_root / "rendered").rglob("*") if p.is_file())


def _damage(victim: Path, damage: str) -> None:
    data = bytearray(victim.read_bytes())
    if damage == "flip a byte":
        data[-10] ^= 0x40
    elif damage == "truncate":
        del data[len(data) // 2 :]
    elif damage == "empty":
        data.clear()
    else:
        data[:8] = b"NOTOURS!"
    victim.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "other magic"])
def test_a_damaged_entry_is_detected_and_rendered_again(
    tmp_path: Path, damage: str, workers: str
) -> None:
    source = tree(tmp_path / "src")
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    _, cold_notices = run(source, tmp_path / "cold", cache)
    for path in entries(tmp_path / "cache"):  # bundles are read only for packages built again
        if path.name.endswith(PACKAGE_SUFFIX):
            path.unlink()
    victim = next(p for p in entries(tmp_path / "cache") if "." not in p.name)
    _damage(victim, damage)
    warm, warm_notices = run(source, tmp_path / "warm", cache)
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "cold")
    damaged = [n for n in warm_notices if n.code == CODE_CORRUPT]
    assert len(damaged) == 1 and str(victim) in damaged[0].message
    assert damaged[0].severity == "warning"
    assert shown([n for n in warm_notices if n.code != CODE_CORRUPT]) == shown(cold_notices)
    assert warm.cached_bundles == 5
    # The entry was written again, whole: the next run takes every bundle from the cache.
    again, again_notices = run(source, tmp_path / "again", cache)
    assert again.cached_bundles == 6 and CODE_CORRUPT not in {n.code for n in again_notices}


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "other magic"])
def test_a_damaged_finished_package_is_detected_and_built_again(
    tmp_path: Path, damage: str, workers: str
) -> None:
    source = tree(tmp_path / "src")
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    _, cold_notices = run(source, tmp_path / "cold", cache)
    victim = _package_entry(tmp_path / "cache", "beta")
    _damage(victim, damage)
    warm, warm_notices = run(source, tmp_path / "warm", cache)
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "cold")
    damaged = [n for n in warm_notices if n.code == CODE_CORRUPT]
    assert len(damaged) == 1 and str(victim) in damaged[0].message, shown(warm_notices)
    assert "package 'beta'" in damaged[0].message and damaged[0].severity == "warning"
    assert shown([n for n in warm_notices if n.code != CODE_CORRUPT]) == shown(cold_notices)
    # beta built again from its three cached bundles; alpha copied whole.
    assert (warm.cached_packages, warm.cached_bundles) == (1, 6)
    again, again_notices = run(source, tmp_path / "again", cache)
    assert again.cached_packages == 2 and CODE_CORRUPT not in {n.code for n in again_notices}
    assert outputs(tmp_path / "again") == outputs(tmp_path / "cold")


def test_a_damaged_file_index_is_detected_and_every_file_hashed_again(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    cache_root = tmp_path / "cache"
    _, cold_notices = run(source, tmp_path / "cold", RenderCache(cache_root))
    (victim,) = [p for p in entries(cache_root) if p.name.endswith(INDEX_SUFFIX)]
    _damage(victim, "flip a byte")
    fresh = RenderCache(cache_root)
    warm, warm_notices = run(source, tmp_path / "warm", fresh)
    damaged = [n for n in warm_notices if n.code == CODE_CORRUPT]
    assert len(damaged) == 1 and "file digests" in damaged[0].message
    assert shown([n for n in warm_notices if n.code != CODE_CORRUPT]) == shown(cold_notices)
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "cold")
    assert warm.cached_packages == 2  # the digests are the same: every package is found
    index = fresh.files(source)
    assert index.hashed > 0 and index.remembered == 0


def test_the_key_follows_every_file_and_option(tmp_path: Path) -> None:
    (bundle,) = chain(tmp_path / "src", "alpha", "1.0.0")
    safe.add_root(tmp_path / "src")
    base = RenderCache(tmp_path / "cache", context=behaviour_context())

    def key(cache: RenderCache = base, **changes: Any) -> str | None:
        job = {"path": bundle, "template": None, "root": tmp_path / "src", "cache": cache}
        cache.begin()  # a new read: list the directories again
        return index_build_job(**{**job, **changes}).key

    first = key()
    assert first is not None and key() == first
    keys = {
        "template": key(template="q/{package}:{version}"),
        "root": key(root=bundle),
        "release": key(RenderCache(tmp_path / "cache", context="opm v1.46.0; migrate-level none")),
        "level": key(
            RenderCache(
                tmp_path / "cache",
                context="opm v1.26.5; migrate-level bundle-object-to-csv-metadata",
            )
        ),
    }
    with safe.using(safe.Limits(max_depth=100)):
        keys["limits"] = key(RenderCache(tmp_path / "cache", context=behaviour_context()))
    (bundle / "metadata" / "properties.yaml").write_text("properties: []\n")
    keys["new metadata file"] = key()
    (bundle / "manifests" / "notes.txt").write_text("x")
    keys["new manifests file"] = key()
    (bundle / "manifests" / "notes.txt").write_text("y")
    keys["changed file"] = key()
    (bundle / "manifests" / "sub").mkdir()
    keys["new directory"] = key()
    assert first not in keys.values() and len(set(keys.values())) == len(keys)


def test_a_link_leaving_the_tree_is_refused_even_when_cached(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (bundle,) = chain(source, "alpha", "1.0.0")
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    run(source, tmp_path / "first", cache)
    manifest = next((bundle / "manifests").iterdir())
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(manifest.read_bytes())  # same content: same digest as cached
    manifest.unlink()
    manifest.symlink_to(outside)
    with pytest.raises(InputError, match="leads outside"):
        run(source, tmp_path / "second", cache)


def test_a_refused_bundle_is_cached_with_its_error(tmp_path: Path) -> None:
    source = tmp_path / "src"
    bundle = write_bundle(source, "alpha", "1.0.0")
    (bundle / "manifests" / "00-alpha.v1.0.0.yaml").write_text("kind: Deployment\n")
    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    safe.add_root(source)
    job = index_build_job(bundle, None, source, cache)
    first, hit, _ = read_bundle(job)
    second, hit_again, _ = read_bundle(job)
    assert (hit, hit_again) == (False, True)
    assert first is not None and second is not None
    assert first.error and second.error == first.error and "no ClusterServiceVersion" in first.error
    # A worker only probes; the caller reads the entry.
    probed = read_bundle(BundleJob(bundle, None, source, cache, probe=True, key=job.key))
    assert probed[:2] == (None, True)
    taken, taken_hit = take_bundle(job, probed)
    assert taken_hit and taken.error == first.error


def _migrate_in_process(args: tuple[str, str, str]) -> dict[str, bytes]:
    source, out, cache_root = args
    migrate_pkgman(Path(source), Path(out), cache=RenderCache(Path(cache_root)))
    return outputs(Path(out))


def test_runs_sharing_a_cache_do_not_corrupt_it(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("OLMCAT_WORKERS", "1")
    source = tree(tmp_path / "src")
    for index in range(8):
        chain(source, f"pkg{index}", "1.0.0", "2.0.0", docs=[CRD])
    cache_root = tmp_path / "cache"
    context = multiprocessing.get_context("fork")
    jobs = [(str(source), str(tmp_path / f"out{i}"), str(cache_root)) for i in range(4)]
    with context.Pool(4) as pool:
        results = pool.map(_migrate_in_process, jobs)
    assert all(result == results[0] for result in results)
    warm, notices = run(source, tmp_path / "warm", RenderCache(cache_root))
    assert warm.cached_bundles == 22 and CODE_CORRUPT not in {n.code for n in notices}
    assert outputs(tmp_path / "warm") == results[0]
    assert not [p for p in (cache_root / "rendered").rglob(".*")]  # no temporary file left


def test_the_cache_keeps_within_its_bound_dropping_the_least_recently_used(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    cache = RenderCache(tmp_path / "cache")
    run(source, tmp_path / "first", cache)
    files = entries(tmp_path / "cache")
    sizes = [p.stat().st_size for p in files]
    for age, path in enumerate(files):
        os.utime(path, (1_000_000 + age, 1_000_000 + age))  # files[0] used longest ago
    assert cache.bound(sum(sizes) - 1) == (1, sizes[0])
    assert not files[0].exists() and all(p.exists() for p in files[1:])
    (source / "beta" / "0.3.0" / "metadata" / "notes.txt").write_text("changed")
    small = RenderCache(tmp_path / "cache", max_bytes=0)
    run(source, tmp_path / "second", small)  # writes beta again, then keeps to 0 bytes
    assert entries(tmp_path / "cache") == []


def test_copying_a_finished_package_keeps_its_bundles_recently_used(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    cache = RenderCache(tmp_path / "cache")
    run(source, tmp_path / "first", cache)
    bundles = [p for p in entries(tmp_path / "cache") if "." not in p.name]
    for path in bundles:
        os.utime(path, (1_000_000, 1_000_000))
    warm, _ = run(source, tmp_path / "warm", cache)
    assert warm.cached_packages == 2
    # A change to one bundle later reuses the others: the bound must not drop them first.
    assert all(p.stat().st_mtime > 1_000_000 for p in bundles)


# -- the cache directory -------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX owners and modes")
@pytest.mark.parametrize("problem", ["world-writable", "group-writable", "symlink", "parent"])
def test_a_cache_directory_others_can_change_is_refused(tmp_path: Path, problem: str) -> None:
    root = tmp_path / "cache"
    if problem == "symlink":
        (tmp_path / "real").mkdir(mode=0o700)
        root.symlink_to(tmp_path / "real")
    elif problem == "parent":
        (tmp_path / "shared").mkdir()
        (tmp_path / "shared").chmod(0o777)  # no sticky bit
        root = tmp_path / "shared" / "cache"
        root.mkdir(mode=0o700)
    else:
        root.mkdir()
        root.chmod(0o777 if problem == "world-writable" else 0o770)
    with pytest.raises(OutputError) as refused:
        cachedir.check_cache_dir(root)
    message = str(refused.value)
    assert "\n" not in message and str(root) in message and "refusing" in message
    source = tree(tmp_path / "src")
    result = CliRunner().invoke(
        cli, ["migrate", "pkgman", "-q", str(source), str(tmp_path / "out")],
        env={"OLMCAT_CACHE_DIR": str(root)},
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "refusing to use this cache directory" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
    # --no-cache does not look at it; the image cache refuses it too.
    result = CliRunner().invoke(
        cli, ["migrate", "pkgman", "-q", "--no-cache", str(source), str(tmp_path / "out")],
        env={"OLMCAT_CACHE_DIR": str(root)},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(cli, ["cache", "info"], env={"OLMCAT_CACHE_DIR": str(root)})
    assert result.exit_code == 1 and "refusing" in result.output


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a directory away needs root"
)
def test_a_cache_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    os.chown(root, 54321, -1)
    with pytest.raises(OutputError, match=r"belongs to another user \(uid 54321\)"):
        RenderCache(root).get("0" * 64, "somewhere")
    with pytest.raises(OutputError, match="belongs to another user"):
        RenderCache(root).info()


def test_a_new_cache_directory_is_private(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    root = tmp_path / "new" / "cache"
    old = os.umask(0o002)
    try:
        run(source, tmp_path / "out", RenderCache(root))
    finally:
        os.umask(old)
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert entries(root)


# -- the commands --------------------------------------------------------------------------------


def test_migrate_uses_the_cache_and_no_cache_bypasses_it(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    env = {"OLMCAT_CACHE_DIR": str(tmp_path / "cache"), "OLMCAT_WORKERS": "1"}
    runner = CliRunner()
    argv = ["migrate", "pkgman", str(source)]
    cold = runner.invoke(cli, [*argv, str(tmp_path / "cold")], env=env)
    warm = runner.invoke(cli, [*argv, str(tmp_path / "warm")], env=env)
    assert cold.exit_code == warm.exit_code == 0, cold.output + warm.output
    assert "6 bundles from the cache" in warm.output and "from the cache" not in cold.output
    assert "2 packages as finished before" in warm.output
    assert outputs(tmp_path / "cold") == outputs(tmp_path / "warm")
    info = runner.invoke(cli, ["cache", "info"], env=env)
    assert info.exit_code == 0 and "rendered bundles: 6" in info.output, info.output
    assert "finished packages: 2" in info.output, info.output
    bypass = runner.invoke(cli, [*argv, "--no-cache", str(tmp_path / "bypass")], env=env)
    assert bypass.exit_code == 0 and "from the cache" not in bypass.output
    assert outputs(tmp_path / "bypass") == outputs(tmp_path / "cold")
    pruned = runner.invoke(cli, ["cache", "prune"], env=env)
    assert pruned.exit_code == 0, pruned.output
    assert "6 rendered bundles and 2 finished packages" in pruned.output, pruned.output
    assert entries(tmp_path / "cache") == []
    fresh = tmp_path / "unused"
    runner.invoke(
        cli, [*argv, "--no-cache", str(tmp_path / "b2")], env={"OLMCAT_CACHE_DIR": str(fresh)}
    )
    assert not fresh.exists()


@pytest.mark.parametrize(
    ("text", "size"),
    [("4GiB", 4 << 30), ("512MiB", 512 << 20), ("100M", 100 << 20), ("1000", 1000), ("0", 0)],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


def test_a_bad_size_bound_is_one_line(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("OLMCAT_RENDER_CACHE_MAX", "lots")
    with pytest.raises(InputError, match="OLMCAT_RENDER_CACHE_MAX: 'lots' is not a size"):
        RenderCache(tmp_path)


def test_migrate_level_and_release_have_their_own_entries(tmp_path: Path) -> None:
    """A warm run for another --migrate-level or --opm-version writes what a run without the
    cache writes for it, not what the cache holds for the first."""
    source = tree(tmp_path / "src")
    env = {"OLMCAT_CACHE_DIR": str(tmp_path / "cache"), "OLMCAT_WORKERS": "1"}
    runner = CliRunner()
    argv = ["migrate", "pkgman", str(source)]
    level = ["--migrate-level", "bundle-object-to-csv-metadata"]
    first = runner.invoke(cli, [*argv, str(tmp_path / "none")], env=env)
    warm = runner.invoke(cli, [*argv, *level, str(tmp_path / "warm")], env=env)
    plain = runner.invoke(cli, [*argv, *level, "--no-cache", str(tmp_path / "plain")], env=env)
    assert first.exit_code == warm.exit_code == plain.exit_code == 0, warm.output
    assert "from the cache" not in warm.output
    assert outputs(tmp_path / "warm") == outputs(tmp_path / "plain")
    again = runner.invoke(cli, [*argv, *level, str(tmp_path / "again")], env=env)
    assert "2 packages as finished before" in again.output, again.output
    assert outputs(tmp_path / "again") == outputs(tmp_path / "plain")
    older = ["--opm-version", "1.46"]
    warm_older = runner.invoke(cli, [*argv, *older, str(tmp_path / "v146")], env=env)
    plain_older = runner.invoke(cli, [*argv, *older, "--no-cache", str(tmp_path / "p146")], env=env)
    assert warm_older.exit_code == plain_older.exit_code == 0, warm_older.output
    assert "from the cache" not in warm_older.output
    assert outputs(tmp_path / "v146") == outputs(tmp_path / "p146")


def test_render_of_a_bundle_directory_uses_the_cache(tmp_path: Path) -> None:
    source = tree(tmp_path / "src")
    bundle = source / "alpha" / "1.1.0"
    cache_root = tmp_path / "cache"
    env = {"OLMCAT_CACHE_DIR": str(cache_root), "OLMCAT_WORKERS": "1"}
    runner = CliRunner()
    plain = runner.invoke(cli, ["render", "--no-cache", str(bundle)], env=env)
    assert plain.exit_code == 0, plain.output
    assert not cache_root.exists()  # --no-cache does not even create it
    cold = runner.invoke(cli, ["render", str(bundle)], env=env)
    stored = entries(cache_root)
    assert stored, "the rendering was not stored"
    warm = runner.invoke(cli, ["render", str(bundle)], env=env)
    assert cold.exit_code == warm.exit_code == 0, cold.output + warm.output
    assert warm.stdout == cold.stdout == plain.stdout
    assert "yaml.duplicate-key" in warm.stderr or "twice" in warm.stderr  # notices sent again
    assert warm.stderr == cold.stderr
    info = runner.invoke(cli, ["cache", "info"], env=env)
    assert info.exit_code == 0 and "rendered bundles: 1" in info.output, info.output
    unused = tmp_path / "unused"
    bypass = runner.invoke(
        cli, ["render", str(bundle)], env={"OLMCAT_NO_CACHE": "1", "OLMCAT_CACHE_DIR": str(unused)}
    )
    assert bypass.exit_code == 0 and bypass.stdout == plain.stdout
    assert not unused.exists()


def test_render_of_several_bundle_directories_in_workers_uses_the_cache(tmp_path: Path) -> None:
    """Several sources are rendered in worker processes: they take and store entries too, and
    ``--no-cache`` reaches them."""
    source = tree(tmp_path / "src")
    bundles = [str(source / "alpha" / "1.1.0"), str(source / "beta" / "0.2.0")]
    cache_root = tmp_path / "cache"
    env = {"OLMCAT_CACHE_DIR": str(cache_root), "OLMCAT_WORKERS": "2"}
    runner = CliRunner()
    plain = runner.invoke(cli, ["render", "--no-cache", *bundles], env=env)
    assert plain.exit_code == 0, plain.output
    assert not cache_root.exists()
    cold = runner.invoke(cli, ["render", *bundles], env=env)
    assert cold.exit_code == 0, cold.output
    stored = [p for p in entries(cache_root) if not p.name.endswith(INDEX_SUFFIX)]
    assert len(stored) == 2, stored
    before = {p: p.stat().st_ino for p in stored}
    warm = runner.invoke(cli, ["render", *bundles], env=env)
    assert warm.exit_code == 0, warm.output
    assert warm.stdout == cold.stdout == plain.stdout
    assert warm.stderr == cold.stderr == plain.stderr
    assert {p: p.stat().st_ino for p in stored} == before  # taken, not written again


def test_temporary_files_of_ended_writers_are_removed_at_once(tmp_path: Path) -> None:
    """A worker stopped early (or a killed run) leaves the temporary file of the entry it was
    writing: the next bound() removes it whatever its age, as soon as its writer has ended; a
    live writer's, and a name of no writer, are left alone until they are a day old."""
    import subprocess
    import sys

    cache = RenderCache(tmp_path / "cache", context=behaviour_context())
    from olmcat.readers.bundlecache import Recorded

    cache.put("ab" + "0" * 62, Recorded())
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    shard = cache.directory / "ab"
    left = shard / f".ab000000-{ended.pid}-k2v9x1"
    writing = shard / f".ab000000-{os.getpid()}-q8w3e0"
    unnamed = shard / ".something-else"
    for path in (left, writing, unnamed):
        path.write_bytes(b"half an entry")
    cache.bound()
    assert sorted(p.name for p in shard.iterdir()) == sorted(
        ["ab" + "0" * 62, writing.name, unnamed.name]
    )
