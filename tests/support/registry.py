"""Real registries for the tests: Debian's ``docker-registry`` (CNCF distribution) on 127.0.0.1.

Two session-wide instances, each on a free loopback port with a config written here:

* ``plain_registry`` -- plain HTTP, anonymous;
* ``secure_registry`` -- TLS with a certificate signed by a CA made here (``cryptography``), and
  htpasswd basic auth (bcrypt hashes made with the ``bcrypt`` package).

Tests that need one are skipped with a reason when ``docker-registry`` is not installed (``.ci/run``
installs it). Images are built and pushed by the independent helpers below (plain ``tarfile``,
``hashlib`` and ``httpx`` calls), never by olmcat's own writer, so a test of olmcat's client does
not check olmcat against itself. No address but 127.0.0.1 is ever used.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import tarfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

LOOPBACK = "127.0.0.1"
USER = "olmcat-tester"
# The secure registry's password; tests assert it is never printed.
PASSWORD = "s3cret-Pa55word-for-tests"
START_TIMEOUT = 20.0

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json"
DATABASE_LABEL = "operators.operatorframework.io.index.database.v1"
CONFIGS_LABEL = "operators.operatorframework.io.index.configs.v1"

_ACCESS_RE = re.compile(r'"(GET|HEAD|PUT|POST|PATCH|DELETE) (\S+) HTTP/[\d.]+" (\d{3})')


def require_registry_binary() -> str:
    binary = shutil.which("docker-registry")
    if binary is None:
        pytest.skip(
            "docker-registry is not installed (Debian package docker-registry; .ci/run installs it)"
        )
    return binary


def _die_with_parent() -> None:
    """In the child: receive SIGTERM when the test process dies, however it dies (Linux), so a
    killed test run leaves no registry behind."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


# --------------------------------------------------------------------------------------------
# TLS material


@dataclass(frozen=True)
class Tls:
    ca_dir: Path  # holds ca.crt only: what --cert-dir gets
    ca_file: Path
    cert: Path
    key: Path


