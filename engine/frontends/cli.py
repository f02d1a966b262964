"""The ``traindx`` command line (CONTRACT.md section 5).

``traindx diagnose`` gathers evidence (``--code``, ``--config``, ``--log``, ``--script``, ``--setup``),
then asks only the questions that still separate the leading hypotheses — interactively on a
terminal, or not at all with ``--non-interactive`` — and writes the report. Exit status: 0 for a
finished diagnosis whatever its outcome, 2 for a usage error or bad input (one line naming the file
and line), anything else only for a fault of traindx itself.

Nothing here imports torch; the probes that need it are imported only for ``--script``/``--setup``.
"""

from __future__ import annotations

import json
import logging
import os
import sys

import click

from .. import __version__
from ..errors import InputError

SESSION_FILE = ".traindx-session.json"
DEFAULT_REPORT = "traindx-report.md"


class Styler:
    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __call__(self, text, **kw):
        return click.style(text, **kw) if self.enabled else text


def _color_default() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _fail(err: InputError):
    click.echo(f"traindx: {err}", err=True)
    sys.exit(2)


def _load(kb_dirs):
    from ..loader import load_kb
    return load_kb(list(kb_dirs))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="traindx")
@click.option("--debug", is_flag=True, help="Log every rule firing (FIRE rule-id: facts) to stderr.")
def main(debug):
    """traindx — diagnose neural-network training problems from evidence.

    Symptom first; then evidence from your answers, your code, configs, loss curves and live
    torch probes; then a root cause with a calibrated confidence, and the fix.
    """
    if debug:
        logging.basicConfig(level=logging.DEBUG, format="%(name)s %(message)s", stream=sys.stderr)


# ---------------------------------------------------------------------------------- diagnose
#: options of the current `diagnose` call that reach deep into gathering and reporting
OPTIONS = {"experiments": True, "patch": None}

@main.command(context_settings={"ignore_unknown_options": False})
@click.option("--script", "script", type=click.Path(),
              help="Run this training script under instrumentation (and read its code).")
@click.option("--log", "logs", multiple=True, type=click.Path(),
              help="What the run left behind: console output (tee, nohup.out, SLURM .out), CSV, JSON "
                   "lines, a TensorBoard event file/folder, an MLflow run store or a W&B offline run.")
@click.option("--code", "codes", multiple=True, type=click.Path(), help="Training code to read (never executed).")
@click.option("--config", "configs", multiple=True, type=click.Path(), help="A config file (YAML, JSON, TOML).")
@click.option("--setup", "setup", help="MODULE:FUNCTION returning model, optimizer, loss and loaders.")
@click.option("--complaint", help="What is wrong, in your own words.")
@click.option("--answers", type=click.Path(), help="YAML/JSON file: fact names or question ids -> values.")
@click.option("--non-interactive", is_flag=True, help="Never prompt: unanswered questions become Information Gaps.")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown", show_default=True)
@click.option("--output", "-o", type=click.Path(),
              help="Write the report here (default: stdout; interactive: traindx-report.md).")
@click.option("--max-steps", type=int, default=None, help="Stop the script after this many optimizer steps.")
@click.option("--timeout", type=float, default=None, help="Stop the script after this many seconds.")
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge (repeatable).")
@click.option("--column-map", help="Log columns to recognise, e.g. 'loss=my_loss,val_loss=vloss'.")
@click.option("--plot", type=click.Path(), help="Write a PNG of the loss curves with the symptom region marked.")
@click.option("--resume", is_flag=True, help=f"Continue the session saved in {SESSION_FILE}.")
@click.option("--color/--no-color", default=None,
              help="Colour the terminal output (default: on a terminal without NO_COLOR).")
@click.option("--no-experiments", is_flag=True,
              help="Never run experiments on copies of the model (differential diagnosis).")
@click.option("--patch", "patch_out", type=click.Path(),
              help="Write the fix as a unified diff against the script here (your files are never edited).")
@click.argument("script_args", nargs=-1, type=click.UNPROCESSED)
def diagnose(script, logs, codes, configs, setup, complaint, answers, non_interactive, fmt, output, max_steps,
             timeout, kb_dirs, column_map, plot, resume, color, no_experiments, patch_out, script_args):
    """Diagnose a training problem. Arguments after `--` go to the --script."""
    OPTIONS.update(experiments=not no_experiments, patch=patch_out)
    try:
        _diagnose(script, logs, codes, configs, setup, complaint, answers, non_interactive, fmt, output, max_steps,
                  timeout, kb_dirs, column_map, plot, resume, color, script_args)
    except InputError as err:
        _fail(err)


def _diagnose(script, logs, codes, configs, setup, complaint, answers, non_interactive, fmt, output, max_steps,
              timeout, kb_dirs, column_map, plot, resume, color, script_args):
    started = None
    kb = None
    _check_targets({"--output": output, "--plot": plot, "--patch": OPTIONS.get("patch")})
    if script:
        # start the script now: its interpreter and torch imports overlap with loading the
        # knowledge base and reading the code; it is supervised (and may be stopped) later --
        # unless knowledge packs may override parameters the child's probes decide with: then the
        # knowledge base is loaded first and its parameters go to the child
        if not os.path.exists(script):
            from ..bounded import missing
            raise InputError(missing(script, "script"), script)
        _need_torch("--script")
        from traindx.probes.runner.supervise import start_script
        params = None
        if kb_dirs or _installed_packs():
            kb = _load(kb_dirs)
            params = kb.params()
        started = start_script(script, list(script_args), max_steps=max_steps, timeout=timeout, params=params,
                               experiments=OPTIONS["experiments"])
    try:
        _diagnose_with(started, script, logs, codes, configs, setup, complaint, answers, non_interactive, fmt,
                       output, max_steps, timeout, kb_dirs, column_map, plot, resume, color, script_args, kb)
    finally:
        if started is not None:
            started.abort()          # a no-op once it was supervised to its end


