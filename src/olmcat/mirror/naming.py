"""Plan a catalog mirror the way ``oc adm catalog mirror --manifests-only`` does, deterministically.

Everything here is a pure function of image reference strings. The naming rules come from
openshift/oc ``pkg/cli/admin/catalog``: ``mirrorer.go`` (``mappingForImages``, ``mount``) and
``mirror.go`` (``writeToMapping``, ``getRegistryMapping``, ``generateICSPs``/``generateICSP``,
``generateIDMSs``/``generateIDMS``, ``generateCatalogSource``). oc walks Go maps, so its line and
policy order is random; here every list is sorted, and where oc would pick an arbitrary map entry
the choice is made by a stated rule instead.

Typical use::

    mappings = plan_mappings(related_images, "mirror.example.com/olm", index=index_image)
    (out / "mapping.txt").write_text(render_mapping_txt(mappings))
    icsps = render_icsp(mappings, name=catalog_name(index_image))
    (out / "imageContentSourcePolicy.yaml").write_text(join_documents(icsps))
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import yaml

from olmcat.errors import InputError, OutputError
from olmcat.oci.reference import ImageReference, parse_reference

__all__ = [
    "CATALOG_LABEL",
    "MAX_POLICY_SIZE",
    "Destination",
    "Mapping",
    "Scope",
    "catalog_name",
    "join_documents",
    "parse_destination",
    "plan_index_mapping",
    "plan_mappings",
    "render_catalog_source",
    "render_icsp",
    "render_idms",
    "render_itms",
    "render_mapping_txt",
]

Scope = Literal["repository", "registry"]

# oc mirror.go: maxICSPSize = maxIDMSSize = 250000 (below the 262144-byte annotation limit that
# `oc apply` runs into); it is also the largest value `--max-icsp-size` accepts.
MAX_POLICY_SIZE = 250_000
# oc labels every ICSP / IDMS it writes so that one `oc delete -l <label>=true` removes them all.
CATALOG_LABEL = "operators.openshift.org/catalog"

_FILE_PREFIX = "file://"
# oc measures the typed object, which still carries `creationTimestamp: null` (metav1.Time is a
# struct, so omitempty does not drop it) and, for the config.openshift.io sets, `status: {}`; both
# are deleted only afterwards, from the unstructured copy that is written out.
_CREATION_TIMESTAMP_LINE = "  creationTimestamp: null\n"
_EMPTY_STATUS_LINE = "status: {}\n"


@dataclass(frozen=True, slots=True)
class Destination:
    """Where a catalog is mirrored to: a registry (maybe with namespaces) or a ``file://`` tree."""

    ref: ImageReference
    is_file: bool = False

    def __str__(self) -> str:
        return (_FILE_PREFIX if self.is_file else "") + self.ref.exact()


@dataclass(frozen=True, slots=True)
class Mapping:
    """One line of ``mapping.txt`` and the facts the mirror policies are built from.

    ``source`` is the reference as oc keys it: Docker client defaults applied (``docker.io``,
    ``library/``, ``latest``) except that a digest-only reference gets no tag; the index image's
    own mapping keeps the index as it was written. ``target`` carries
    the destination's tag (the source's, or the one oc invents for digest-only sources) and the
    source's digest, if any.
    """

    source: ImageReference
    target: ImageReference
    target_is_file: bool = False

    @property
    def source_text(self) -> str:
        """Left side of the mapping.txt line (the digest wins over a tag, as oc prints it)."""
        return self.source.exact()

    @property
    def target_text(self) -> str:
        """Right side of the mapping.txt line: always by tag, so the registry keeps the image."""
        return self._prefix() + replace(self.target, digest="").exact()

    @property
    def target_pull_spec(self) -> str:
        """The target by digest when there is one, else by tag (what a CatalogSource points at)."""
        return self._prefix() + self.target.exact()

    @property
    def by_digest(self) -> bool:
        """Whether the source pins a digest (only those go into ICSP / IDMS)."""
        return bool(self.target.digest)

    def _prefix(self) -> str:
        return _FILE_PREFIX if self.target_is_file else ""

    def __str__(self) -> str:
        return f"{self.source_text}={self.target_text}"

    def _sort_key(self) -> tuple[str, ...]:
        return (self.source_text, self.target_text, self.target_pull_spec, self.source.tag)


