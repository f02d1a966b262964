"""Replies a person types at the interview's prompts: numbers with labels and units, a decimal comma,
"none" for a weight decay, a loss or optimizer named as code writes it — read as meant, or refused
with one clear line, never read as a different number."""

import pytest

from traindx.engine.api import Session
from traindx.engine.errors import InputError


def _session(kb):
    s = Session(kb)
    s.add_complaint("my network is not learning anything")
    return s


@pytest.mark.parametrize("typed, value", [("lr=0.002", 0.002), ("about 5e-5", 5e-5), ("0.02 (sgd)", 0.02)])
def test_a_number_with_words_around_it_is_read(kb, typed, value):
    s = _session(kb)
    s.answer("learning_rate", typed)
    assert s.value("learning_rate") == pytest.approx(value)


def test_a_batch_size_with_its_unit(kb):
    s = _session(kb)
    s.answer("batch_size", "64 samples")
    assert s.value("batch_size") == 64


@pytest.mark.parametrize("typed", ["0,002", "2,5"])
def test_a_decimal_comma_is_refused_not_read_as_another_number(kb, typed):
    s = _session(kb)      # before: "0,002" became a learning rate of 2, "2,5" one of 25
    with pytest.raises(InputError) as e:
        s.answer("learning_rate", typed)
    assert "point for decimals" in str(e.value)
    assert s.value("learning_rate") is None


def test_thousands_commas_still_read(kb):
    s = _session(kb)
    s.answer("batch_size", "2,048")
    assert s.value("batch_size") == 2048


def test_two_numbers_in_a_range_are_refused(kb):
    s = _session(kb)
    with pytest.raises(InputError):
        s.answer("learning_rate", "1e-3 to 1e-4")


@pytest.mark.parametrize("typed", ["none", "no"])
def test_no_weight_decay_in_words(kb, typed):
    s = _session(kb)
    s.answer("weight_decay", typed)
    assert s.value("weight_decay") == 0


@pytest.mark.parametrize("typed", ["loss 0.69, 2 classes", "0.69 with 2 classes"])
def test_labelled_numbers_for_a_two_number_question(kb, typed):
    s = _session(kb)
    s.answer("loss_value", typed)
    assert s.value("current_loss") == pytest.approx(0.69) and s.value("num_classes") == 2


def test_train_and_val_labelled(kb):
    s = _session(kb)
    s.answer("train_val_gap", "train 0.97 val 0.61")
    assert s.value("train_accuracy") == pytest.approx(0.97) and s.value("val_accuracy") == pytest.approx(0.61)


def test_words_alone_for_two_numbers_are_still_refused(kb):
    s = _session(kb)
    with pytest.raises(InputError):
        s.answer("loss_value", "pretty high")
    assert "loss_value" not in s.asked


@pytest.mark.parametrize("typed, value", [("nn.MSELoss()", "mse"), ("BCEWithLogits", "bce_with_logits"),
                                          ("torch.nn.CrossEntropyLoss", "cross_entropy")])
def test_a_loss_named_as_code_writes_it(kb, typed, value):
    s = _session(kb)
    s.answer("loss_function", typed)
    assert s.value("loss_function") == value


@pytest.mark.parametrize("typed", ["torch.optim.Adam", "Adam()", "ADAM"])
def test_an_optimizer_named_as_code_writes_it_counts_as_that_optimizer(kb, typed):
    plain, written = _session(kb), _session(kb)
    for s, name in ((plain, "adam"), (written, typed)):
        s.answer("learning_rate", "3e-6")
        s.answer("optimizer", name)
    assert written.value("optimizer") == "adam"
    assert written.leading(1) == plain.leading(1)    # before: "torch.optim.Adam" got the SGD rule's odds


def test_an_unknown_optimizer_is_kept_as_named(kb):
    s = _session(kb)
    s.answer("optimizer", "Lion")
    assert s.value("optimizer").lower() == "lion"     # the fact is the class name, lower-case when read


