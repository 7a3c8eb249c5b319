"""A loopback registry in a private network namespace, serving bundle images to the oracle opm.

``opm alpha render-template`` pulls every bundle image it names, so differential tests need a
registry opm can reach, and nothing else may be contacted. :class:`OracleRegistry` starts one
helper process under ``unshare --net`` (root, or user namespaces with ``--map-root-user``). Inside
it, loopback is brought up, Debian's ``docker-registry`` serves 127.0.0.1:5000, and the helper
answers one JSON request per line on stdin: ``push`` a bundle directory as an image (built exactly
as ``bundle-index`` builds it: its ``bundle_image`` and ``push_image`` are imported from the oracle
script, not copied) or ``run`` opm with arguments. Because opm runs as a child of the helper, it
shares the private loopback, so image references are the corpus' own ``127.0.0.1:5000/...`` and
parallel sessions never collide.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.support.paths import ORACLE

PREFIX = "127.0.0.1:5000"


def _bundle_index_module() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("bundle_index", str(ORACLE / "bundle-index"))
    spec = importlib.util.spec_from_loader("bundle_index", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def require_registry() -> None:
    if not (ORACLE / "opm").is_file() or not (ORACLE / "bundle-index").is_file():
        pytest.skip(f"no {ORACLE} (opm oracle and bundle-index)")
    if shutil.which("xz") is None:
        pytest.skip("xz is not installed: the oracle binaries are xz-packed")
    if shutil.which("docker-registry") is None:
        pytest.skip("docker-registry (Debian package) is not installed")
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed")
    flags = ["--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
    if subprocess.run(["unshare", *flags, "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare --net is not permitted here (needs root or user namespaces)")


class OracleRegistry:
    """The helper process; use as a context manager. Not thread-safe (one request at a time)."""

    def __init__(self, work: Path) -> None:
        require_registry()
        self.work = work
        self.pushed: dict[str, Path] = {}
        flags = ["--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"])
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
        self.proc = subprocess.Popen(
            ["unshare", *flags, "--", sys.executable, "-m", "tests.support.registry_netns"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=work,
            env=env,
        )
        ready = self._reply()
        if not ready.get("ok"):
            self.close()
            raise RuntimeError(f"oracle registry did not start: {ready}")

    def _reply(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            raise RuntimeError(f"oracle registry helper exited: {err[-2000:]}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def _request(self, **request: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def push(self, ref: str, bundle_dir: Path) -> None:
        """Build ``bundle_dir`` into an image (as bundle-index does) and push it as ``ref``."""
        if self.pushed.get(ref) == bundle_dir:
            return
        reply = self._request(op="push", ref=ref, dir=str(bundle_dir))
        if not reply.get("ok"):
            raise RuntimeError(f"push {ref}: {reply.get('error')}")
        self.pushed[ref] = bundle_dir

    def push_many(self, items: list[tuple[str, Path]]) -> None:
        todo = [(r, d) for r, d in items if self.pushed.get(r) != d]
        if not todo:
            return
        reply = self._request(op="push-many", items=[[r, str(d)] for r, d in todo])
        if not reply.get("ok"):
            raise RuntimeError(f"push: {reply.get('error')}")
        self.pushed.update(todo)

    def push_layout(self, ref: str, layout: Path) -> None:
        """Push the image of an OCI layout directory (blobs and manifest, bytes unchanged) as
        ``ref``: images of any layer shape, built by the test."""
        reply = self._request(op="push-layout", ref=ref, dir=str(layout))
        if not reply.get("ok"):
            raise RuntimeError(f"push {ref}: {reply.get('error')}")

    def opm(self, *args: str | Path, stdin: str = "", timeout: int = 300) -> tuple[int, str, str]:
        """Run the oracle opm inside the namespace: (exit status, stdout, stderr)."""
        scratch = tempfile.mkdtemp(prefix="opm-", dir=self.work)
        try:
            reply = self._request(
                op="run",
                args=[str(ORACLE / "opm"), *map(str, args)],
                cwd=scratch,
                stdin=stdin,
                timeout=timeout,
            )
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return int(reply["rc"]), str(reply["stdout"]), str(reply["stderr"])

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> OracleRegistry:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _push_layout(ref: str, layout: Path) -> None:  # pragma: no cover - inside the namespace
    """Plain distribution API calls (urllib, no proxy): every blob, then the manifest."""
    import hashlib
    import urllib.error
    import urllib.parse
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def call(method: str, url: str, data: bytes | None = None, kind: str = "") -> Any:
        headers = {"Content-Type": kind} if kind else {}
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with opener.open(request, timeout=120) as response:
                return response.status, response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.headers

    host, _, rest = ref.partition("/")
    repository, _, tag = rest.rpartition(":")
    base = f"http://{host}/v2/{repository}"
    index = json.loads((layout / "index.json").read_text())
    entry = index["manifests"][0]
    manifest = (layout / "blobs" / "sha256" / entry["digest"].split(":", 1)[1]).read_bytes()
    document = json.loads(manifest)
    for descriptor in [document["config"], *document["layers"]]:
        digest = descriptor["digest"]
        data = (layout / "blobs" / "sha256" / digest.split(":", 1)[1]).read_bytes()
        assert "sha256:" + hashlib.sha256(data).hexdigest() == digest
        status, headers = call("POST", f"{base}/blobs/uploads/")
        if status != 202:
            raise RuntimeError(f"upload start: HTTP {status}")
        location = urllib.parse.urljoin(f"http://{host}/", headers["Location"])
        location += ("&" if "?" in location else "?") + "digest=" + urllib.parse.quote(digest)
        status, _ = call("PUT", location, data, "application/octet-stream")
        if status != 201:
            raise RuntimeError(f"blob {digest}: HTTP {status}")
    status, _ = call("PUT", f"{base}/manifests/{tag}", manifest, entry["mediaType"])
    if status != 201:
        raise RuntimeError(f"manifest: HTTP {status}")


def _serve() -> int:  # pragma: no cover - runs inside the namespace
    """The helper's side: registry up, then one JSON request per stdin line."""
    bi = _bundle_index_module()
    out = sys.stdout

    def reply(**fields: Any) -> None:
        out.write(json.dumps(fields) + "\n")
        out.flush()

    work = tempfile.mkdtemp(prefix="oracle-registry-")
    try:
        bi._loopback_up()
        with bi.Registry(PREFIX, work):
            reply(ok=True)
            for line in sys.stdin:
                request = json.loads(line)
                try:
                    if request["op"] == "push":
                        bi.push_image(request["ref"], *bi.bundle_image(request["dir"]))
                        reply(ok=True)
                    elif request["op"] == "push-many":
                        for ref, directory in request["items"]:
                            bi.push_image(ref, *bi.bundle_image(directory))
                        reply(ok=True)
                    elif request["op"] == "push-layout":
                        _push_layout(request["ref"], Path(request["dir"]))
                        reply(ok=True)
                    elif request["op"] == "run":
                        done = subprocess.run(
                            request["args"],
                            cwd=request["cwd"],
                            input=request["stdin"],
                            capture_output=True,
                            text=True,
                            timeout=request["timeout"],
                            env=dict(os.environ, TMPDIR=request["cwd"]),
                        )
                        reply(ok=True, rc=done.returncode, stdout=done.stdout, stderr=done.stderr)
                    else:
                        reply(ok=False, error=f"unknown op {request['op']!r}")
                except Exception as exc:  # reported to the test
                    error = f"{type(exc).__name__}: {exc}"
                    reply(ok=False, error=error, rc=-1, stdout="", stderr="")
    except Exception as exc:
        reply(ok=False, error=f"{type(exc).__name__}: {exc}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_serve())