def parse_destination(dest: str) -> Destination:
    """Parse ``registry[/namespace...]`` or ``file://path`` as oc's ``imagesource.ParseReference``.

    Unlike oc, a destination without a registry host or with a tag or digest is refused: oc would
    silently push ``registry:5000`` to Docker Hub (it parses as name ``registry``, tag ``5000``)
    and ignores tags and digests on the destination.
    """
    if dest.startswith("s3://"):
        raise InputError(f"destination {dest!r}: s3:// destinations are not supported")
    if dest.startswith(_FILE_PREFIX):
        # oc strips exactly one leading "/" so that file:///a and file://a are the same tree.
        path = dest[len(_FILE_PREFIX) :]
        path = path.removeprefix("/")
        ref = parse_reference(path)
        if ref.tag or ref.digest:
            raise InputError(f"destination {dest!r} must not have a tag or digest")
        return Destination(ref, is_file=True)
    ref = parse_reference(dest)
    if not ref.registry:
        raise InputError(
            f"destination {dest!r} must start with a registry host (one with a '.' or ':' or "
            "'localhost'), e.g. registry.example.com:5000/namespace"
        )
    if ref.tag or ref.digest:
        raise InputError(f"destination {dest!r} must not have a tag or digest")
    return Destination(ref)


def _fnv32a_hex(text: str) -> str:
    """FNV-1a 32-bit as lower-case hex without zero padding (Go's ``%x`` of ``Sum32``)."""
    value = 0x811C9DC5
    for byte in text.encode():
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return format(value, "x")


def _mount(source: ImageReference, dest: ImageReference, max_components: int) -> ImageReference:
    """Where ``source`` lands under ``dest``: oc mirrorer.go ``mount``."""
    out = source
    if not out.tag and out.digest:
        # Mirrors are pushed by tag so the registry does not garbage-collect them; oc names the
        # tag after the FNV-1a hash of the source as written (String(), before any defaults).
        out = replace(out, tag=_fnv32a_hex(str(source)))
    out = out.docker_client_defaults()

    components: list[str] = []
    if dest.namespace:
        components.append(dest.namespace)
    if dest.name:
        components.extend(dest.name.split("/"))
    if out.namespace:
        components.append(out.namespace)
    if out.name:
        components.extend(out.name.split("/"))
    if not components:
        raise InputError(f"image {source.exact()!r} names no repository to mirror")
    if len(components) == 1:
        # oc makes a lone component the name, not the namespace -- except with max 0, where it
        # produces the unusable "registry/name/" with the tag lost. We always take the name.
        return replace(out, registry=dest.registry, namespace="", name=components[0])
    if max_components > 1 and len(components) > max_components:
        # Keep max-1 components and fold the rest into the last one with "-".
        kept = "/".join(components[1 : max_components - 1])
        folded = "-".join(components[max_components - 1 :])
        name = f"{kept}/{folded}".removeprefix("/")
    else:
        name = "/".join(components[1:])
    return replace(out, registry=dest.registry, namespace=components[0], name=name)


def _effective_max_components(destination: Destination, max_components: int) -> int:
    # oc Complete(): names under file:// are never folded, because the second hop re-plans them.
    if destination.is_file:
        return 0
    if max_components == 1 or max_components < 0:
        raise ValueError("max_components must be 0 (no limit) or greater than 1")
    return max_components


def plan_index_mapping(index: str, dest: str, *, max_components: int = 2) -> Mapping:
    """The mapping oc adds for the index image itself (``IndexImageMirrorer.Mirror``).

    Its source is the index reference exactly as given, without Docker client defaults.
    """
    destination = parse_destination(dest)
    max_components = _effective_max_components(destination, max_components)
    index_ref = parse_reference(index)
    if not index_ref.name and not destination.is_file:
        raise InputError(f"index image {index!r} names no repository")
    target = _mount(index_ref, destination.ref, max_components)
    return Mapping(index_ref, target, destination.is_file)


