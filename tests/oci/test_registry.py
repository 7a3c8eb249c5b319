"""Catalogs read by reference from real registries (docker-registry on 127.0.0.1).

The "done when" checks of issue 14 for reading: migrate over a registry equals migrate on disk;
diff of two tags works and a second run downloads no blob (counted in the registry's own access
log); wrong credentials fail in one line naming the registry and the auth file.
"""

from __future__ import annotations

import base64
import filecmp
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from olmcat.cli import cli
from tests.support.paths import CORPUS, FIXTURES
from tests.support.registry import (
    PASSWORD,
    USER,
    Registries,
    clean_env,
    fbc_image,
    index_image,
    make_image,
    make_index,
    push,
    write_auth_file,
)

pytestmark = pytest.mark.registry


def _db(corpus_name: str, fixture_name: str) -> Path:
    corpus = CORPUS / "sqlite" / corpus_name
    return corpus if corpus.is_file() else FIXTURES / "example" / "sqlite" / fixture_name


OLD_DB = _db("deprecate-before.db", "pre-migration.db")
NEW_DB = _db("deprecated.db", "schema-13.db")


def _olmcat(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "olmcat", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def _same_tree(left: Path, right: Path) -> None:
    compared = filecmp.dircmp(left, right)
    assert not compared.left_only and not compared.right_only, (
        compared.left_only,
        compared.right_only,
    )
    for name in compared.common_files:
        assert (left / name).read_bytes() == (right / name).read_bytes(), name
    for name in compared.common_dirs:
        _same_tree(left / name, right / name)


@pytest.fixture(scope="module")
def pushed(registries: Registries) -> dict[str, str]:
    """Index images v1 and v2 in the plain and the secure registry."""
    digests = {}
    for server in (registries.plain, registries.secure):
        digests[f"{server.host}/index:v1"] = push(server, "index", "v1", index_image(OLD_DB))
        digests[f"{server.host}/index:v2"] = push(server, "index", "v2", index_image(NEW_DB))
    return digests


def test_migrate_from_registry_equals_migrate_of_the_db(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    env = clean_env(tmp_path)
    host = registries.plain.host
    remote = _olmcat(
        env, "migrate", "sqlite", f"docker://{host}/index:v1", str(tmp_path / "a"), "--use-http"
    )
    assert remote.returncode == 0, remote.stderr
    local = _olmcat(env, "migrate", "sqlite", str(OLD_DB), str(tmp_path / "b"))
    assert local.returncode == 0, local.stderr
    _same_tree(tmp_path / "a", tmp_path / "b")


def test_migrate_over_tls_with_basic_auth(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    server = registries.secure
    assert server.tls is not None
    authfile = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD)
    env = clean_env(tmp_path)
    # Plain HOST/REPO:TAG without docker:// (no such path exists).
    done = _olmcat(
        env,
        "migrate",
        "sqlite",
        f"{server.host}/index:v2",
        str(tmp_path / "a"),
        "--authfile",
        str(authfile),
        "--cert-dir",
        str(server.tls.ca_dir),
    )
    assert done.returncode == 0, done.stderr
    local = _olmcat(env, "migrate", "sqlite", str(NEW_DB), str(tmp_path / "b"))
    assert local.returncode == 0, local.stderr
    _same_tree(tmp_path / "a", tmp_path / "b")


def test_diff_of_two_tags_and_the_second_run_downloads_nothing(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    server = registries.plain
    env = clean_env(tmp_path)
    args = (
        "diff",
        f"docker://{server.host}/index:v1",
        f"docker://{server.host}/index:v2",
        "--use-http",
    )
    expected = _olmcat(env, "diff", str(OLD_DB), str(NEW_DB))
    assert expected.returncode == 1, expected.stderr  # the two DBs differ

    mark = server.mark()
    first = _olmcat(env, *args)
    first_requests = server.requests(mark)
    mark = server.mark()
    second = _olmcat(env, *args)
    second_requests = server.requests(mark)

    for run in (first, second):
        assert run.returncode == 1, run.stderr
        # Same report, apart from the title naming the inputs.
        assert run.stdout.splitlines()[1:] == expected.stdout.splitlines()[1:]
    blob_gets = [r for r in first_requests if r[0] == "GET" and "/blobs/" in r[1]]
    assert blob_gets, first_requests
    assert [r for r in second_requests if r[0] == "GET"] == [
        r for r in second_requests if r[0] == "GET" and r[1] == "/v2/"
    ], second_requests
    # Only the DB's layer and the configs were fetched, never the base layer below it.
    assert len(blob_gets) == 4, blob_gets


def test_wrong_credentials_fail_in_one_line_naming_registry_and_auth_file(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    server = registries.secure
    assert server.tls is not None
    wrong = "not-the-password-0123"
    authfile = write_auth_file(tmp_path / "wrong.json", server.host, USER, wrong)
    env = clean_env(tmp_path)
    done = _olmcat(
        env,
        "migrate",
        "sqlite",
        f"docker://{server.host}/index:v1",
        str(tmp_path / "out"),
        "--authfile",
        str(authfile),
        "--cert-dir",
        str(server.tls.ca_dir),
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert server.host in lines[0] and str(authfile) in lines[0]
    assert "authentication failed" in lines[0]
    assert not (tmp_path / "out").exists()
    token = base64.b64encode(f"{USER}:{wrong}".encode()).decode()
    for secret in (wrong, token):
        assert secret not in done.stderr + done.stdout


def test_no_secret_in_a_debug_traceback(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    """A failure after a successful login, with --debug: the traceback names no credential."""
    server = registries.secure
    assert server.tls is not None
    authfile = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD)
    env = clean_env(tmp_path)
    for args in (
        (f"docker://{server.host}/no-such-repo:v1",),
        (f"docker://{server.host}/index:v1",),  # then wrong credentials below
    ):
        done = _olmcat(
            env,
            "--debug",
            "migrate",
            "sqlite",
            *args,
            str(tmp_path / "out"),
            "--authfile",
            str(authfile),
            "--cert-dir",
            str(server.tls.ca_dir),
        )
        assert done.returncode != 0
        assert "Traceback" in done.stderr
        token = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        for secret in (PASSWORD, token):
            assert secret not in done.stderr + done.stdout
        authfile = write_auth_file(tmp_path / "auth.json", server.host, USER, PASSWORD + "x")


def test_missing_credentials_name_the_files_read(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    server = registries.secure
    assert server.tls is not None
    env = clean_env(tmp_path)
    done = _olmcat(
        env,
        "images",
        f"docker://{server.host}/index:v1",
        "--cert-dir",
        str(server.tls.ca_dir),
    )
    assert done.returncode == 1
    line = done.stderr.strip()
    assert "\n" not in line and server.host in line and "no credentials" in line
    assert str(tmp_path / "home" / ".docker" / "config.json") in line


def test_untrusted_certificate_and_plain_http_are_explained(
    registries: Registries, pushed: dict[str, str], tmp_path: Path
) -> None:
    env = clean_env(tmp_path)
    untrusted = _olmcat(env, "images", f"docker://{registries.secure.host}/index:v1")
    assert untrusted.returncode == 1
    assert "--cert-dir" in untrusted.stderr and registries.secure.host in untrusted.stderr
    plain = _olmcat(env, "images", f"docker://{registries.plain.host}/index:v1")
    assert plain.returncode == 1
    assert "--use-http" in plain.stderr
    # --tls-verify=false: no certificate check, and plain HTTP where the registry has no TLS.
    authfile = write_auth_file(tmp_path / "auth.json", registries.secure.host, USER, PASSWORD)
    for server, extra in (
        (registries.plain, []),
        (registries.secure, ["--authfile", str(authfile)]),
    ):
        done = _olmcat(
            env, "images", f"docker://{server.host}/index:v1", "--tls-verify=false", *extra
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout


def test_multi_arch_index_and_zstd_fbc_image(registries: Registries, tmp_path: Path) -> None:
    """A manifest list picks --platform (default linux/amd64); zstd and Docker media types read."""
    server = registries.plain
    configs = FIXTURES / "example" / "expected"
    amd64 = fbc_image(configs)
    arm64 = make_image(
        [{"configs/only-on-arm/catalog.json": b'{"schema":"olm.package","name":"only-on-arm"}'}],
        labels={"operators.operatorframework.io.index.configs.v1": "/configs"},
        architecture="arm64",
        compression="zstd",
        oci=False,
    )
    push(server, "fbc", "multi", make_index([arm64, amd64], oci=False))
    runner = CliRunner()
    env = clean_env(tmp_path)
    default = runner.invoke(
        cli, ["query", "--use-http", f"docker://{server.host}/fbc:multi", "packages"], env=env
    )
    assert default.exit_code == 0, default.output
    assert "hello-operator" in default.output and "only-on-arm" not in default.output
    arm = runner.invoke(
        cli,
        [
            "query",
            "--use-http",
            "--platform",
            "linux/arm64",
            f"docker://{server.host}/fbc:multi",
            "packages",
        ],
        env=env,
    )
    assert arm.exit_code == 0, arm.output
    assert "only-on-arm" in arm.output and "hello-operator" not in arm.output
    missing = runner.invoke(
        cli,
        ["images", f"docker://{server.host}/fbc:multi", "--use-http", "--platform", "linux/s390x"],
        env=env,
    )
    assert missing.exit_code == 1
    assert "no image for platform linux/s390x" in missing.output
    assert "linux/amd64" in missing.output and "linux/arm64" in missing.output


EXAMPLE_DB = FIXTURES / "example" / "sqlite" / "schema-13.db"


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "{ref}"],
        ["images", "{ref}"],
        ["render-graph", "{ref}"],
        ["query", "--use-http", "{ref}", "packages"],
        ["filter", "{ref}", "-", "-p", "hello-operator"],
        ["diff", "{ref}", "{ref}"],
        ["mirror", "plan", "{ref}", "mirror.example.com/olm", "{tmp}/plan", "--name", "x"],
        ["export", "sqlite", "{ref}", "{tmp}/out.db"],
    ],
    ids=lambda command: " ".join(command[:2]),
)
def test_every_catalog_command_takes_a_registry_reference(
    registries: Registries, command: list[str], tmp_path: Path
) -> None:
    """The same command on the image in a registry and on the DB it holds: same output."""
    server = registries.plain
    push(server, "example/index", "v1", index_image(EXAMPLE_DB))
    remote_ref = f"docker://{server.host}/example/index:v1"
    runner = CliRunner()
    outputs = []
    for ref, extra in ((remote_ref, ["--use-http"]), (str(EXAMPLE_DB), [])):
        work = tmp_path / ("remote" if extra else "local")
        work.mkdir()
        args = [part.format(ref=ref, tmp=work) for part in command]
        if extra and "--use-http" not in args:
            args += extra
        result = runner.invoke(cli, args, env=clean_env(tmp_path))
        assert result.exit_code in (0, 1), result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        outputs.append((result.exit_code, result.stdout.replace(ref, "REF")))
    assert outputs[0] == outputs[1]