def make_tls(directory: Path) -> Tls:
    """A CA and a server certificate for 127.0.0.1 / localhost, valid for a day."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "olmcat test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    import ipaddress

    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, LOOPBACK)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address(LOOPBACK)), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
            critical=False,
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca_dir = directory / "certs.d"
    ca_dir.mkdir(parents=True)
    ca_file = ca_dir / "ca.crt"
    ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_path = directory / "server.crt"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path = directory / "server.key"
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption(),
        )
    )
    return Tls(ca_dir, ca_file, cert_path, key_path)


def htpasswd_line(user: str, password: str) -> str:
    import bcrypt

    hashed = bcrypt.hashpw(password.encode(), bcrypt.gensalt(rounds=5)).decode()
    return f"{user}:{hashed}\n"


def _verify(tls: Tls | None) -> ssl.SSLContext | bool:
    return ssl.create_default_context(cafile=str(tls.ca_file)) if tls else True


def write_auth_file(path: Path, host: str, user: str, password: str) -> Path:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    path.write_text(json.dumps({"auths": {host: {"auth": token}}}))
    return path


# --------------------------------------------------------------------------------------------
# The server


@dataclass
class RegistryServer:
    """A running docker-registry; ``host`` is ``127.0.0.1:PORT``."""

    host: str
    root: Path
    process: subprocess.Popen[bytes]
    log: Path
    tls: Tls | None = None
    auth: tuple[str, str] | None = None
    _log_offset: int = field(default=0)

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self.host}"

    def client(self) -> httpx.Client:
        """An httpx client for test-side pushes and checks (not olmcat's)."""
        verify = _verify(self.tls)
        auth = httpx.BasicAuth(*self.auth) if self.auth else None
        return httpx.Client(base_url=self.url, verify=verify, auth=auth, timeout=60)

    def mark(self) -> int:
        """A position in the access log; :meth:`requests` reads from one."""
        return self.log.stat().st_size if self.log.exists() else 0

    def requests(self, since: int = 0) -> list[tuple[str, str, int]]:
        """(method, path, status) of every request the registry logged after ``since``."""
        deadline = time.monotonic() + 2
        text = ""
        while time.monotonic() < deadline:
            with self.log.open("rb") as handle:
                handle.seek(since)
                text = handle.read().decode(errors="replace")
            time.sleep(0.2)  # the registry writes its access log line after the response
            with self.log.open("rb") as handle:
                handle.seek(since)
                again = handle.read().decode(errors="replace")
            if again == text:
                break
        return [(m[1], m[2], int(m[3])) for m in _ACCESS_RE.finditer(text)]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_registry(
    root: Path, *, tls: bool = False, auth: bool = False, storage: Path | None = None
) -> RegistryServer:
    binary = require_registry_binary()
    root.mkdir(parents=True, exist_ok=True)
    tls_files = make_tls(root / "tls") if tls else None
    lines = [
        "version: 0.1",
        "log:",
        "  level: warn",
        "  accesslog:",
        "    disabled: false",
        "storage:",
        "  filesystem:",
        f"    rootdirectory: {storage or root / 'data'}",
        "  delete:",
        "    enabled: true",
        "http:",
        "  addr: {addr}",
        "  secret: olmcat-test-upload-secret",
    ]
    if tls_files is not None:
        lines += ["  tls:", f"    certificate: {tls_files.cert}", f"    key: {tls_files.key}"]
    if auth:
        (root / "htpasswd").write_text(htpasswd_line(USER, PASSWORD))
        lines += [
            "auth:",
            "  htpasswd:",
            "    realm: olmcat-test",
            f"    path: {root / 'htpasswd'}",
        ]
    template = "\n".join(lines) + "\n"
    last_error = ""
    for _ in range(5):
        port = free_port()
        host = f"{LOOPBACK}:{port}"
        config = root / "config.yml"
        config.write_text(template.replace("{addr}", host))
        log = root / f"registry-{port}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [binary, "serve", str(config)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        server = RegistryServer(
            host, root, process, log, tls_files, (USER, PASSWORD) if auth else None
        )
        if _wait_ready(server):
            return server
        server.stop()
        last_error = log.read_text(errors="replace")[-500:]
    pytest.fail(f"docker-registry did not start: {last_error}")


def _wait_ready(server: RegistryServer) -> bool:
    deadline = time.monotonic() + START_TIMEOUT
    verify = _verify(server.tls)
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            return False
        try:
            response = httpx.get(f"{server.url}/v2/", verify=verify, timeout=2)
            if response.status_code in (200, 401):
                return True
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    return False


# --------------------------------------------------------------------------------------------
# Building images (independently of olmcat)


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def tar_bytes(files: Mapping[str, bytes]) -> bytes:
    """A deterministic tar of ``files`` (parent directories included)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs: set[str] = set()
        for name in sorted(files):
            parts = name.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                directory = "/".join(parts[:i])
                if directory not in dirs:
                    dirs.add(directory)
                    info = tarfile.TarInfo(directory + "/")
                    info.type = tarfile.DIRTYPE
                    info.mode = 0o755
                    tar.addfile(info)
            info = tarfile.TarInfo(name)
            info.size = len(files[name])
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(files[name]))
    return buffer.getvalue()


def directory_files(root: Path, prefix: str = "") -> dict[str, bytes]:
    """Every regular file under ``root`` as ``prefix/relative/path`` -> content."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            rel = path.relative_to(root).as_posix()
            out[f"{prefix}/{rel}" if prefix else rel] = path.read_bytes()
    return out


@dataclass(frozen=True)
class Blob:
    media_type: str
    data: bytes

    @property
    def digest(self) -> str:
        return sha256(self.data)

    def descriptor(self, **extra: object) -> dict[str, object]:
        return {
            "mediaType": self.media_type,
            "digest": self.digest,
            "size": len(self.data),
            **extra,
        }


