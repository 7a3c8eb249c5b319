"""A registry client's TLS context is made once per host, options and trust-store variables in a
process (loading the system trust store costs ~20 ms, once per image before)."""

from __future__ import annotations

import ssl
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from olmcat.oci.options import RegistryOptions
from olmcat.oci.registry import Registry


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[ssl.SSLContext]:
    """Every TLS context ssl.create_default_context makes during the test."""
    contexts: list[ssl.SSLContext] = []
    real: Callable[..., ssl.SSLContext] = ssl.create_default_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        contexts.append(real(*args, **kwargs))
        return contexts[-1]

    monkeypatch.setattr(ssl, "create_default_context", counting)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return contexts


def _open(host: str, options: RegistryOptions) -> None:
    Registry(host, options).close()


def test_one_context_per_host_and_options(tmp_path: Path, made: list[ssl.SSLContext]) -> None:
    host = f"{uuid.uuid4().hex}.test:5000"  # never seen by this process before
    options = RegistryOptions(cache_dir=tmp_path / "cache")
    for _ in range(3):
        _open(host, options)
    assert len(made) == 1 and made[0].verify_mode == ssl.CERT_REQUIRED
    _open(f"other-{host}", options)
    assert len(made) == 2
    _open(host, RegistryOptions(cache_dir=tmp_path / "cache", tls_verify=False))
    assert len(made) == 3 and made[2].verify_mode == ssl.CERT_NONE


def test_a_changed_trust_store_variable_makes_a_new_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, made: list[ssl.SSLContext]
) -> None:
    host = f"{uuid.uuid4().hex}.test:5000"
    options = RegistryOptions(cache_dir=tmp_path / "cache")
    _open(host, options)
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    _open(host, options)
    assert len(made) == 2