def _check_targets(targets: dict) -> None:
    """The files the report, plot and patch go to, checked before anything runs or is read: a
    minutes-long --script run is not lost to an --output that names a folder."""
    for opt, path in targets.items():
        if not path:
            continue
        if os.path.isdir(path):
            raise InputError(f"{opt} names a folder; give the file to write", path,
                             hint=f"e.g. {opt} {os.path.join(path, _TARGET_EXAMPLES[opt])}")
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise InputError(f"{opt}: the folder {folder} does not exist", path)
        if opt == "--plot" and os.path.splitext(path)[1]:
            from matplotlib.backend_bases import FigureCanvasBase
            kinds = FigureCanvasBase.get_supported_filetypes()
            if os.path.splitext(path)[1][1:].lower() not in kinds:
                raise InputError(f"--plot: matplotlib cannot write a {os.path.splitext(path)[1]!r} file "
                                 f"(it writes {', '.join(sorted(kinds)[:8])}, ...)", path,
                                 hint="e.g. --plot curves.png")


#: a file name to suggest for each output option given a folder
_TARGET_EXAMPLES = {"--output": "report.md", "--plot": "curves.png", "--patch": "fix.diff"}


def _installed_packs() -> bool:
    from ..loader import discover_packs
    return bool(discover_packs())


def _diagnose_with(started, script, logs, codes, configs, setup, complaint, answers, non_interactive, fmt,
                   output, max_steps, timeout, kb_dirs, column_map, plot, resume, color, script_args, kb=None):
    """``diagnose``: open (or resume) a session, gather every evidence given, interview when at a
    terminal, then write the report."""
    kb = kb if kb is not None else _load(kb_dirs)
    interactive = not non_interactive and sys.stdin.isatty()
    st = Styler(_color_default() if color is None else color)
    if script_args and not script:
        raise InputError("arguments after -- are for --script, but no --script was given")
    if (complaint == "-") + list(logs).count("-") > 1:
        raise InputError("standard input (-) can be read once: give `-` to one of --complaint and --log")
    available = set()
    if script or setup:
        available |= {s for s in kb.sources if s.startswith("probe:")}
    session, done = _open_session(kb, resume, available)
    gather = Gatherer(session, st, quiet=not interactive)
    complaint = _piped_complaint(complaint, kb, not (script or logs or codes or configs or setup or answers
                                                     or resume))
    analysis = _gather_evidence(gather, session, kb, script, logs, codes, configs, setup, complaint, answers,
                                max_steps, timeout, column_map, script_args, started)
    if interactive:
        with StopSignals() as stop:
            interview = Interview(session, st, gather, stop, done=done)
            try:
                interview.run()
            except (KeyboardInterrupt, EOFError, click.exceptions.Abort):
                _save_session(session, interview.done)
                sys.exit(0)
    report = session.report()
    _add_patch(report, session, [script] if script else list(codes), OPTIONS["patch"])
    _add_plot(report, analysis, plot)
    _emit_report(report, session, st, fmt, output, interactive, resume)


def _open_session(kb, resume, available):
    """A new session, or the saved one (``--resume``), with the interview's steps already done there
    (the read-back confirmed, the script offer answered); a damaged save is one line."""
    from ..api import Session
    if not resume:
        return Session(kb, available_sources=available), set()
    from .. import bounded
    if not os.path.exists(SESSION_FILE):
        raise InputError("no saved session to resume", SESSION_FILE)
    lim = bounded.limits(kb.params())
    state = bounded.loads_json(bounded.read_text(SESSION_FILE, lim.max_file_bytes, "saved session"),
                               SESSION_FILE, lim, prefix="saved session is damaged")
    try:
        done = {str(step) for step in state.get("interview", [])}
        return Session.from_state(kb, state, available_sources=available), done
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"saved session is damaged ({type(exc).__name__}: {exc})", SESSION_FILE,
                         hint="start again without --resume") from None


def _piped_complaint(complaint, kb, nothing_else: bool):
    """``--complaint -`` reads the complaint from standard input; with no evidence given at all, a
    complaint piped in (``tail -n 200 nohup.out | traindx diagnose``) is read the same way."""
    from ..bounded import limits
    if complaint == "-":
        from .piped import read_text
        return read_text(limits(kb.params()).max_file_bytes)
    if complaint or not nothing_else or sys.stdin.isatty():
        return complaint
    from .piped import SHOWN_NAME, waiting_text
    text = waiting_text(limits(kb.params()).max_file_bytes)
    if text.strip():
        click.echo(f"Read the complaint from {SHOWN_NAME} ({len(text.splitlines())} lines).", err=True)
        return text
    return complaint


