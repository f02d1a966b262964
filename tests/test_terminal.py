"""The interactive interview on a real pseudo-terminal, typed as a person would."""

import os
import sys

import pytest

pexpect = pytest.importorskip("pexpect")
PROMPT = r"\n> "


def spawn(*args, cwd):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="150")
    return pexpect.spawn(sys.executable, ["-m", "traindx.engine", "diagnose", *args], cwd=str(cwd), env=env,
                         encoding="utf-8", timeout=300, dimensions=(60, 150))   # a loaded machine


def test_interview_why_answers_and_report(tmp_path):
    c = spawn(cwd=tmp_path)
    c.expect("What is going wrong with your training?")
    c.sendline("loss isn't going down, maybe I should try Adam instead of SGD")
    c.expect("optimizer is rarely the cause")
    c.expect("I read:  not_learning")                 # read back before any question
    c.expect(r"optimizer sgd")
    c.expect(r"Right\? \[Enter = yes")
    c.sendline("")
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
    c.expect(r"Right\?")
    c.sendline("")
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
    c.expect(r"Right\?")
    c.sendline("")
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


def test_echo_reads_back_first_and_one_line_corrects_it(tmp_path):
    c = spawn("--complaint", "the loss went down for a while and then stopped decreasing, lr of 5e-5 and a batch of 4",
              cwd=tmp_path)
    c.expect("I read:  plateau")
    c.expect("stopped decreasing")                     # where the symptom came from
    c.expect("learning_rate 5e-05")
    c.expect("batch_size 4")
    c.expect(r"Right\? \[Enter = yes, or correct it")
    c.sendline("no, the lr is 3e-3 and I use bf16")    # one line, read by the same understanding
    c.expect("Now I read:")
    c.expect("learning_rate 0.003")
    c.expect("uses_amp yes")
    c.expect(r"Right\?")
    c.sendline("")
    c.expect("Symptom: Loss decreased then plateaued")
    i = c.expect([r"What is the learning rate\?", r"\[path/skip\]", PROMPT])
    assert i != 0                                      # the words already answered it: never asked
    c.sendline("quit")
    c.expect("saved in .traindx-session.json")
    c.expect(pexpect.EOF)
    import json
    state = json.loads((tmp_path / ".traindx-session.json").read_text())
    facts = {f["name"]: f for f in state["facts"]}
    assert facts["learning_rate"]["value"] == 0.003 and facts["learning_rate"]["source"] == "user"
    assert facts["batch_size"]["value"] == 4 and facts["amp_dtype"]["value"] == "bfloat16"


def test_a_skipped_symptom_question_does_not_end_the_interview(tmp_path):
    c = spawn("--complaint", "something is off with my model, I train with sgd", cwd=tmp_path)
    c.expect("I read:  optimizer sgd")
    c.expect(r"Right\?")
    c.sendline("")
    if c.expect([r"\[path/skip\]", "What is the loss doing?"]) == 0:
        c.sendline("skip")                             # no script to run: ask instead
        c.expect("What is the loss doing?")
    c.sendline("skip")
    c.expect(r"\n2/\d+  ")                             # the interview goes on with the next best question
    c.sendline("quit")
    c.expect("saved in")
    c.expect(pexpect.EOF)


def test_symptom_answered_in_own_words(tmp_path):
    c = spawn("--complaint", "I have a question about my run", cwd=tmp_path)
    if c.expect([r"\[path/skip\]", "What is the loss doing?"]) == 0:
        c.sendline("skip")
        c.expect("What is the loss doing?")
    c.sendline("it went down nicely and then stopped improving")
    c.expect("Symptom: Loss decreased then plateaued")
    c.sendline("quit")
    c.expect(pexpect.EOF)


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
                      cwd=str(tmp_path), env=env, encoding="utf-8", timeout=300, dimensions=(60, 150))
    c.expect(r"Right\?")
    c.sendline("")
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
    c.expect(r"Right\?")
    c.sendline("")
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


def test_the_read_back_takes_no_skip_and_bare_numbers_as_a_person_means_them(tmp_path):
    c = spawn("--complaint", "my model isn't learning at all, adam lr 1e-3", cwd=tmp_path)
    c.expect("I read:  not_learning")
    c.expect(r"Right\?")
    c.sendline("no")                                   # a bare "no": asked what is wrong, not "could not read"
    c.expect("Type what is wrong in what I read")
    c.expect(r"Right\?")
    c.sendline("2.3")                                  # numbers alone: no symptom is read into them
    c.expect("I could not read a fact or a symptom")
    c.expect(r"Right\?")
    c.sendline("skip")                                 # moves on, as it does at every other prompt
    c.expect("Symptom: Loss flat from epoch 0")
    c.sendline("quit")
    c.expect(pexpect.EOF)
