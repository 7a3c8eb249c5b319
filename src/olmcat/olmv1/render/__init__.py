"""operator-controller v1.11.0's registry+v1 renderer: the objects it applies for a bundle.

:func:`render_bundle` is the renderer (``registryv1.Renderer.Render``) with a ClusterExtension's
``spec.config.inline`` validated first, as the applier validates it; :func:`render_source` reads
the bundle (directory or image) and renders it, for the ``olmv1 render`` command.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from olmcat.errors import OutputError
from olmcat.notices import NoticeSink, discard
from olmcat.olmv1.bundle import RegistryV1, read_bundle
from olmcat.olmv1.config import (
    ConfigError,
    bundle_config_schema,
    deployment_config,
    unmarshal_config,
)
from olmcat.olmv1.config import watch_namespace as configured_watch_namespace
from olmcat.olmv1.render.certproviders import PROVIDERS
from olmcat.olmv1.render.renderer import (
    REGISTRY_V1,
    BundleRenderer,
    RenderError,
    manifest_files,
    render,
    sorted_objects,
    to_yaml,
    yaml_stream,
)

__all__ = [
    "PROVIDERS",
    "REGISTRY_V1",
    "BundleRenderer",
    "ConfigError",
    "RenderError",
    "RenderResult",
    "manifest_files",
    "render",
    "render_bundle",
    "render_source",
    "sorted_objects",
    "to_yaml",
    "write_manifests",
    "yaml_stream",
]


def _config_text(config: dict[str, Any] | str | None, watch: str | None) -> str | None:
    if watch is None:
        return config if isinstance(config, str) or config is None else json.dumps(config)
    data: dict[str, Any] = {}
    if isinstance(config, dict):
        data = dict(config)
    elif isinstance(config, str):
        parsed = unmarshal_config(config, None, "")
        data = dict(parsed)
    data["watchNamespace"] = watch
    return json.dumps(data)


def render_bundle(
    bundle: RegistryV1,
    install_namespace: str,
    *,
    watch_namespace: str | None = None,
    config: dict[str, Any] | str | None = None,
    cert_provider: str | None = None,
) -> list[dict[str, Any]]:
    """The objects operator-controller v1.11.0 applies for ``bundle`` installed into
    ``install_namespace``, in its order (generator order).

    ``config`` is the ClusterExtension's ``spec.config.inline`` (a mapping, or its YAML/JSON
    text); ``watch_namespace`` sets its ``watchNamespace``. When either is given it is validated
    against the bundle's configuration schema (:class:`~olmcat.olmv1.config.ConfigError` with
    v1.11.0's text) and its ``watchNamespace`` and ``deploymentConfig`` become the render
    options; without them the bundle's default target namespaces apply. ``cert_provider`` is
    ``cert-manager``, ``openshift-service-ca`` or None (no certificate objects). A bundle or
    options v1.11.0 refuses raise :class:`RenderError`."""
    targets: Sequence[str] | None = None
    deployment: dict[str, Any] | None = None
    text = _config_text(config, watch_namespace)
    if text is not None:
        try:
            checked = unmarshal_config(text, bundle_config_schema(bundle), install_namespace)
            deployment = deployment_config(checked)
        except ConfigError as error:
            raise ConfigError(f"invalid ClusterExtension configuration: {error}") from None
        watched = configured_watch_namespace(checked)
        if watched is not None:
            targets = [watched]
    return render(
        bundle,
        install_namespace,
        target_namespaces=targets,
        cert_provider=cert_provider,
        deployment_config=deployment,
    )


@dataclass(frozen=True)
class RenderResult:
    """A rendered bundle: the bundle read and the objects, in render order."""

    bundle: RegistryV1
    objects: tuple[dict[str, Any], ...]

    def yaml(self) -> str:
        """One YAML stream, ``---`` before each object."""
        return yaml_stream(self.objects)

    def files(self) -> list[tuple[str, str]]:
        """(``NN_kind_name.yaml``, YAML) per object, as generate-manifests.go writes them."""
        return manifest_files(self.objects)


def render_source(
    source: str | Path,
    install_namespace: str,
    *,
    watch_namespace: str | None = None,
    config: dict[str, Any] | str | None = None,
    cert_provider: str | None = None,
    platform: str | None = None,
    notify: NoticeSink = discard,
) -> RenderResult:
    """Read a bundle directory or bundle image (see :func:`olmcat.olmv1.bundle.read_bundle`) and
    render it with :func:`render_bundle`."""
    bundle = read_bundle(source, platform=platform, notify=notify)
    objects = render_bundle(
        bundle,
        install_namespace,
        watch_namespace=watch_namespace,
        config=config,
        cert_provider=cert_provider,
    )
    return RenderResult(bundle, tuple(objects))


def write_manifests(out_dir: Path, files: Sequence[tuple[str, str]]) -> None:
    """Write ``files`` (name, text) into ``out_dir``, which must not exist or be empty."""
    from olmcat.files.output import open_output, writing

    if out_dir.exists():
        if not out_dir.is_dir():
            raise OutputError(f"{out_dir}: exists and is not a directory")
        if any(out_dir.iterdir()):
            raise OutputError(f"{out_dir}: exists and is not empty (give a new directory)")
    with writing(out_dir):
        out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in files:
        with open_output(out_dir / name, "w", newline="") as handle:
            handle.write(text)