def _gather_evidence(gather, session, kb, script, logs, codes, configs, setup, complaint, answers,
                     max_steps, timeout, column_map, script_args, started):
    """Every evidence given, in order: complaint, answers, configs, code, logs, then the runs.
    Returns the last curve analysis read (for ``--plot``), or None."""
    analysis = None
    if complaint:
        analysis = gather.complaint(complaint)
    if answers:
        from ..values import parse_answer_file
        data, marks = parse_answer_file(answers, kb.params())
        session.add_answers(data, marks=marks, path=answers)
    for path in configs:
        gather.config(path)
    for path in codes:
        gather.code(path)
    others = bool(complaint or answers or configs or codes or script or setup)
    for path in logs:
        analysis = gather.log(path, column_map, others) or analysis
    if script:
        gather.code(script, for_script=True)
    if setup:
        gather.setup(setup, max_steps=max_steps, timeout=timeout)
    if script:
        gather.script(script, script_args, max_steps=max_steps, timeout=timeout, started=started)
    return analysis


def _add_plot(report, analysis, plot):
    """``--plot``: the curves drawn to a file, or a caveat when no log was read."""
    if plot and analysis is not None:
        try:
            from traindx.probes.readers.plot import plot_curves
            plot_curves(analysis, plot)
            report["plot"] = plot
        except ImportError:
            raise InputError("--plot needs matplotlib", hint="pip install 'traindx[plot]'") from None
        except (OSError, ValueError) as exc:   # the diagnosis stands without its picture
            report["caveats"].append(f"--plot {plot}: the plot could not be written "
                                     f"({getattr(exc, 'strerror', None) or exc}).")
    elif plot:
        report["caveats"].append("--plot was given but no --log was read, so there is no curve to draw.")


def _emit_report(report, session, st, fmt, output, interactive, resume):
    """The report as JSON or Markdown: on stdout, or to ``--output`` (at a terminal: a summary and
    the default report file, and a finished resumed session's save removed)."""
    text = json.dumps(report, indent=2, default=str) if fmt == "json" else _md(report)
    if interactive:
        Interview.summary(session, report, st)
        target = output or DEFAULT_REPORT
        _write(target, text)
        click.echo(f"\nReport written to {target}" + ("" if fmt == "json" else " (also: --format json)"))
        if os.path.exists(SESSION_FILE) and resume:
            os.remove(SESSION_FILE)
    elif output:
        try:
            _write(output, text)
        except InputError as err:   # the report is not lost: it goes to stdout, the error to stderr
            click.echo(text)
            err.message += "; the report was printed to standard output instead"
            raise
    else:
        click.echo(text)


def _add_patch(report, session, scripts, out_path):
    """The fix as a unified diff against the user's script (``report["patch"]``) where the code
    reader located the fault; written to ``out_path`` (``--patch``). The user's files are never
    edited."""
    report["patch"] = None
    top = report["root_causes"][0]["id"] if report["status"] == "diagnosed" and report["root_causes"] else None
    if top is not None:
        from . import gather
        facts = {name: (f.value, f.source) for name, f in session.facts.items()}
        p = gather.fix_patch(scripts, facts, top, session.kb)
        if p is not None:
            report["patch"] = {**p, "written_to": None, "apply": f"patch -p0 < {out_path or 'fix.diff'}"}
    if out_path:
        if report["patch"] is None:
            report["caveats"].append(f"--patch {out_path}: no patch was written — the code reader did not locate "
                                     "the fault in the script, or no patch template fits the diagnosis.")
        else:
            try:
                _write(out_path, report["patch"]["diff"], "the patch")
                report["patch"]["written_to"] = out_path
            except InputError as err:   # the report (which holds the diff) is still written
                report["caveats"].append(f"--patch {out_path}: {err.message}; the diff is in this report.")


class StopSignals:
    """Ctrl-C (SIGINT), a closed terminal (SIGHUP) and SIGTERM during the interview.

    At a prompt (or while a script the user offered runs) a signal stops the session at once. Between
    prompts — while an answer is applied and the next question chosen — it is held until that step
    is done and raised at the next prompt, so wherever it lands the saved session is whole: the
    answer just given is in it, and ``--resume`` continues from the next question.
    """

    NAMES = ("SIGINT", "SIGHUP", "SIGTERM")

    def __init__(self):
        self.pending = None
        self.depth = 0          # > 0: inside a prompt, where a signal acts at once
        self._old = {}

    def __enter__(self):
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            for name in self.NAMES:
                sig = getattr(signal, name, None)
                if sig is not None:
                    self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        import signal
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()

    def _handle(self, signum, frame):
        self.pending = signum
        if self.depth:
            raise KeyboardInterrupt

    def check(self):
        """Raise KeyboardInterrupt if a signal arrived since the last prompt."""
        if self.pending is not None:
            raise KeyboardInterrupt

    def __call__(self):
        """``with stop():`` — a block (a prompt, a script run) that a signal interrupts at once."""
        return _AtOnce(self)


class _AtOnce:
    def __init__(self, stop):
        self.stop = stop

    def __enter__(self):
        self.stop.check()
        self.stop.depth += 1

    def __exit__(self, *exc):
        self.stop.depth -= 1
        return False


