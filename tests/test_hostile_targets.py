"""Where the report, the plot and the patch go: a bad target is one line before anything runs, and
a write that fails at the end loses nothing (the report goes to standard output, the plot and the
patch become caveats of the report)."""

import json

import pytest
from click.testing import CliRunner

from traindx.engine.frontends.cli import main

LOG = "".join(f"epoch {i} loss {2.0 - i * 0.05:.3f} val_loss {2.1 - i * 0.02:.3f}\n" for i in range(30))


def _diagnose(tmp_path, *extra):
    log = tmp_path / "train.log"
    log.write_text(LOG)
    return CliRunner().invoke(main, ["diagnose", "--log", str(log), "--non-interactive", "--no-experiments",
                                     "--complaint", "loss stopped going down", *extra])


@pytest.mark.parametrize("opt", ["--output", "--plot", "--patch"])
def test_an_output_option_naming_a_folder_is_one_line_before_anything_is_read(tmp_path, opt):
    res = _diagnose(tmp_path, opt, str(tmp_path))
    assert res.exit_code == 2
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    example = {"--output": "report.md", "--plot": "curves.png", "--patch": "fix.diff"}[opt]
    assert lines == [f"traindx: {tmp_path}: {opt} names a folder; give the file to write "
                     f"(hint: e.g. {opt} {tmp_path}/{example})"]
    assert "Read train.log" not in res.output      # refused before the log was read


@pytest.mark.parametrize("target", ["nope/curves.png", "curves.foo"])
def test_a_plot_that_cannot_be_written_is_refused_up_front_not_a_traceback(tmp_path, target):
    res = _diagnose(tmp_path, "--plot", str(tmp_path / target))
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
    assert f"{tmp_path / target}: --plot" in res.output and "Traceback" not in res.output


def test_a_report_that_cannot_be_written_at_the_end_is_printed_instead(tmp_path):
    res = _diagnose(tmp_path, "--format", "json", "--output", "/dev/full")   # ENOSPC on write
    assert res.exit_code == 2
    out = res.output
    report = json.loads(out[out.index("{"):out.rindex("}") + 1])
    assert report["status"] and "root_causes" in report
    assert "/dev/full: cannot write the report" in out and "printed to standard output instead" in out


def test_a_plot_whose_write_fails_leaves_a_caveat_and_the_report(tmp_path, monkeypatch):
    import traindx.probes.readers.plot as plot

    def full(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(plot, "plot_curves", full)
    res = _diagnose(tmp_path, "--format", "json", "--plot", str(tmp_path / "c.png"))
    assert res.exit_code == 0, res.output
    report = json.loads(res.output[res.output.index("{"):])
    assert any("the plot could not be written (No space left on device)" in c for c in report["caveats"])


def test_an_interview_answer_over_the_complaint_limit_is_asked_again_not_fatal(monkeypatch, capsys):
    # before: a paste of ~1 MB of garbage at the first prompt ended the interview with exit 2 and
    # no saved session
    from traindx.engine.api import Session
    from traindx.engine.frontends import cli
    from traindx.engine.loader import load_kb
    session = Session(load_kb())
    interview = cli.Interview(session, cli.Styler(False), cli.Gatherer(session, cli.Styler(False)))
    long_prose = "".join("my model does not learn at all, " * 30 + "\n" for _ in range(40))   # 38,440 chars
    answers = iter([long_prose, "the loss goes nan after 3 epochs"])
    monkeypatch.setattr(interview, "ask", lambda prompt: next(answers))
    monkeypatch.setattr(cli, "_drain_paste", lambda text: text)
    interview.ask_complaint()
    assert session.value("complaint") == "the loss goes nan after 3 epochs"
    assert "over the 20000-character limit" in capsys.readouterr().out
