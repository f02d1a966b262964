"""A finished run read as a user would (``--code train.py --log run.out``): the log gives the
symptom and the curve facts, the code the mechanism, and the two are weighed together. Torch-free:
the code reader never runs the script."""
import os
import textwrap


from conftest import diagnose_json

from traindx.engine.frontends import gather


CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "code_cases")


def _case(name):
    with open(os.path.join(CASES, name + ".py"), encoding="utf-8") as fh:
        return fh.read()


def _diagnose(*args):
    return diagnose_json(*args)


def _log_facts(path):
    return {f.fact: f.value for f in gather.read_log(str(path)).findings}


def _epochs(path, train, val):
    path.write_text("".join(f"Epoch {i + 1}/{len(train)} - loss: {t:.4f} - val_loss: {v:.4f}\n"
                            for i, (t, v) in enumerate(zip(train, val))))
    return path


SGD_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    N_CLASSES = 5
    x, y = torch.randn(640, 16), torch.randint(0, N_CLASSES, (640,))
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, N_CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.002, momentum=0.0)
    crit = nn.CrossEntropyLoss()
    for epoch in range(10):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
    """)


def test_a_flat_loss_that_falls_every_epoch_is_training_slow_from_a_tiny_lr(tmp_path):
    """1.61 -> 1.57 over ten epochs of a 5-class task: too little to count as decreasing, but every
    epoch lower than the last, validation with it. That is a model learning too slowly (plain SGD at
    0.002), not one stuck at chance."""
    train = [1.608 - 0.004 * i for i in range(10)]
    log = _epochs(tmp_path / "run.out", train, [t - 0.01 for t in train])
    f = _log_facts(log)
    assert f["loss_trend"] == "flat" and f["loss_creeping"] is True
    script = tmp_path / "train.py"
    script.write_text(SGD_SCRIPT)
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "slow_training"
    assert rep["root_causes"][0]["id"] == "lr_too_low"


def test_a_flat_loss_that_wanders_around_its_start_is_not_learning(tmp_path):
    train = [1.609 + (0.004 if i % 2 else -0.004) for i in range(10)]
    log = _epochs(tmp_path / "run.out", train, [1.61] * 10)
    assert _log_facts(log)["loss_creeping"] is False
    rep = _diagnose("--log", str(log))
    assert rep["symptom"]["id"] == "not_learning"


def test_a_training_loss_that_creeps_while_validation_rises_is_not_slow(tmp_path):
    """Memorising labels that mean nothing: the training loss creeps down, validation climbs."""
    train = [1.10 - 0.007 * i for i in range(12)]
    log = _epochs(tmp_path / "run.out", train, [1.08 + 0.004 * i for i in range(12)])
    f = _log_facts(log)
    assert f["loss_trend"] == "flat" and f["loss_creeping"] is False
    assert _diagnose("--log", str(log))["symptom"]["id"] != "slow_training"


def test_a_loss_that_fell_early_and_levelled_off_is_not_creeping(tmp_path):
    train = [1.10 - 0.08 * (1 - 0.5 ** i) for i in range(12)]     # falls 7%, all in the first epochs
    log = _epochs(tmp_path / "run.out", train, [t + 0.01 for t in train])
    f = _log_facts(log)
    # it learned a little and stopped: a plateau (the fell-then-flat reading), never creeping
    assert f["loss_trend"] == "plateaued" and not f.get("loss_creeping")
    assert _diagnose("--log", str(log))["symptom"]["id"] == "plateau"


def _steps(path, losses, val_every=10):
    """A per-step console log, validation (at the training loss's level) every ``val_every`` steps."""
    lines = []
    for i, v in enumerate(losses, 1):
        lines.append(f"step {i * 10} | loss {v:.4f}")
        if i % val_every == 0:
            lines.append(f"step {i * 10} | val_loss {v:.4f} | val_acc 0.80")
    path.write_text("\n".join(lines) + "\n")
    return path


def _swinging_but_falling():
    """A loss that falls 1.1 -> 0.55 while swinging more and more within each epoch of 8 steps."""
    out = []
    for i in range(80):
        swing = (0.02 + 0.004 * i) * (1 if (i // 4) % 2 else -1)
        out.append(1.1 - 0.007 * i + swing)
    return out


def test_sorted_rows_never_shuffled_read_with_a_falling_loss_are_unshuffled_data(tmp_path):
    """The curve alone looks like a run that learns; the code says the rows are sorted by label and
    the batching function is called with shuffle=False. The report names the order of the data,
    and the swings that grow as the symptom it shows."""
    script = tmp_path / "train.py"
    script.write_text(_case("rows_sorted_by_label_batched_by_an_own_function_without_shuffle"))
    log = _steps(tmp_path / "run.out", _swinging_but_falling())
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "unshuffled_data"
    assert rep["symptom"]["id"] == "instability"


def test_the_same_log_with_shuffled_batches_names_no_cause(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(_case("a_batching_function_shuffles_by_default"))
    log = _steps(tmp_path / "run.out", [1.1 * 0.97 ** i + 0.2 for i in range(80)])
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] == "healthy" and rep["root_causes"][0]["confidence"] < 0.5


def test_a_dataset_that_sleeps_per_item_under_a_learning_curve_is_training_slow(tmp_path):
    """The loss falls as a healthy run's does; the script's Dataset sleeps for every item with no
    loader workers. What is slow is the wall clock, not the curve: Training slow from data loading."""
    script = tmp_path / "train.py"
    script.write_text(_case("a_dataset_that_sleeps_for_every_item"))
    log = _steps(tmp_path / "run.out", [1.1 * 0.97 ** i + 0.2 for i in range(80)])
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["root_causes"][0]["id"] == "data_loading_bottleneck"
    assert rep["symptom"]["id"] == "slow_training"


def _val_every_epoch(path, train, val):
    """Training loss every step, validation once per epoch of len(train) // len(val) steps."""
    per = len(train) // len(val)
    lines = []
    for s, v in enumerate(train, 1):
        lines.append(f"step {s} | loss {v:.4f}")
        if s % per == 0:
            lines.append(f"epoch {s // per} | val_loss {val[s // per - 1]:.4f}")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_validation_stalled_far_above_a_falling_training_loss_is_overfitting(tmp_path):
    """Validation printed ten times, training 300: the training loss goes to 0.01 while validation
    stopped at 0.46 half-way through. No accuracy, no rise — still Train good, val bad."""
    import math
    train = [1.1 * math.exp(-s / 50) + 0.005 for s in range(1, 301)]
    log = _val_every_epoch(tmp_path / "run.out", train, [0.8, 0.6, 0.5, 0.47, 0.46, 0.46, 0.47, 0.46, 0.47, 0.47])
    rep = _diagnose("--log", str(log))
    assert rep["status"] != "healthy"
    assert rep["symptom"]["id"] == "overfitting"


def test_validation_that_tracks_a_falling_training_loss_stays_healthy(tmp_path):
    import math
    train = [1.1 * math.exp(-s / 50) + 0.3 for s in range(1, 301)]
    val = [1.1 * math.exp(-30 * e / 50) + 0.32 for e in range(1, 11)]
    rep = _diagnose("--log", str(_val_every_epoch(tmp_path / "run.out", train, val)))
    assert rep["status"] == "healthy"


BINARY_TWO_DRAWS = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    x = torch.randn(4096, 16)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).float()
    x, y = x[torch.randperm(len(x))], y[torch.randperm(len(y))]
    loader = DataLoader(TensorDataset(x, y), batch_size=512, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.005)
    crit = nn.BCEWithLogitsLoss()
    for epoch in range(8):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
    """)


def test_features_and_labels_shuffled_by_two_draws_name_corrupted_labels_under_a_flat_loss(tmp_path):
    """A flat binary loss at ln 2 says only "not learning"; the script shuffles the features and the
    labels with two separate permutations, so every row carries another row's label. The report
    names corrupted labels (the code's mechanism under the log's symptom), not undecided between it
    and a learning rate the script puts at an ordinary 5e-3."""
    script = tmp_path / "train.py"
    script.write_text(BINARY_TWO_DRAWS)
    train = [0.6931 + 0.0004 * ((-1) ** i) - 0.00005 * i for i in range(8)]
    log = _epochs(tmp_path / "run.out", train, [0.6940 + 0.0003 * i for i in range(8)])
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "corrupted_labels"


def test_inputs_the_script_puts_on_raw_scales_name_unnormalized_inputs_under_a_huge_first_loss(tmp_path):
    """The log shows a two-class loss that starts forty times above chance and sinks to chance; the
    code shows why: the inputs are unit draws put on raw units (an offset of 500 and a gain of 120)
    and handed to the TensorDataset as they are. Neither source alone decides between raw inputs and
    an oversized initialisation; together they name the inputs."""
    script = tmp_path / "train.py"
    script.write_text(_case("synthetic_inputs_put_on_raw_scales"))
    train = [28.0, 11.5, 6.1, 3.2, 1.6, 0.92, 0.74, 0.71, 0.70, 0.69]
    log = _epochs(tmp_path / "run.out", train, [t * 0.97 for t in train])
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "unnormalized_inputs"