def read_answer(prompt: str) -> str:
    """Print ``prompt`` and read one line from the terminal; EOFError at end of input.

    ``input()`` writes its prompt and blocks in C: a signal that arrives in between is only acted on
    after the next line is typed, so a Ctrl-C right after the prompt appeared did nothing. Here the
    wait is a ``select`` that returns to Python every 0.2 s, so a signal is acted on wherever it
    lands. (A terminal in canonical mode hands over one line per read, so nothing is buffered
    behind ``select``'s back.)
    """
    if os.name == "nt" or not sys.stdin.isatty():   # pragma: no cover - no select() on a Windows console
        return click.prompt(prompt[:-3], default="", show_default=False, prompt_suffix="\n> ")
    import select
    click.echo(prompt, nl=False)
    fd = sys.stdin.fileno()
    while not select.select([fd], [], [], 0.2)[0]:
        pass
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\r\n")


def _save_session(session, done=()):
    """Save the interview for ``--resume`` (atomically: a second signal cannot leave half a file), with
    the interview's steps ``done`` so that a resumed one does not ask them again."""
    tmp = SESSION_FILE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({**session.to_state(), "interview": sorted(done)}, fh, indent=1)
    os.replace(tmp, SESSION_FILE)
    try:   # the terminal may be gone (SIGHUP): the file is what matters
        click.echo("")
        click.echo(f"Stopped. Your answers are saved in {SESSION_FILE}; continue with: traindx diagnose --resume")
    except OSError:
        pass


def _md(report):
    from ..markdown import render_markdown
    return render_markdown(report)


def _write(path, text, what="the report"):
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        raise InputError(f"cannot write {what}: {exc.strerror}", path) from None


class Gatherer:
    """Runs the evidence sources and feeds their findings to the session."""

    def __init__(self, session, st, quiet=True):
        self.session = session
        self.st = st
        self.quiet = quiet
        self.ran_script = False

    def say(self, text):
        if not self.quiet:
            click.echo(self.st(f"  {text}", fg="cyan"))

    def _need_file(self, path, what):
        if not os.path.exists(path):
            from ..bounded import missing
            raise InputError(missing(path, what), path)

    def _take(self, read):
        """Add one artifact's evidence (see gather.py) and say what was read."""
        from . import gather
        if gather.absorb(self.session, read) and read.summary:
            self.announce(read.summary)

    def announce(self, text):
        """What was read, before anything else: on the terminal in an interview, else on stderr
        (stdout carries the report)."""
        if not self.quiet:
            click.echo(self.st(text, fg="cyan"))
        else:
            click.echo(text, err=True)

    def code(self, path, for_script=False):
        self._need_file(path, "script" if for_script else "code file")
        from . import gather
        for read in gather.read_code(path, self.session.kb.params()):
            self._take(read)

    def config(self, path):
        self._need_file(path, "config file")
        from . import gather
        self._take(gather.read_config(path, self.session.kb.params()))

    def log(self, path, column_map=None, other_evidence=False):
        if path == "-":
            return self._piped_log(column_map, other_evidence)
        self._need_file(path, "log")
        from . import gather
        read = gather.read_log(path, column_map=column_map, num_classes=self.session.value("num_classes"),
                               params=self.session.kb.params(),
                               rl_known=self.session.value("rl_training") is True, other_evidence=other_evidence)
        self._take(read)
        return read.analysis

    def _piped_log(self, column_map=None, other_evidence=False):
        """``--log -``: standard input spooled to a private file, read like a named log; what is
        said about it names ``<stdin>``, and the file is gone on every exit path."""
        from ..bounded import limits
        from .piped import Spool
        spool = Spool()
        try:
            return self.log(spool.fill(limits(self.session.kb.params()).max_log_bytes), column_map, other_evidence)
        except InputError as err:
            raise spool.shown(err) from None
        finally:
            spool.close()

    def complaint(self, text):
        """The user's words; a log excerpt pasted with them is read like a console log."""
        from . import gather
        prose, pasted = gather.split_paste(text, self.session.kb.params())
        if prose.strip():
            self.session.add_complaint(prose)
        elif pasted is not None:
            self.session.add("complaint", text.strip().splitlines()[0][:200], "user")
        if pasted is not None:
            gather.settings_from_paste(self.session, pasted)
            try:
                read = gather.read_pasted(pasted, num_classes=self.session.value("num_classes"),
                                          params=self.session.kb.params())
            except InputError as err:
                self.session.notes.append(f"the pasted log could not be read: {err.message}")
                return None
            self._take(read)
            return read.analysis
        return None

    def _decider(self):
        """``decide(findings, steps)`` for the script runner: True once the evidence names a
        symptom and decides the diagnosis, and the symptom reads the same at two looks in a row
        (a curve's shape changes as it grows). A curve's shape (flat, plateau, oscillating, ...)
        needs ``runner.min_curve_steps`` optimizer steps before it can stop the run; a NaN/Inf loss
        (Explosion) decides at once, since nothing after it is informative."""
        kb = self.session.kb
        base = self.session
        last = [None]
        min_steps = kb.params()["runner.min_curve_steps"]

        def decide(findings, steps) -> bool:
            from ..api import Session
            trial = Session(kb)
            trial.base = dict(base.base)
            trial.add_findings(findings)
            symptom = trial.symptom()
            if symptom is None or not trial.decided():
                last[0] = None
                return False
            if symptom == "explosion" and trial.value("loss_has_nonfinite") is True:
                return True
            stable, last[0] = last[0] == symptom, symptom
            return stable and steps >= min_steps
        return decide

    def _experiment_picker(self):
        """``experiment(findings, steps, done)`` for the script runner: at the end of the run, the
        experiment the engine would run next on copies (``traindx.engine.differential``), or None."""
        kb = self.session.kb
        base = self.session

        def experiment(findings, steps, done):
            from ..api import Session
            from ..differential import next_experiment
            trial = Session(kb)
            trial.base = dict(base.base)
            trial.add_findings(findings)
            return next_experiment(trial, done)
        return experiment

    def script(self, path, args, max_steps=None, timeout=None, started=None):
        """Run (or, ``started`` by :func:`traindx.probes.runner.supervise.start_script`, supervise) the
        script under instrumentation and add what it measured."""
        self._need_file(path, "script")
        _need_torch("--script")
        from traindx.probes.runner.supervise import run_script
        self.say(f"Running {path} under instrumentation…")
        experiment = self._experiment_picker() if OPTIONS["experiments"] else None
        if started is not None:
            result = started.finish(self._decider(), experiment)
        else:
            result = run_script(path, list(args), max_steps=max_steps, timeout=timeout, decide=self._decider(),
                                params=self.session.kb.params(), experiment=experiment)
        self.session.add_findings(result.findings)
        from .printed import printed_findings
        self.session.add_findings(printed_findings(self.session, result.printed,
                                                   f"output of {os.path.basename(path)}"))
        self.ran_script = True
        self.session.run_info = {"steps": result.steps, "stopped": result.stopped_reason, "seconds": result.wall_s}
        self.session.notes.append(
            f"Ran {os.path.basename(path)}: {result.steps} optimizer step(s) in {result.wall_s:.1f} s, "
            f"stopped: {result.stopped_reason}.")
        if result.phases:
            last = result.phases[-1]
            self.session.notes.append(
                f"The script trained in {last['phase']} phases (a new optimizer took over at step {last['step']}, "
                f"after {last['previous_steps']} step(s) of the previous one): the evidence is from the last phase.")
        if result.crash:
            tail = " | ".join(line for line in (result.stderr_tail or "").strip().splitlines()[-3:])
            self.session.notes.append(f"The script crashed: {result.crash.get('message')}" + (f" — stderr: {tail}"
                                                                                              if tail else ""))
        self.say(f"Ran {result.steps} steps ({result.wall_s:.1f} s), {result.stopped_reason}.")

    def setup(self, spec, max_steps=None, timeout=None):
        _need_torch("--setup")
        from traindx.probes.runner.setup_call import run_setup
        result = run_setup(spec, max_steps=max_steps or 200, timeout=timeout, decide=self._decider(),
                           params=self.session.kb.params())
        self.session.add_findings(result.findings)
        self.ran_script = True
        self.session.notes.append(f"Trained copies from {spec} for {result.steps} step(s).")


