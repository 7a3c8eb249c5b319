"""A real headless Chromium for the HTML reports, driven through the DevTools protocol.

Chromium is started with ``--remote-debugging-pipe``: the protocol's JSON messages travel over
two inherited file descriptors (3: to Chromium, 4: from it), each message ended by a NUL byte.
No port is opened and no library is needed for the transport; the protocol itself is small
enough to speak directly (a command is ``{"id", "method", "params", "sessionId"}``, the answer
carries the same id, everything else is an event). Every event is kept, so a test can ask what
the page logged and which requests it made.

Chromium runs with the flags Debian's headless shell needs as root, with its own empty profile
and with everything that would call out (component updates, sync, background networking)
switched off; the tests additionally record every request the page makes.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CANDIDATES = ("chromium-headless-shell", "chromium", "chromium-browser")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-quic",
    "--mute-audio",
    "--hide-scrollbars",
)


def chromium() -> str | None:
    """The browser to use: $OLMCAT_CHROMIUM, else Debian's headless shell or chromium."""
    chosen = os.environ.get("OLMCAT_CHROMIUM")
    if chosen:
        return chosen
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def require_chromium() -> str:
    found = chromium()
    if found is None:
        pytest.skip(
            "no Chromium: apt-get install chromium-headless-shell (or chromium); .ci/run does"
        )
    return found


class BrowserError(RuntimeError):
    pass


@dataclass
class Page:
    browser: Browser
    session: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, expression: str) -> Any:
        answer = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression!r}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def _mine(self) -> list[dict[str, Any]]:
        return [e for e in self.browser.events if e.get("sessionId") == self.session]

    def requests(self) -> list[str]:
        """Every URL the page asked for (the document itself included)."""
        return [
            e["params"]["request"]["url"]
            for e in self._mine()
            if e["method"] == "Network.requestWillBeSent"
        ]

    def errors(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and browser log errors (a CSP
        violation is one)."""
        found = []
        for event in self._mine():
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning"):
                found.append(" ".join(str(a.get("value", a)) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails", {}))[:500])
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(params["entry"].get("text", ""))
        return found

    def screenshot(self, *, scale: float = 1.0, full: bool = False) -> bytes:
        params: dict[str, Any] = {"format": "png"}
        if full or scale != 1.0:
            size = self.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
                if full
                else "[innerWidth, innerHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": scale}
            # the clip is in page coordinates: the top of the page, wherever it is scrolled
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.send("Page.captureScreenshot", **params)["data"])

    def type_into(self, selector: str, text: str) -> None:
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", text=text)


class Browser:
    def __init__(self, executable: str, *, width: int = 1280, height: int = 900) -> None:
        self._profile = tempfile.mkdtemp(prefix="olmcat-chromium-")
        to_chromium_read, self._to_chromium = os.pipe()
        self._from_chromium, from_chromium_write = os.pipe()
        child_read, child_write = to_chromium_read, from_chromium_write

        def descriptors() -> None:  # in the child: the pipe becomes fds 3 and 4
            read, write = os.dup(child_read), os.dup(child_write)
            os.dup2(read, 3)
            os.dup2(write, 4)

        self.process = subprocess.Popen(
            [
                executable,
                *FLAGS,
                "--remote-debugging-pipe",
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            preexec_fn=descriptors,  # fds 3/4 must exist before exec
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        os.close(child_read)
        os.close(child_write)
        self.width, self.height = width, height
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    # -- transport ---------------------------------------------------------------------------

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chromium], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._from_chromium, 1 << 20)
            if not chunk:
                stderr = (
                    self.process.stderr.read().decode(errors="replace")
                    if self.process.stderr
                    else ""
                )
                raise BrowserError(f"Chromium closed the pipe: {stderr[-2000:]}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        decoded: dict[str, Any] = json.loads(message)
        return decoded

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 30.0,
    ) -> dict[str, Any]:
        self._next += 1
        ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._to_chromium, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == ident:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer.get("result", {})
                return result
            self.events.append(answer)

    def wait_for(self, method: str, session: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        while True:
            event = self._read(deadline)
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event

    # -- pages -------------------------------------------------------------------------------

    def open(self, url: str, *, dark: bool = False) -> tuple[Page, float]:
        """A new tab showing ``url`` once its load event fired, and the seconds that took."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session)
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        page.send(
            "Emulation.setDeviceMetricsOverride",
            width=self.width,
            height=self.height,
            deviceScaleFactor=1,
            mobile=False,
        )
        if dark:
            page.send(
                "Emulation.setEmulatedMedia",
                features=[{"name": "prefers-color-scheme", "value": "dark"}],
            )
        started = time.monotonic()
        page.send("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired", session)
        return page, time.monotonic() - started

    def close(self) -> None:
        with suppress(BrowserError, OSError):
            self.send("Browser.close", timeout=5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for fd in (self._to_chromium, self._from_chromium):
            with suppress(OSError):
                os.close(fd)
        if self.process.stderr is not None:
            self.process.stderr.close()
        shutil.rmtree(self._profile, ignore_errors=True)


@contextmanager
def browser(**kwargs: Any) -> Iterator[Browser]:
    started = Browser(require_chromium(), **kwargs)
    try:
        yield started
    finally:
        started.close()


def file_url(path: Path) -> str:
    return path.resolve().as_uri()


# -- pixels -----------------------------------------------------------------------------------


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced PNG as Chromium
    writes them (colour type 2 or 6)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = channels = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (
                    line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)
                ) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, rows


def ink(data: bytes) -> tuple[float, int]:
    """(share of pixels that differ from the top-left corner's colour, number of colours)."""
    width, height, rows = png_pixels(data)
    channels = len(rows[0]) // width
    background = rows[0][:3]
    differ = 0
    colours: set[bytes] = set()
    for row in rows:
        for x in range(0, width * channels, channels):
            pixel = row[x : x + 3]
            colours.add(pixel)
            if pixel != background:
                differ += 1
    return differ / (width * height), len(colours)