def test_a_wrong_choice_lists_the_choices_once(kb):
    s = _session(kb)
    with pytest.raises(InputError) as e:
        s.answer("loss_function", "the usual one")
    text = e.value.message + (e.value.hint or "")
    assert text.count("bce_with_logits") == 1


def test_one_value_for_a_two_value_question_fills_the_one_not_yet_known(kb):
    s2 = _session(kb)
    s2.add("current_loss", 1.2, "user")          # the loss is known, the classes are not
    s2.answer("loss_value", "4")
    assert s2.value("current_loss") == pytest.approx(1.2)     # before: 4 overwrote the loss
    assert s2.value("num_classes") == 4


def test_the_prompt_says_which_of_its_values_are_already_known(kb):
    from types import SimpleNamespace
    from traindx.engine.frontends.cli import Interview
    s = _session(kb)
    s.add("num_classes", 5, "user")
    note = Interview(s, None, SimpleNamespace(ran_script=False))._known_note(kb.questions["loss_value"])
    assert "num_classes = 5" in note
    s.answer("loss_value", "1.6")
    assert s.value("current_loss") == pytest.approx(1.6) and s.value("num_classes") == 5


def test_mcp_lists_every_value_a_choice_question_takes_and_no_aliases_as_choices(kb):
    from traindx.engine.frontends.mcp_server import Engine
    s = _session(kb)
    loss = Engine._question(s, kb.questions["loss_function"])
    assert set(loss["choices"]) == set(kb.facts["loss_function"]["values"])   # before: "custom" was missing
    assert "choices" not in Engine._question(s, kb.questions["weight_decay"])     # a number, not ["0"]
    assert "choices" not in Engine._question(s, kb.questions["optimizer"])        # an open name


@pytest.mark.parametrize("typed", ["LR_TOO_LOW", "lr too low", "Lr-Too-Low", "root_cause:LR too low"])
def test_explain_takes_an_id_as_a_person_types_it(kb, typed):
    from traindx.engine.explain import explain
    text = explain(kb, typed)            # before: "no root cause ... called 'LR_TOO_LOW'"
    assert text is not None and text.startswith("lr_too_low")


def test_explain_still_refuses_what_is_not_there(kb):
    from traindx.engine.explain import explain
    assert explain(kb, "too low") is None


def test_resume_does_not_read_back_again_or_re_offer_the_script(kb, tmp_path, monkeypatch):
    """Confirm the read-back, decline the script offer, quit at the first question; --resume goes on
    from that question (before: it read the words back and offered the script run again)."""
    from types import SimpleNamespace
    from traindx.engine.frontends import cli
    monkeypatch.chdir(tmp_path)
    s = _session(kb)
    s.add_complaint("val loss climbs after epoch 5 while train loss keeps falling, adam 1e-3")
    first = cli.Interview(s, lambda text, **kw: text, SimpleNamespace(ran_script=False))
    typed = iter(["", "skip", "quit"])
    prompts = []
    monkeypatch.setattr(cli.Interview, "ask", lambda self, p: prompts.append(p) or next(typed))
    with pytest.raises(KeyboardInterrupt):
        first.run()
    assert any("Right?" in p for p in prompts) and any("[path/skip]" in p for p in prompts)
    cli._save_session(s, first.done)

    again, done = cli._open_session(kb, True, set())
    prompts.clear()
    typed = iter(["quit"])
    with pytest.raises(KeyboardInterrupt):
        cli.Interview(again, lambda text, **kw: text, SimpleNamespace(ran_script=False), done=done).run()
    assert len(prompts) == 1 and "Right?" not in prompts[0] and "[path/skip]" not in prompts[0]


def test_an_answers_file_reads_values_as_the_prompt_does(kb):
    s = _session(kb)
    s.add_answers({"weight_decay": "none", "optimizer": "torch.optim.SGD", "loss_value": "loss 2.3, 10 classes",
                   "learning_rate": "lr=0.05"})
    assert s.value("weight_decay") == 0 and s.value("optimizer") == "sgd"      # before: refused / kept verbatim
    assert s.value("current_loss") == pytest.approx(2.3) and s.value("num_classes") == 10
    assert s.value("learning_rate") == pytest.approx(0.05)
