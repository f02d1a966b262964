"""The interactive interview on a real pseudo-terminal, typed as a person would."""

import os
import sys

import pytest

pexpect = pytest.importorskip("pexpect")
PROMPT = r"\n> "


def spawn(*args, cwd):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="150")
    return pexpect.spawn(sys.executable, ["-m", "traindx.engine", "diagnose", *args], cwd=str(cwd), env=env,
                         encoding="utf-8", timeout=30, dimensions=(60, 150))


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
    c.sendline("1e-4")      # not decisive on its own: the interview goes on
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
