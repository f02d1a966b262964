"""Run a user's training script (or a ``--setup`` factory) in a child process under instrumentation.

This is the *parent* half of ``traindx diagnose --script train.py -- ARGS``. The child half is
:mod:`traindx.probes.runner.child`; the two talk over a pipe of JSON lines (see that module for the
protocol). Nothing here imports torch: the parent stays light and a crash, a hang or an OOM in the
user's run can never take traindx down with it.

What the parent does:

* checks the script first (exists, is a Python file, compiles) -- a bad path or a ``SyntaxError``
  is an :class:`~traindx.engine.errors.InputError` naming the file (and line), before anything runs;
* starts ``python -m traindx.probes.runner.child`` in a new session (its own process group), with the
  script's stdout/stderr captured (their last lines end up in :class:`RunResult`) and stdin closed;
* reads findings batches as they arrive and, after each, asks ``decide(findings, steps)`` whether
  the evidence already decides -- if so it asks the child to stop at its next optimizer step;
* enforces ``timeout``: SIGTERM to the whole process tree, SIGKILL after a grace period; after the
  child exits, whatever it left behind (DataLoader workers, subprocesses) is terminated too;
* turns a crash into evidence: facts ``error_kind`` and ``error_message`` from source
  ``probe:crash`` (see :func:`classify_crash`).

POSIX only (process groups, ``pass_fds``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable, Sequence

from traindx.engine import bounded
from traindx.engine.errors import InputError
from traindx.engine.evidence import Finding

#: Bytes of an unterminated child output line kept (its tail): a bound on memory, not knowledge.
_MAX_PARTIAL_LINE = 65536

__all__ = ["RunResult", "run_script", "start_script", "StartedRun", "classify_crash", "crash_findings",
           "STOP_REASONS", "ERROR_KINDS"]

#: Why a run ended, as :attr:`RunResult.stopped_reason` says it.
STOP_REASONS = ("finished", "decided", "max_steps", "timeout", "crashed")
#: The values of the ``error_kind`` fact (``kb/facts.yaml``).
ERROR_KINDS = ("cuda_oom", "cuda_error", "dataloader_error", "shape_error", "dtype_error",
               "import_error", "other_error")
#: The evidence source of crash findings (``kb/sources.yaml``).
CRASH_SOURCE = "probe:crash"
#: The evidence source (``kb/sources.yaml``) this module implements, and its facts.
SOURCE_ID = CRASH_SOURCE
FACTS = ("error_kind", "error_message")

#: Seconds between SIGTERM and SIGKILL, and between a "stop" request and SIGTERM.
DEFAULT_GRACE_S = 3.0
#: Seconds a child that is stopping (making its last findings) gets before SIGTERM.
FINISH_GRACE_S = 60.0
#: Lines of the script's stdout/stderr kept for the report.
DEFAULT_TAIL_LINES = 40
#: Default monitor class the child instantiates.
DEFAULT_MONITOR = "traindx.probes.live.monitor:Monitor"


@dataclass
class RunResult:
    """What one instrumented run produced.

    ``findings`` holds the latest finding per fact (a fact reported again replaces the earlier
    value), crash findings included. ``steps`` counts optimizer steps of the first optimizer that
    stepped. ``stopped_reason`` is one of :data:`STOP_REASONS`. ``crash`` is ``None`` or a dict with
    ``error_kind``, ``message`` (the last traceback line), ``traceback``, ``exc_type``, ``file``,
    ``line``. ``stdout_tail``/``stderr_tail`` are the script's last output lines; ``printed`` is what it
    printed to stdout from the start, up to ``runner.printed_keep_bytes`` (the lines past it are
    left out, so a run that prints without end costs bounded memory). ``summary`` is the
    monitor's ``summary()`` at the end (``None`` if the child never got that far).
    ``probe_errors`` are faults of the instrumentation itself that the run survived.
    """

    findings: list[Finding]
    steps: int
    wall_s: float
    exit_code: int | None
    stopped_reason: str
    stdout_tail: str = ""
    stderr_tail: str = ""
    printed: str = ""
    crash: dict | None = None
    summary: dict | None = None
    probe_errors: list[str] = field(default_factory=list)
    phases: list[dict] = field(default_factory=list)

    def finding(self, fact: str) -> Finding | None:
        """The finding for ``fact``, or ``None``."""
        for f in self.findings:
            if f.fact == fact:
                return f
        return None


# --------------------------------------------------------------------------------------------
# crash classification (probe:crash)

def classify_crash(exc_types: Sequence[str], message: str,
                   frame_files: Iterable[str] = (), kinds=None) -> str:
    """The ``error_kind`` of a crash, one of :data:`ERROR_KINDS`.

    ``exc_types`` are the names of the exception's class and its bases (``["OutOfMemoryError",
    "RuntimeError", ...]``), ``message`` is ``str(exc)`` (all its lines), ``frame_files`` the file
    names in its traceback. ``kinds``: the (pattern, kind) pairs of ``console.error_kinds``, compiled
    (:func:`~traindx.probes.readers.words.compile_error_kinds`; ``None``: the shipped table), the
    one table a console log's printed crash is read by too. Only the class names, the message and
    the file names are read, never the source lines, so words in the user's code cannot sway it. An
    ImportError is an import error whatever it says; then the first pattern the message matches; a
    shape or type error (or none) raised while collating a batch is a DataLoader error; with no
    pattern matching, the class decides (an OutOfMemoryError, an accelerator error).
    """
    names = set(exc_types)
    if names & {"ImportError", "ModuleNotFoundError"}:
        return "import_error"
    if kinds is None:
        kinds = _shipped_error_kinds()
    kind = next((k for rx, k in kinds if rx.search(message)), None)
    collating = any("torch/utils/data/" in str(f).replace("\\", "/") for f in frame_files)
    if collating and kind in (None, "shape_error", "dtype_error"):
        return "dataloader_error"
    if kind is not None:
        return kind
    if "OutOfMemoryError" in names:
        return "cuda_oom"
    if names & {"AcceleratorError", "CudaError"}:
        return "cuda_error"
    return "other_error"


@functools.lru_cache(maxsize=1)
def _shipped_error_kinds():
    """``console.error_kinds`` as the knowledge base ships it, compiled once."""
    from traindx.engine.parameters import shipped
    from traindx.probes.readers.words import compile_error_kinds
    return compile_error_kinds(shipped()["console.error_kinds"])


def crash_findings(crash: dict) -> list[Finding]:
    """The crash as evidence: ``error_kind`` and ``error_message`` from ``probe:crash``."""
    kind = crash.get("error_kind") or "other_error"
    message = crash.get("message") or ""
    where = ""
    if crash.get("file"):
        where = f" at {crash['file']}" + (f":{crash['line']}" if crash.get("line") else "")
    exc = crash.get("exc_type") or "the run"
    extra = {k: crash[k] for k in ("file", "line", "exc_type") if crash.get(k) is not None}
    return [
        Finding("error_kind", kind, CRASH_SOURCE, detail=f"{exc} raised{where} instead of training"),
        Finding("error_message", message, CRASH_SOURCE, detail="the last line of the traceback",
                extra=extra),
    ]


# --------------------------------------------------------------------------------------------
# input checks

def check_script(path: str | os.PathLike) -> Path:
    """The script's resolved path, or :class:`InputError` if it is missing, not Python, or does
    not compile (``file:line:col: syntax error: ...``). Compiling only parses; nothing runs."""
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", path=str(path),
                         hint="pass the training script, e.g. --script train.py")
    if p.is_dir():
        raise InputError("is a directory, not a Python script", path=str(path))
    kind = bounded.file_kind(p)
    if kind != "file":   # a named pipe would be read here and again by the interpreter (or block)
        raise InputError(f"is a {'named pipe' if kind == 'pipe' else kind}, not a Python script file",
                         path=str(path), hint="pass the script itself, e.g. --script train.py")
    try:
        source = p.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", path=str(path)) from None
    first = source.split(b"\n", 1)[0]
    if p.suffix not in (".py", ".pyw") and not (first.startswith(b"#!") and b"python" in first):
        raise InputError("not a Python file (expected a .py script)", path=str(path))
    if b"\0" in source:
        raise InputError("not a Python file (binary content)", path=str(path))
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as e:
        raise _syntax_input_error(e.msg, e.filename or str(path), e.lineno, e.offset) from None
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"not a Python file ({e})", path=str(path)) from None
    except (RecursionError, MemoryError):
        raise InputError("expression nested too deeply for Python's parser", path=str(path)) from None
    return p.resolve()


def _syntax_input_error(msg, filename, lineno, offset) -> InputError:
    return InputError(f"syntax error: {msg}", path=filename, line=lineno, col=offset)


# --------------------------------------------------------------------------------------------
# running

def params_args(params) -> list[str]:
    """``--params JSON`` for the child: the values of ``params`` (a knowledge base's ``params()``)
    that differ from the shipped ones -- a pack's overrides -- or nothing."""
    if not params:
        return []
    from traindx.engine.parameters import shipped

    base = shipped()
    changed = {k: v for k, v in params.items() if base.get(k, object()) != v}
    return ["--params", json.dumps(changed, sort_keys=True)] if changed else []


def _script_child_args(path, args, max_steps, every, level, monitor, params=None,
                       experiments=False) -> list[str]:
    """The child's command line for a script (checked first: see :func:`check_script`)."""
    script = check_script(path)
    if max_steps is not None and max_steps < 0:
        raise InputError(f"--max-steps must be >= 0, got {max_steps}")
    child_args = ["--every", str(int(every)), "--level", level, "--monitor", monitor, *params_args(params)]
    if experiments:
        child_args.append("--experiments")
    if max_steps is not None:
        child_args += ["--max-steps", str(int(max_steps))]
    return child_args + ["--", str(script), *[str(a) for a in args]]


def run_script(path: str | os.PathLike, args: Sequence[str] = (), *, max_steps: int | None = None,
               timeout: float | None = None, decide: Callable[[list[Finding], int], bool] | None = None,
               env: dict | None = None, every: int = 10, grace: float = DEFAULT_GRACE_S,
               level: str = "cheap", monitor: str = DEFAULT_MONITOR,
               tail_lines: int = DEFAULT_TAIL_LINES, params=None,
               experiment: Callable | None = None) -> RunResult:
    """Run ``python path args...`` unmodified, under instrumentation, and return its evidence.

    The script runs as ``__main__`` with ``sys.argv = [path, *args]``, its own folder first on
    ``sys.path`` and the current directory unchanged -- as ``python path args...`` would.

    ``max_steps``: the child stops itself before optimizer step ``max_steps + 1`` (exactly
    ``max_steps`` steps run). ``timeout``: seconds of wall time, then the process tree is
    terminated (SIGTERM, SIGKILL after ``grace`` seconds). ``decide(findings, steps) -> bool`` is
    called with all findings so far (latest per fact) and the optimizer steps run so far after
    every batch the child sends (about every ``every`` optimizer steps); ``True`` stops the run at
    its next optimizer step.
    ``env``: extra environment variables for the script (added to ``os.environ``).
    ``level``: the monitor's cost level; ``monitor``: ``"module:Class"`` of the monitor the child
    instantiates (an extension point; tests pass a fake). ``params``: the knowledge base's
    parameter values (``KnowledgeBase.params()``); a pack's overrides reach the child's monitor.
    ``experiment(findings, steps, done) -> spec | None``: at the end of the run the child keeps
    recent batches and runs each experiment this returns on copies (``done``: the ids run so far);
    None ends it. Without it the child keeps no batches.

    Raises :class:`InputError` for a missing/non-Python path or a script (or a module it imports)
    with a syntax error. A script that crashes is *not* an error: the crash is in the result
    (``stopped_reason == "crashed"``, ``crash``, and the ``error_kind``/``error_message`` findings).
    """
    child_args = _script_child_args(path, args, max_steps, every, level, monitor, params, experiment is not None)
    return run_child(child_args, timeout=timeout, decide=decide, env=env, grace=grace,
                     tail_lines=tail_lines, experiment=experiment, printed_bytes=_printed_bytes(params))


def _printed_bytes(params) -> int:
    """How much of what a script prints is kept for the report (``runner.printed_keep_bytes``)."""
    from traindx.engine.parameters import resolve
    return int(resolve(params)["runner.printed_keep_bytes"])


class StartedRun:
    """A script already running under instrumentation (:func:`start_script`): call
    :meth:`finish` to supervise it to its end, or :meth:`abort` to take it down."""

    def __init__(self, session: _ChildSession):
        self._session = session
        self._done = False

    def finish(self, decide: Callable[[list[Finding], int], bool] | None = None,
               experiment: Callable | None = None) -> RunResult:
        self._done = True
        return self._session.supervise(decide, experiment)

    def abort(self) -> None:
        if not self._done:
            self._done = True
            self._session.abort()


def start_script(path: str | os.PathLike, args: Sequence[str] = (), *, max_steps: int | None = None,
                 timeout: float | None = None, env: dict | None = None, every: int = 10,
                 grace: float = DEFAULT_GRACE_S, level: str = "cheap", monitor: str = DEFAULT_MONITOR,
                 tail_lines: int = DEFAULT_TAIL_LINES, params=None, experiments: bool = False) -> StartedRun:
    """:func:`run_script` in two halves: the script is checked and started now (its interpreter
    and torch imports overlap with whatever the caller does next -- loading the knowledge base,
    reading the code), and supervised by :meth:`StartedRun.finish`. ``timeout`` counts from now.
    The caller must call ``finish`` or ``abort``."""
    child_args = _script_child_args(path, args, max_steps, every, level, monitor, params, experiments)
    session = _ChildSession(child_args, timeout=timeout, decide=None, env=env, grace=grace,
                            tail_lines=tail_lines, printed_bytes=_printed_bytes(params))
    session.spawn()
    return StartedRun(session)


def run_child(child_args: Sequence[str], *, timeout: float | None = None,
              decide: Callable[[list[Finding], int], bool] | None = None, env: dict | None = None,
              grace: float = DEFAULT_GRACE_S, tail_lines: int = DEFAULT_TAIL_LINES,
              experiment: Callable | None = None, printed_bytes: int = 0) -> RunResult:
    """Start ``python -m traindx.probes.runner.child CHILD_ARGS`` and supervise it (see
    :func:`run_script`). Shared by :func:`run_script` and :func:`traindx.probes.runner.setup_call.run_setup`.
    ``printed_bytes``: how much of the child's stdout :attr:`RunResult.printed` keeps (0: none)."""
    session = _ChildSession(child_args, timeout=timeout, decide=decide, env=env, grace=grace,
                            tail_lines=tail_lines, printed_bytes=printed_bytes)
    session.experiment = experiment
    return session.run()


class _ChildSession:
    POLL_S = 0.1
    SNAPSHOT_EVERY_S = 1.0

    def __init__(self, child_args, *, timeout, decide, env, grace, tail_lines, printed_bytes=0):
        self.child_args = list(child_args)
        self.printed: list[str] = []
        self.printed_left = printed_bytes
        self.timeout = timeout
        self.decide = decide
        self.experiment = None      # experiment(findings, steps, done) -> spec | None
        self.experiments_done: list[str] = []
        self.env = env
        self.grace = grace
        self.tails = {"out": deque(maxlen=tail_lines), "err": deque(maxlen=tail_lines)}
        self.partial = {"out": b"", "err": b"", "ev": b""}
        self.findings: dict[str, Finding] = {}
        self.steps = 0
        self.crash: dict | None = None
        self.exit_event: dict | None = None
        self.input_error: dict | None = None
        self.summary: dict | None = None
        self.probe_errors: list[str] = []
        self.phases: list[dict] = []            # training phases after the first (see _child)
        self.phase_step = 0                     # the optimizer step the current phase began at
        self.reason: str | None = None          # set when *we* stop the run: decided | timeout
        self.next_escalation: tuple[float, int] | None = None
        self.tree: dict[int, int] = {}          # pid -> start time, every descendant seen
        self.proc: subprocess.Popen | None = None
        self.started = False                    # the child reached the user's code

    # -- lifecycle ---------------------------------------------------------------------------
    def run(self) -> RunResult:
        self.spawn()
        return self.supervise()

    def spawn(self) -> None:
        """Start the child (its imports begin at once); :meth:`supervise` reads it."""
        ev_r, ev_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        cmd = [sys.executable, "-m", "traindx.probes.runner.child", "--events", str(ev_w),
               "--control", str(ctl_r), *self.child_args]
        child_env = dict(os.environ)
        if self.env:
            child_env.update({str(k): str(v) for k, v in self.env.items()})
        self.start = time.monotonic()
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, pass_fds=(ev_w, ctl_r),
                                         start_new_session=True, env=child_env)
        except BaseException:
            for fd in (ev_r, ctl_w):
                os.close(fd)
            raise
        finally:
            os.close(ev_w)
            os.close(ctl_r)
        self.ctl_w = ctl_w
        self.ev_r = ev_r
        self.end = None

    def supervise(self, decide=None, experiment=None) -> RunResult:
        """Read the child to its end (stopping it when ``decide`` says so, at the timeout, or on
        any exception here, KeyboardInterrupt included), clean up its process tree, and return the
        result. ``decide`` replaces the one given at construction when not None."""
        if decide is not None:
            self.decide = decide
        if experiment is not None:
            self.experiment = experiment
        try:
            self._supervise()
        finally:
            self._cleanup()
        return self._result()

    def abort(self) -> None:
        """Stop a spawned child that will not be supervised: its whole process tree goes."""
        if self.proc is not None and self.end is None:
            self.reason = self.reason or "aborted"
            self._cleanup()

    def _supervise(self) -> None:
        proc = self.proc
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ, "out")
        sel.register(proc.stderr, selectors.EVENT_READ, "err")
        sel.register(self.ev_r, selectors.EVENT_READ, "ev")
        self.sel = sel
        last_snapshot = 0.0
        while True:
            now = time.monotonic()
            if self._child_exited():
                self.end = now
                break
            if now - last_snapshot >= self.SNAPSHOT_EVERY_S:
                self._remember_tree()
                last_snapshot = now
            if self.timeout is not None and self.reason is None and now - self.start >= self.timeout:
                self.reason = "timeout"
                self._signal_tree(signal.SIGTERM)
                self.next_escalation = (now + self.grace, signal.SIGKILL)
            if self.next_escalation and now >= self.next_escalation[0]:
                sig = self.next_escalation[1]
                self._signal_tree(sig)
                self.next_escalation = ((now + self.grace, signal.SIGKILL)
                                        if sig == signal.SIGTERM else None)
            wait = self.POLL_S
            if self.timeout is not None and self.reason is None:
                wait = max(0.0, min(wait, self.start + self.timeout - now))
            self._pump(wait)
        # The child is gone (not yet reaped): collect what is still in the pipes.
        deadline = time.monotonic() + 1.0
        while self.sel.get_map() and time.monotonic() < deadline:
            if not self._pump(0.05):
                break

    def _pump(self, wait: float) -> bool:
        """Read whatever is ready within ``wait`` seconds; False if nothing was."""
        if not self.sel.get_map():
            time.sleep(wait)
            return False
        ready = self.sel.select(wait)
        for key, _ in ready:
            try:
                data = os.read(key.fd, 65536)
            except OSError:
                data = b""
            if not data:
                self.sel.unregister(key.fileobj)
                self._feed(key.data, b"", eof=True)
            else:
                self._feed(key.data, data)
        return bool(ready)

    def _child_exited(self) -> bool:
        # WNOWAIT: see the exit without reaping, so the process-group id stays reserved until
        # the stragglers are dealt with in _cleanup.
        if hasattr(os, "waitid"):
            try:
                return os.waitid(os.P_PID, self.proc.pid,
                                 os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:
                return True
        return self.proc.poll() is not None

    def _cleanup(self) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            if not self._child_exited():
                # We are leaving early (decide raised, KeyboardInterrupt, ...): take it all down.
                self._remember_tree()
                self._signal_tree(signal.SIGTERM)
                if not _wait_exit(self, self.grace):
                    self._signal_tree(signal.SIGKILL)
            if self.end is None:
                self.end = time.monotonic()
            # Whatever the script left running in its group or below it.
            self._remember_tree()
            if self._survivors():
                self._signal_tree(signal.SIGTERM)
                deadline = time.monotonic() + min(self.grace, 1.0)
                while self._survivors() and time.monotonic() < deadline:
                    time.sleep(0.02)
                if self._survivors():
                    self._signal_tree(signal.SIGKILL)
        finally:
            try:
                proc.wait(timeout=max(self.grace, 1.0))
            except subprocess.TimeoutExpired:  # pragma: no cover - leader ignored SIGKILL?
                proc.kill()
                proc.wait()
            for f in (proc.stdout, proc.stderr):
                if f is not None:
                    f.close()
            for fd in (self.ev_r, self.ctl_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
            if hasattr(self, "sel"):
                self.sel.close()

    # -- process tree ------------------------------------------------------------------------
    def _remember_tree(self) -> None:
        table = _proc_table()
        if not table:
            return
        pgid = self.proc.pid
        children: dict[int, list[int]] = {}
        for pid, (ppid, pg, start, _state) in table.items():
            children.setdefault(ppid, []).append(pid)
            if pg == pgid and pid != pgid:
                self.tree.setdefault(pid, start)
        stack = [self.proc.pid]
        while stack:
            for c in children.get(stack.pop(), ()):
                if c not in self.tree:
                    self.tree[c] = table[c][2]
                    stack.append(c)

    def _remember_descendants(self, items) -> None:
        """What the script left running, as the child saw it just before exiting ([pid, start])."""
        for item in items or ():
            try:
                self.tree.setdefault(int(item[0]), int(item[1]))
            except (TypeError, ValueError, IndexError):
                continue

    def _survivors(self) -> list[int]:
        table = _proc_table()
        if not table:
            return []
        alive = [pid for pid, start in self.tree.items()
                 if pid in table and table[pid][2] == start and table[pid][3] not in "ZX"]
        alive += [pid for pid, (_, pg, _, state) in table.items()
                  if pg == self.proc.pid and pid != self.proc.pid and state not in "ZX"
                  and pid not in alive]
        return alive

    def _signal_tree(self, sig: int) -> None:
        """``sig`` to the child's process group and to every descendant seen (some may have left
        the group with setsid)."""
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        table = _proc_table()
        for pid, start in list(self.tree.items()):
            if pid in table and table[pid][2] == start:
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass

    def _answer(self, line: bytes) -> None:
        try:
            os.write(self.ctl_w, line)
        except OSError:
            pass

    def _answer_await(self) -> None:
        """The run is over and the child waits: ask for the next experiment on copies, or say done."""
        spec = None
        if self.experiment is not None and self.reason is None:
            try:
                spec = self.experiment(list(self.findings.values()), self.steps, list(self.experiments_done))
            except Exception as e:   # noqa: BLE001 - never leave the child waiting
                self.probe_errors.append(f"experiment choice: {type(e).__name__}: {e}"[:200])
                spec = None
        if spec is not None:
            self.experiments_done.append(spec["id"])
        line = ("experiment " + json.dumps(spec) if spec is not None else "done") + "\n"
        self._answer(line.encode("utf-8"))

    def _stop_request(self) -> None:
        self._answer(b"stop decided\n")
        # If it does not reach another optimizer step in time: SIGTERM, then SIGKILL.
        self.next_escalation = (time.monotonic() + self.grace, signal.SIGTERM)

    # -- events and output -------------------------------------------------------------------
    def _feed(self, tag: str, data: bytes, eof: bool = False) -> None:
        buf = self.partial[tag] + data
        if tag == "ev":
            lines = buf.split(b"\n")
            self.partial[tag] = b"" if eof else lines.pop()
            for line in lines:
                if line.strip():
                    self._event(line)
            return
        lines = re.split(rb"\r\n|\n|\r", buf)
        rest = b"" if eof else lines.pop()
        if len(rest) > _MAX_PARTIAL_LINE:  # a line without end: keep its tail
            rest = rest[-_MAX_PARTIAL_LINE:]
        self.partial[tag] = rest
        for line in lines:
            if line.strip():
                self.tails[tag].append(line.decode("utf-8", "replace"))
        if tag == "out":
            self._keep_printed(lines)

    def _keep_printed(self, lines: list[bytes]) -> None:
        """The stdout lines, from the start, while ``printed_left`` bytes remain."""
        for line in lines:
            if len(line) >= self.printed_left:
                self.printed_left = 0
                return
            self.printed_left -= len(line) + 1
            self.printed.append(line.decode("utf-8", "replace"))

    def _event(self, line: bytes) -> None:
        try:
            ev = json.loads(line)
        except ValueError:
            self.probe_errors.append(f"unreadable event from the child: {line[:200]!r}")
            return
        kind = ev.get("type")
        if kind == "findings":
            if ev.get("complete"):
                # every fact the monitor holds now: one it no longer reports was overtaken by the
                # run (an LR-decay answer the run's own decay made moot) and is withdrawn, so the
                # verdict rests on the latest look, not on whichever look saw it last
                self.findings = {}
            for d in ev.get("findings", ()):
                try:
                    f = Finding(fact=d["fact"], value=d.get("value"), source=d.get("source", "probe"),
                                detail=d.get("detail"), extra=d.get("extra") or {})
                except (KeyError, TypeError):
                    continue
                self.findings.pop(f.fact, None)
                self.findings[f.fact] = f
            self.steps = max(self.steps, int(ev.get("step") or 0))
            # a costly probe the child has started (LR-decay test, overfit one batch) reports at a
            # later look: stopping now would lose it (max_steps and the timeout still apply)
            stop = False
            if self.decide is not None and self.reason is None and not ev.get("pending"):
                # the steps of the phase being read: a new phase's curve starts afresh, and its shape
                # needs as many steps of its own as the first phase's did
                if self.decide(list(self.findings.values()), self.steps - self.phase_step):
                    self.reason = "decided"
                    stop = True
            if stop:
                self._stop_request()
            elif ev.get("reply"):
                # the child waits for the answer at each look: the run stops (or goes on) at
                # the step the look was taken, however busy the machine is
                self._answer(b"go\n")
            if ev.get("await"):
                # the run is over and the child waits: an experiment on copies, or done
                self._answer_await()
        elif kind == "stopping":
            # the child reached the end of the run and is making its last findings: a stop
            # request's short grace no longer applies (a hang here still ends, later)
            if self.next_escalation is not None and self.next_escalation[1] == signal.SIGTERM:
                self.next_escalation = (time.monotonic() + max(self.grace, FINISH_GRACE_S), signal.SIGTERM)
        elif kind == "crash":
            self.crash = {k: v for k, v in ev.items() if k != "type"}
        elif kind == "exit":
            self.exit_event = ev
            self._remember_descendants(ev.get("descendants"))
            self.steps = max(self.steps, int(ev.get("steps") or 0))
            if isinstance(ev.get("summary"), dict):
                self.summary = ev["summary"]
        elif kind == "probe_error":
            self.probe_errors.append(str(ev.get("message")))
        elif kind == "input_error":
            self.input_error = ev
        elif kind == "start":
            self.started = True
        elif kind == "phase":
            # a new training phase: what the earlier one measured no longer describes the run
            self.findings = {}
            self.phase_step = int(ev.get("step") or 0)
            self.phases.append({"phase": int(ev.get("phase") or 0), "step": int(ev.get("step") or 0),
                                "previous_steps": int(ev.get("previous_steps") or 0)})

    # -- result ------------------------------------------------------------------------------
    def _result(self) -> RunResult:
        for tag in ("out", "err"):
            if self.partial[tag].strip():
                self.tails[tag].append(self.partial[tag].decode("utf-8", "replace"))
                if tag == "out":
                    self._keep_printed([self.partial[tag]])
                self.partial[tag] = b""
        if not self.started and self.proc.returncode != 0 and self.reason is None:
            # The child failed before it ran any user code: a fault of traindx, not evidence.
            raise RuntimeError("traindx's child process failed before the script started "
                               f"(exit {self.proc.returncode}):\n" + "\n".join(self.tails["err"]))
        if self.input_error is not None:
            ie = self.input_error
            raise InputError(ie.get("message") or "bad input", path=ie.get("path"),
                             line=ie.get("line"), col=ie.get("col"), hint=ie.get("hint"))
        if self.crash and self.crash.get("syntax") and self.reason is None:
            s = self.crash["syntax"]
            raise _syntax_input_error(s.get("msg"), s.get("file"), s.get("line"), s.get("col"))
        code = self.proc.returncode
        crash = self.crash
        child_reason = (self.exit_event or {}).get("reason")
        if self.reason is not None:
            reason = self.reason
            crash = None if self.reason == "timeout" and child_reason != "crashed" else crash
        elif child_reason == "max_steps":
            reason = "max_steps"
        elif crash is not None:
            reason = "crashed"
        elif code not in (0, None):
            reason = "crashed"
            crash = self._crash_without_traceback(code)
        else:
            reason = "finished"
        findings = list(self.findings.values())
        if crash is not None:
            crash.setdefault("error_kind", "other_error")
            facts = crash_findings(crash)
            findings = [f for f in findings if f.fact not in {c.fact for c in facts}] + facts
        return RunResult(findings=findings, steps=self.steps,
                         wall_s=round((self.end or time.monotonic()) - self.start, 3),
                         exit_code=code, stopped_reason=reason,
                         stdout_tail="\n".join(self.tails["out"]),
                         stderr_tail="\n".join(self.tails["err"]), crash=crash, printed="\n".join(self.printed),
                         summary=self.summary, probe_errors=self.probe_errors, phases=self.phases)

    def _crash_without_traceback(self, code: int) -> dict:
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            message = f"the script was killed by {name}"
            if -code == signal.SIGKILL:
                message += " (possibly out of host memory)"
        else:
            last = self.tails["err"][-1].strip() if self.tails["err"] else ""
            message = f"the script exited with status {code}" + (f" ({last[:300]})" if last else "")
        # no traceback to read: the last stderr line may be anything (a usage message, a
        # progress bar), so it is quoted but not classified
        return {"error_kind": "other_error", "message": message,
                "traceback": None, "exc_type": None, "exit_code": code}


def _wait_exit(session: _ChildSession, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if session._child_exited():
            return True
        time.sleep(0.02)
    return session._child_exited()


def _proc_table() -> dict[int, tuple[int, int, int, str]]:
    """pid -> (ppid, pgid, start time, state) from /proc; {} where there is no /proc."""
    table = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat[stat.rfind(b")") + 2:].split()
        try:
            table[int(name)] = (int(rest[1]), int(rest[2]), int(rest[19]), rest[0].decode())
        except (IndexError, ValueError):
            continue
    return table
