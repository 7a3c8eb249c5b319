"""Credential lookup as containers-auth.json(5) and docker describe it (no network)."""

from __future__ import annotations

import base64
import json
import os
import stat
from pathlib import Path

import pytest

from olmcat.oci.auth import AuthError, Credentials, find_credentials, redact


def _auth(user: str, password: str) -> dict[str, str]:
    return {"auth": base64.b64encode(f"{user}:{password}".encode()).decode()}


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        "HOME": str(tmp_path / "home"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PATH": os.environ.get("PATH", ""),
    }
    env.update(extra)
    return env


def _write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))
    return path


def test_files_are_read_in_the_documented_order(tmp_path: Path) -> None:
    env = _env(tmp_path)
    docker = _write(
        tmp_path / "home/.docker/config.json", {"auths": {"r.io": _auth("docker", "d")}}
    )
    found, _ = find_credentials("r.io", "a/b", env=env)
    assert found is not None and found.username == "docker" and str(docker) in found.source
    _write(tmp_path / "config/containers/auth.json", {"auths": {"r.io": _auth("config", "c")}})
    assert find_credentials("r.io", env=env)[0].username == "config"  # type: ignore[union-attr]
    _write(tmp_path / "run/containers/auth.json", {"auths": {"r.io": _auth("runtime", "r")}})
    assert find_credentials("r.io", env=env)[0].username == "runtime"  # type: ignore[union-attr]
    # A file without an entry for the registry does not stop the search.
    _write(tmp_path / "run/containers/auth.json", {"auths": {"other.io": _auth("x", "y")}})
    assert find_credentials("r.io", env=env)[0].username == "config"  # type: ignore[union-attr]


def test_an_explicit_file_is_the_only_one_read(tmp_path: Path) -> None:
    _write(tmp_path / "home/.docker/config.json", {"auths": {"r.io": _auth("docker", "d")}})
    mine = _write(tmp_path / "mine.json", {"auths": {}})
    env = _env(tmp_path, REGISTRY_AUTH_FILE=str(mine))
    found, files = find_credentials("r.io", env=env)
    assert found is None and files == [mine]
    flag = _write(tmp_path / "flag.json", {"auths": {"r.io": _auth("flag", "f")}})
    found, _ = find_credentials("r.io", authfile=flag, env=env)  # --authfile beats the variable
    assert found is not None and found.username == "flag"
    with pytest.raises(AuthError, match="does not exist"):
        find_credentials("r.io", authfile=tmp_path / "absent.json", env=env)


def test_most_specific_key_wins_and_urls_are_normalised(tmp_path: Path) -> None:
    _write(
        tmp_path / "home/.docker/config.json",
        {
            "auths": {
                "https://r.io/v1/": _auth("host", "h"),
                "r.io/team": _auth("team", "t"),
                "r.io/team/app": _auth("app", "a"),
                "https://index.docker.io/v1/": _auth("hub", "u"),
            }
        },
    )
    env = _env(tmp_path)
    assert find_credentials("r.io", "team/app", env=env)[0].username == "app"  # type: ignore[union-attr]
    assert find_credentials("r.io", "team/other", env=env)[0].username == "team"  # type: ignore[union-attr]
    assert find_credentials("r.io", "else/x", env=env)[0].username == "host"  # type: ignore[union-attr]
    assert find_credentials("docker.io", "library/busybox", env=env)[0].username == "hub"  # type: ignore[union-attr]


def _helper(tmp_path: Path, name: str, body: str) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / f"docker-credential-{name}"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def test_cred_helpers_and_creds_store(tmp_path: Path) -> None:
    bin_dir = _helper(
        tmp_path,
        "fake",
        'read server; printf \'{"ServerURL":"%s","Username":"from-helper","Secret":"hs3cr3t!"}\' '
        '"$server"',
    )
    _helper(tmp_path, "token", 'read s; echo \'{"Username":"<token>","Secret":"refresh-tok-1"}\'')
    _helper(tmp_path, "none", 'echo "credentials not found in native keychain"; exit 1')
    env = _env(tmp_path, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}")
    _write(
        tmp_path / "home/.docker/config.json",
        {
            "auths": {"plain.io": _auth("file", "f"), "helped.io": _auth("ignored", "i")},
            "credHelpers": {"helped.io": "fake", "tok.io": "token", "gone.io": "none"},
            "credsStore": "fake",
        },
    )
    helped = find_credentials("helped.io", env=env)[0]
    assert helped is not None and helped.username == "from-helper"
    assert helped.password == "hs3cr3t!" and "docker-credential-fake" in helped.source
    token = find_credentials("tok.io", env=env)[0]
    assert token is not None and token.identity_token == "refresh-tok-1" and not token.password
    assert find_credentials("plain.io", env=env)[0].username == "file"  # type: ignore[union-attr]
    assert find_credentials("stored.io", env=env)[0].username == "from-helper"  # type: ignore[union-attr]
    assert find_credentials("gone.io", env=env)[0] is None
    _write(tmp_path / "home/.docker/config.json", {"credHelpers": {"x.io": "missing"}})
    with pytest.raises(AuthError, match="docker-credential-missing is not on PATH"):
        find_credentials("x.io", env=env)


def test_a_failing_helper_does_not_leak_what_it_printed(tmp_path: Path) -> None:
    bin_dir = _helper(tmp_path, "leaky", 'echo "boom: hs3cr3t-known" >&2; exit 3')
    env = _env(tmp_path, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}")
    Credentials("someone", "hs3cr3t-known")  # a secret seen before is redacted everywhere
    _write(tmp_path / "home/.docker/config.json", {"credHelpers": {"l.io": "leaky"}})
    with pytest.raises(AuthError) as caught:
        find_credentials("l.io", env=env)
    assert "hs3cr3t-known" not in str(caught.value) and "***" in str(caught.value)


def test_secrets_stay_out_of_repr_and_messages(tmp_path: Path) -> None:
    credentials = Credentials("alice", "pa55-word-xyz", "idtoken-xyz", source="somewhere")
    assert "pa55-word-xyz" not in repr(credentials) and "idtoken" not in repr(credentials)
    header = credentials.basic_header().split(" ", 1)[1]
    text = f"failed with pa55-word-xyz and {header} and idtoken-xyz"
    assert redact(text) == "failed with *** and *** and ***"
    broken = _write(tmp_path / "broken.json", {"auths": {"r.io": {"auth": "bm90LWEtcGFpcg=="}}})
    with pytest.raises(AuthError, match="not base64 of user:password"):
        find_credentials("r.io", authfile=broken)
    (tmp_path / "garbage.json").write_text('{"auths": {"r.io": {"auth": "c2VjcmV0Onh5eg=="}')
    with pytest.raises(AuthError) as caught:
        find_credentials("r.io", authfile=tmp_path / "garbage.json")
    assert "c2VjcmV0" not in str(caught.value) and "not valid JSON" in str(caught.value)