@dataclass(frozen=True)
class TestImage:
    """An image manifest (or index) with every blob it needs."""

    manifest: Blob
    blobs: tuple[Blob, ...] = ()
    children: tuple[TestImage, ...] = ()

    @property
    def digest(self) -> str:
        return self.manifest.digest

    def all_blobs(self) -> list[Blob]:
        out = list(self.blobs)
        for child in self.children:
            out += child.all_blobs()
        return out


def make_layer(files: Mapping[str, bytes], compression: str = "gzip", oci: bool = True) -> Blob:
    plain = tar_bytes(files)
    if compression == "gzip":
        data = gzip.compress(plain, mtime=0)
        media = (
            "application/vnd.oci.image.layer.v1.tar+gzip"
            if oci
            else ("application/vnd.docker.image.rootfs.diff.tar.gzip")
        )
    elif compression == "zstd":
        import zstandard

        data = zstandard.ZstdCompressor().compress(plain)
        media = "application/vnd.oci.image.layer.v1.tar+zstd"
    else:
        data = plain
        media = "application/vnd.oci.image.layer.v1.tar"
    return Blob(media, data)


def make_image(
    layers: list[Mapping[str, bytes]],
    *,
    labels: Mapping[str, str] | None = None,
    architecture: str = "amd64",
    compression: str = "gzip",
    oci: bool = True,
) -> TestImage:
    blobs = [make_layer(files, compression, oci) for files in layers]
    diff_ids = [sha256(tar_bytes(files)) for files in layers]
    config = {
        "architecture": architecture,
        "os": "linux",
        "config": {"Labels": dict(labels or {})},
        "rootfs": {"type": "layers", "diff_ids": diff_ids},
    }
    config_blob = Blob(
        OCI_CONFIG if oci else DOCKER_CONFIG, json.dumps(config, sort_keys=True).encode()
    )
    manifest = {
        "schemaVersion": 2,
        "mediaType": OCI_MANIFEST if oci else DOCKER_MANIFEST,
        "config": config_blob.descriptor(),
        "layers": [b.descriptor() for b in blobs],
    }
    body = json.dumps(manifest, indent=3).encode()  # not olmcat's formatting: bytes must survive
    return TestImage(Blob(OCI_MANIFEST if oci else DOCKER_MANIFEST, body), (config_blob, *blobs))


def make_index(images: list[TestImage], *, oci: bool = True) -> TestImage:
    entries = []
    for image in images:
        config = json.loads(image.blobs[0].data)
        entries.append(
            image.manifest.descriptor(
                platform={"os": config["os"], "architecture": config["architecture"]}
            )
        )
    media = OCI_INDEX if oci else DOCKER_LIST
    body = json.dumps({"schemaVersion": 2, "mediaType": media, "manifests": entries}).encode()
    return TestImage(Blob(media, body), (), tuple(images))


def index_image(database: Path, *, path: str = "/database/index.db", **kwargs: object) -> TestImage:
    """An SQLite index image as opm builds them: a base layer below, the DB in the top one."""
    base = {"bin/opm": b"#!/bin/sh\necho not really opm\n", "etc/nsswitch.conf": b"hosts: files\n"}
    return make_image(
        [base, {path.lstrip("/"): database.read_bytes()}],
        labels={DATABASE_LABEL: path},
        **kwargs,  # type: ignore[arg-type]
    )


def fbc_image(configs: Path, *, path: str = "/configs") -> TestImage:
    return make_image([directory_files(configs, path.lstrip("/"))], labels={CONFIGS_LABEL: path})


def push(server: RegistryServer, repository: str, tag: str, image: TestImage) -> str:
    """Push with plain distribution API calls; returns the manifest digest."""
    with server.client() as client:
        _push(client, repository, tag, image)
    return image.digest


