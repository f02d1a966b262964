"""The interactive interview on a real pseudo-terminal, typed as a person would."""

import os
import sys

import pytest

pexpect = pytest.importorskip("pexpect")
PROMPT = r"\n> "


def spawn(*args, cwd):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="150")
    return pexpect.spawn(sys.executable, ["-m", "traindx.engine", "diagnose", *args], cwd=str(cwd), env=env,
                         encoding="utf-8", timeout=90, dimensions=(60, 150))   # a loaded machine


def test_interview_why_answers_and_report(tmp_path):
    c = spawn(cwd=tmp_path)
    c.expect("What is going wrong with your training?")
    c.sendline("loss isn't going down, maybe I should try Adam instead of SGD")
    c.expect("optimizer is rarely the cause")
    c.expect("Symptom: Loss flat from epoch 0")
    c.expect(r"\[path/skip\]")
    c.sendline("skip")
    c.expect("What is the learning rate?")
    c.sendline("why")
    c.expect("Leading causes: lr_too_low")
    c.expect(PROMPT)
    c.sendline("very small")                      # invalid: re-asked, not crashed
    c.expect("is a number")
    c.expect(PROMPT)
    c.sendline("1e-6")
    # the engine picks the order; answer what a user with this problem would say
    answers = {"how many classes": "2.302, 10", "Which optimizer": "sgd", "loss function": "cross_entropy"}
    while True:
        i = c.expect([PROMPT, "Root cause: lr_too_low"])
        if i == 1:
            break
        asked = c.before.rsplit("\n", 1)[-1] + c.before
        c.sendline(next((a for k, a in answers.items() if k in asked[-300:]), "skip"))
    c.expect("Report written to traindx-report.md")
    c.expect(pexpect.EOF)
    c.close()
    assert c.exitstatus == 0
    report = (tmp_path / "traindx-report.md").read_text()
    assert "### Root Cause" in report and "lr_too_low" in report


def test_back_undoes_an_answer(tmp_path):
    c = spawn("--complaint", "my model isn't learning", cwd=tmp_path)
    c.expect(r"\[path/skip\]")
    c.sendline("skip")
    c.expect("What is the learning rate?")
    c.sendline("1e-4")      # not decisive on its own: the interview goes on
    c.expect(PROMPT)
    c.sendline("back")
    c.expect("Undid the answer to: What is the learning rate?")
    c.expect("What is the learning rate?")
    c.sendline("0.01")
    c.expect(PROMPT)
    c.sendline("quit")
    c.expect(pexpect.EOF)


def test_ctrl_c_saves_and_resume_continues(tmp_path):
    c = spawn("--complaint", "my model isn't learning", cwd=tmp_path)
    c.expect(r"\[path/skip\]")
    c.sendline("skip")
    c.expect("What is the learning rate?")
    c.expect(PROMPT)        # this question's own prompt: the answer goes after it
    c.sendline("1e-4")      # not decisive on its own: the interview goes on
    c.expect(r"\n2/\d+  ")  # the next question: the answer was read (a ^C earlier would flush it unread)
    c.expect(PROMPT)
    c.sendintr()
    c.expect("saved in .traindx-session.json")
    c.expect(pexpect.EOF)
    c.close()
    assert c.exitstatus == 0
    assert (tmp_path / ".traindx-session.json").exists()
    c = spawn("--resume", cwd=tmp_path)
    i = c.expect([r"What is the learning rate\?", PROMPT])
    assert i == 1                                  # the answered question is not asked again
    c.sendeof()
    c.expect("saved in")
    c.expect(pexpect.EOF)
    c2 = spawn("--resume", "--non-interactive", "--format", "json", cwd=tmp_path)
    c2.expect(pexpect.EOF)
    assert '"lr_too_low"' in c2.before


SHIM = """
import os, signal, sys
from traindx.engine import inference
answer = inference.Session.answer
def interrupted_answer(self, qid, text):
    os.kill(os.getpid(), signal.{sig})   # lands mid-answer: before the answer is applied
    return answer(self, qid, text)
inference.Session.answer = interrupted_answer
from traindx.engine.frontends.cli import main
sys.exit(main(sys.argv[1:], prog_name="traindx"))
"""


@pytest.mark.parametrize("sig", ["SIGINT", "SIGHUP", "SIGTERM"])
def test_signal_between_prompts_is_held_until_the_answer_is_in(tmp_path, sig):
    """A Ctrl-C (or a closed terminal) that lands while an answer is being processed — not at a
    prompt — still saves the session, with that answer in it. The signal is sent from inside the
    answer's processing, so this does not depend on timing."""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="150")
    c = pexpect.spawn(sys.executable, ["-c", SHIM.replace("{sig}", sig), "diagnose", "--complaint",
                                       "my model isn't learning"],
                      cwd=str(tmp_path), env=env, encoding="utf-8", timeout=60, dimensions=(60, 150))
    c.expect(r"\[path/skip\]")
    c.sendline("skip")
    c.expect("What is the learning rate?")
    c.expect(PROMPT)
    c.sendline("1e-4")
    c.expect("saved in .traindx-session.json")
    c.expect(pexpect.EOF)
    c.close()
    assert c.exitstatus == 0, c.before
    import json
    state = json.loads((tmp_path / ".traindx-session.json").read_text())
    assert "learning_rate" in state["asked"]
    assert any(f["name"] == "learning_rate" and f["value"] == 1e-4 for f in state["facts"])


def test_closed_terminal_at_a_prompt_saves(tmp_path):
    import signal
    c = spawn("--complaint", "my model isn't learning", cwd=tmp_path)
    c.expect(r"\[path/skip\]")
    c.sendline("skip")
    c.expect("What is the learning rate?")
    c.expect(PROMPT)
    c.sendline("1e-4")
    c.expect(r"\n2/\d+  ")
    c.expect(PROMPT)
    c.kill(signal.SIGHUP)
    c.expect(pexpect.EOF)
    c.close()
    assert c.exitstatus == 0
    c = spawn("--resume", "--non-interactive", "--format", "json", cwd=tmp_path)
    c.expect(pexpect.EOF)
    assert '"learning_rate"' in c.before