def _drain_paste(first: str, max_lines: int = 100000) -> str:
    """``first`` plus the lines a paste left waiting on the terminal: a pasted log arrives as many
    lines at once, and all of them belong to the answer (not to the questions that follow)."""
    import select
    lines = [first]
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, OSError, ValueError):
        return first
    while len(lines) < max_lines:
        try:
            ready, _, _ = select.select([fd], [], [], 0.05)
        except (OSError, ValueError):
            break
        if not ready:
            break
        line = sys.stdin.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
    return "\n".join(lines)


def _need_torch(flag):
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        raise InputError(f"{flag} needs PyTorch installed", hint="pip install 'traindx[torch]'")


class Interview:
    """The interactive Q&A on a terminal."""

    HELP = "Answer the question, or: why · how · skip · back · quit"

    def __init__(self, session, st, gather, stop=None, done=()):
        self.s = session
        self.st = st
        self.gather = gather
        self.done = set(done)     # steps taken before a --resume: "read_back" (confirmed), "script_offer"
        self.offered_script = gather.ran_script or "script_offer" in self.done
        self.stop = stop if stop is not None else StopSignals()   # not entered: signals act as Python's default

    def ask(self, prompt):
        with self.stop():
            try:
                return read_answer(self.st(prompt, bold=True) + "\n> ")
            except OSError:   # the terminal went away under the prompt: as end of input
                raise EOFError from None

    def ask_complaint(self):
        """The first question, asked again when the answer cannot be taken (a paste whose prose is
        over ``limits.max_text_chars``): the interview goes on, nothing typed before is lost."""
        while True:
            text = ""
            while not text.strip():
                text = self.ask("What is going wrong with your training?")
            try:
                self.gather.complaint(_drain_paste(text))
                return
            except InputError as err:
                click.echo(self.st(f"{err.message}" + (f" ({err.hint})" if err.hint else ""), dim=True))

    def run(self):
        s, st = self.s, self.st
        if s.value("complaint") is None and s.symptom() is None:
            self.ask_complaint()
        self.respond_to_pressure()
        self.confirm_understanding()
        self.preamble()
        if s.deferral():
            return
        n = shown = 0
        while True:
            q = s.next_question()
            if q is None:
                break
            if not self.offered_script and self._probe_could_answer(q):
                self.offered_script = True
                self.done.add("script_offer")
                if self.offer_script(q):
                    continue
            n += 1
            useful = [c for c in s.candidates() if c.gain >= s.kb.param("engine.min_gain_bits")]
            estimate = n + max(0, min(len(useful) - 1, s.max_questions - len(s.asked) - len(s.skipped) - 1))
            # the count shown does not grow while it still holds: a skip is not a reason to ask more
            shown = max(n, estimate if shown < n else min(estimate, shown))
            hint = f"   ({q['hint']})" if q.get("hint") else ""
            hint += self._known_note(q)
            while True:
                ans = self.ask(f"\n{n}/{shown}  {q['text']}{st(hint, dim=True)}").strip()
                cmd = ans.lower()
                if cmd in ("why", "w"):
                    click.echo(_indent(s.why(q["id"])))
                    continue
                if cmd in ("how", "h"):
                    click.echo(_indent(s.how()))
                    continue
                if cmd in ("help", "?"):
                    click.echo(_indent(self.HELP))
                    continue
                if cmd in ("quit", "q", "exit"):
                    raise KeyboardInterrupt
                if cmd == "back":
                    prev = s.back()
                    click.echo(_indent(f"Undid the answer to: {s.kb.questions[prev]['text']}" if prev
                                       else "Nothing to undo."))
                    n = max(0, n - 2)
                    break
                try:
                    added = s.answer(q["id"], ans)
                except InputError as err:
                    click.echo(st(f"  {err.message}" + (f" — {err.hint}" if err.hint else ""), fg="yellow"))
                    continue
                self.feedback(added, q)
                break

    def _known_note(self, q) -> str:
        """For a question asking several values, the ones already known: only the rest need typing."""
        known = [f"{f} = {_fmt(self.s.value(f))}" for f in q["facts"] if self.s.value(f) is not None]
        if not known or len(known) == len(q["facts"]):
            return ""
        return f"   [known: {', '.join(known)}; type the rest]"

    def _probe_could_answer(self, q):
        return any(src.startswith("probe:") for src in q.get("answered_by", []))

    def offer_script(self, q) -> bool:
        while True:
            ans = self.ask("\nCan traindx run your training script for a few steps to measure this instead? "
                           "[path/skip]").strip()
            cmd = ans.lower()
            if not ans or cmd in ("skip", "s", "no", "n"):
                return False
            if cmd in ("why", "w"):
                click.echo(_indent("A measurement answers several questions at once and beats a guess: "
                                   "gradients, update sizes and the loss against chance, in seconds."))
                continue
            if cmd in ("quit", "q", "exit"):
                raise KeyboardInterrupt
            path, *args = ans.split()
            if not os.path.isfile(path):
                click.echo(self.st(f"  {path}: no such file — give the path to your training script, or skip",
                                   fg="yellow"))
                continue
            try:
                self.gather.quiet = False
                with self.stop():   # Ctrl-C stops a script run at once, not after it
                    self.gather.code(path, for_script=True)
                    self.gather.script(path, args, max_steps=200, timeout=120)
            except InputError as err:
                click.echo(self.st(f"  {err}", fg="yellow"))
                return False
            return True

    def respond_to_pressure(self):
        s, st = self.s, self.st
        p = s.pressure()
        if p:
            click.echo("\n" + st(p["correct_response"], fg="magenta"))
        m = s.misdiagnosis()
        if m:
            click.echo("\n" + " ".join(m["message"].split()))

    CONFIRM = ("", "y", "yes", "ok", "okay", "right", "correct", "yep", "yeah", "sure", "fine", "good",
               "skip", "next", "continue", "go on")
    #: a bare "no" to the read-back: ask for the correction rather than fail to read one
    DENY = ("n", "no", "nope", "wrong", "not right", "incorrect", "that's wrong", "thats wrong")

    def confirm_understanding(self):
        """Read the user's words back before any question — the symptom with the phrase it came
        from, and each fact — and take one line of corrections at a time ("lr 3e-3", "it's a
        plateau", "not using AMP"), read by the same understanding, until the user confirms."""
        s, st = self.s, self.st
        if "read_back" in self.done or s.asked or s.skipped or not understood_lines(s):   # resumed, or nothing read
            return
        click.echo("")
        for line in understood_lines(s):
            click.echo(line)
        while True:
            ans = self.ask('Right? [Enter = yes, or correct it, e.g. "lr 3e-3"]').strip()
            cmd = ans.lower().rstrip(".!")
            if cmd in self.CONFIRM:
                self.done.add("read_back")
                return
            if cmd in ("quit", "q", "exit"):
                raise KeyboardInterrupt
            if cmd in ("help", "?", "why", "how") or cmd in self.DENY:
                click.echo(_indent("Type what is wrong in what I read, in your own words: a number (\"lr 3e-3\", "
                                   "\"batch 64\"), the symptom (\"it's a plateau\"), or a negation (\"no AMP\")."))
                continue
            changed = [f for f in s.correct(ans) if f is not None]
            if not changed:
                click.echo(st("  I could not read a fact or a symptom in that — try e.g. \"lr 3e-3\" or "
                              "\"it's a plateau\", or press Enter.", fg="yellow"))
                continue
            click.echo("")
            for line in understood_lines(s, updated=True):
                click.echo(line)

    def preamble(self):
        s, st = self.s, self.st
        d = s.deferral()
        if d:
            click.echo("\n" + st(d["message"], fg="yellow"))
            return
        sym = s.symptom()
        if sym:
            f = s.facts["symptom"]
            src = "from your description" if f.kind in ("user", "rule") and "complaint" in s.facts else f.source
            click.echo("\n" + st(f"Symptom: {s.kb.symptoms[sym]['name']} ({s.kb.symptoms[sym]['category']})", bold=True)
                       + st(f"   [{src}]", dim=True))

    def feedback(self, added, q=None):
        s = self.s
        names = {f.name for f in added}
        also = [f for f in added if q is not None and f.name not in q["facts"]]
        if also:   # the answer stated other facts ("lr 3e-4" to "Which optimizer?"): say what was taken
            took = ", ".join(f"{f.name} = {_fmt(f.value)}" for f in also)
            open_note = "" if names & set(q["facts"]) else f"; {', '.join(q['facts'])} is still open"
            click.echo(_indent(f"Took {took} from your answer{open_note}."))
        if names & {"current_loss", "num_classes"} and s.value("loss_at_chance") is True:
            import math
            c = s.value("num_classes")
            click.echo(_indent(f"ln({c}) = {math.log(c):.3f}: the model is at random-chance loss — "
                               "it has learned nothing."))
        if "symptom" in names:
            sym = s.symptom()
            click.echo(_indent(f"Symptom: {s.kb.symptoms[sym]['name']}"))

    @staticmethod
    def summary(session, report, st):
        click.echo("")
        status = report["status"]
        if status == "out_of_scope":
            click.echo(st("Out of scope: ", bold=True) + report["deferral"]["message"])
            return
        if status == "healthy":
            click.echo(st("Training looks healthy — no root cause to fix.", bold=True, fg="green"))
            for b in (report.get("normal") or {}).get("behaviours", []):
                click.echo(_indent(f"{b['title']} is normal: {b['why']}"))
                click.echo(_indent("It would be a problem if " + "; or if ".join(b["abnormal_if"]) + "."))
            return
        if status != "diagnosed":
            click.echo(st("Not enough evidence to name a root cause yet.", bold=True, fg="yellow"))
            click.echo(report["confidence_assessment"])
            for g in report["information_gaps"][:4]:
                click.echo(f"  - {g}")
            return
        top = report["root_causes"][0]
        click.echo(st(f"Root cause: {top['id']} — confidence {top['confidence']:.2f}", bold=True, fg="green"))
        click.echo(_indent(top["specific_issue"]))
        how = [f"{e['fact']} = {_fmt(e['value'])} ({_src(e['source'])})" for e in top["evidence"]
               if e.get("effect") == "supports"]
        against = [f"{e['fact']} ({_src(e['source'])})" for e in top["evidence"] if e.get("effect") != "supports"]
        if how:
            click.echo(_indent("how: " + " · ".join(how[:5])))
        rivals = [c for c in report["root_causes"][1:3]]
        if rivals:
            click.echo(_indent("next: " + ", ".join(f"{c['id']} ({c['confidence']:.2f})" for c in rivals)))
        if against:
            click.echo(_indent("also checked: " + " · ".join(against[:4])))
        fix = report["fix"]
        click.echo("\n" + st("Fix: ",
                             bold=True) + fix["summary"] + f"  Reference: traindx reference {fix['reference']}")
        if report["what_not_to_do"]:
            click.echo(st("What NOT to do: ", bold=True) + report["what_not_to_do"][0])


