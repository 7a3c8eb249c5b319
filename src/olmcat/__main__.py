"""``olmcat`` and ``python -m olmcat``: the program entry point.

Ctrl-C must end with one line and status 130 even while the command modules are still being
imported, so the handler for that window is installed before anything heavy is imported (the
CLI boundary takes over once a command runs).
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType


def _interrupted(signum: int, frame: FrameType | None) -> None:
    try:
        sys.stderr.write("olmcat: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(128 + signum)


def run() -> None:
    signal.signal(signal.SIGINT, _interrupted)
    from olmcat.cli import main

    main(interrupted=_interrupted)


if __name__ == "__main__":
    run()