def _push(client: httpx.Client, repository: str, reference: str, image: TestImage) -> None:
    for child in image.children:
        _push(client, repository, child.digest, child)
    for blob in image.blobs:
        if client.head(f"/v2/{repository}/blobs/{blob.digest}").status_code == 200:
            continue
        start = client.post(f"/v2/{repository}/blobs/uploads/")
        assert start.status_code == 202, start.text
        location = start.headers["Location"]
        joiner = "&" if "?" in location else "?"
        done = client.put(
            f"{location}{joiner}digest={blob.digest}",
            content=blob.data,
            headers={"Content-Type": "application/octet-stream"},
        )
        assert done.status_code == 201, done.text
    put = client.put(
        f"/v2/{repository}/manifests/{reference}",
        content=image.manifest.data,
        headers={"Content-Type": image.manifest.media_type},
    )
    assert put.status_code == 201, put.text


def manifest_digest(server: RegistryServer, repository: str, reference: str) -> str | None:
    """The digest the registry serves for ``repository:reference`` (None when absent)."""
    accept = ", ".join((OCI_INDEX, DOCKER_LIST, OCI_MANIFEST, DOCKER_MANIFEST))
    with server.client() as client:
        response = client.get(f"/v2/{repository}/manifests/{reference}", headers={"Accept": accept})
    if response.status_code == 404:
        return None
    assert response.status_code == 200, response.text
    return sha256(response.content)


def skopeo() -> str | None:
    return shutil.which("skopeo")


@dataclass
class Registries:
    plain: RegistryServer
    second: RegistryServer
    secure: RegistryServer


def start_session_registries(base: Path) -> Iterator[Registries]:
    servers: list[RegistryServer] = []
    try:
        plain = start_registry(base / "plain")
        servers.append(plain)
        second = start_registry(base / "second")
        servers.append(second)
        secure = start_registry(base / "secure", tls=True, auth=True)
        servers.append(secure)
        yield Registries(plain, second, secure)
    finally:
        for server in servers:
            server.stop()


def clean_env(tmp: Path, **extra: str) -> dict[str, str]:
    """An environment for CLI subprocesses: no user auth files, a private cache."""
    env = {k: v for k, v in os.environ.items() if k not in ("REGISTRY_AUTH_FILE", "DOCKER_CONFIG")}
    env["HOME"] = str(tmp / "home")
    env["XDG_RUNTIME_DIR"] = str(tmp / "run")
    env["XDG_CONFIG_HOME"] = str(tmp / "config")
    env["OLMCAT_CACHE_DIR"] = str(tmp / "cache")
    env.update(extra)
    return env


@pytest.fixture(scope="session")
def registries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registries]:
    """Three docker-registry servers for the whole session (skipped where not installed)."""
    require_registry_binary()
    yield from start_session_registries(tmp_path_factory.mktemp("registries"))


# --------------------------------------------------------------------------------------------
# A catalog whose images live in a test registry


@dataclass
class MirrorCatalog:
    """An FBC directory whose bundle and related images were pushed to ``server``."""

    directory: Path
    images: dict[str, str]  # reference as the catalog writes it -> manifest digest
    packages: list[str]


def _bundle_sources() -> list[tuple[str, str, Path]]:
    """(package, version, bundle dir): two corpus packages, else the fixture's manifests."""
    from tests.support.paths import CORPUS, FIXTURES

    upstream = CORPUS / "bundles" / "upstream"
    chosen = {"keda": ("2.2.0", "2.3.0"), "flux": ("0.16.0", "0.16.1")}
    if all((upstream / p / v).is_dir() for p, vs in chosen.items() for v in vs):
        return [(p, v, upstream / p / v) for p, vs in chosen.items() for v in vs]
    manifests = FIXTURES / "example" / "manifests"
    return [
        ("hello-operator", "0.1.0", manifests / "hello-operator" / "0.1.0"),
        ("hello-operator", "0.2.0", manifests / "hello-operator" / "0.2.0"),
        ("world-operator", "1.0.0", manifests / "world-operator" / "1.0.0"),
    ]


def _noise(seed: str, size: int) -> bytes:
    """Incompressible, reproducible bytes (so layers have real sizes)."""
    import random

    return random.Random(seed).randbytes(size)


