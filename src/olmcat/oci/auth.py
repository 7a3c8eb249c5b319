"""Registry credentials, looked up where podman, skopeo and docker keep them.

Files, in order (containers-auth.json(5); the first file with an entry for the registry wins):

1. ``--authfile FILE`` or else ``$REGISTRY_AUTH_FILE`` -- when given, the only file read;
2. ``$XDG_RUNTIME_DIR/containers/auth.json``;
3. ``$XDG_CONFIG_HOME/containers/auth.json`` (``~/.config/containers/auth.json``);
4. ``$DOCKER_CONFIG/config.json`` (``~/.docker/config.json``);
5. ``~/.dockercfg`` (the legacy format: the ``auths`` map without the wrapper).

Within a file: a ``credHelpers`` entry for the registry wins (the ``docker-credential-NAME``
program is asked), then the most specific ``auths`` key (``host/ns/repo``, ``host/ns``,
``host``; ``https://`` URLs and ``index.docker.io`` are understood), then ``credsStore``.

Secrets never leave this module in text: :class:`Credentials` hides them in its ``repr``, every
secret seen is registered with :func:`redact`, which the registry client applies to each message
it raises.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from olmcat.errors import InputError

__all__ = [
    "AuthError",
    "Credentials",
    "auth_file_candidates",
    "find_credentials",
    "redact",
    "register_secret",
]

_HELPER_TIMEOUT = 60
_MAX_AUTH_FILE = 4 << 20
_DOCKER_HUB_KEYS = ("docker.io", "index.docker.io", "registry-1.docker.io")
_DOCKER_HUB_HELPER_URL = "https://index.docker.io/v1/"

_secrets: set[str] = set()
_secrets_lock = threading.Lock()


def register_secret(value: str) -> None:
    """Remember ``value`` (and the base64 forms it travels in) so :func:`redact` hides it."""
    if len(value) < 4:  # too short to hide without mangling ordinary text; never printed anyway
        return
    with _secrets_lock:
        _secrets.add(value)


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    with _secrets_lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, "***")
    return text


class AuthError(InputError):
    """Credentials missing, unreadable or refused. The message never holds a secret.

    ``host`` names the registry that refused, when one did (a copy stops at once when it is the
    destination: every image would fail the same way)."""

    def __init__(self, message: str, host: str = "") -> None:
        super().__init__(redact(message))
        self.host = host


@dataclass(frozen=True)
class Credentials:
    """A user name with a password, or an identity (refresh) token. Secrets stay out of repr."""

    username: str
    password: str = field(repr=False, default="")
    identity_token: str = field(repr=False, default="")
    source: str = ""  # where they came from, e.g. "/root/.docker/config.json" (for messages)

    def __post_init__(self) -> None:
        for secret in (self.password, self.identity_token):
            if secret:
                register_secret(secret)
        if self.password:
            pair = f"{self.username}:{self.password}".encode()
            register_secret(base64.b64encode(pair).decode())

    def basic_header(self) -> str:
        pair = f"{self.username}:{self.password}".encode()
        return "Basic " + base64.b64encode(pair).decode()


def auth_file_candidates(
    authfile: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[list[tuple[Path, bool]], bool]:
    """The files to read, each with whether it is in the legacy format, and whether the user
    named the file (then it is the only one)."""
    env = os.environ if env is None else env
    explicit = authfile or (
        Path(env["REGISTRY_AUTH_FILE"]) if env.get("REGISTRY_AUTH_FILE") else None
    )
    if explicit is not None:
        return [(explicit, False)], True
    home = Path(env.get("HOME") or Path.home())
    files: list[tuple[Path, bool]] = []
    if env.get("XDG_RUNTIME_DIR"):
        files.append((Path(env["XDG_RUNTIME_DIR"]) / "containers" / "auth.json", False))
    config_home = Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config"
    files.append((config_home / "containers" / "auth.json", False))
    docker_config = Path(env["DOCKER_CONFIG"]) if env.get("DOCKER_CONFIG") else home / ".docker"
    files.append((docker_config / "config.json", False))
    files.append((home / ".dockercfg", True))
    return files, False


def _normalise_key(key: str) -> str:
    """``https://index.docker.io/v1/`` -> ``docker.io``; ``https://host/`` -> ``host``."""
    if "://" in key:
        key = key.split("://", 1)[1].split("/", 1)[0]
    key = key.rstrip("/")
    host, slash, rest = key.partition("/")
    if host in _DOCKER_HUB_KEYS:
        host = "docker.io"
    return host + slash + rest


def _lookup_keys(registry: str, repository: str) -> Iterator[str]:
    """``host/ns/repo``, ``host/ns``, ``host`` -- most specific first."""
    host = "docker.io" if registry in _DOCKER_HUB_KEYS else registry
    parts = [p for p in repository.split("/") if p]
    for end in range(len(parts), 0, -1):
        yield "/".join([host, *parts[:end]])
    yield host


