"""operator-controller v1.11.0's registry+v1 renderer (``rukpak/render/render.go``).

``Render`` validates the bundle (every validator, every error), then the options (the target
namespaces against the bundle's install modes), then runs the generators in order. The result
is the list of objects operator-controller applies; :func:`manifest_files` names them as
``test/regression/convert/generate-manifests.go`` writes them (``NN_kind_name.yaml``, sorted by
kind, namespace and name) and :func:`to_yaml` writes one as ``sigs.k8s.io/yaml`` does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from olmcat.go.yaml import dump_document
from olmcat.model.manifests import as_dict, as_list, as_str
from olmcat.olmv1.bundle import RegistryV1
from olmcat.olmv1.render.certproviders import PROVIDERS
from olmcat.olmv1.render.generators import GENERATORS, Manifest, Options, RenderError
from olmcat.olmv1.render.names import unique_name
from olmcat.olmv1.validators import RULES, go_list

__all__ = [
    "REGISTRY_V1",
    "BundleRenderer",
    "RenderError",
    "manifest_files",
    "render",
    "sorted_objects",
    "to_yaml",
    "yaml_stream",
]


def supported_install_modes(rv1: RegistryV1) -> set[str]:
    return rv1.supported_install_modes()


def default_target_namespaces(rv1: RegistryV1) -> tuple[str, ...] | None:
    """``defaultTargetNamespacesForBundle``: all namespaces when supported, else none."""
    return ("",) if "AllNamespaces" in supported_install_modes(rv1) else None


def target_namespaces_error(
    rv1: RegistryV1, install_namespace: str, targets: Sequence[str]
) -> str | None:
    """``validateTargetNamespaces``: why these target namespaces do not fit the bundle."""
    modes = supported_install_modes(rv1)
    shown = go_list(sorted(modes))
    wanted = set(targets)
    if not wanted:
        if "MultiNamespace" in modes:
            return "at least one target namespace must be specified"
        return "exactly one target namespace must be specified"
    if wanted == {""}:
        if "AllNamespaces" in modes:
            return None
        return f"supported install modes {shown} do not support targeting all namespaces"
    if len(wanted) == 1:
        if targets[0] == install_namespace:
            if "OwnNamespace" not in modes:
                return f"supported install modes {shown} do not support targeting own namespace"
            return None
        if "SingleNamespace" in modes:
            return None
    else:
        if "OwnNamespace" not in modes and install_namespace in wanted:
            return f"supported install modes {shown} do not support targeting own namespace"
        if "MultiNamespace" in modes and "" not in wanted:
            return None
    return (
        f"supported install modes {shown} do not support target namespaces {go_list(list(targets))}"
    )


Validator = Callable[[RegistryV1], list[str]]
Generator = Callable[[RegistryV1, Options], list[Manifest]]
UniqueNameGenerator = Callable[[str, dict[str, Any]], str]


@dataclass(frozen=True)
class BundleRenderer:
    """``render.BundleRenderer``: validators, then options, then generators."""

    validators: tuple[Validator, ...] = ()
    generators: tuple[Generator, ...] = ()

    def render(
        self,
        rv1: RegistryV1,
        install_namespace: str,
        *,
        target_namespaces: Sequence[str] | None = None,
        cert_provider: str | None = None,
        deployment_config: dict[str, Any] | None = None,
        unique_name_generator: UniqueNameGenerator | None = unique_name,
    ) -> list[Manifest]:
        """The objects, in generator order; a :class:`RenderError` with v1.11.0's text when the
        bundle or the options are refused. ``target_namespaces`` empty or None: the bundle's
        default (all namespaces when it supports AllNamespaces)."""
        errors = [message for check in self.validators for message in check(rv1)]
        if errors:
            raise RenderError("\n".join(errors))
        if cert_provider is not None and cert_provider not in PROVIDERS:
            raise RenderError(
                f"unknown certificate provider {cert_provider!r} "
                f"(choose from {', '.join(PROVIDERS)})"
            )
        targets = (
            tuple(target_namespaces) if target_namespaces else default_target_namespaces(rv1) or ()
        )
        problems = []
        if unique_name_generator is None:
            problems.append("unique name generator must be specified")
        problem = target_namespaces_error(rv1, install_namespace, targets)
        if problem is not None:
            problems.append(f"invalid target namespaces {go_list(list(targets))}: {problem}")
        if problems:
            raise RenderError("invalid option(s): " + "\n".join(problems))
        assert unique_name_generator is not None
        opts = Options(
            install_namespace=install_namespace,
            target_namespaces=targets,
            cert_provider=cert_provider,
            deployment_config=deployment_config,
            unique_name=unique_name_generator,
        )
        objects: list[Manifest] = []
        for generator in self.generators:
            objects.extend(generator(rv1, opts))
        return objects


# ``registryv1.Renderer``: every validator, every generator.
REGISTRY_V1 = BundleRenderer(tuple(RULES.values()), GENERATORS)


def render(
    rv1: RegistryV1,
    install_namespace: str,
    *,
    target_namespaces: Sequence[str] | None = None,
    cert_provider: str | None = None,
    deployment_config: dict[str, Any] | None = None,
) -> list[Manifest]:
    """``registryv1.Renderer.Render`` (see :meth:`BundleRenderer.render`)."""
    return REGISTRY_V1.render(
        rv1,
        install_namespace,
        target_namespaces=target_namespaces,
        cert_provider=cert_provider,
        deployment_config=deployment_config,
    )


# -- output ---------------------------------------------------------------------------------------


def _kind(obj: Manifest) -> str:
    return as_str(obj.get("kind"))


def _namespace(obj: Manifest) -> str:
    return as_str(as_dict(obj.get("metadata")).get("namespace"))


def _name(obj: Manifest) -> str:
    return as_str(as_dict(obj.get("metadata")).get("name"))


def sorted_objects(objects: Sequence[Manifest]) -> list[Manifest]:
    """``orderByKindNamespaceName`` (a stable sort; Go compares strings bytewise)."""
    return sorted(
        objects, key=lambda o: (_kind(o).encode(), _namespace(o).encode(), _name(o).encode())
    )


def to_yaml(obj: Manifest) -> str:
    """``yaml.Marshal`` of sigs.k8s.io/yaml: Go JSON, then yaml.v2 with sorted keys."""
    return dump_document(obj).removeprefix("---\n")


def manifest_files(objects: Sequence[Manifest]) -> list[tuple[str, str]]:
    """(file name, YAML) per object as generate-manifests.go writes them."""
    return [
        (f"{index:02d}_{_kind(obj).lower()}_{_name(obj)}.yaml", to_yaml(obj))
        for index, obj in enumerate(sorted_objects(objects))
    ]


def yaml_stream(objects: Sequence[Manifest]) -> str:
    """One YAML stream (``---`` before each object), objects in render order."""
    return "".join(dump_document(obj) for obj in objects)


def owned_api_services(rv1: RegistryV1) -> list[str]:
    definitions = as_dict(rv1.csv_spec.get("apiservicedefinitions"))
    return [as_str(as_dict(d).get("name")) for d in as_list(definitions.get("owned"))]
