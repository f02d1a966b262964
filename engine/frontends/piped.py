"""Standard input as evidence: ``traindx diagnose --log -``, ``--complaint -``, and a complaint piped
in with nothing else given (``tail -n 200 nohup.out | traindx diagnose``).

- A log read from ``-`` is spooled to a private temporary file in fixed-size chunks (flat memory,
  bounded by ``limits.max_log_bytes``) and read by the same readers as a named file; what is printed
  about it says ``stdin``, never the temporary path, and the file is removed on every exit path.
- A complaint read from ``-`` (or piped with no other evidence) is text, bounded by
  ``limits.max_file_bytes``: the prose stays the user's words and a pasted log inside it is read like
  a console log (``Gatherer.complaint``).

Torch-free; imported only when a ``-`` or a pipe is seen.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from ..errors import InputError

#: what a path of ``-`` means, and the name standard input is shown under
STDIN = "-"
SHOWN_NAME = "<stdin>"
#: the spooled log's file name: the readers' one-line summaries show a file's base name
SPOOL_NAME = "stdin"
#: bytes copied per read while spooling: a bound on memory, not knowledge
CHUNK_BYTES = 1 << 20
#: how long a pipe may stay silent before traindx stops waiting for a complaint that nobody sends
#: (a harness that leaves standard input open): the user's words arrive at once or not at all
WAIT_SECONDS = 2.0


def _binary_stdin():
    return getattr(sys.stdin, "buffer", None) or sys.stdin


def _as_text(data) -> str:
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="replace")


class Spool:
    """``--log -``: standard input copied to a private file, removed by :meth:`close`."""

    def __init__(self):
        self.folder = None
        self.path = None

    def fill(self, max_bytes: int, stream=None) -> str:
        stream = stream if stream is not None else _binary_stdin()
        self.folder = tempfile.mkdtemp(prefix="traindx-stdin-")
        self.path = os.path.join(self.folder, SPOOL_NAME)
        total = 0
        with open(self.path, "wb") as out:
            while True:
                chunk = stream.read(CHUNK_BYTES)
                if not chunk:
                    break
                total += len(chunk)
                if total > max_bytes:
                    raise InputError(f"the log on standard input is longer than {max_bytes} bytes "
                                     "(limits.max_log_bytes)", SHOWN_NAME)
                out.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        if total == 0:
            raise InputError("no log on standard input (nothing was piped in)", SHOWN_NAME,
                             hint="pipe the run's output in, e.g. `cat run.out | traindx diagnose --log -`")
        return self.path

    def shown(self, err: InputError) -> InputError:
        """``err`` with the spooled file's path replaced by ``<stdin>``."""
        if self.path and err.path == self.path:
            err.path = SHOWN_NAME
        if self.path and self.path in err.message:
            err.message = err.message.replace(self.path, SHOWN_NAME)
        return err

    def close(self) -> None:
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = self.path = None


def read_text(max_bytes: int, stream=None) -> str:
    """``--complaint -``: everything on standard input, at most ``max_bytes``."""
    stream = stream if stream is not None else _binary_stdin()
    data = stream.read(max_bytes + 1)
    if data and len(data) > max_bytes:
        raise InputError(f"the complaint on standard input is longer than {max_bytes} bytes "
                         "(limits.max_file_bytes)", SHOWN_NAME,
                         hint="pass a long log with --log - (it is streamed)")
    return _as_text(data or "")


def waiting_text(max_bytes: int, wait: float = WAIT_SECONDS, stream=None) -> str:
    """A complaint piped in with nothing else given: the text on a non-terminal standard input that
    has something (or its end) to read within ``wait`` seconds, else ``""``."""
    stream = stream if stream is not None else sys.stdin
    try:
        if stream.isatty():
            return ""
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None                       # an in-memory stream (a test runner's input): read it
    if fd is not None and os.name != "nt":
        import select
        try:
            ready, _, _ = select.select([fd], [], [], wait)
        except (OSError, ValueError):
            return ""
        if not ready:
            return ""
    return read_text(max_bytes, getattr(stream, "buffer", None) or stream)
