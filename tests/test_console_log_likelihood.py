"""Session 28 (finish28b): a log-likelihood printed in place of the loss (``console.log_likelihood_names``:
``log_lik``, ``logprob``, ``log-likelihood``, ``log_p``) rises as the model learns; its negation is read
as the loss, so a run that improves reads as a falling curve, not as one that goes nowhere or is unread.
A qualified name (``old_log_prob``, ``neg_log_likelihood``) is something else, and a printed loss
always outranks it."""
import pytest

from traindx.probes.readers.console import read_console_text
from traindx.probes.readers.words import log_words


def _means(log, role):
    return [p.mean for p in log.series[role].points]


def test_a_density_models_log_likelihoods_are_its_losses():
    lines = [f"[flow] epoch {e:>2}  train log_lik {-3.1 + 0.2 * e:.3f}  valid log_lik {-3.3 + 0.18 * e:.3f}  "
             f"bits/dim {4.0 - 0.1 * e:.2f}" for e in range(1, 11)]
    log = read_console_text("\n".join(lines) + "\n")
    train, val = _means(log, "loss"), _means(log, "val_loss")
    assert len(train) == 10 and len(val) == 10
    assert train[0] == pytest.approx(2.9) and train[-1] == pytest.approx(1.1)
    assert all(a > b for a, b in zip(val, val[1:]))


def test_a_per_frame_log_likelihood_is_read_negated():
    lines = []
    for it in range(1, 9):
        lines.append(f"# compute-prob exp/{it}.mdl ark:heldout.egs")
        lines.append(f"LOG (compute-prob[6.1]:PrintStats():diag.cc:77) Overall log-likelihood for 'out-xent' "
                     f"is {-2.4 / it:.4f} per frame, over 4096 frames.")
    log = read_console_text("\n".join(lines) + "\n")
    losses = _means(log, "loss")
    assert len(losses) == 8 and losses[0] == pytest.approx(2.4)
    assert all(a > b for a, b in zip(losses, losses[1:]))


def test_a_log_prob_per_token_at_each_step():
    lines = [f"it={s * 50} logprob_per_token={-5.5 + 0.3 * s:.2f} lr=3e-4" for s in range(1, 9)]
    log = read_console_text("\n".join(lines) + "\n")
    assert _means(log, "loss")[0] == pytest.approx(5.2)


def test_a_printed_loss_outranks_a_log_likelihood():
    lines = [f"epoch {e} loss {1.0 / e:.4f} log_p {-0.5 - e:.3f}" for e in range(1, 8)]
    log = read_console_text("\n".join(lines) + "\n")
    assert _means(log, "loss")[0] == pytest.approx(1.0)


def test_a_qualified_log_probability_is_no_log_likelihood():
    words = log_words()
    assert words.names_log_likelihood(["valid", "log", "lik"])
    assert words.names_log_likelihood(["overall", "log", "likelihood", "for", "out", "xent"])
    assert words.names_log_likelihood(["logprob", "per", "token"])
    for name in (["old", "log", "prob"], ["neg", "log", "likelihood"], ["action", "log", "prob"], ["log"],
                 ["log", "prob", "ratio"], ["clogp"]):
        assert not words.names_log_likelihood(name), name


def test_a_pack_names_another_log_likelihood(tmp_path):
    """``console.log_likelihood_names`` is knowledge: a pack adds a name (a program's ``mll``)."""
    from traindx.engine.api import load_kb
    text = "".join(f"iter {i} train mll {-4.0 + 0.3 * i:.2f}\n" for i in range(1, 9))
    pack = tmp_path / "gp"
    pack.mkdir()
    (pack / "words.yaml").write_text("kind: parameters\nextends:\n  console.log_likelihood_names: [mll]\n",
                                     encoding="utf-8")
    log = read_console_text(text, params=load_kb([str(pack)], entry_point_packs=False).params())
    assert _means(log, "loss")[0] == pytest.approx(3.7)