def plan_mappings(
    sources: Iterable[str],
    dest: str,
    *,
    max_components: int = 2,
    index: str | None = None,
) -> list[Mapping]:
    """Map every source image to its mirror location exactly as oc computes it.

    ``dest`` is ``registry[/namespace...]`` or ``file://path``. ``max_components`` is oc's
    ``--max-components``: 0 keeps every path component, N > 1 keeps N-1 and joins the rest with
    ``-`` (forced to 0 for ``file://``, as oc does). With ``index`` the index image's own mapping is
    included, as oc includes it; a ``file://`` destination needs it, because oc nests every image
    under the index's path (``file://store/<index path>/<image path>``).

    Empty strings are skipped (as oc does); invalid references raise :class:`InputError`. The
    result is de-duplicated and sorted. Where oc would keep one of two targets for the same
    source at random (``busybox@sha256:X`` and ``docker.io/busybox@sha256:X`` get different
    invented tags), the target that sorts first is kept. The index's own mapping always wins over
    a related image with the same key, because oc assigns it last.
    """
    destination = parse_destination(dest)
    max_components = _effective_max_components(destination, max_components)
    base = destination.ref
    chosen: dict[ImageReference, Mapping] = {}

    def keep(mapping: Mapping) -> None:
        current = chosen.get(mapping.source)
        if current is None or mapping._sort_key() < current._sort_key():
            chosen[mapping.source] = mapping

    index_mapping = None
    if index is not None:
        index_mapping = plan_index_mapping(index, dest, max_components=max_components)
        if destination.is_file:
            base = _mount(index_mapping.source, destination.ref, 0)
    elif destination.is_file:
        raise ValueError("a file:// destination needs the index image (oc nests images under it)")

    for text in sources:
        if not text:
            continue
        if text.startswith((_FILE_PREFIX, "s3://")):
            raise InputError(f"source image {text!r}: only registry sources are supported")
        parsed = parse_reference(text)
        if not parsed.name:
            raise InputError(f"source image {text!r} is a registry, not an image")
        target = _mount(parsed, base, max_components)
        key = parsed.docker_client_defaults()
        if not parsed.tag and parsed.digest:
            # oc keys digest-only images without the default "latest" tag.
            key = replace(key, tag="")
        keep(Mapping(key, target, destination.is_file))

    if index_mapping is not None:
        # oc IndexImageMirrorer.Mirror(): mapping[b.Source] = mappedIndex, after the images.
        chosen[index_mapping.source] = index_mapping
    return sorted(chosen.values(), key=Mapping._sort_key)


def render_mapping_txt(mappings: Iterable[Mapping]) -> str:
    """``mapping.txt`` for ``oc image mirror -f``: sorted ``source=target`` lines."""
    lines = sorted({str(mapping) for mapping in mappings})
    return "".join(f"{line}\n" for line in lines)


def join_documents(documents: Iterable[str]) -> str:
    """Concatenate YAML documents the way oc writes its policy files (``---`` before each)."""
    return "".join(f"---\n{document}" for document in documents)


def catalog_name(index: str) -> str:
    """The name oc gives manifests of index ``index``: its repository name, ``/`` made ``-``.

    oc uses the raw name (``b/c`` for ``quay.io/a/b/c:1``) for the CatalogSource, which the API
    server would reject; the policies already get ``-``.
    """
    name = parse_reference(index).name
    if not name:
        raise InputError(f"index image {index!r} names no repository")
    return name.replace("/", "-")


class _GoYamlDumper(yaml.SafeDumper):
    """PyYAML tuned to print what sigs.k8s.io/yaml (go-yaml v2) prints for these documents.

    Both emit block style with sorted keys and un-indented sequences; go-yaml quotes with double
    quotes where PyYAML would use single ones (``"true"``).
    """

    def choose_scalar_style(self) -> str:
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # go-yaml v2 also reads y/n as booleans, so it quotes them; PyYAML would not.
    style = '"' if value in ("y", "Y", "n", "N") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_GoYamlDumper.add_representer(str, _represent_str)


def _dump(document: Any) -> str:
    return yaml.dump(document, Dumper=_GoYamlDumper, sort_keys=True, allow_unicode=True)


@dataclass(frozen=True, slots=True)
class _PolicyKind:
    api_version: str
    kind: str
    list_key: str
    # bytes oc's size check counts that the written document does not contain
    hidden_bytes: int