def build_mirror_catalog(
    server: RegistryServer,
    directory: Path,
    *,
    layer_size: int = 256 << 10,
    bundles: int | None = None,
) -> MirrorCatalog:
    """Push bundle images (one layer of the bundle dir), a multi-arch operand index per bundle,
    and a shared Docker v2 proxy image by tag; write the FBC that references them. ``bundles``
    makes that many synthetic bundles (four per package) from the same directories."""
    images: dict[str, str] = {}
    base = {"usr/lib/os-release": b"ID=olmcat-test\n"}
    proxy = make_image([base, {"proxy": _noise("proxy", layer_size)}], oci=False)
    proxy_ref = f"{server.host}/infra/kube-rbac-proxy:v0.13.0"
    images[proxy_ref] = push(server, "infra/kube-rbac-proxy", "v0.13.0", proxy)
    by_package: dict[str, list[dict[str, object]]] = {}
    sources = _bundle_sources()
    if bundles is not None:
        sources = [
            (f"bench{i // 4}", f"1.0.{i}", sources[i % len(sources)][2]) for i in range(bundles)
        ]
    for package, version, bundle_dir in sources:
        bundle = make_image(
            [directory_files(bundle_dir)],
            labels={"operators.operatorframework.io.bundle.package.v1": package},
        )
        digest = push(server, f"bundles/{package}-bundle", f"v{version}", bundle)
        bundle_ref = f"{server.host}/bundles/{package}-bundle@{digest}"
        images[bundle_ref] = digest
        arches = [
            make_image(
                [base, {"manager": _noise(f"{package}{version}{arch}", layer_size)}],
                architecture=arch,
            )
            for arch in ("amd64", "arm64")
        ]
        operand = make_index(arches)
        operand_digest = push(server, f"operators/{package}", f"v{version}", operand)
        operand_ref = f"{server.host}/operators/{package}@{operand_digest}"
        images[operand_ref] = operand_digest
        by_package.setdefault(package, []).append(
            {
                "schema": "olm.bundle",
                "name": f"{package}.v{version}",
                "package": package,
                "image": bundle_ref,
                "properties": [
                    {"type": "olm.package", "value": {"packageName": package, "version": version}}
                ],
                "relatedImages": [
                    {"name": "", "image": bundle_ref},
                    {"name": "manager", "image": operand_ref},
                    {"name": "proxy", "image": proxy_ref},
                ],
            }
        )
    directory.mkdir(parents=True)
    for package, bundles in sorted(by_package.items()):
        entries = []
        previous = None
        for bundle in bundles:
            entry: dict[str, object] = {"name": bundle["name"]}
            if previous:
                entry["replaces"] = previous
            entries.append(entry)
            previous = str(bundle["name"])
        blobs = [
            {"schema": "olm.package", "name": package, "defaultChannel": "stable"},
            {"schema": "olm.channel", "name": "stable", "package": package, "entries": entries},
            *bundles,
        ]
        (directory / package).mkdir()
        (directory / package / "catalog.json").write_text(
            "".join(json.dumps(blob, indent=4) + "\n" for blob in blobs)
        )
    return MirrorCatalog(directory, images, sorted(by_package))


# --------------------------------------------------------------------------------------------
# A registry with token (bearer) authentication, and its token service


