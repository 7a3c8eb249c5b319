"""files/output.py: a failed write names its target and says what to do; reads pass through."""

from __future__ import annotations

import errno
import io
import subprocess
import sys
from pathlib import Path

import pytest

from olmcat.errors import OutputError
from olmcat.files import output


class Failing(io.StringIO):
    def __init__(self, error: OSError) -> None:
        super().__init__("some text")
        self.error = error

    def write(self, text: str) -> int:
        raise self.error

    def flush(self) -> None:
        raise self.error


@pytest.mark.parametrize(
    ("number", "reason", "advice"),
    [
        (errno.EFBIG, "File too large", "(the file-size limit, `ulimit -f`, or the filesystem's "
         "maximum); raise the limit or write it elsewhere"),
        (errno.ENOSPC, "No space left on device", "free space there or write it elsewhere"),
        (errno.EDQUOT, "Disk quota exceeded", "free space there or write it elsewhere"),
        (errno.EIO, "Input/output error", "check that it can be written, or write it elsewhere"),
    ],
)  # fmt: skip
def test_a_failed_write_names_the_target_the_reason_and_what_to_do(
    number: int, reason: str, advice: str
) -> None:
    stream = output.guarded(Failing(OSError(number, reason)), "out/p/catalog.json")
    with pytest.raises(OutputError) as caught:
        stream.write("x")
    assert str(caught.value).startswith(f"cannot write out/p/catalog.json: {reason}; ")
    assert str(caught.value).endswith(advice)
    assert output.is_no_room(OSError(number, reason)) == (number != errno.EIO)


def test_scratch_and_cache_say_how_to_move_elsewhere() -> None:
    full = OSError(errno.ENOSPC, "No space left on device")
    assert output.room_advice(full, elsewhere=output.SCRATCH).endswith(
        "set TMPDIR to another filesystem"
    )
    assert "OLMCAT_CACHE_DIR" in output.room_advice(full, elsewhere=output.CACHE)


def test_reads_and_a_closed_pipe_pass_through() -> None:
    stream = output.guarded(Failing(BrokenPipeError(errno.EPIPE, "Broken pipe")), "stdout")
    assert stream.read() == "some text"  # not guarded: a read error is the reader's to name
    with pytest.raises(BrokenPipeError):
        stream.write("x")  # the CLI ends quietly on a closed pipe
    with pytest.raises(BrokenPipeError):
        stream.flush()
    assert output.unguarded(stream).getvalue() == "some text"


def test_open_output_names_the_shown_target_when_opening_fails(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=r"^cannot write the plan: No such file or directory; "):
        output.open_output(tmp_path / "missing" / "f", "w", shown="the plan")


def test_a_report_past_the_file_size_limit_leaves_no_partial_file(tmp_path: Path) -> None:
    # write_report in a process whose file-size limit (RLIMIT_FSIZE) the report passes
    script = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "from olmcat.files.output import write_report\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        "    write_report(Path(sys.argv[1]), {'notices': ['x' * 100] * 100})\n"
        "except Exception as error:\n"
        "    print(type(error).__name__, error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "report.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    expected = f"OutputError cannot write the report {tmp_path}/report.json: File too large; "
    assert done.stdout.startswith(expected), done
    assert list(tmp_path.iterdir()) == []