def _fmt(v):
    from ..values import fmt
    return fmt(v)


def understood_lines(session, updated=False) -> list[str]:
    """What the session read from the user's words (and their corrections): the symptom with the
    phrase it came from, then the facts — ``[]`` when nothing was read."""
    facts = session.base
    sym = (facts.get("symptom") if facts.get("symptom") and facts["symptom"].kind == "user"
           else facts.get("complaint_symptom"))
    words = [f for f in facts.values() if f.kind == "user" and f.detail and f.detail.startswith("from your words")
             and f.name not in ("symptom", "complaint_symptom")]
    if sym is None and not words:
        return []
    head = "Now I read:" if updated else "I read:"
    first = ""
    if sym is not None:
        phrase = _quoted(sym.detail)
        u = getattr(session, "understood", None)
        told = u.symptom_words if u is not None and u.symptom == sym.value and u.how == "examples" else None
        first = sym.value + (f" (from {phrase})" if phrase else
                             f" (from your description as a whole, like its examples: {told})" if told else
                             " (from your description as a whole)")
    items = [_fact_text(f) for f in sorted(words, key=lambda f: _span_start(session, f))]
    lines = []
    if first:
        lines.append(f"{head}  {first}")
    rest = " · ".join(items)
    if rest:
        lines.append(("" if first else head) .ljust(len(head) + 2) + rest if first else f"{head}  {rest}")
    return lines


