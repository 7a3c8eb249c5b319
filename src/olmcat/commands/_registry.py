"""The registry options of every command that reads a catalog, in skopeo's and opm's spelling.

``@registry_options()`` adds ``--authfile``, ``--cert-dir``, ``--tls-verify[=false]`` and
``--use-http`` to a command and makes them the default of every registry access while the command
(and, for a group, its subcommands) runs -- the command's own signature does not change.
``@registry_options("src")`` / ``("dest")`` add skopeo's per-side spelling (``--src-authfile``,
``--dest-tls-verify``, ...) and pass ``src_registry`` / ``dest_registry`` to the command instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["registry_options"]


def _options(side: str) -> list[Callable[[F], F]]:
    prefix = f"{side}-" if side else ""
    key = f"{side}_" if side else ""
    where = {"src": "the source registry", "dest": "the destination registry"}.get(
        side, "registries"
    )
    return [
        click.option(
            f"--{prefix}authfile",
            f"{key}authfile",
            type=click.Path(path_type=Path, dir_okay=False),
            metavar="FILE",
            help=f"Credentials for {where} (containers-auth.json(5)); default: "
            "$REGISTRY_AUTH_FILE, then $XDG_RUNTIME_DIR/containers/auth.json, "
            "~/.config/containers/auth.json, ~/.docker/config.json.",
        ),
        click.option(
            f"--{prefix}cert-dir",
            f"{key}cert_dir",
            type=click.Path(path_type=Path, file_okay=False),
            metavar="DIR",
            help=f"CA certificates (*.crt) and client certificate (*.cert + *.key) for {where}; "
            "default /etc/containers/certs.d/HOST and /etc/docker/certs.d/HOST.",
        ),
        click.option(
            f"--{prefix}tls-verify",
            f"{key}tls_verify",
            type=click.BOOL,
            default=True,
            is_flag=False,
            flag_value=True,
            show_default=True,
            metavar="[=BOOL]",
            help=f"Verify TLS certificates of {where}; =false also allows plain HTTP.",
        ),
        click.option(
            f"--{prefix}use-http",
            f"{key}use_http",
            is_flag=True,
            help=f"Talk plain HTTP to {where} (loopback or lab registries).",
        ),
    ]


def _build(values: dict[str, Any], key: str) -> Any:
    from olmcat.oci.options import RegistryOptions

    return RegistryOptions(
        authfile=values.pop(f"{key}authfile"),
        cert_dir=values.pop(f"{key}cert_dir"),
        tls_verify=values.pop(f"{key}tls_verify"),
        use_http=values.pop(f"{key}use_http"),
    )


def registry_options(side: str = "") -> Callable[[F], F]:
    """Add the registry options (see the module doc) to a click command or group."""
    if side not in ("", "src", "dest"):
        raise ValueError(f"side must be '', 'src' or 'dest', not {side!r}")

    def decorate(function: F) -> F:
        key = f"{side}_" if side else ""

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            options = _build(kwargs, key)
            if side:
                kwargs[f"{side}_registry"] = options
                return function(*args, **kwargs)
            from olmcat.oci.options import use_options

            # Held until the click context closes, so a group's subcommands see it too.
            click.get_current_context().with_resource(use_options(options))
            return function(*args, **kwargs)

        decorated: Any = wrapper
        for option in reversed(_options(side)):
            decorated = option(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate
