"""A client for registries that speak the OCI distribution spec (docker/distribution, quay, ...).

Built on httpx (see docs/registry.md for why): one connection pool per registry host, shared by
threads. What it does on top:

* authentication: anonymous first; on ``401`` the ``WWW-Authenticate`` challenge decides --
  ``Basic`` sends the credentials, ``Bearer`` fetches a token from the realm for the scopes of the
  request (``repository:NAME:pull[,push]``), with the credentials or an identity token. Tokens are
  cached per scope set and fetched again when a registry refuses them;
* credentials from :mod:`olmcat.oci.auth`, looked up only when a registry asks;
* TLS verified against the system trust store; ``cert_dir`` (or ``/etc/containers/certs.d/HOST``
  and ``/etc/docker/certs.d/HOST``) adds CA certificates (``*.crt``) and a client certificate
  (``*.cert`` + ``*.key``); ``tls_verify=False`` skips verification and falls back to plain HTTP
  when the registry does not speak TLS (as containers/image does); ``use_http`` asks for HTTP;
* retries with exponential backoff (honouring ``Retry-After``) on 429, 5xx and connection errors;
* every manifest and blob verified against its digest; sizes bounded by the descriptors.

Nothing here prints. Messages of the errors it raises name the registry and pass through
:func:`olmcat.oci.auth.redact`, so no credential can reach a user, a log or a traceback.
"""

from __future__ import annotations

import contextlib
import email.utils
import functools
import hashlib
import os
import random
import re
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode, urljoin

import httpx

from olmcat.errors import InputError
from olmcat.oci.auth import AuthError, Credentials, find_credentials, redact
from olmcat.oci.cache import BlobCache
from olmcat.oci.media import ACCEPT_MANIFESTS, digest_of, is_digest, parse_json_object
from olmcat.oci.options import RegistryOptions, current_options, use_options

__all__ = [
    "BlobStream",
    "Manifest",
    "Registry",
    "RegistryError",
    "RegistryOptions",
    "RegistryPool",
    "current_options",
    "use_options",
]

_RETRY_STATUS: Final = frozenset({429, 500, 502, 503, 504})
_MAX_MANIFEST: Final = 4 << 20  # distribution refuses larger manifests too
_CHUNK: Final = 1 << 20
_MAX_RETRY_AFTER: Final = 60.0
_CERTS_D: Final = (Path("/etc/containers/certs.d"), Path("/etc/docker/certs.d"))
_DOCKER_HUB_API: Final = "registry-1.docker.io"
_CHALLENGE_PARAM: Final = re.compile(r'([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')


def _user_agent() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"olmcat/{version('olmcat')}"
    except PackageNotFoundError:
        return "olmcat"


class RegistryError(InputError):
    """A registry refused or failed a request. The message is one line without secrets."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))


@dataclass(frozen=True, slots=True)
class Manifest:
    data: bytes
    media_type: str
    digest: str

    def json(self) -> dict[str, Any]:
        return parse_json_object(self.data, f"manifest {self.digest}")


@dataclass
class Stats:
    """What went over the wire (tests and the benchmark read it)."""

    requests: int = 0
    blob_downloads: int = 0
    manifest_downloads: int = 0
    bytes_down: int = 0
    bytes_up: int = 0
    blobs_uploaded: int = 0
    blobs_mounted: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)


@dataclass(frozen=True, slots=True)
class _Challenge:
    scheme: str  # "basic" or "bearer"
    params: dict[str, str]


def _parse_challenge(header: str) -> _Challenge | None:
    scheme, _, rest = header.strip().partition(" ")
    scheme = scheme.lower()
    if scheme not in ("basic", "bearer"):
        return None
    params = {
        m.group(1).lower(): (m.group(2) if m.group(2) is not None else m.group(3)).replace(
            '\\"', '"'
        )
        for m in _CHALLENGE_PARAM.finditer(rest)
    }
    return _Challenge(scheme, params)


def _error_detail(response: httpx.Response) -> str:
    """The registry's error codes and messages (distribution's JSON error body), one line."""
    try:
        body = response.json()
    except Exception:
        return ""
    errors = body.get("errors") if isinstance(body, dict) else None
    if not isinstance(errors, list):
        return ""
    parts = []
    for error in errors[:3]:
        if isinstance(error, dict):
            code, message = error.get("code", ""), error.get("message", "")
            parts.append(f"{code}: {message}" if message else str(code))
    return redact("; ".join(parts))[:300]


def _ssl_context(host: str, options: RegistryOptions) -> ssl.SSLContext:
    # One per (host, options, trust-store variables) and process: loading the system trust
    # store costs ~20 ms, paid for every image otherwise (render pulls each image with a
    # registry client of its own). A context is not changed once made; httpx clients share it.
    where = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    return _new_ssl_context(host, options, where)


@functools.lru_cache(maxsize=32)
def _new_ssl_context(
    host: str, options: RegistryOptions, where: tuple[str | None, str | None]
) -> ssl.SSLContext:
    context = ssl.create_default_context()  # the system trust store (and SSL_CERT_FILE / _DIR)
    if not options.tls_verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    directories = (
        [options.cert_dir] if options.cert_dir is not None else [d / host for d in _CERTS_D]
    )
    for directory in directories:
        if not directory.is_dir():
            if options.cert_dir is not None:
                raise InputError(f"--cert-dir {directory}: not a directory")
            continue
        for path in sorted(directory.iterdir()):
            try:
                if path.suffix == ".crt":
                    context.load_verify_locations(cafile=str(path))
                elif path.suffix == ".cert":
                    key = path.with_suffix(".key")
                    if not key.is_file():
                        raise InputError(f"{path}: client certificate without {key.name}")
                    context.load_cert_chain(str(path), str(key))
            except (ssl.SSLError, OSError) as exc:
                raise InputError(f"{path}: cannot load certificate: {exc}") from exc
    return context


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    with contextlib.suppress(ValueError):
        return min(max(float(value), 0.0), _MAX_RETRY_AFTER)
    with contextlib.suppress(TypeError, ValueError):
        when = email.utils.parsedate_to_datetime(value).timestamp()
        return min(max(when - time.time(), 0.0), _MAX_RETRY_AFTER)
    return None


def _describe_transport_error(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return redact(text)[:300]


class BlobStream:
    """A blob body being read from a registry, hashed as it goes; ``verify()`` at the end."""

    def __init__(self, response: httpx.Response, digest: str, size: int | None, what: str):
        self._response = response
        self.digest = digest
        self.size = size
        self._what = what
        self._hash = hashlib.new(digest.split(":", 1)[0])
        self.count = 0

    def chunks(self, chunk_size: int = _CHUNK) -> Iterator[bytes]:
        for chunk in self._response.iter_bytes(chunk_size):
            self.count += len(chunk)
            if self.size is not None and self.count > self.size:
                raise RegistryError(
                    f"{self._what}: the registry sent more than the {self.size} bytes the "
                    "descriptor says"
                )
            self._hash.update(chunk)
            yield chunk
        self.verify()

    def verify(self) -> None:
        got = f"{self.digest.split(':', 1)[0]}:{self._hash.hexdigest()}"
        if self.size is not None and self.count != self.size:
            raise RegistryError(
                f"{self._what}: got {self.count} bytes, the descriptor says {self.size}"
            )
        if got != self.digest:
            raise RegistryError(f"{self._what}: digest mismatch: expected {self.digest}, got {got}")

    def close(self) -> None:
        self._response.close()


class Registry:
    """One registry host (``host[:port]``) and its connection pool; thread-safe."""

    def __init__(
        self,
        host: str,
        options: RegistryOptions | None = None,
        *,
        cache: BlobCache | None = None,
        side: str = "",
    ) -> None:
        self.host = host
        self.options = options or current_options()
        self.cache = cache if cache is not None else self.options.cache()
        self.stats = Stats()
        # Which option names to suggest in messages ("--src-" on copies).
        self._flag = f"--{side}-" if side else "--"
        self._api_host = _DOCKER_HUB_API if host == "docker.io" else host
        self._client = httpx.Client(
            verify=_ssl_context(host, self.options),
            timeout=httpx.Timeout(self.options.timeout, connect=min(30.0, self.options.timeout)),
            follow_redirects=True,
            headers={"User-Agent": _user_agent()},
            limits=httpx.Limits(max_connections=32, max_keepalive_connections=16),
        )
        self._base: str | None = None
        self._lock = threading.Lock()
        self._challenge: _Challenge | None = None
        self._credentials: Credentials | None = None
        self._credentials_loaded = False
        self._auth_files: list[Path] = []
        self._tokens: dict[str, str] = {}

    def __repr__(self) -> str:
        return f"Registry({self.host!r})"

    def close(self) -> None:
        self._client.close()

    # -- connection and authentication -----------------------------------------------------

    def _base_url(self) -> str:
        with self._lock:
            if self._base is not None:
                return self._base
        base = f"http://{self._api_host}" if self.options.use_http else self._probe()
        with self._lock:
            self._base = base
        return base

    def _probe(self) -> str:
        """HTTPS unless it fails the TLS handshake and verification is off (then HTTP)."""
        https = f"https://{self._api_host}"
        for attempt in range(self.options.retries + 1):
            try:
                response = self._client.get(f"{https}/v2/")
                response.close()
                self.stats.add(requests=1)
                self._note_challenge(response)
                return https
            except httpx.ConnectError as exc:
                reason = _describe_transport_error(exc)
                tls = any(w in reason for w in ("SSL", "TLS", "certificate", "record layer"))
                if tls and not self.options.tls_verify:
                    return f"http://{self._api_host}"
                if "CERTIFICATE_VERIFY_FAILED" in reason or "certificate verify failed" in reason:
                    raise RegistryError(
                        f"{self.host}: TLS certificate not trusted ({reason}): pass "
                        f"{self._flag}cert-dir DIR holding the registry's CA certificate (*.crt), "
                        f"or {self._flag}tls-verify=false"
                    ) from None
                if tls:
                    raise RegistryError(
                        f"{self.host}: TLS handshake failed ({reason}); if the registry speaks "
                        f"plain HTTP, pass {self._flag}use-http"
                    ) from None
                if attempt >= self.options.retries:
                    raise RegistryError(f"{self.host}: cannot connect ({reason})") from None
            except httpx.TransportError as exc:
                if attempt >= self.options.retries:
                    raise RegistryError(
                        f"{self.host}: cannot connect ({_describe_transport_error(exc)})"
                    ) from None
            self._sleep(attempt, None)
        raise AssertionError("unreachable")

    def _note_challenge(self, response: httpx.Response) -> None:
        if response.status_code == 401:
            challenge = _parse_challenge(response.headers.get("WWW-Authenticate", ""))
            if challenge is not None:
                with self._lock:
                    self._challenge = challenge

    def _load_credentials(self, repository: str) -> Credentials | None:
        with self._lock:
            if self._credentials_loaded:
                return self._credentials
        found, files = find_credentials(self.host, repository, authfile=self.options.authfile)
        with self._lock:
            self._credentials, self._auth_files = found, files
            self._credentials_loaded = True
        return found

    def _where(self, credentials: Credentials | None) -> str:
        if credentials is not None:
            return credentials.source
        return ", ".join(str(p) for p in self._auth_files) or "no auth file"

    def _no_credentials(self) -> AuthError:
        return AuthError(
            f"{self.host}: the registry requires authentication and no credentials for it were "
            f"found (auth files read: {self._where(None)}); pass {self._flag}authfile FILE or "
            "log in with podman/skopeo/docker login",
            self.host,
        )

    def _refused(self, credentials: Credentials | None) -> AuthError:
        if credentials is None:
            return self._no_credentials()
        who = f"user {credentials.username!r}" if credentials.username else "the identity token"
        return AuthError(
            f"{self.host}: authentication failed for {who} with credentials from "
            f"{self._where(credentials)}: check them or log in again",
            self.host,
        )

    def _authorization(self, scopes: tuple[str, ...], repository: str) -> str | None:
        with self._lock:
            challenge = self._challenge
        if challenge is None:
            return None
        if challenge.scheme == "basic":
            credentials = self._load_credentials(repository)
            if credentials is None:
                raise self._no_credentials()
            if not credentials.password and credentials.identity_token:
                raise AuthError(
                    f"{self.host}: the registry asks for basic authentication but "
                    f"{self._where(credentials)} holds only an identity token"
                )
            return credentials.basic_header()
        key = " ".join(sorted(scopes))
        with self._lock:
            token = self._tokens.get(key)
        if token is None:
            token = self._fetch_token(challenge, scopes, repository)
            with self._lock:
                self._tokens[key] = token
        return f"Bearer {token}"

    def _fetch_token(self, challenge: _Challenge, scopes: tuple[str, ...], repository: str) -> str:
        realm = challenge.params.get("realm")
        if not realm:
            raise RegistryError(f"{self.host}: bearer challenge without a realm")
        service = challenge.params.get("service", "")
        credentials = self._load_credentials(repository)
        params: list[tuple[str, str | int | float | bool | None]] = []
        if service:
            params.append(("service", service))
        params.extend(("scope", scope) for scope in scopes)
        headers: dict[str, str] = {}
        for attempt in range(self.options.retries + 1):
            try:
                if credentials is not None and credentials.identity_token:
                    form = {
                        "grant_type": "refresh_token",
                        "refresh_token": credentials.identity_token,
                        "service": service,
                        "scope": " ".join(scopes),
                        "client_id": "olmcat",
                    }
                    response = self._client.post(realm, data=form)
                else:
                    if credentials is not None:
                        headers["Authorization"] = credentials.basic_header()
                    response = self._client.get(realm, params=params, headers=headers)
            except httpx.TransportError as exc:
                if attempt >= self.options.retries:
                    raise RegistryError(
                        f"{self.host}: cannot reach the token service "
                        f"({_describe_transport_error(exc)})"
                    ) from None
                self._sleep(attempt, None)
                continue
            self.stats.add(requests=1)
            if response.status_code in _RETRY_STATUS and attempt < self.options.retries:
                self._sleep(attempt, _retry_after(response))
                continue
            if response.status_code in (401, 403):
                raise self._refused(credentials)
            if response.status_code != 200:
                raise RegistryError(
                    f"{self.host}: the token service answered {response.status_code}"
                )
            try:
                body = response.json()
            except ValueError:
                raise RegistryError(f"{self.host}: the token service did not answer JSON") from None
            token = (
                body.get("token") or body.get("access_token") if isinstance(body, dict) else None
            )
            if not isinstance(token, str) or not token:
                raise RegistryError(f"{self.host}: the token service answered without a token")
            from olmcat.oci.auth import register_secret

            register_secret(token)
            return token
        raise AssertionError("unreachable")

    def _sleep(self, attempt: int, retry_after: float | None) -> None:
        delay = retry_after
        if delay is None:
            delay = self.options.backoff * (2**attempt)
            delay += random.uniform(0, delay / 2)  # jitter: concurrent workers spread out
        time.sleep(min(delay, _MAX_RETRY_AFTER))

    # -- requests --------------------------------------------------------------------------

    def _url(self, path_or_url: str) -> str:
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return self._base_url() + path_or_url

    def request(
        self,
        method: str,
        path: str,
        *,
        repository: str,
        push: bool = False,
        extra_scopes: tuple[str, ...] = (),
        headers: dict[str, str] | None = None,
        content: Callable[[], bytes | Iterable[bytes]] | None = None,
        stream: bool = False,
        what: str = "",
    ) -> httpx.Response:
        """Send with authentication and retries. ``content`` is a factory so that a retry can
        send the body again. The caller closes streamed responses."""
        scopes = (f"repository:{repository}:{'pull,push' if push else 'pull'}", *extra_scopes)
        url = self._url(path)
        attempt = 0
        authenticated = False
        while True:
            send_headers = dict(headers or {})
            authorization = self._authorization(scopes, repository)
            if authorization is not None:
                send_headers["Authorization"] = authorization
            body = content() if content is not None else None
            request = self._client.build_request(method, url, headers=send_headers, content=body)
            try:
                response = self._client.send(request, stream=stream)
            except httpx.TransportError as exc:
                if attempt >= self.options.retries:
                    raise RegistryError(
                        f"{self.host}: cannot reach the registry ({_describe_transport_error(exc)};"
                        f" {attempt + 1} attempts at {what or method + ' ' + path})"
                    ) from None
                self._sleep(attempt, None)
                attempt += 1
                continue
            self.stats.add(requests=1)
            if response.status_code == 401:
                response.close()
                if authenticated:
                    raise self._refused(self._load_credentials(repository))
                self._note_challenge(response)
                with self._lock:
                    self._tokens.pop(" ".join(sorted(scopes)), None)
                    if self._challenge is None:
                        raise RegistryError(f"{self.host}: 401 without a usable challenge")
                authenticated = True
                continue
            if response.status_code in _RETRY_STATUS and attempt < self.options.retries:
                delay = _retry_after(response)
                response.close()
                self._sleep(attempt, delay)
                attempt += 1
                continue
            return response

    def _fail(self, response: httpx.Response, what: str) -> InputError:
        detail = _error_detail(response) if not response.is_stream_consumed else ""
        if response.status_code == 403:
            credentials = self._credentials
            who = f" for user {credentials.username!r}" if credentials else ""
            return AuthError(
                f"{self.host}: access denied{who} ({what})" + (f": {detail}" if detail else ""),
                self.host,
            )
        return RegistryError(
            f"{self.host}: {what}: HTTP {response.status_code}" + (f" ({detail})" if detail else "")
        )

    # -- manifests -------------------------------------------------------------------------

    def head_manifest(self, repository: str, reference: str) -> tuple[str, str, int] | None:
        """``(digest, media type, size)`` of a manifest, or ``None`` when it is absent."""
        what = (
            f"manifest {repository}:{reference}"
            if not is_digest(reference)
            else (f"manifest {repository}@{reference}")
        )
        response = self.request(
            "HEAD",
            f"/v2/{repository}/manifests/{reference}",
            repository=repository,
            headers={"Accept": ACCEPT_MANIFESTS},
            what=what,
        )
        response.close()
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise self._fail(response, f"HEAD {what}")
        digest = response.headers.get("Docker-Content-Digest", "")
        if not is_digest(digest):
            digest = reference if is_digest(reference) else ""
        size = int(response.headers.get("Content-Length", "0") or 0)
        media_type = response.headers.get("Content-Type", "").split(";", 1)[0].strip()
        return (digest, media_type, size) if digest else None

    def get_manifest(self, repository: str, reference: str) -> Manifest:
        """A manifest by tag or digest, verified; by digest it comes from the cache if there.

        A tag is resolved with a HEAD first, so a cached manifest is not downloaded again.
        """
        by_digest = is_digest(reference)
        shown = f"{repository}@{reference}" if by_digest else f"{repository}:{reference}"
        digest = reference if by_digest else ""
        media_type_hint = ""
        if not by_digest:
            head = self.head_manifest(repository, reference)
            if head is None:
                raise RegistryError(f"{self.host}: manifest {shown} not found")
            digest, media_type_hint, _ = head
        if digest:
            cached = self.cache.read(digest)
            if cached is not None:
                return self._manifest(cached, digest, media_type_hint, shown)
        response = self.request(
            "GET",
            f"/v2/{repository}/manifests/{digest or reference}",
            repository=repository,
            headers={"Accept": ACCEPT_MANIFESTS},
            stream=True,
            what=f"manifest {shown}",
        )
        try:
            if response.status_code == 404:
                raise RegistryError(f"{self.host}: manifest {shown} not found")
            if response.status_code != 200:
                response.read()
                raise self._fail(response, f"GET manifest {shown}")
            data = bytearray()
            for chunk in response.iter_bytes(_CHUNK):
                data += chunk
                if len(data) > _MAX_MANIFEST:
                    raise RegistryError(
                        f"{self.host}: manifest {shown} is larger than {_MAX_MANIFEST} bytes"
                    )
            header_type = response.headers.get("Content-Type", "")
        finally:
            response.close()
        self.stats.add(manifest_downloads=1, bytes_down=len(data))
        body = bytes(data)
        if digest:
            got = digest_of(body, digest.split(":", 1)[0])
            if got != digest:
                raise RegistryError(
                    f"{self.host}: manifest {shown}: digest mismatch: expected {digest}, got {got}"
                )
        else:
            digest = digest_of(body)
        self.cache.put(digest, body, f"{self.host}/{shown}")
        return self._manifest(body, digest, header_type, shown)

    def _manifest(self, data: bytes, digest: str, declared: str, shown: str) -> Manifest:
        from olmcat.oci.media import manifest_media_type

        document = parse_json_object(data, f"{self.host}/{shown}")
        media_type = manifest_media_type(document, declared, f"{self.host}/{shown}")
        return Manifest(data, media_type, digest)

    def put_manifest(self, repository: str, reference: str, manifest: Manifest) -> None:
        what = f"manifest {repository}:{reference}"
        response = self.request(
            "PUT",
            f"/v2/{repository}/manifests/{reference}",
            repository=repository,
            push=True,
            headers={"Content-Type": manifest.media_type},
            content=lambda: manifest.data,
            what=f"PUT {what}",
        )
        response.read()
        if response.status_code not in (200, 201):
            raise self._fail(response, f"PUT {what}")
        self.stats.add(bytes_up=len(manifest.data))
        got = response.headers.get("Docker-Content-Digest")
        if got and is_digest(got) and got != manifest.digest:
            raise RegistryError(
                f"{self.host}: {what}: the registry stored digest {got}, expected {manifest.digest}"
            )

    # -- blobs -----------------------------------------------------------------------------

    def has_blob(self, repository: str, digest: str) -> bool:
        response = self.request(
            "HEAD",
            f"/v2/{repository}/blobs/{digest}",
            repository=repository,
            what=f"HEAD blob {digest}",
        )
        response.close()
        if response.status_code == 200:
            return True
        if response.status_code == 404:
            return False
        raise self._fail(response, f"HEAD blob {repository}@{digest}")

    def open_blob(self, repository: str, digest: str, size: int | None) -> BlobStream:
        """Stream a blob from the registry (the caller reads ``chunks()`` and closes)."""
        what = f"{self.host}/{repository}@{digest}"
        response = self.request(
            "GET",
            f"/v2/{repository}/blobs/{digest}",
            repository=repository,
            stream=True,
            what=f"blob {digest}",
        )
        if response.status_code != 200:
            response.read()
            response.close()
            if response.status_code == 404:
                raise RegistryError(f"{self.host}: blob {repository}@{digest} not found")
            raise self._fail(response, f"GET blob {repository}@{digest}")
        self.stats.add(blob_downloads=1)
        return BlobStream(response, digest, size, what)

    def fetch_blob(self, repository: str, digest: str, size: int | None) -> Path:
        """The blob as a verified file in the cache, downloaded only when not there yet."""
        cached = self.cache.get(digest)
        if cached is not None:
            return cached
        for attempt in range(self.options.retries + 1):
            stream = self.open_blob(repository, digest, size)
            try:
                with self.cache.writer(digest, f"{self.host}/{repository}@{digest}") as out:
                    for chunk in stream.chunks():
                        out.write(chunk)
                self.stats.add(bytes_down=stream.count)
                return self.cache.blob_path(digest)
            except (httpx.TransportError, httpx.StreamError) as exc:
                self.stats.add(bytes_down=stream.count)
                if attempt >= self.options.retries:
                    raise RegistryError(
                        f"{self.host}: download of {repository}@{digest} failed "
                        f"({_describe_transport_error(exc)})"
                    ) from None
                self._sleep(attempt, None)
            finally:
                stream.close()
        raise AssertionError("unreachable")

    def mount_blob(self, repository: str, digest: str, source_repository: str) -> bool:
        """Cross-repository mount within this registry; ``False`` if the registry declined."""
        query = urlencode({"mount": digest, "from": source_repository})
        response = self.request(
            "POST",
            f"/v2/{repository}/blobs/uploads/?{query}",
            repository=repository,
            push=True,
            extra_scopes=(f"repository:{source_repository}:pull",),
            what=f"mount blob {digest}",
        )
        response.read()
        if response.status_code == 201:
            self.stats.add(blobs_mounted=1)
            return True
        if response.status_code == 202:  # an upload session was opened instead: drop it
            location = response.headers.get("Location")
            if location:
                with contextlib.suppress(RegistryError):
                    self.request(
                        "DELETE",
                        self._location(location),
                        repository=repository,
                        push=True,
                        what="cancel upload",
                    ).close()
            return False
        raise self._fail(response, f"mount blob {digest} from {source_repository}")

    def _location(self, location: str) -> str:
        return urljoin(self._base_url() + "/", location)

    def upload_blob(
        self,
        repository: str,
        digest: str,
        size: int,
        source: Callable[[], Iterable[bytes]],
    ) -> None:
        """Upload a blob: one PUT up to ``monolithic_limit``, else PATCH chunks and a PUT.

        ``source`` opens the content afresh for each attempt; a failed attempt starts over.
        """
        for attempt in range(self.options.retries + 1):
            try:
                if size <= self.options.monolithic_limit:
                    self._upload_monolithic(repository, digest, size, source)
                else:
                    self._upload_chunked(repository, digest, size, source)
                self.stats.add(blobs_uploaded=1, bytes_up=size)
                return
            except (httpx.TransportError, httpx.StreamError) as exc:
                if attempt >= self.options.retries:
                    raise RegistryError(
                        f"{self.host}: upload of {repository}@{digest} failed "
                        f"({_describe_transport_error(exc)})"
                    ) from None
                self._sleep(attempt, None)
        raise AssertionError("unreachable")

    def _start_upload(self, repository: str, digest: str) -> str:
        response = self.request(
            "POST",
            f"/v2/{repository}/blobs/uploads/",
            repository=repository,
            push=True,
            what=f"start upload of {digest}",
        )
        response.read()
        location = response.headers.get("Location")
        if response.status_code != 202 or not location:
            raise self._fail(response, f"start upload of {repository}@{digest}")
        return self._location(location)

    @staticmethod
    def _with_query(url: str, **params: str) -> str:
        return url + ("&" if "?" in url else "?") + urlencode(params)

    def _upload_monolithic(
        self, repository: str, digest: str, size: int, source: Callable[[], Iterable[bytes]]
    ) -> None:
        location = self._start_upload(repository, digest)
        response = self.request(
            "PUT",
            self._with_query(location, digest=digest),
            repository=repository,
            push=True,
            headers={"Content-Type": "application/octet-stream", "Content-Length": str(size)},
            content=source,
            what=f"upload {digest}",
        )
        response.read()
        if response.status_code != 201:
            raise self._fail(response, f"upload of {repository}@{digest}")

    def _upload_chunked(
        self, repository: str, digest: str, size: int, source: Callable[[], Iterable[bytes]]
    ) -> None:
        location = self._start_upload(repository, digest)
        offset = 0
        for chunk in _rechunk(source(), self.options.chunk_size):
            end = offset + len(chunk) - 1
            response = self.request(
                "PATCH",
                location,
                repository=repository,
                push=True,
                headers={
                    "Content-Type": "application/octet-stream",
                    "Content-Range": f"{offset}-{end}",
                    "Content-Length": str(len(chunk)),
                },
                content=lambda data=chunk: data,  # type: ignore[misc]
                what=f"upload chunk of {digest}",
            )
            response.read()
            if response.status_code != 202:
                raise self._fail(response, f"upload chunk {offset}-{end} of {digest}")
            location = self._location(response.headers.get("Location") or location)
            offset = end + 1
        if offset != size:
            raise RegistryError(
                f"{self.host}: {digest}: source gave {offset} bytes, descriptor says {size}"
            )
        response = self.request(
            "PUT",
            self._with_query(location, digest=digest),
            repository=repository,
            push=True,
            headers={"Content-Length": "0"},
            content=lambda: b"",
            what=f"finish upload of {digest}",
        )
        response.read()
        if response.status_code != 201:
            raise self._fail(response, f"finish upload of {repository}@{digest}")

    def tags(self, repository: str) -> list[str]:
        response = self.request(
            "GET", f"/v2/{repository}/tags/list", repository=repository, what="list tags"
        )
        response.read()
        if response.status_code == 404:
            return []
        if response.status_code != 200:
            raise self._fail(response, f"list tags of {repository}")
        body = response.json()
        tags = body.get("tags") if isinstance(body, dict) else None
        return sorted(t for t in tags or [] if isinstance(t, str))


def _rechunk(chunks: Iterable[bytes], size: int) -> Iterator[bytes]:
    buffer = bytearray()
    for chunk in chunks:
        buffer += chunk
        while len(buffer) >= size:
            yield bytes(buffer[:size])
            del buffer[:size]
    if buffer:
        yield bytes(buffer)


def file_chunks(path: Path, chunk_size: int = _CHUNK) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while chunk := handle.read(chunk_size):
            yield chunk


class RegistryPool:
    """One :class:`Registry` per host, sharing options and cache; use as a context manager."""

    def __init__(
        self,
        options: RegistryOptions | None = None,
        *,
        cache: BlobCache | None = None,
        side: str = "",
    ) -> None:
        self.options = options or current_options()
        self.cache = cache if cache is not None else self.options.cache()
        self._side = side
        self._registries: dict[str, Registry] = {}
        self._lock = threading.Lock()

    def get(self, host: str) -> Registry:
        with self._lock:
            registry = self._registries.get(host)
            if registry is None:
                registry = Registry(host, self.options, cache=self.cache, side=self._side)
                self._registries[host] = registry
            return registry

    def hosts(self) -> set[str]:
        with self._lock:
            return set(self._registries)

    def stats(self) -> Stats:
        total = Stats()
        for registry in list(self._registries.values()):
            for name in (
                "requests",
                "blob_downloads",
                "manifest_downloads",
                "bytes_down",
                "bytes_up",
                "blobs_uploaded",
                "blobs_mounted",
            ):
                total.add(**{name: getattr(registry.stats, name)})
        return total

    def close(self) -> None:
        for registry in self._registries.values():
            registry.close()
        self._registries.clear()

    def __enter__(self) -> RegistryPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
