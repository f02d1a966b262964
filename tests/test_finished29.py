"""Session 29 (finish29): what finished runs of unfamiliar model kinds and print styles left that the
readers misread."""
from traindx.probes.readers.logs import read_log


def _semicolon_decimal_comma(tmp_path):
    """A ``;``-delimited table with decimal commas (``df.to_csv(sep=";", decimal=",")`` in a German
    or French locale): the loss falls, then climbs."""
    rows = ["iter;loss;valid_loss;rate"]
    for i in range(1, 9):
        loss = 2.5 / i if i < 6 else 0.5 * i
        rows.append(f"{i * 100};{loss:.5f};{loss + 0.25:.5f};0.0100".replace(".", ","))
    path = tmp_path / "metrics.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_a_semicolon_table_with_decimal_commas_is_read_as_numbers(tmp_path):
    log = read_log(_semicolon_decimal_comma(tmp_path))
    assert log.format == "csv"
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["loss"].head[0][1] == 2.5
    assert abs(log.series["val_loss"].last_value - 4.25) < 1e-9


def test_a_comma_in_a_comma_delimited_table_is_still_a_delimiter(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("step,loss\n" + "".join(f"{i},{1.0 / i}\n" for i in range(1, 6)), encoding="utf-8")
    log = read_log(path)
    assert log.series["loss"].last_value == 0.2


_GATED = '''
import torch
import torch.nn as nn


class GatedBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.gate = nn.Linear(d, d)
        nn.init.constant_(self.gate.bias, {bias})

    def forward(self, x):
        {body}


model = nn.Sequential(*[GatedBlock(32) for _ in range(6)], nn.Linear(32, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
for step in range(100):
    x, y = torch.randn(16, 32), torch.randint(0, 3, (16,))
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
'''


def _code_facts(tmp_path, **kw):
    from traindx.probes.readers.code import analyze_code
    path = tmp_path / "gated.py"
    path.write_text(_GATED.format(**kw), encoding="utf-8")
    return {f.fact: f.value for f in analyze_code(str(path)).findings}


def test_a_negative_bias_on_a_layer_read_through_a_sigmoid_gate_is_no_dead_relu_init(tmp_path):
    f = _code_facts(tmp_path, bias=-3.0,
                    body="c = self.gate(x).sigmoid()\n        return c * torch.relu(self.proj(x)) + (1 - c) * x")
    assert "init_bias_constant" not in f


def test_a_negative_bias_on_a_layer_behind_a_relu_is_still_read(tmp_path):
    f = _code_facts(tmp_path, bias=-3.0,
                    body="c = torch.sigmoid(self.proj(x))\n        return c * torch.relu(self.gate(x))")
    assert f.get("init_bias_constant") == -3.0


def _two_splits_unknown_words(epochs=12):
    """Train loss falls steadily; the held-out loss falls more slowly and settles above it. The split
    words (Amharic: training, validation) are unknown to the knowledge base, the metric words are English."""
    rows = []
    for e in range(1, epochs + 1):
        train = 1.2 * 0.8 ** e + 0.3
        held = 0.9 * 0.85 ** e + 0.55
        rows.append(f"Epoch {e}/{epochs} | ስልጠና loss: {train:.4f} | ማረጋገጫ loss: {held:.4f} | "
                    f"ስልጠና acc: {0.9 - train / 3:.4f} | ማረጋገጫ acc: {0.85 - held / 3:.4f}\n")
    return "".join(rows)


def test_a_metric_printed_twice_on_a_line_under_one_name_is_train_then_held_out():
    from traindx.probes.readers.console import read_console_text
    log = read_console_text(_two_splits_unknown_words())
    assert {"loss", "val_loss", "accuracy", "val_accuracy"} <= set(log.series)
    assert log.series["loss"].rows == 12 and log.series["val_loss"].rows == 12
    assert abs(log.series["loss"].last_value - (1.2 * 0.8 ** 12 + 0.3)) < 1e-3
    assert abs(log.series["val_loss"].last_value - (0.9 * 0.85 ** 12 + 0.55)) < 1e-3


def test_a_line_with_a_split_word_keeps_its_split():
    from traindx.probes.readers.console import read_console_text
    text = "".join(f"Epoch {e}/8 | loss: {1 / e:.4f} | val loss: {1.2 / e:.4f}\n" for e in range(1, 9))
    log = read_console_text(text)
    assert abs(log.series["loss"].last_value - 0.125) < 1e-4
    assert abs(log.series["val_loss"].last_value - 0.15) < 1e-4


def _history_table(epochs=15):
    """A fixed-width scoring history whose cells hold a space (a date and a time, a number and its
    unit) and whose columns stand two or more spaces apart; an unnamed row index leads each row."""
    head = "    wall_clock             elapsed      epoch    train_loss    valid_loss"
    rows = [head, "--  -------------------   ---------    -----    ----------    ----------"]
    for e in range(1, epochs + 1):
        train = 1.0 / e
        held = 0.6 + 0.02 * (e - 6) ** 2 if e > 6 else train + 0.1
        rows.append(f"{e - 1:<4}2031-03-0{1 + e // 10} 10:{e:02d}:00    {0.4 * e:.3f} sec    {e:.1f}      "
                    f"{train:.6f}      {held:.6f}")
    return "Scoring History:\n" + "\n".join(rows) + "\n"


def test_a_fixed_width_table_whose_cells_hold_a_space_is_read():
    from traindx.probes.readers.console import read_console_text
    log = read_console_text(_history_table())
    assert {"loss", "val_loss"} <= set(log.series)
    assert log.series["loss"].rows == 15
    assert abs(log.series["val_loss"].last_value - (0.6 + 0.02 * 81)) < 1e-6


def test_serbian_and_macedonian_split_words_after_the_metric_word_are_read():
    from traindx.probes.readers.console import read_console_text
    text = "".join(f"Епоха {e}/9: губитак при тренирање {1 / e:.4f} | тачност при тренирање {0.5 + e / 20:.3f} | "
                   f"губитак при валидацији {0.3 + 1 / e:.4f}\n" for e in range(1, 10))
    log = read_console_text(text)
    assert {"loss", "val_loss", "accuracy"} <= set(log.series)
    assert abs(log.series["val_loss"].last_value - (0.3 + 1 / 9)) < 1e-4


def _georgian_with_acc(epochs=12):
    """Losses under Georgian words the knowledge base lacks (guessed from their values), accuracies
    under the English ``acc`` after a Georgian split word, train before validation on each line."""
    rows = []
    for e in range(1, epochs + 1):
        train = 0.9 * 0.75 ** e + 0.05
        held = 0.5 * 0.8 ** e + 0.08
        rows.append(f"ეპოქა {e}/{epochs} — სწავლების დანაკარგი {train:.4f} — სწავლების acc {1 - train / 2:.4f} — "
                    f"ვალიდაციის დანაკარგი {held:.4f} — ვალიდაციის acc {1 - held / 2:.4f}\n")
    return "".join(rows)


def test_two_accuracies_beside_guessed_losses_keep_the_guessed_losses():
    from traindx.probes.readers.console import read_console_text
    log = read_console_text(_georgian_with_acc())
    assert {"loss", "val_loss", "accuracy", "val_accuracy"} <= set(log.series)
    assert abs(log.series["val_accuracy"].last_value - (1 - (0.5 * 0.8 ** 12 + 0.08) / 2)) < 1e-3


def test_after_a_metric_named_held_out_the_second_unqualified_printing_is_held_out():
    """``Ep 3: loss on train 0.81, acc 0.61; loss on val 0.67, acc 0.79; test acc 0.75, loss 0.70``:
    the bare ``acc`` after the validation loss is the validation's; a third bare printing is no curve."""
    from traindx.probes.readers.console import read_console_text
    text = "".join(f"Ep {e}: loss on train {1 / e:.4f}, acc {0.5 + e / 40:.4f}; loss on val {1.1 / e:.4f}, "
                   f"acc {0.45 + e / 40:.4f}; acc {0.44 + e / 40:.4f}\n" for e in range(1, 11))
    log = read_console_text(text)
    assert {"loss", "val_loss", "accuracy", "val_accuracy"} <= set(log.series)
    assert log.series["accuracy"].rows == 10
    assert abs(log.series["accuracy"].last_value - 0.75) < 1e-4
    assert abs(log.series["val_accuracy"].last_value - 0.70) < 1e-4


def test_progress_redraws_run_together_keep_one_loss():
    from traindx.probes.readers.console import read_console_text
    text = "".join(f"{s}/500 [===>....] - ETA: 1:02 - loss: {2 / s:.4f} - acc: 0.5000"
                   f"{s + 1}/500 [===>....] - ETA: 1:01 - loss: {2 / (s + 1):.4f} - acc: 0.5100\n"
                   for s in range(1, 40, 2))
    log = read_console_text(text)
    assert "val_loss" not in log.series