_ICSP = _PolicyKind(
    "operator.openshift.io/v1alpha1",
    "ImageContentSourcePolicy",
    "repositoryDigestMirrors",
    len(_CREATION_TIMESTAMP_LINE),
)
_IDMS = _PolicyKind(
    "config.openshift.io/v1",
    "ImageDigestMirrorSet",
    "imageDigestMirrors",
    len(_CREATION_TIMESTAMP_LINE) + len(_EMPTY_STATUS_LINE),
)
_ITMS = _PolicyKind(
    "config.openshift.io/v1",
    "ImageTagMirrorSet",
    "imageTagMirrors",
    len(_CREATION_TIMESTAMP_LINE) + len(_EMPTY_STATUS_LINE),
)


def _scalar(value: str) -> str:
    """``value`` as it appears after ``key: `` or ``- `` in go-yaml v2 block output (one line)."""
    if _PLAIN_SAFE_RE.fullmatch(value) and value not in _YAML_WORDS and not value.endswith(":"):
        # Image references and object names: plain in both go-yaml and PyYAML. Only strings
        # starting with a digit, sign or "." can read as numbers, and those take the slow path.
        return value
    return _slow_scalar(value)


@functools.lru_cache(maxsize=4096)
def _slow_scalar(value: str) -> str:
    # Let PyYAML (with the go-yaml quoting tweaks) decide; without line folding the item is one
    # line, "- <scalar>\n".
    text = yaml.dump([value], Dumper=_GoYamlDumper, allow_unicode=True, width=2**31 - 1)
    return text.removeprefix("- ").removesuffix("\n")


# Starts with a lower-case letter and has no character YAML treats specially at this position.
_PLAIN_SAFE_RE = re.compile(r"[a-z][a-z0-9._/:@+-]*", re.ASCII)
# Lower-case words go-yaml v2 or PyYAML resolve to booleans or null.
_YAML_WORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})


def _policy_header(kind: _PolicyKind, name: str) -> str:
    # Keys in go-yaml's sorted order; `spec` comes last, so the entries end the document.
    return (
        f"apiVersion: {kind.api_version}\n"
        f"kind: {kind.kind}\n"
        "metadata:\n"
        "  labels:\n"
        f'    {CATALOG_LABEL}: "true"\n'
        f"  name: {_scalar(name)}\n"
        "spec:\n"
        f"  {kind.list_key}:\n"
    )


def _policy_entry(source: str, mirror: str) -> str:
    return f"  - mirrors:\n    - {_scalar(mirror)}\n    source: {_scalar(source)}\n"


def _policy_document(kind: _PolicyKind, name: str, entries: Sequence[tuple[str, str]]) -> str:
    """The written object; formatted directly because PyYAML is far too slow to re-measure it."""
    return _policy_header(kind, name) + "".join(_policy_entry(*entry) for entry in entries)


def _policy_entries(
    mappings: Iterable[Mapping], scope: Scope, *, by_digest: bool
) -> list[tuple[str, str]]:
    """oc ``getRegistryMapping``: source -> mirror at repository or registry scope, sorted."""
    if scope not in ("repository", "registry"):
        raise ValueError(f"scope must be 'repository' or 'registry', not {scope!r}")
    pairs: dict[str, str] = {}
    for mapping in mappings:
        if mapping.target_is_file:
            raise ValueError(
                "mirror policies are only for registry destinations (oc writes none for file://)"
            )
        if mapping.by_digest != by_digest:
            continue
        if scope == "registry":
            source, mirror = mapping.source.registry, mapping.target.registry
        else:
            source, mirror = mapping.source.repository, mapping.target.repository
        # oc keeps whichever value its map saw last; keep the smallest instead.
        if source not in pairs or mirror < pairs[source]:
            pairs[source] = mirror
    return sorted(pairs.items())