def _quoted(detail):
    if not detail or "“" not in detail:
        return None
    return detail[detail.index("“"):]


def _span_start(session, fact):
    u = getattr(session, "understood", None)
    r = u.fact(fact.name) if u is not None else None
    return r.span[0] if r is not None else 10**9


def _fact_text(f) -> str:
    v = f.value
    if isinstance(v, list):
        shown = ", ".join(v) if v else "none"
        q = _quoted(f.detail) if not v else None
        return f"{f.name}: {shown}" + (f" ({q})" if q else "")
    if isinstance(v, bool):
        q = _quoted(f.detail)
        return f"{f.name} {_fmt(v)}" + (f" ({q})" if q and not v else "")
    return f"{f.name} {_fmt(v)}"


def _src(source):
    from ..markdown import where
    return where(source)


def _indent(text):
    return "\n".join("  " + line for line in str(text).splitlines())


# ---------------------------------------------------------------------------------- explain / reference
@main.command()
@click.argument("ident")
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge.")
def explain(ident, kb_dirs):
    """Explain any root cause, symptom, question, rule, fix, fact or source by id."""
    from ..explain import explain as _explain
    try:
        kb = _load(kb_dirs)
    except InputError as err:
        _fail(err)
    if ident in ("facts", "root-causes", "root_causes", "symptoms", "questions", "rules", "fixes"):
        table = {"facts": kb.facts, "root-causes": kb.root_causes, "root_causes": kb.root_causes,
                 "symptoms": kb.symptoms,
                 "questions": kb.questions, "rules": kb.rules, "fixes": kb.fixes}[ident]
        for k, v in table.items():
            desc = (v.description if hasattr(v, "description")
                    else v.get("name") or v.get("description") or v.get("text") or v.get("summary"))
            click.echo(f"{k:32s} {' '.join(str(desc).split())[:90]}")
        return
    text = _explain(kb, ident)
    if text is None:
        import difflib

        from ..loader import CLOSE_MATCH_MAX_CHARS
        names = (list(kb.root_causes) + list(kb.symptoms) + list(kb.questions) + list(kb.rules) + list(kb.fixes)
                 + list(kb.facts))
        close = difflib.get_close_matches(ident, names, n=3) if len(str(ident)) <= CLOSE_MATCH_MAX_CHARS else []
        _fail(InputError(f"no root cause, symptom, question, rule, fix or fact called {ident!r}",
                         hint=("did you mean " + ", ".join(close) + "?") if close
                         else "try 'traindx explain root-causes'"))
    click.echo(text)


