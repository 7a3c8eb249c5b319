"""Run olmcat with stderr on a pseudo-terminal, to see what a user at a terminal sees."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path


def run_on_terminal(
    args: list[str], cwd: Path, timeout: float = 60, env: dict[str, str] | None = None
) -> str:
    """Run olmcat with stderr on a pseudo-terminal (stdout to a pipe); return the terminal text."""
    controller, terminal = pty.openpty()
    # A real terminal has a size (tqdm draws nothing on a 0x0 one).
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    environment = {**(env if env is not None else os.environ), "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.Popen(
        [sys.executable, "-m", "olmcat", *args], cwd=cwd, stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=terminal, env=environment,
    )  # fmt: skip
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                data = os.read(controller, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    process.wait(timeout=10)
    os.close(controller)
    return b"".join(chunks).decode("utf-8", "replace")
