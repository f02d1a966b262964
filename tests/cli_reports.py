"""Shared by the finished-run tests: diagnose a console log (and, where given, its script) through the CLI
as a user would (``traindx diagnose --log console.log [--code train.py] --non-interactive --format json``)
and read the report's facts."""

from __future__ import annotations

import json

from click.testing import CliRunner

from traindx.engine.frontends.cli import main


def diagnose_log(tmp_path, log: str, script: str | None = None) -> dict:
    """The JSON report on ``log`` written to ``tmp_path/console.log`` (and ``script`` to ``train.py``)."""
    (tmp_path / "console.log").write_text(log, encoding="utf-8")
    args = ["diagnose", "--log", str(tmp_path / "console.log"), "--non-interactive", "--format", "json"]
    if script is not None:
        (tmp_path / "train.py").write_text(script, encoding="utf-8")
        args += ["--code", str(tmp_path / "train.py")]
    out = CliRunner().invoke(main, args).output
    return json.loads(out[out.index("{"):])


def report_facts(report: dict) -> dict:
    """``{fact: value}`` of a JSON report."""
    return {f["fact"]: f["value"] for f in report.get("facts") or []}
