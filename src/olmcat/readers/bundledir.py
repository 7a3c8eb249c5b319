"""Read a tree of bundle-format directories into packages, as an index build makes of them.

A tree of bundle directories (``manifests/`` + ``metadata/``) becomes packages (by the package
annotation). Each bundle renders as ``opm render`` renders its image
(:mod:`olmcat.readers.bundlerender`); each package's channels and default channel are those of an
index built with ``opm registry add`` adding the package's bundles in ascending version, in the
package's update mode (:mod:`olmcat.readers.update_modes`), followed by ``opm migrate``.

The mode of a package is, first match wins: ``package_modes[package]`` (``--mode PKG=MODE``),
``mode`` (``--mode MODE``), the ``updateGraph`` of the community-operators ``ci.yaml`` in the
directory holding the package's bundle directories, else ``replaces-then-semver``. ``ci.yaml``
values map as the oracle's ``bundle-index`` maps them: ``replaces-mode`` is
``replaces-then-semver`` (replaces; if ``opm registry add --mode replaces`` refuses the package,
each bundle in semver mode), ``semver-mode`` is ``semver``, ``semver-skippatch-mode`` is
``semver-skippatch``. The rest of ``ci.yaml`` is checked against operator pipelines' schema
(see ``_ci_problems``): a value it refuses is a warning naming the key.

Bundles are taken where operator pipelines take them: a bundle directory nested below a version
directory of an operator directory (``<operator>/2.0.0/bundle/``) is left out with a warning.

What the index build refuses is refused: the whole package (replaces mode), or one bundle (semver
modes add bundles one at a time). With ``permissive`` a refused package or bundle is left out with
a Notice, as ``bundle-index`` leaves it out of the index; without, the first refusal is a
ValidationError.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from olmcat.errors import OutputError, ValidationError
from olmcat.files import safe
from olmcat.files.digests import Stat
from olmcat.files.yaml import load_all
from olmcat.model import Bundle, Meta, Package, PackageCatalog, manifests
from olmcat.notices import Notice, NoticeSink, discard
from olmcat.readers import legacy
from olmcat.readers.bundlecache import (
    CachedPackage,
    PackageOutputs,
    Recorded,
    Recorder,
    RenderCache,
    replay,
    unchanged,
)
from olmcat.readers.bundlefiles import (
    ANNOTATION_CHANNELS,
    ANNOTATION_DEFAULT_CHANNEL,
    ANNOTATION_MANIFESTS,
    ANNOTATION_MEDIATYPE,
    ANNOTATION_METADATA,
    ANNOTATION_PACKAGE,
    CODE_METADATA_UNPARSABLE,
    MANIFESTS_DIR,
    METADATA_DIR,
    SKIPPED_AS_OPM_DOES,
    BundleDir,
    Metadata,
    is_bundle_dir,
    load_bundle_dir,
    read_metadata,
)
from olmcat.readers.bundlerender import check_template, image_reference, render
from olmcat.readers.parallel import map_in_order, worker_count
from olmcat.readers.pkgman import CI_FILE, Tree, walk_tree, walked_bundle
from olmcat.readers.source import selected
from olmcat.readers.update_modes import (
    MODES,
    IndexBundle,
    Mode,
    build_package,
)

__all__ = [
    "ANNOTATION_CHANNELS",
    "ANNOTATION_DEFAULT_CHANNEL",
    "ANNOTATION_MANIFESTS",
    "ANNOTATION_MEDIATYPE",
    "ANNOTATION_METADATA",
    "ANNOTATION_PACKAGE",
    "CI_UPDATE_GRAPH",
    "DEFAULT_MODE",
    "MANIFESTS_DIR",
    "METADATA_DIR",
    "BundleDirCatalog",
    "is_bundle_dir",
    "read_package",
]

# community-operators ci.yaml updateGraph -> mode, as the oracle's bundle-index maps them.
CI_UPDATE_GRAPH: dict[str, Mode] = {
    "replaces-mode": "replaces-then-semver",
    "semver-mode": "semver",
    "semver-skippatch-mode": "semver-skippatch",
}
DEFAULT_MODE: Mode = "replaces-then-semver"

CODE_PACKAGE_SKIPPED = "bundledir.package-skipped"
CODE_BUNDLE_DIR_SKIPPED = "bundledir.directory-skipped"
CODE_BUNDLE_REFUSED = "bundledir.refused"
CODE_MODE_FALLBACK = "bundledir.mode-fallback"
CODE_CI_YAML = "bundledir.ci-yaml-ignored"
CODE_MODE_UNUSED = "bundledir.mode-unused"
CODE_NOT_IN_CHANNEL = "bundledir.not-in-channel"
CODE_NESTED_BUNDLE = "bundledir.nested-bundle"
CODE_CI_YAML_INVALID = "bundledir.ci-yaml-invalid"
CODE_CI_YAML_FBC = "bundledir.ci-yaml-fbc"


def parse_mode(text: str) -> Mode:
    """A mode name; ValueError naming the choices otherwise."""
    for mode in MODES:
        if text == mode:
            return mode
    raise ValueError(f"unknown update mode {text!r} (one of: {', '.join(MODES)}, auto)")


def parse_mode_options(options: Iterable[str]) -> tuple[Mode | None, dict[str, Mode]]:
    """``--mode`` values (``MODE`` or ``PACKAGE=MODE``; ``auto`` is the ci.yaml default) as
    (mode of the run or None, per-package modes); ValueError on an unknown mode."""
    run_mode: Mode | None = None
    per_package: dict[str, Mode] = {}
    for option in options:
        package, sep, name = option.rpartition("=")
        if sep and not package:
            raise ValueError(f"{option!r}: PACKAGE=MODE needs a package name")
        mode = None if name == "auto" else parse_mode(name)
        if not sep:
            run_mode = mode
        elif mode is None:
            per_package.pop(package, None)
        else:
            per_package[package] = mode
    return run_mode, per_package


# -- one package --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Loaded:
    path: Path
    node: IndexBundle
    bundle: Bundle
    icon: tuple[str, str] | None  # the CSV's first icon (used for the package's head)


def _index_bundle(bundle: BundleDir, image: str) -> IndexBundle:
    annotations = bundle.metadata.annotations
    return IndexBundle(
        name=bundle.name,
        package=bundle.package,
        version=bundle.spec_string("version"),
        path=image or str(bundle.path),
        channels=annotations.channel_list(),
        default_channel=annotations.default_channel,
        replaces=bundle.spec_string("replaces"),
        skips=bundle.spec_strings("skips"),
        skip_range=manifests.csv_skip_range(bundle.csv),
        substitutes_for=bundle.substitutes_for,
        where=str(bundle.path),
    )


def _load(path: Path, template: str | None, root: Path | None, notify: NoticeSink) -> _Loaded:
    bundle = load_bundle_dir(path, root=root, notify=notify, unparsable_metadata=True)
    image = image_reference(bundle, template) if template else ""
    return _Loaded(
        path,
        _index_bundle(bundle, image),
        render(bundle, image, notify=notify),
        manifests.csv_icon(bundle.csv),
    )


@dataclass(frozen=True, slots=True)
class BundleJob:
    """Reading one bundle directory (in a worker process or not)."""

    path: Path
    template: str | None
    root: Path | None
    cache: RenderCache | None = None
    # In a worker process: on a hit, only say so (the caller reads the entry itself rather than
    # have the rendered bundle pickled across to it).
    probe: bool = False
    # The cache key, made by the caller (see bundle_key), and the stats it was made from.
    key: str | None = None
    stats: tuple[tuple[str, Stat], ...] = ()


# What a key says of how a bundle directory is rendered: as an index build stores it (``opm
# registry add``, release-independent; ``opm render`` of a directory keys its own way).
INDEX_BUILD = "bundle-directory as opm registry add stores it"


def index_build_job(
    path: Path, template: str | None, root: Path | None, cache: RenderCache | None
) -> BundleJob:
    """The job of reading one bundle directory as an index build does, keyed when cached."""
    if cache is None:
        return BundleJob(path, template, root)
    parts = (INDEX_BUILD, str(root), template or "")
    key, stats = cache.bundle_key(path, root or path, *parts)
    return BundleJob(path, template, root, cache, key=key, stats=stats)


def read_bundle(job: BundleJob) -> tuple[Recorded | None, bool, str | None]:
    """Read and render one bundle directory, from the cache when it holds the same read:
    (the outcome with every notice the read sent, whether it came from the cache, the cache
    key). The notices are the caller's to send (:func:`bundlecache.replay`). A ``probe`` job
    gives no outcome for a hit: the caller takes it with :func:`take_bundle`."""
    key, cache = job.key, job.cache
    if key is not None and cache is not None:
        if job.probe and cache.has(key):
            return None, True, key
        cached = None if job.probe else cache.get(key, str(job.path))
        if cached is not None:
            return cached, True, key
    recorder = Recorder()
    with safe.notices_to(recorder.input):
        try:
            recorder.record.result = _load(job.path, job.template, job.root, recorder.reader)
        except ValidationError as error:
            recorder.record.error = str(error)
    if key is not None and cache is not None and unchanged(job.stats):
        # (A file changed while it was read: what was read belongs to no key.)
        cache.put(key, recorder.record)
    return recorder.record, False, key


def take_bundle(
    job: BundleJob, read: tuple[Recorded | None, bool, str | None]
) -> tuple[Recorded, bool]:
    """The outcome of a (probe) read and whether it came from the cache: a hit is read from the
    cache here, and rendered here after all when its entry turned out damaged or gone."""
    record, hit, key = read
    if record is not None:
        return record, hit
    assert job.cache is not None and key is not None
    cached = job.cache.get(key, str(job.path))
    if cached is not None:
        return cached, True
    fresh = read_bundle(replace(job, probe=False))[0]
    assert fresh is not None
    return fresh, False


def read_package(
    name: str,
    bundle_dirs: Collection[Path],
    *,
    mode: Mode = DEFAULT_MODE,
    image_ref_template: str | None = None,
    permissive: bool = False,
    root: Path | None = None,
    notify: NoticeSink = discard,
    cache: RenderCache | None = None,
) -> PackageCatalog:
    """The package an index build makes of these bundle directories (all of package ``name``)
    in ``mode``. Raises ValidationError where the build refuses the package (or, unless
    ``permissive``, one of its bundles). Nothing is read through symlinks leaving ``root``
    (default: each bundle directory). With ``cache``, bundles rendered before with the same
    files and options are taken from it."""
    reads = []
    for path in sorted(bundle_dirs):
        job = index_build_job(path, image_ref_template, root, cache)
        reads.append((path, take_bundle(job, read_bundle(job))[0]))
    return assemble_package(name, reads, mode=mode, permissive=permissive, notify=notify)


def _refuse_unparsable_metadata(record: Recorded) -> None:
    """Without ``permissive``, a file of a bundle's ``metadata/`` that is not valid YAML stops
    the run (opm skips it, and the bundle silently loses what it declares)."""
    for _, notice in record.notices:
        if notice.code == CODE_METADATA_UNPARSABLE:
            problem = notice.message.split(SKIPPED_AS_OPM_DOES, 1)[0]
            raise ValidationError(
                f"{problem}; opm skips the file, and the bundle loses the dependencies or "
                "properties it declares (--permissive does the same, with a warning)"
            )


def assemble_package(
    name: str,
    reads: list[tuple[Path, Recorded]],
    *,
    mode: Mode,
    permissive: bool,
    notify: NoticeSink,
) -> PackageCatalog:
    """The package made of its bundle directories' reads (in path order), their notices sent
    first, in order."""
    loaded: list[_Loaded] = []
    unloadable: list[tuple[Path, ValidationError]] = []
    for path, record in reads:
        if not permissive:
            _refuse_unparsable_metadata(record)
        replay(record, notify)
        if record.error:
            unloadable.append((path, ValidationError(record.error)))
        else:
            loaded.append(record.result)
    if unloadable and (mode == "replaces" or not permissive or not loaded):
        # One replaces call with every image: a bad one fails it. Otherwise semver modes refuse
        # the bad bundle alone, which is fatal unless permissive.
        raise unloadable[0][1]
    if unloadable and mode == "replaces-then-semver":
        fallback_reason = str(unloadable[0][1])
        result = build_package(name, [item.node for item in loaded], "semver")
        result.fallback = fallback_reason
    else:
        result = build_package(name, [item.node for item in loaded], mode)
    if result.fallback:
        notify(
            Notice(
                CODE_MODE_FALLBACK,
                f"package {name!r}: opm registry add --mode replaces refuses it "
                f"({result.fallback}); built in semver mode, one bundle at a time",
                package=name,
            )
        )
    refusals = [(str(path), str(error)) for path, error in unloadable]
    refusals += [(r.bundle.where, r.reason) for r in result.refused]
    for where, reason in refusals:
        if not permissive:
            raise ValidationError(f"{where}: {result.mode} mode refuses the bundle: {reason}")
        notify(
            Notice(
                CODE_BUNDLE_REFUSED,
                f"{where}: left out: {result.mode} mode refuses the bundle: {reason}",
                file=where,
                package=name,
            )
        )
    index = result.index
    by_dir = {str(item.path): item for item in loaded}
    for channel in index.channels():
        if not channel.name:
            empty = next(i.path for i in loaded if "" in i.node.channels)
            raise ValidationError(
                f"{empty}: annotation {ANNOTATION_CHANNELS} names an empty channel; opm migrate "
                "refuses the catalog (channel name must not be empty)"
            )
    members = {n: by_dir[index.bundles[n].where] for n in index.members()}
    for stored in index.bundles.values():
        if stored.name not in members:
            # Added, but no channel lists it (an empty channels annotation): opm keeps the row
            # and its migration leaves the bundle out.
            notify(
                Notice(
                    CODE_NOT_IN_CHANNEL,
                    f"{stored.where}: bundle {stored.name!r} is in no channel; left out, as opm "
                    "leaves it out",
                    file=stored.where,
                    package=name,
                    bundle=stored.name,
                )
            )
    default = index.default_channel or ""
    head = members.get(index.heads.get(default, ""))
    icon = None
    if head is not None:
        icon = legacy.decode_package_icon(
            head.icon, notify, f"{head.path}: icon of CSV {head.node.name!r}", package=name
        )
    pkg = PackageCatalog(
        package=Package(name=name, default_channel=default, icon=icon),
        channels=index.channels(),
        bundles=tuple(members[n].bundle for n in sorted(members)),
    )
    legacy.check_like_opm(pkg, f"package {name!r}")  # what opm migrate refuses of the index
    return pkg


# -- the tree reader ----------------------------------------------------------------------------


# ci.yaml as operator pipelines read it. redhat-openshift-ecosystem/operator-pipelines loads
# <operator>/ci.yaml whole (operatorcert/operator_repo/core.py, Operator.config; none: {}) and
# checks it against operatorcert/schemas/ci-schema.json (seen at commit 86ff2b4e): an object,
# other keys allowed, whose known keys are
#   updateGraph      string, "replaces-mode" | "semver-mode" (default replaces-mode; the static
#                    check check_ci_upgrade_graph fails other values; community-operators'
#                    older "semver-skippatch-mode" is read too, as bundle-index maps it)
#   reviewers        list of strings, at least one
#   merge            boolean            cert_project_id  string
#   fbc              object of exactly: enabled (boolean), catalog_mapping (list of objects with
#                    template_name (string), type ("olm.template.basic" | "olm.semver") and
#                    catalog_names (unique strings, at least one), all three required)
# and community-operators' docs/operator-ci-yaml.md adds addReviewers (boolean); operator
# pipelines' docs/users/operator-ci-yaml.md adds fbc.version_promotion_strategy ("never" |
# "always" | "review-needed": how the pipelines' promotion script copies the operator's catalog
# to the next OpenShift version; 5 ci.yaml of community-operators-prod, 2026-08, set it).
# Only updateGraph changes what olmcat builds; a malformed value of any key is a warning naming
# it (updateGraph then falls back to the default mode).
_CI_TEMPLATE_TYPES = ("olm.template.basic", "olm.semver")
_CI_PROMOTION_STRATEGIES = ("never", "always", "review-needed")


def _ci_problems(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, what is wrong with its value) for the keys of a ci.yaml the schema knows."""
    problems: list[tuple[str, str]] = []

    def check(key: str, ok: bool, expected: str, value: Any) -> bool:
        if not ok:
            problems.append((key, f"{expected}, not {_shown(value)}"))
        return ok

    def strings(key: str, value: Any, *, unique: bool = False) -> None:
        if check(key, isinstance(value, list), "a list of strings", value):
            if not check(key, bool(value), "at least one entry", value):
                return
            for index, item in enumerate(value):
                check(f"{key}[{index}]", isinstance(item, str), "a string", item)
            if unique and len({repr(v) for v in value}) != len(value):
                problems.append((key, "the same name twice"))

    for key in ("merge", "addReviewers"):
        if key in document:
            check(key, isinstance(document[key], bool), "true or false", document[key])
    if "cert_project_id" in document:
        value = document["cert_project_id"]
        check("cert_project_id", isinstance(value, str), "a string", value)
    if "reviewers" in document:
        strings("reviewers", document["reviewers"])
    fbc = document.get("fbc")
    if "fbc" not in document or not check("fbc", isinstance(fbc, dict), "a mapping", fbc):
        return problems
    assert isinstance(fbc, dict)
    known = ("enabled", "catalog_mapping", "version_promotion_strategy")
    for key in sorted(set(fbc) - set(known), key=str):
        problems.append((f"fbc.{key}", f"not a key of fbc ({', '.join(known)})"))
    if "version_promotion_strategy" in fbc:
        value = fbc["version_promotion_strategy"]
        check("fbc.version_promotion_strategy", value in _CI_PROMOTION_STRATEGIES,
              f"one of {', '.join(_CI_PROMOTION_STRATEGIES)}", value)  # fmt: skip
    if "enabled" in fbc:
        check("fbc.enabled", isinstance(fbc["enabled"], bool), "true or false", fbc["enabled"])
    mapping = fbc.get("catalog_mapping")
    if "catalog_mapping" not in fbc or not check(
        "fbc.catalog_mapping", isinstance(mapping, list), "a list", mapping
    ):
        return problems
    assert isinstance(mapping, list)
    for index, entry in enumerate(mapping):
        where = f"fbc.catalog_mapping[{index}]"
        if not check(where, isinstance(entry, dict), "a mapping", entry):
            continue
        assert isinstance(entry, dict)
        for key in ("template_name", "type", "catalog_names"):
            if key not in entry:
                problems.append((f"{where}.{key}", "missing (required)"))
        if "template_name" in entry:
            value = entry["template_name"]
            check(f"{where}.template_name", isinstance(value, str), "a string", value)
        if "type" in entry:
            value = entry["type"]
            check(f"{where}.type", value in _CI_TEMPLATE_TYPES,
                  f"one of {', '.join(_CI_TEMPLATE_TYPES)}", value)  # fmt: skip
        if "catalog_names" in entry:
            strings(f"{where}.catalog_names", entry["catalog_names"], unique=True)
    return problems


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _ci_update_graph(directory: Path, notify: NoticeSink) -> Mode | None:
    """The mode the ``ci.yaml`` in ``directory`` asks for (None: no ci.yaml or no valid
    updateGraph); what its schema refuses is a notice naming the key (see above)."""
    path = directory / CI_FILE
    if not path.is_file():
        return None
    try:
        documents = list(load_all(safe.read_text(path), where=str(path)))
    except Exception as exc:  # unreadable or not YAML: treated as absent, as bundle-index does
        notify(
            Notice(
                CODE_CI_YAML,
                f"{path}: unreadable ({str(exc).splitlines()[0] if str(exc) else exc}); ignored, "
                f"using {DEFAULT_MODE}",
                file=str(path),
            )
        )
        return None
    document: Any = documents[0] if documents else None
    if document is None:
        return None  # empty: no settings
    if not isinstance(document, dict):
        notify(
            Notice(
                CODE_CI_YAML,
                f"{path}: not a mapping of settings but {_shown(document)}; ignored, using "
                f"{DEFAULT_MODE}",
                file=str(path),
            )
        )
        return None
    for key, problem in _ci_problems(document):
        notify(
            Notice(
                CODE_CI_YAML_INVALID,
                f"{path}: {key}: {problem} (operator pipelines' ci.yaml schema); olmcat does "
                "not use it",
                file=str(path),
            )
        )
    fbc = document.get("fbc")
    if isinstance(fbc, dict) and fbc.get("enabled") is True:
        notify(
            Notice(
                CODE_CI_YAML_FBC,
                f"{path}: fbc.enabled: operator pipelines build this operator's catalogs from "
                "its catalog-templates/, not by adding its bundles to an index; read as an "
                "index build of its bundle directories",
                "info",
                file=str(path),
            )
        )
    value = document.get("updateGraph")
    if value is None:  # (as the pipelines' check: missing, so the default mode)
        return None
    if not isinstance(value, str) or value not in CI_UPDATE_GRAPH:
        notify(
            Notice(
                CODE_CI_YAML,
                f"{path}: updateGraph: {_shown(value)} is not one of "
                f"{', '.join(CI_UPDATE_GRAPH)}; ignored, using {DEFAULT_MODE}",
                file=str(path),
            )
        )
        return None
    return CI_UPDATE_GRAPH[value]