def _read_file(path: Path, legacy: bool) -> dict[str, Any] | None:
    try:
        if path.stat().st_size > _MAX_AUTH_FILE:
            raise AuthError(f"{path}: auth file larger than {_MAX_AUTH_FILE} bytes")
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AuthError(f"{path}: cannot read the auth file: {exc.strerror}") from None
    try:
        document = json.loads(data) if data.strip() else {}
    except (ValueError, UnicodeDecodeError):
        # The parser's message could quote the file's content: keep it out.
        raise AuthError(f"{path}: the auth file is not valid JSON") from None
    if not isinstance(document, dict):
        raise AuthError(f"{path}: the auth file is not a JSON object")
    if legacy:
        return {"auths": document}
    return document


def _decode_entry(entry: object, path: Path, key: str) -> Credentials | None:
    if not isinstance(entry, dict):
        return None
    token = entry.get("identitytoken")
    auth = entry.get("auth")
    username = entry.get("username")
    password = entry.get("password")
    if isinstance(auth, str) and auth:
        try:
            decoded = base64.b64decode(auth, validate=False).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise AuthError(f"{path}: the 'auth' of {key} is not base64 of user:password") from None
        user, sep, secret = decoded.partition(":")
        if not sep:
            raise AuthError(f"{path}: the 'auth' of {key} is not base64 of user:password")
        return Credentials(
            user,
            secret,
            token if isinstance(token, str) else "",
            source=f"{path} ({key})",
        )
    if isinstance(username, str) and isinstance(password, str) and username:
        return Credentials(username, password, source=f"{path} ({key})")
    if isinstance(token, str) and token:
        return Credentials("", "", token, source=f"{path} ({key})")
    return None  # an empty entry: podman's marker that a helper holds the secret


def _from_helper(
    helper: str, registry: str, path: Path, env: Mapping[str, str]
) -> Credentials | None:
    """Ask ``docker-credential-<helper> get`` (the docker-credential-helpers protocol)."""
    program = f"docker-credential-{helper}"
    executable = shutil.which(program, path=env.get("PATH", os.defpath))
    if executable is None:
        raise AuthError(
            f"{path} names credential helper {helper!r} for {registry}, but {program} is not on "
            "PATH"
        )
    server = _DOCKER_HUB_HELPER_URL if registry in _DOCKER_HUB_KEYS else registry
    try:
        done = subprocess.run(
            [executable, "get"],
            input=server,
            capture_output=True,
            text=True,
            timeout=_HELPER_TIMEOUT,
            check=False,
            env=dict(env),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AuthError(f"{program} get for {registry} failed: {type(exc).__name__}") from None
    if done.returncode != 0:
        said = (done.stdout.strip() or done.stderr.strip()).splitlines()
        first = said[0] if said else f"exit status {done.returncode}"
        if "credentials not found" in first.lower():
            return None
        raise AuthError(f"{program} get for {registry} failed: {redact(first)[:200]}")
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        raise AuthError(f"{program} get for {registry} did not answer JSON") from None
    if not isinstance(answer, dict):
        raise AuthError(f"{program} get for {registry} did not answer a JSON object")
    username, secret = answer.get("Username"), answer.get("Secret")
    if not isinstance(username, str) or not isinstance(secret, str):
        raise AuthError(f"{program} get for {registry} answered without Username/Secret")
    source = f"{program} (named in {path})"
    if username == "<token>":  # docker's convention for an identity token
        return Credentials("", "", secret, source=source)
    return Credentials(username, secret, source=source)


def find_credentials(
    registry: str,
    repository: str = "",
    *,
    authfile: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[Credentials | None, list[Path]]:
    """Credentials for ``registry`` (``host[:port]``) and ``repository``, and the files read.

    Raises :class:`AuthError` when a named auth file is missing or a file is malformed.
    """
    env = os.environ if env is None else env
    files, explicit = auth_file_candidates(authfile, env)
    looked: list[Path] = []
    for path, legacy in files:
        document = _read_file(path, legacy)
        if document is None:
            if explicit:
                raise AuthError(f"{path}: auth file does not exist")
            continue
        looked.append(path)
        helpers = document.get("credHelpers")
        host = "docker.io" if registry in _DOCKER_HUB_KEYS else registry
        if isinstance(helpers, dict):
            helper = next((v for k, v in helpers.items() if _normalise_key(str(k)) == host), None)
            if isinstance(helper, str) and helper:
                found = _from_helper(helper, registry, path, env)
                if found is not None:
                    return found, looked
                continue
        auths = document.get("auths")
        if isinstance(auths, dict):
            normalised = {_normalise_key(str(k)): v for k, v in auths.items()}
            for key in _lookup_keys(registry, repository):
                if key in normalised:
                    found = _decode_entry(normalised[key], path, key)
                    if found is not None:
                        return found, looked
        store = document.get("credsStore")
        if isinstance(store, str) and store:
            found = _from_helper(store, registry, path, env)
            if found is not None:
                return found, looked
    if not looked:
        looked = [path for path, _ in files]
    return None, looked