def _render_policies(
    kind: _PolicyKind, entries: list[tuple[str, str]], name: str, max_size: int
) -> list[str]:
    """oc ``generateICSPs``/``generateICSP``: fill ``name-0``, ``name-1``, ... up to ``max_size``.

    oc adds one entry at a time, measures the whole marshalled object, and when it is over the
    limit takes the last entry out again and starts the next object; an entry that alone does not
    fit is an error. Entries go in sorted order here, so each object holds a sorted run.
    """
    if not 0 < max_size <= MAX_POLICY_SIZE:
        raise ValueError(f"max_size must be greater than 0 and at most {MAX_POLICY_SIZE}")
    if not name:
        raise ValueError(f"a {kind.kind} needs a name")
    documents: list[str] = []
    start = 0
    while start < len(entries):
        policy_name = f"{name}-{len(documents)}".replace("/", "-")
        size = len(_policy_header(kind, policy_name)) + kind.hidden_bytes
        end = start
        while end < len(entries):
            size += len(_policy_entry(*entries[end]))
            if size > max_size:
                break
            end += 1
        if end == start:
            source, mirror = entries[start]
            raise OutputError(
                f"{kind.kind} {policy_name}: the mirror of {source} to {mirror} alone is larger "
                f"than the size limit of {max_size} bytes"
            )
        documents.append(_policy_document(kind, policy_name, entries[start:end]))
        start = end
    return documents


def render_icsp(
    mappings: Iterable[Mapping],
    *,
    name: str,
    scope: Scope = "repository",
    max_size: int = MAX_POLICY_SIZE,
) -> list[str]:
    """``operator.openshift.io/v1alpha1`` ImageContentSourcePolicy documents, as oc writes them.

    Only mappings whose source pins a digest are included (ICSP mirrors apply to pulls by digest).
    ``scope="repository"`` maps each source repository to its mirror repository;
    ``scope="registry"`` maps source registries to the destination registry (``--icsp-scope``).
    The entries are split over policies named ``<name>-0``, ``<name>-1``, ... (``/`` in ``name``
    becomes ``-``), each at most ``max_size`` bytes as oc measures it. No digest mappings, no
    documents. Raises :class:`OutputError` if one entry alone exceeds ``max_size``.
    """
    entries = _policy_entries(mappings, scope, by_digest=True)
    return _render_policies(_ICSP, entries, name, max_size)


def render_idms(
    mappings: Iterable[Mapping],
    *,
    name: str,
    scope: Scope = "repository",
    max_size: int = MAX_POLICY_SIZE,
) -> list[str]:
    """``config.openshift.io/v1`` ImageDigestMirrorSet documents (oc ``generateIDMSs``).

    Same entries, naming, label and splitting as :func:`render_icsp`, under
    ``spec.imageDigestMirrors``.
    """
    entries = _policy_entries(mappings, scope, by_digest=True)
    return _render_policies(_IDMS, entries, name, max_size)


def render_itms(
    mappings: Iterable[Mapping],
    *,
    name: str,
    scope: Scope = "repository",
    max_size: int = MAX_POLICY_SIZE,
) -> list[str]:
    """``config.openshift.io/v1`` ImageTagMirrorSet documents for the sources without a digest.

    oc writes no ITMS; this applies the IDMS rules (naming, label, scope, splitting) to exactly the
    mappings ICSP / IDMS leave out, so that tag-only images are redirected too. That includes the
    index's own mapping when the index is given by tag (oc-mirror leaves catalogs out of its
    sets; drop that mapping first to do the same).
    """
    entries = _policy_entries(mappings, scope, by_digest=False)
    return _render_policies(_ITMS, entries, name, max_size)


def render_catalog_source(
    *,
    name: str,
    image: str,
    display_name: str | None = None,
    publisher: str | None = None,
) -> str:
    """An ``operators.coreos.com/v1alpha1`` CatalogSource of ``sourceType: grpc``, as oc writes it.

    ``image`` is the mirrored index (oc uses its mapping's target, by digest if it has one:
    :attr:`Mapping.target_pull_spec`). The namespace is ``openshift-marketplace``. ``display_name``
    and ``publisher`` (not written by oc) go to ``spec.displayName`` / ``spec.publisher``.
    """
    if not name:
        raise ValueError("a CatalogSource needs a name")
    if not parse_reference(image).name:
        raise InputError(f"CatalogSource image {image!r} names no repository")
    spec = {"image": image, "sourceType": "grpc"}
    if display_name is not None:
        spec["displayName"] = display_name
    if publisher is not None:
        spec["publisher"] = publisher
    return _dump(
        {
            "apiVersion": "operators.coreos.com/v1alpha1",
            "kind": "CatalogSource",
            "metadata": {"name": name.replace("/", "-"), "namespace": "openshift-marketplace"},
            "spec": spec,
        }
    )