def _package_in(metadata: Metadata) -> str:
    if not metadata.annotations.package:
        raise ValidationError(f"{metadata.annotations_file}: no {ANNOTATION_PACKAGE} annotation")
    return metadata.annotations.package


class BundleDirCatalog:
    """A tree of bundle directories (or one), yielding one :class:`PackageCatalog` per package.

    Bundle directories at or below ``exclude_dirs`` (package-manifest packages) are ignored.
    Discovery reads only the metadata; a package's bundles are parsed when it is read and only
    their rendered form is kept, so memory holds one package at a time.

    An invalid package raises ValidationError; with ``permissive`` it is skipped with a Notice
    and its name added to ``skipped`` (a bundle directory without a package annotation is skipped
    under its path).
    """

    def __init__(
        self,
        root: Path,
        *,
        exclude_dirs: set[Path] | frozenset[Path] = frozenset(),
        permissive: bool = False,
        image_ref_template: str | None = None,
        mode: Mode | None = None,
        package_modes: Mapping[str, Mode] | None = None,
        notify: NoticeSink = discard,
        tree: Tree | None = None,
        cache: RenderCache | None = None,
    ) -> None:
        """``tree``: the walk of ``root`` when the caller made it already (one walk for every
        reader of the directory). ``cache``: rendered bundles to reuse (and to fill)."""
        self.cache = cache
        if image_ref_template is not None:
            check_template(image_ref_template)
        if cache is not None and tree is None:
            cache.begin()  # (a caller that walked the tree began the read)
        self.tree = tree if tree is not None and tree.root == root else walk_tree(root)
        self.root = root
        self.permissive = permissive
        self.image_ref_template = image_ref_template
        self.mode = mode
        self.package_modes = dict(package_modes or {})
        self._notify = notify
        self._exclude = frozenset(exclude_dirs)
        self.skipped: list[str] = []
        self._packages: dict[str, list[Path]] = {}
        self.nested: list[Path] = []  # bundle directories left out: inside a version directory
        self._operator_dirs: dict[Path, bool] = {}
        self.cache_hits = 0
        self._discover()

    def _excluded(self, path: Path) -> bool:
        return path in self._exclude or any(p in self._exclude for p in path.parents)

    def _skip(self, name: str, what: str, error: ValidationError, *, package: str = "") -> None:
        if not self.permissive:
            raise error
        self.skipped.append(name)
        code = CODE_PACKAGE_SKIPPED if package else CODE_BUNDLE_DIR_SKIPPED
        self._notify(
            Notice(code, f"skipped {what}: {error}", package=package, file="" if package else name)
        )

    def _discover(self) -> None:
        if self._excluded(self.root):
            return
        # Directories top-down in name order; below a bundle directory nothing is another
        # bundle. The walk skipped hidden entries and what .indexignore files exclude; an
        # ignored directory ("drafts/") is pruned here, judged by a path inside it as gitignore
        # judges directory patterns.
        pending = [self.root]
        by_path, exclude, specs = self.tree.by_path, self._exclude, self.tree.specs
        while pending:
            directory = pending.pop()
            walked = by_path.get(directory)
            if walked is None:
                continue
            dirnames = walked.subdirs
            if exclude or specs:
                dirnames = [
                    d
                    for d in dirnames
                    if directory / d not in exclude and not self.tree.ignored(directory / d / "-")
                ]
            if MANIFESTS_DIR not in dirnames or METADATA_DIR not in dirnames:
                pending.extend(directory / d for d in reversed(dirnames))
                continue
            operator = self._operator_above(directory)
            if operator is not None:
                self._nested(directory, operator)
                continue
            self._bundles_inside(directory)
            try:
                package = self._package_of(directory)
            except ValidationError as error:
                self._skip(str(directory), f"bundle directory {directory}", error)
                continue
            self._packages.setdefault(package, []).append(directory)
        for name in sorted(set(self.package_modes) - set(self._packages)):
            self._notify(
                Notice(
                    CODE_MODE_UNUSED,
                    f"--mode {name}=...: no bundle-format package {name!r} in {self.root}",
                    package=name,
                )
            )

    def _operator_above(self, directory: Path) -> Path | None:
        """The operator directory a bundle directory is nested in, below one of its version
        directories (``<operator>/2.0.0/bundle/{manifests,metadata}``); None for a bundle
        directory where pipelines look for one. Operator pipelines take the bundles of an
        operator directory from its children alone (operator-pipelines'
        ``operatorcert/operator_repo/core.py``: ``Operator.all_bundles`` probes each child for
        ``manifests/`` + ``metadata/``; an operator directory is one with such a child or a
        ``ci.yaml``): a directory above the bundle's parent that is an operator directory so
        makes the parent a version directory, and the bundle one no pipeline builds."""
        parent = directory.parent
        if directory == self.root or parent == self.root:
            return None
        for above in parent.parents:
            if above != self.root and self.root not in above.parents:
                return None  # never judged by what lies outside the root
            if self._is_operator_dir(above):
                return above
            if above == self.root:
                return None
        return None

    def _is_operator_dir(self, path: Path) -> bool:
        known = self._operator_dirs.get(path)
        if known is None:
            by_path = self.tree.by_path
            walked = by_path.get(path)
            known = walked is not None and (
                any(f.name == CI_FILE for f in walked.files)
                or any(walked_bundle(by_path.get(path / d)) for d in walked.subdirs)
            )
            self._operator_dirs[path] = known
        return known

    def _bundles_inside(self, bundle: Path) -> None:
        """Bundle directories below bundle directory ``bundle`` (outside its ``manifests/`` and
        ``metadata/``; ``<operator>/5.24.0/bundle/{manifests,metadata}`` beside
        ``5.24.0/{manifests,metadata}``): its image is built of those two alone, so each is left
        out with a warning."""
        by_path = self.tree.by_path
        walked = by_path.get(bundle)
        pending = [
            bundle / d
            for d in reversed(walked.subdirs if walked else [])
            if d not in (MANIFESTS_DIR, METADATA_DIR)
        ]
        while pending:
            directory = pending.pop()
            if directory in self._exclude or self.tree.ignored(directory / "-"):
                continue
            inner = by_path.get(directory)
            if inner is None:
                continue
            if walked_bundle(inner):
                self.nested.append(directory)
                self._notify(
                    Notice(
                        CODE_NESTED_BUNDLE,
                        f"{directory}: bundle directory inside bundle directory {bundle}; left "
                        f"out: the image of {bundle.name!r} is built of its own "
                        f"{MANIFESTS_DIR}/ and {METADATA_DIR}/ alone, and no pipeline builds "
                        "one of this directory",
                        file=str(directory),
                    )
                )
            pending.extend(
                directory / d
                for d in reversed(inner.subdirs)
                if not (walked_bundle(inner) and d in (MANIFESTS_DIR, METADATA_DIR))
            )

    def _nested(self, directory: Path, operator: Path) -> None:
        self.nested.append(directory)
        version = directory.parent
        self._notify(
            Notice(
                CODE_NESTED_BUNDLE,
                f"{directory}: bundle directory inside version directory {version.name!r} of "
                f"operator directory {operator}; left out: operator pipelines build bundles "
                "only from <operator>/<version>/{manifests,metadata} (read, it would be one "
                f"more bundle of the channel, its image tagged {directory.name!r})",
                file=str(directory),
            )
        )

    def _package_of(self, directory: Path) -> str:
        """The package annotation of a bundle directory (ValidationError: the directory is
        skipped), as :func:`read_metadata` finds it; remembered by the digests of its
        ``metadata/`` files when there is a cache, its input notices sent again, in order."""
        cache = self.cache
        where = f"{directory}{os.sep}{METADATA_DIR}"
        listing = None if cache is None else cache.listing(where, self.root)
        if cache is None or listing is None:
            return _package_in(read_metadata(directory, self.root, unparsable=discard))
        key = cache.key("bundle package", str(directory), str(self.root), *listing.parts)
        memo = cache.memo(self.root, key)
        if not isinstance(memo, tuple):
            recorder = Recorder()
            with safe.notices_to(recorder.input):
                try:
                    # (An unparsable file is reported when the bundle is rendered.)
                    metadata = read_metadata(directory, self.root, unparsable=discard)
                    package, error = _package_in(metadata), ""
                except ValidationError as problem:
                    package, error = "", str(problem)
            memo = (package, error, recorder.record.notices)
            if unchanged(listing.stats):
                cache.remember(self.root, key, memo)
        package, error, notices = memo
        replay(Recorded(notices=notices), self._notify)
        if error:
            raise ValidationError(error)
        return str(package)

    def mode_of(self, name: str) -> Mode:
        """The update mode package ``name`` is built in (see the module doc)."""
        return self._mode_of(name, self._notify)

    def _mode_of(self, name: str, notify: NoticeSink) -> Mode:
        if name in self.package_modes:
            return self.package_modes[name]
        if self.mode is not None:
            return self.mode
        found: dict[Mode | None, Path] = {}
        for parent in sorted({d.parent for d in self._packages[name]}):
            if parent == self.root or self.root in parent.parents:  # never read outside the root
                found.setdefault(_ci_update_graph(parent, notify), parent)
        modes = [m for m in found if m is not None]
        if len(found) > 1:
            where = ", ".join(str(p / CI_FILE) for p in found.values())
            notify(
                Notice(
                    CODE_CI_YAML,
                    f"package {name!r}: its bundle directories' ci.yaml files disagree ({where}); "
                    f"using {DEFAULT_MODE}",
                    package=name,
                )
            )
            return DEFAULT_MODE
        return modes[0] if modes else DEFAULT_MODE

    def package_names(self) -> list[str]:
        return sorted(self._packages)

    def bundle_dirs(self, package: str) -> list[Path]:
        return list(self._packages[package])

    def global_others(self) -> list[Meta]:
        return []

    def close(self) -> None:
        """Nothing to release; present so every reader has the same interface."""

    def __iter__(self) -> Iterator[PackageCatalog]:
        return self.packages()

    def packages(self, only: Collection[str] | None = None) -> Iterator[PackageCatalog]:
        """Packages in name order. With several CPUs, bundles are read in worker processes
        (YAML parsing dominates; the bundles of one package too) and taken in order, a few
        ahead, so memory stays bounded; ``OLMCAT_WORKERS`` sets the number (1: no workers)."""
        for item in self.package_items(only):
            assert isinstance(item, PackageCatalog)  # no finished packages asked for
            yield item

    def package_items(
        self, only: Collection[str] | None = None, outputs: PackageOutputs | None = None
    ) -> Iterator[PackageCatalog | CachedPackage]:
        """:meth:`packages`, where a package whose output ``outputs`` holds already (same
        bundle keys, mode and options) comes as that :class:`CachedPackage`, its bundles not
        read at all and the notices its building sent sent again. A package that is built is
        registered with ``outputs`` (with its notices) for the writer to store."""
        names = selected(self.package_names(), only)
        modes: dict[str, tuple[Mode, Recorded]] = {}
        jobs: dict[str, list[BundleJob]] = {}
        finished: dict[str, str] = {}  # package -> key of its finished output
        keys: dict[str, str] = {}
        for name in names:
            # Each package's mode notices are sent in its turn, as if it were read then.
            recorder = Recorder()
            with safe.notices_to(recorder.input):
                mode = self._mode_of(name, recorder.reader)
            modes[name] = (mode, recorder.record)
            jobs[name] = [
                index_build_job(path, self.image_ref_template, self.root, self.cache)
                for path in sorted(self._packages[name])
            ]
            if outputs is not None and all(job.key is not None for job in jobs[name]):
                parts = [mode, f"permissive={self.permissive}"]
                parts += [f"{job.path}\0{job.key}" for job in jobs[name]]
                keys[name] = outputs.key(name, parts)
                if outputs.has(keys[name]):
                    finished[name] = keys[name]
        to_read = [job for name in names if name not in finished for job in jobs[name]]
        # Worker processes pay off for bundles to render, not for entries to read.
        to_render = [
            job
            for job in to_read
            if job.cache is None or job.key is None or not job.cache.has(job.key)
        ]
        workers = worker_count(len(to_render))
        if workers > 1:
            to_read = [replace(job, probe=job.key is not None) for job in to_read]
        results: Iterator[tuple[Recorded | None, bool, str | None]] = iter(
            map_in_order(read_bundle, to_read, workers, share=True)
            if workers > 1
            else (read_bundle(job) for job in to_read)
        )
        missed = False
        stopped = True  # until every package was read
        queued = iter(to_read)
        try:
            for name in names:
                mode, mode_notices = modes[name]
                replay(mode_notices, self._notify)
                reads: list[tuple[Path, Recorded]] = []
                if name in finished:
                    assert outputs is not None
                    found = outputs.take(finished[name], name)
                    if found is not None:
                        yield from self._finished(found, jobs[name])
                        continue
                    # Damaged or gone since: built here after all (and stored again).
                    for job in jobs[name]:
                        record, hit = take_bundle(job, read_bundle(job))
                        missed = missed or not hit
                        self.cache_hits += hit
                        reads.append((job.path, record))
                else:
                    for job in jobs[name]:
                        record, hit = take_bundle(next(queued), next(results))
                        missed = missed or not hit
                        self.cache_hits += hit
                        reads.append((job.path, record))
                built = self._assemble(name, mode, reads, outputs, keys.get(name))
                if built is not None:
                    yield built
            next(results, None)  # let the workers finish (and exit) in order
            if self.cache is not None:
                self.cache.finish(wrote=missed)  # (a failure to save is reported here)
            stopped = False
        finally:
            if stopped:
                # The workers are stopped first: one killed while it wrote an entry leaves its
                # temporary file, which finish() then removes.
                close = getattr(results, "close", None)
                if close is not None:
                    close()
            if self.cache is not None:
                with contextlib.suppress(
                    OutputError
                ):  # stopped early: the error that stopped it counts
                    self.cache.finish(wrote=missed or stopped)

    def _finished(self, found: CachedPackage, jobs: list[BundleJob]) -> Iterator[CachedPackage]:
        """A package from the cache, in its turn: its building's notices sent again."""
        replay(Recorded(notices=found.meta.notices), self._notify)
        self.cache_hits += len(jobs)
        for job in jobs:  # its bundles stay recently used: a change to one reuses the others
            if job.cache is not None and job.key is not None:
                job.cache.has(job.key)
        if found.meta.error:
            found.close()
            self._skip(found.name, f"package {found.name!r}", ValidationError(found.meta.error),
                       package=found.name)  # fmt: skip
            return
        yield found

    def _assemble(
        self,
        name: str,
        mode: Mode,
        reads: list[tuple[Path, Recorded]],
        outputs: PackageOutputs | None,
        key: str | None,
    ) -> PackageCatalog | None:
        """The package built of its bundles' reads (None: left out, with a notice); with a
        ``key``, its notices are kept for ``outputs`` to store with it."""
        if outputs is None or key is None:
            try:
                return assemble_package(
                    name, reads, mode=mode, permissive=self.permissive, notify=self._notify
                )
            except ValidationError as error:
                self._skip(name, f"package {name!r}", error, package=name)
                return None
        recorder = Recorder()
        forward = safe.current_sink()

        def reader(notice: Notice) -> None:
            recorder.reader(notice)
            self._notify(notice)

        def input_notice(notice: Notice) -> None:
            recorder.input(notice)
            forward(notice)

        try:
            with safe.notices_to(input_notice):
                pkg = assemble_package(
                    name, reads, mode=mode, permissive=self.permissive, notify=reader
                )
        except ValidationError as error:
            if self.permissive:
                outputs.skipped(key, name, recorder.record.notices, str(error))
            self._skip(name, f"package {name!r}", error, package=name)
            return None
        outputs.building(key, name, recorder.record.notices)
        return pkg

    def read_package(self, name: str) -> PackageCatalog:
        """Parse, check and lay out one package (ValidationError if the build refused it)."""
        return read_package(
            name,
            self._packages[name],
            mode=self.mode_of(name),
            image_ref_template=self.image_ref_template,
            permissive=self.permissive,
            root=self.root,
            notify=self._notify,
            cache=self.cache,
        )