@main.command()
@click.argument("name", required=False)
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge.")
def reference(name, kb_dirs):
    """Show a reference sheet (without NAME: list them)."""
    try:
        kb = _load(kb_dirs)
    except InputError as err:
        _fail(err)
    if not name:
        for ref in sorted(kb.references):
            click.echo(ref)
        return
    name = name[:-3] if name.endswith(".md") else name
    if name not in kb.references:
        _fail(InputError(f"no reference sheet {name!r}", hint="one of " + ", ".join(sorted(kb.references))))
    with open(kb.references[name], encoding="utf-8") as fh:
        click.echo(fh.read())


# ---------------------------------------------------------------------------------- kb
@main.group()
def kb():
    """Check, test and export the knowledge base."""


@kb.command("check")
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge.")
@click.option("--strict", is_flag=True, help="Treat graph warnings as errors.")
def kb_check(kb_dirs, strict):
    """Validate shape (JSON Schema) and meaning (ids, facts, reachability, cycles)."""
    from ..graph import build_graph, check_graph
    try:
        k = _load(kb_dirs)
    except InputError as err:
        _fail(err)
    g = build_graph(k)
    warnings = check_graph(k, g)
    for w in warnings:
        click.echo(f"warning: {w}")
    click.echo(f"ok: {len(k.symptoms)} symptoms, {len(k.questions)} questions, {len(k.rules)} rules, "
               f"{len(k.root_causes)} root causes, {len(k.fixes)} fixes, {len(k.references)} reference sheets; "
               f"graph {g.number_of_nodes()} nodes / {g.number_of_edges()} edges")
    if strict and warnings:
        sys.exit(1)


@kb.command("test")
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge.")
@click.option("-v", "--verbose", is_flag=True, help="List every case.")
def kb_test(kb_dirs, verbose):
    """Run every rule's test cases and the end-to-end cases."""
    from ..kbtest import run_cases
    try:
        k = _load(kb_dirs)
    except InputError as err:
        _fail(err)
    results = run_cases(k)
    failed = [r for r in results if not r.ok]
    for r in results:
        if verbose or not r.ok:
            click.echo(f"{'PASS' if r.ok else 'FAIL'} {r.where} {r.name}" + (f": {r.message}" if r.message else ""))
    click.echo(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        sys.exit(1)


@kb.command("graph")
@click.option("--symptom", help="Only what one symptom reaches.")
@click.option("--format", "fmt", type=click.Choice(["dot", "mermaid", "json"]), default="dot", show_default=True)
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge.")
def kb_graph(symptom, fmt, kb_dirs):
    """Export the decision graph (symptoms → questions → facts → rules → root causes → fixes)."""
    from ..graph import build_graph, export, subgraph_for_symptom
    try:
        k = _load(kb_dirs)
    except InputError as err:
        _fail(err)
    g = build_graph(k)
    if symptom:
        if symptom not in k.symptoms:
            _fail(InputError(f"unknown symptom {symptom!r}", hint="one of " + ", ".join(k.symptoms)))
        g = subgraph_for_symptom(g, symptom)
    click.echo(export(g, fmt), nl=False)


# ---------------------------------------------------------------------------------- mcp
@main.command()
@click.option("--kb", "kb_dirs", multiple=True, type=click.Path(), help="Add a folder of YAML knowledge (repeatable).")
def mcp(kb_dirs):
    """Serve the engine to coding agents over MCP (stdio)."""
    from .mcp_server import serve
    serve(list(kb_dirs))


if __name__ == "__main__":  # pragma: no cover
    main()
