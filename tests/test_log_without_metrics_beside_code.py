"""A finished run brought as its script and a console log that prints no metric ("epoch 3 done"): the
log is said in one caveat naming it, and the diagnosis rests on the code (exit 0) instead of refusing
the whole diagnosis and losing the code's evidence. The same log alone is still bad input: one line
naming it, exit 2; a log that is missing stays bad input whatever else is given. Torch-free."""
from click.testing import CliRunner

from conftest import diagnose_json
from traindx.engine.frontends.cli import main

SCRIPT = '''
import torch, torch.nn as nn
x = torch.randn(512, 6); y = (x[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(6, 32), nn.ReLU(), nn.Linear(32, 2), nn.Softmax(dim=1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for epoch in range(30):
    opt.zero_grad()
    loss = crit(model(x), y)
    loss.backward()
    opt.step()
    print(f"finished epoch {epoch}")
'''
QUIET_LOG = "".join(f"finished epoch {i}\n" for i in range(30))


def _files(tmp_path):
    code, log = tmp_path / "train.py", tmp_path / "console.log"
    code.write_text(SCRIPT)
    log.write_text(QUIET_LOG)
    return code, log


def test_a_log_without_metrics_beside_the_code_leaves_the_codes_diagnosis(tmp_path):
    code, log = _files(tmp_path)
    rep = diagnose_json("--code", str(code), "--log", str(log))
    assert rep["root_causes"] and rep["root_causes"][0]["id"] == "double_softmax"
    assert any("console.log" in c and "no training metrics" in c for c in rep["caveats"])


def test_a_log_without_metrics_beside_the_users_words_is_a_caveat(tmp_path):
    _, log = _files(tmp_path)
    rep = diagnose_json("--complaint", "my loss is stuck at 0.69 from the first epoch, 2 classes", "--log", str(log))
    assert rep["symptom"] and rep["symptom"]["id"] in ("not_learning", "plateau")
    assert any("console.log" in c and "no training metrics" in c for c in rep["caveats"])


def test_the_same_log_alone_is_still_one_line_and_exit_2(tmp_path):
    _, log = _files(tmp_path)
    res = CliRunner().invoke(main, ["diagnose", "--log", str(log), "--non-interactive", "--format", "json"])
    assert res.exit_code == 2
    err = res.stderr if hasattr(res, "stderr") else res.output
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and str(log) in lines[0] and "no training metrics" in lines[0]


def test_a_missing_log_is_bad_input_whatever_else_is_given(tmp_path):
    code, _ = _files(tmp_path)
    res = CliRunner().invoke(main, ["diagnose", "--code", str(code), "--log", str(tmp_path / "nope.log"),
                                    "--non-interactive", "--format", "json"])
    assert res.exit_code == 2
    assert "nope.log" in (res.stderr if hasattr(res, "stderr") else res.output)


# ------------------------------------------------------------------ the same through MCP (no `mcp` needed)
def _engine():
    from traindx.engine.frontends.mcp_server import Engine
    return Engine()


def test_mcp_read_log_without_metrics_after_the_code_is_a_note_and_the_code_decides(tmp_path):
    code, log = _files(tmp_path)
    eng = _engine()
    sid = eng.call("start_diagnosis", {})["session_id"]
    eng.call("read_code", {"session_id": sid, "path": str(code)})
    got = eng.call("read_log", {"session_id": sid, "path": str(log)})
    assert any("console.log" in n and "no training metrics" in n for n in got["notes"])
    rep = eng.call("get_report", {"session_id": sid, "format": "json"})
    assert rep["root_causes"] and rep["root_causes"][0]["id"] == "double_softmax"


def test_mcp_read_log_without_metrics_after_a_complaint_is_a_note(tmp_path):
    _, log = _files(tmp_path)
    eng = _engine()
    sid = eng.call("start_diagnosis", {"complaint": "my loss is stuck at 0.69 from the first epoch, 2 classes"})
    got = eng.call("read_log", {"session_id": sid["session_id"], "path": str(log)})
    assert any("console.log" in n and "no training metrics" in n for n in got["notes"])


def test_mcp_read_log_without_metrics_in_an_empty_session_fails_naming_the_file(tmp_path):
    from traindx.engine.frontends.mcp_server import ToolFailure
    _, log = _files(tmp_path)
    eng = _engine()
    sid = eng.call("start_diagnosis", {})["session_id"]
    try:
        eng.call("read_log", {"session_id": sid, "path": str(log)})
    except ToolFailure as err:
        assert "console.log" in str(err) and "no training metrics" in str(err)
    else:
        raise AssertionError("a log with no metric in an empty session was accepted")