@dataclass
class TokenService:
    """A minimal docker token service (the distribution token spec) on 127.0.0.1."""

    url: str
    issued: list[tuple[str, list[str]]]  # (user, scopes) of every token handed out
    server: object


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def start_token_service(directory: Path, service: str, issuer: str) -> tuple[TokenService, Path]:
    """Serve signed JWTs for USER/PASSWORD; returns the service and its certificate bundle."""
    import datetime
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlparse

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "olmcat token signer")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    bundle = directory / "token-signer.crt"
    bundle.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    x5c = base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode()
    issued: list[tuple[str, list[str]]] = []
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()

    def sign(claims: dict[str, object]) -> str:
        header = {"typ": "JWT", "alg": "ES256", "x5c": [x5c]}
        signing_input = (
            _b64url(json.dumps(header).encode()) + "." + _b64url(json.dumps(claims).encode())
        )
        r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + _b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.end_headers()
                return
            query = parse_qs(urlparse(self.path).query)
            scopes = query.get("scope", [])
            access = []
            for scope in scopes:
                kind, _, rest = scope.partition(":")
                repo, _, actions = rest.rpartition(":")
                access.append({"type": kind, "name": repo, "actions": actions.split(",")})
            stamp = int(time.time())
            token = sign(
                {
                    "iss": issuer,
                    "sub": USER,
                    "aud": service,
                    "exp": stamp + 600,
                    "nbf": stamp - 60,
                    "iat": stamp,
                    "jti": os.urandom(8).hex(),
                    "access": access,
                }
            )
            issued.append((USER, scopes))
            body = json.dumps({"token": token, "expires_in": 600}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://{LOOPBACK}:{server.server_address[1]}/token"
    return TokenService(url, issued, server), bundle


@pytest.fixture(scope="session")
def token_registry(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[RegistryServer, TokenService]]:
    """docker-registry with ``auth: token`` (plain HTTP) and its token service."""
    require_registry_binary()
    root = tmp_path_factory.mktemp("token-registry")
    service, bundle = start_token_service(root, "olmcat-test", "olmcat-test-issuer")
    binary = require_registry_binary()
    port = free_port()
    host = f"{LOOPBACK}:{port}"
    (root / "config.yml").write_text(
        "\n".join(
            [
                "version: 0.1",
                "log:",
                "  level: warn",
                "storage:",
                "  filesystem:",
                f"    rootdirectory: {root / 'data'}",
                "http:",
                f"  addr: {host}",
                "  secret: olmcat-test-upload-secret",
                "auth:",
                "  token:",
                f"    realm: {service.url}",
                "    service: olmcat-test",
                "    issuer: olmcat-test-issuer",
                f"    rootcertbundle: {bundle}",
                "",
            ]
        )
    )
    log = root / "registry.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [binary, "serve", str(root / "config.yml")],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
    server = RegistryServer(host, root, process, log)
    try:
        if not _wait_ready(server):
            pytest.fail(f"token registry did not start: {log.read_text()[-500:]}")
        yield server, service
    finally:
        server.stop()
        service.server.shutdown()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# A fault-injecting proxy in front of a real registry (for retries and digest checks)


@dataclass
class FaultProxy:
    """Forwards to ``upstream`` on 127.0.0.1; ``faults[path_part]`` lists statuses to answer
    first (503, 429, or 0 to drop the connection); ``corrupt`` flips a byte of matching bodies."""

    host: str
    upstream: RegistryServer
    faults: dict[str, list[int]] = field(default_factory=dict)
    corrupt: str = ""
    seen: list[tuple[str, str, int]] = field(default_factory=list)
    server: object = None

    def close(self) -> None:
        self.server.shutdown()  # type: ignore[attr-defined]


def start_fault_proxy(upstream: RegistryServer) -> FaultProxy:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    proxy = FaultProxy("", upstream)
    client = httpx.Client(base_url=upstream.url, timeout=60)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _handle(self) -> None:
            for part, statuses in proxy.faults.items():
                if part in self.path and statuses:
                    status = statuses.pop(0)
                    proxy.seen.append((self.command, self.path, status))
                    if status == 0:
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    self.send_response(status)
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            headers = {
                k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")
            }
            response = client.request(self.command, self.path, content=body, headers=headers)
            content = response.content
            if proxy.corrupt and proxy.corrupt in self.path and content:
                content = bytes([content[0] ^ 0xFF]) + content[1:]
            proxy.seen.append((self.command, self.path, response.status_code))
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header(
                "Content-Length",
                str(
                    len(content)
                    if self.command != "HEAD"
                    else response.headers.get("Content-Length", "0")
                ),
            )
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(content)

        do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = _handle

    server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    proxy.host = f"{LOOPBACK}:{server.server_address[1]}"
    proxy.server = server
    return proxy
