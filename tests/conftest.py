import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# One intra-op thread for torch in every test process and every script a test runs (children inherit
# the variable; torch reads it when first imported). The suite's models are tiny and CI runs one worker
# per core, so when the cores are taken a second OpenMP thread only spins waiting for one: on a busy
# machine tests/test_lr_decay.py took 588 s with two threads and 52 s with one; idle and alone the two
# cost the same (docs/BENCHMARKS.md, session 39). A value set by whoever runs the tests is kept.
if "OMP_NUM_THREADS" not in os.environ:
    os.environ["OMP_NUM_THREADS"] = "1"
    if "torch" in sys.modules:   # imported before this file (by a plugin): too late for the variable
        sys.modules["torch"].set_num_threads(1)

# The complaint classifier's store (engine/examplestore.py) goes to a folder of this test run, shared by
# its workers and the CLI processes tests start, and removed at the end: tests neither read a store an
# older checkout left in the user's cache nor leave one there. A folder set by whoever runs them is kept.
if "TRAINDX_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile
    os.environ["TRAINDX_CACHE_DIR"] = tempfile.mkdtemp(prefix="traindx-test-cache-")
    atexit.register(shutil.rmtree, os.environ["TRAINDX_CACHE_DIR"], True)


def pytest_collection_modifyitems(config, items):
    """Modules holding a test marked ``slow`` run first, each module kept whole (its module fixtures are
    built once) and the order otherwise kept. CI hands each module to one worker, in collection order
    (``--dist loadscope --no-loadscope-reorder``), whenever a worker is nearly out of tests. xdist's default
    order, modules with the most tests first, put the one-test fuzz module (three minutes of ten thousand
    hostile inputs) last: it started 14 minutes into a 17-minute run with the other worker idle beside it.
    Started first, the long modules overlap and the short ones fill the end."""
    slow = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow") is not None}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in slow)


@pytest.fixture(scope="module")
def one_thread():
    """Tiny models: one intra-op thread is faster and immune to a busy machine's oversubscription.
    A module of torch tests uses it with ``pytestmark = pytest.mark.usefixtures("one_thread")``."""
    import torch
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


@pytest.fixture(scope="session")
def kb():
    from traindx.engine.loader import load_kb
    return load_kb()


@pytest.fixture
def session(kb):
    from traindx.engine.api import Session
    return Session(kb)


def run_cli(*args, input=None, cwd=None, env=None):
    """Run the real `traindx` console command in a subprocess."""
    import subprocess
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "traindx.engine", *args], input=input, capture_output=True,
                          text=True, cwd=cwd, env=e, timeout=600)


@pytest.fixture
def write_script(tmp_path):
    """``write_script(source, name="train.py")``: the dedented source written to a file in a fresh
    folder (``write_script.dir``); returns its path. For scripts that cannot be a case in
    tests/code_cases/ (bad bytes, paths of the test's own folder)."""
    import textwrap

    def write(source: str, name: str = "train.py"):
        p = tmp_path / name
        p.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
        return p

    write.dir = tmp_path
    return write


def diagnose_json(*args):
    """``traindx diagnose ARGS --non-interactive --format json`` in-process: the JSON report
    (contract section 6); the command must exit 0."""
    import json

    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    res = CliRunner().invoke(main, ["diagnose", *args, "--non-interactive", "--format", "json"])
    assert res.exit_code == 0, res.output
    out = res.stdout if hasattr(res, "stdout") else res.output
    return json.loads(out[out.index("{"):])


@pytest.fixture(scope="module")
def lang():
    """The core knowledge base's language (no entry-point packs): what a complaint is read with."""
    from traindx.engine.loader import load_kb
    return load_kb(entry_point_packs=False).language


def stated_facts(u) -> dict:
    """What an understanding read: each fact's value under its id."""
    return {r.fact: r.value for r in u.facts}


def diagnose_code_and_log(tmp_path, code: str, log: str):
    """``traindx diagnose --code train.py --log console.log`` on a script and what it printed,
    both written under ``tmp_path``: the JSON report of a finished run read from its evidence."""
    c = tmp_path / "train.py"
    c.write_text(code)
    lg = tmp_path / "console.log"
    lg.write_text(log)
    return diagnose_json("--code", str(c), "--log", str(lg))


def top_cause(rep):
    """The id of a JSON report's leading root cause, None when it names none."""
    return rep["root_causes"][0]["id"] if rep["root_causes"] else None


def facts_by_id(rep):
    """A JSON report's facts, each entry (value, source, ...) under its fact id."""
    return {f["fact"]: f for f in rep["facts"]}


def diagnose_log_text(tmp_path, text, name="run.out"):
    """``text`` written to ``tmp_path/name`` and read with ``traindx diagnose --log FILE
    --non-interactive --format json`` in-process, as a user pointing traindx at a console log does;
    returns click's result (exit code and output) so a test can check a refusal too."""
    from click.testing import CliRunner

    from traindx.engine.frontends.cli import main
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return CliRunner().invoke(main, ["diagnose", "--log", str(p), "--non-interactive", "--format", "json"])


def diagnose_log_report(tmp_path, text, name="run.out"):
    """:func:`diagnose_log_text` for a log traindx must read: exit 0; returns the JSON report and
    the whole output (the one-line summary of what was read comes before the report)."""
    import json

    res = diagnose_log_text(tmp_path, text, name)
    assert res.exit_code == 0, res.output
    out = res.output
    return json.loads(out[out.index("{"):]), out


def report_fact(rep, name):
    """The value of one fact in a JSON report (None when the report does not hold it)."""
    return next((f["value"] for f in rep["facts"] if f["fact"] == name), None)


def report_symptom(rep):
    """The symptom a user reads off a report: ``healthy`` / ``out_of_scope`` for those statuses,
    else the symptom id (None when there is none)."""
    if rep["status"] in ("healthy", "out_of_scope"):
        return rep["status"]
    return rep["symptom"]["id"] if rep.get("symptom") else None


def echo_with(kb, text: str) -> str:
    """The ``I read: ...`` lines a user sees for a complaint ``text``, with an already loaded ``kb``."""
    from traindx.engine.api import Session
    from traindx.engine.frontends.cli import understood_lines

    s = Session(kb)
    s.add_complaint(text)
    return "\n".join(understood_lines(s))


def understood_echo(text: str, packs=()) -> str:
    """The ``I read: ...`` lines a user sees for a complaint ``text``, with knowledge ``packs`` loaded."""
    from traindx.engine.api import Session, load_kb
    from traindx.engine.frontends.cli import understood_lines

    s = Session(load_kb(list(packs)))
    s.add_complaint(text)
    return "\n".join(understood_lines(s))


def language_pack(tmp_path, body: str) -> str:
    """A knowledge pack folder holding one kb/language file ``grammar.yaml`` with ``body``."""
    (tmp_path / "grammar.yaml").write_text("kind: language\n" + body + "\n", encoding="utf-8")
    return str(tmp_path)
