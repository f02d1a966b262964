"""Console shapes met in session 24's pasted tuning material (fresh18): a loss printed after its own
iteration number (``Train loss 3 9.564240``), values printed one per line after their index (``788
41.2322``), and the reward logs of a language model or an agent tuned by reinforcement, whose names
say so only through the environment's steps, a value function's loss or a KL beside the reward."""

import pytest
from conftest import diagnose_json

from traindx.engine.errors import NoMetricsError, RLLogError
from traindx.probes.readers.console import read_console_text
from traindx.probes.readers.logs import rl_names_in_text


def test_a_whole_number_between_a_loss_name_and_its_value_is_an_index_not_the_loss():
    losses = [48.22, 35.23, 16.51, 9.56, 5.84, 5.95, 6.06, 5.80, 5.61, 5.40]
    lines = ["Epoch: 0"] + [f"Train loss {i} {v:.6f} Grad Norm {12.0 - i:.6f} 3.99s/it" for i, v in enumerate(losses)]
    log = read_console_text("\n".join(lines))
    s = log.series["loss"]
    assert s.rows == len(losses)
    assert s.max == pytest.approx(48.22)           # the index (0..9) is never read as the loss
    assert s.last_value == pytest.approx(5.40)
    assert log.series["grad_norm"].last_value == pytest.approx(3.0)


def test_a_whole_value_after_a_name_is_still_the_value():
    """``loss 2 0.5``'s first number is an index only because a decimal value follows it: a count
    printed alone after its name (``errors 3``) stays the value."""
    log = read_console_text("\n".join(f"step {i} loss {1.0 / (i + 1):.4f} correct {i}" for i in range(10)))
    assert log.series["loss"].last_value == pytest.approx(0.1)


def test_values_printed_after_their_index_are_a_curve_on_that_index(tmp_path):
    # a plateaued contrastive loss, pasted from the middle of a longer print-out
    text = "\n".join(f"{788 + i} {41.232 - 0.0024 * i + 0.004 * ((i * 7) % 3 - 1)}" for i in range(62))
    log = read_console_text(text)
    s = log.series["loss"]
    assert s.rows == 62
    assert s.first_x == 788 and s.last_x == 849
    p = tmp_path / "pasted.txt"
    p.write_text(text + "\n")
    rep = diagnose_json("--log", str(p))
    assert rep["symptom"]["id"] == "plateau"      # read from the middle of the run, not from its start


def test_index_and_value_lines_need_a_decimal_value():
    """Two whole numbers a line (a pair of counts, a table without a header) are no indexed values."""
    with pytest.raises(NoMetricsError):
        read_console_text("\n".join(f"{i} {i * 3}" for i in range(30)))


@pytest.mark.parametrize("line", [
    # an agent's epoch line: rewards, the environment's steps, a value function's loss
    "Epoch #{e}: 50001it [00:40, 1244.54it/s, env_step={s}, len=200, loss=-0.562, loss/vf=0.044, rew=200.00]",
    # a language model tuned by reinforcement (GRPO, PPO): a reward beside the policy's KL
    "{{'loss': 0.0, 'grad_norm': 0.09, 'completion_length': 232.8, 'reward': 1.71, 'reward_std': 0.57, "
    "'kl': 0.0005, 'epoch': 0.{e}}}",
])
def test_reward_logs_of_rl_runs_are_out_of_scope(tmp_path, line):
    text = "\n".join(line.format(e=e, s=50000 * e) for e in range(1, 9))
    assert rl_names_in_text(text)
    p = tmp_path / "rl.txt"
    p.write_text(text + "\n")
    rep = diagnose_json("--log", str(p))
    assert rep["status"] == "out_of_scope"
    assert (rep.get("deferral") or {}).get("id") == "rl_training"


def test_a_kl_without_a_reward_is_not_rl():
    # a VAE prints a KL term beside its reconstruction loss: no reward, no RL
    text = "\n".join(f"epoch {e} loss {3.0 / e:.4f} recon {2.5 / e:.4f} kl {0.5 / e:.4f}" for e in range(1, 9))
    assert not rl_names_in_text(text)
    log = read_console_text(text)
    assert log.series["loss"].last_value == pytest.approx(0.375)


def test_only_rewards_with_an_env_step_raise_the_rl_error():
    text = "\n".join(f"env_step={1000 * i} test_reward: {10.0 + i:.2f}" for i in range(10))
    with pytest.raises(RLLogError):
        read_console_text(text)


@pytest.mark.parametrize("name,role", [
    ("char train", "accuracy"),            # Tesseract's lstmtraining: the character error on training lines
    ("word error rate", "accuracy"),
    ("val character error", "val_accuracy"),
    ("wer", "accuracy"),
])
def test_an_error_rate_named_by_its_unit_stands_in_for_the_accuracy(name, role):
    lines = [f"At iteration {100 * i}, Mean rms=1.2%, {name}={60 - 2 * i}%, skip ratio=0%" for i in range(1, 11)]
    log = read_console_text("\n".join(lines))
    assert log.series[role].last_value == pytest.approx(1 - 0.40)


@pytest.mark.parametrize("name", ["words", "word count", "train tokens"])
def test_a_unit_word_without_an_error_word_or_split_is_no_error_rate(name):
    lines = [f"step {i} loss {1.0 / i:.3f} {name}: {1000 * i}" for i in range(1, 11)]
    log = read_console_text("\n".join(lines))
    assert "accuracy" not in log.series
