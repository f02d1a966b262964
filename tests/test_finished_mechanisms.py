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
    """A per-step console log, validation (near the training loss's level, not its very number: that would be
    a validation pass over the training data) every ``val_every`` steps."""
    lines = []
    for i, v in enumerate(losses, 1):
        lines.append(f"step {i * 10} | loss {v:.4f}")
        if i % val_every == 0:
            lines.append(f"step {i * 10} | val_loss {v * 1.04 + 0.01:.4f} | val_acc 0.80")
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


HETEROSCEDASTIC_NLL = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    x = torch.randn(3000, 8)
    y = x[:, :1] * 2.0 + torch.randn(3000, 1) * (0.5 + x[:, 1:2].abs())
    loader = DataLoader(TensorDataset(x[:2400], y[:2400]), batch_size=128, shuffle=True)
    model = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def gaussian_nll(out, target):
        mu, log_var = out[:, :1], out[:, 1:]
        return (0.5 * (log_var + (target - mu) ** 2 / log_var.exp()) + 0.9189).mean()

    for epoch in range(20):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = gaussian_nll(model(xb), yb)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            val = gaussian_nll(model(x[2400:]), y[2400:]).item()
        print(f"epoch {epoch + 1} | train_nll {loss.item():.4f} | val_nll {val:.4f}")
    """)


def _nll_run(tmp_path, val):
    """A Gaussian NLL (a loss on an offset: its floor is the data's entropy, not zero) that falls
    from 2.41 to ~2.12 (12 %) and levels off with small wiggles, beside ``val``."""
    train = [2.41, 2.30, 2.22, 2.17, 2.145, 2.133, 2.128, 2.124, 2.121, 2.123,
             2.119, 2.121, 2.118, 2.120, 2.117, 2.119, 2.118, 2.116, 2.118, 2.117]
    log = tmp_path / "run.out"
    log.write_text("".join(f"epoch {i + 1} | train_nll {t:.4f} | val_nll {v:.4f}\n"
                           for i, (t, v) in enumerate(zip(train, val))))
    script = tmp_path / "train.py"
    script.write_text(HETEROSCEDASTIC_NLL)
    return script, log


SETTLED_VAL = [2.52, 2.40, 2.33, 2.29, 2.27, 2.262, 2.258, 2.255, 2.251, 2.254,
               2.250, 2.247, 2.252, 2.249, 2.253, 2.250, 2.251, 2.249, 2.252, 2.250]


def test_a_validation_loss_ending_within_its_noise_of_a_mid_run_minimum_is_at_its_best(tmp_path):
    """The lowest validation value (2.247) comes at 60 % of the run, but every later one lies within
    a couple of the loss's own moves between evaluations of it: settled at its best, not turned."""
    _, log = _nll_run(tmp_path, SETTLED_VAL)
    f = _log_facts(log)
    assert f["best_val_fraction"] < 0.9
    assert f["val_at_best"] is True


def test_a_validation_loss_that_turned_up_by_many_of_its_moves_is_not_at_its_best(tmp_path):
    val = SETTLED_VAL[:10] + [2.252, 2.256, 2.262, 2.266, 2.271, 2.276, 2.282, 2.287, 2.292, 2.298]
    _, log = _nll_run(tmp_path, val)
    assert "val_at_best" not in _log_facts(log)


def test_a_hand_written_nll_that_fell_a_small_share_of_its_offset_and_settled_is_healthy(tmp_path):
    """12 % off a Gaussian NLL is no small fall: the loss sits on the data's entropy, which no share
    of the first value can see. Measured in its own noise the fall is dozens of bands, the LR is
    held (no scheduler in the script) and validation ends at its best: a converged run, not a
    plateau with missing LR decay."""
    script, log = _nll_run(tmp_path, SETTLED_VAL)
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] == "healthy", (rep["status"], rep.get("symptom"))


def test_the_same_small_share_of_a_cross_entropy_stays_a_plateau(tmp_path):
    """The same curve under a cross-entropy, whose floor is zero, lost only 12 % of it and stopped:
    a plateau, whatever validation does."""
    script, log = _nll_run(tmp_path, SETTLED_VAL)
    ce = "loss = nn.functional.cross_entropy(model(xb), yb.long().squeeze(1))"
    script.write_text(HETEROSCEDASTIC_NLL.replace("loss = gaussian_nll(model(xb), yb)", ce))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] != "healthy"
    assert rep["symptom"]["id"] == "plateau"


def _pace(trend):
    from traindx.engine.evidence import Finding
    from traindx.engine.loader import load_kb
    from traindx.probes.readers.curves import Curve, CurveAnalysis
    from traindx.probes.readers.pace import pace_facts
    xs = list(range(1, 61))
    ys = [1.0 - 0.2 * (x - 1) / 59 for x in xs]
    a = CurveAnalysis(path="run.out", name="run.out", x_label="step")
    a.curves["loss"] = Curve("loss", "loss", xs, ys, ys, ys)
    found = pace_facts(a, [Finding("loss_trend", trend, "log:run.out", "")], load_kb().params())
    return {f.fact: f.value for f in found}


def test_a_loss_levelled_off_beyond_its_noise_is_never_read_as_falling_slowly():
    """The same sixth-medians (20 % off, 6.7 % of it in the last third, no deceleration) are Training
    slow while the curve reader finds the loss still decreasing, and not once it found the last
    stretch taking nothing off beyond its own noise (a noisy per-batch ranking loss that levelled)."""
    assert _pace("decreasing")["loss_pace"] == "slow"
    assert _pace("plateaued")["loss_pace"] == "normal"


BUDGET_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    x = torch.randn(2000, 16)
    y = ((x[:, 0] + 0.8 * torch.randn(2000)) > 0).float()
    loader = DataLoader(TensorDataset(x[:1600], y[:1600]), batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    {freeze}opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.BCEWithLogitsLoss()
    for epoch in range(12):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb).squeeze(1), yb)
            loss.backward()
            opt.step()
    """)
# a binary loss still falling steadily at the end, 31 % off ln 2, validation falling with it
STILL_FALLING = [0.693 - 0.018 * i for i in range(12)]


def _budget_run(tmp_path, freeze=""):
    log = _epochs(tmp_path / "run.out", STILL_FALLING, [t + 0.01 for t in STILL_FALLING])
    script = tmp_path / "train.py"
    script.write_text(BUDGET_SCRIPT.format(freeze=freeze))
    return log, script


def test_a_run_stopped_while_both_losses_still_fall_under_a_plain_script_is_healthy(tmp_path):
    """Little fallen and not decelerating reads slow on the curve, but a binary loss never reaches
    zero and nothing in the script slows learning: the budget ended, the run is fine."""
    log, script = _budget_run(tmp_path)
    assert _log_facts(log)["loss_pace"] == "slow"
    assert _diagnose("--code", str(script), "--log", str(log))["status"] == "healthy"


def test_the_same_curve_without_the_script_stays_training_slow(tmp_path):
    log, _ = _budget_run(tmp_path)
    assert _diagnose("--log", str(log))["symptom"]["id"] == "slow_training"


def test_the_same_curve_under_a_script_that_freezes_the_first_layer_is_training_slow(tmp_path):
    log, script = _budget_run(tmp_path, freeze="for p in model[0].parameters():\n    p.requires_grad = False\n")
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "slow_training"
    assert rep["root_causes"][0]["id"] == "frozen_parameters"


# the same steady fall, but only 21 % off ln 2 by the end: still creeping, less fallen than a settled run
STILL_HIGH = [0.693 - 0.013 * i for i in range(12)]


def test_a_loss_still_creeping_high_above_its_start_under_a_plain_script_is_not_healthy(tmp_path):
    """Both losses still falling at the end, but the loss has lost less of its start than a settled
    run has: a run stuck high and creeping (or slowed), not a budget cut short."""
    log = _epochs(tmp_path / "run.out", STILL_HIGH, [t + 0.01 for t in STILL_HIGH])
    script = tmp_path / "train.py"
    script.write_text(BUDGET_SCRIPT.format(freeze=""))
    facts = _log_facts(log)
    assert facts["loss_pace"] == "slow" and facts["loss_trend"] == "decreasing"
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] != "healthy"
    assert rep["symptom"]["id"] == "slow_training"


HALF_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    x, y = torch.randn(512, 4), torch.randn(512, 1)
    model = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2)).half(){cast}
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for step in range(200):
        i = torch.randint(0, 512, (64,))
        out = model(x[i].half())
        mu, log_sigma = out[:, :1], out[:, 1:]
        loss = (log_sigma + 0.5 * ((y[i].half() - mu) / torch.exp(log_sigma)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    """)


def _nan_log(path):
    path.write_text("".join(f"step {s:4d}  loss {v}\n" for s, v in
                            zip(range(10, 160, 10), [1.31, 1.12, 0.97, 0.88, 0.81, "nan", "nan", "nan", "nan",
                                                     "nan", "nan", "nan", "nan", "nan", "nan"])))
    return path


def test_an_exp_in_a_loss_computed_in_float16_that_turns_nan_names_fp16_overflow(tmp_path):
    """exp overflows float16 from about exp(11): the exp a float32 run survives is the
    precision's overflow, not only unsafe math."""
    script = tmp_path / "train.py"
    script.write_text(HALF_SCRIPT.format(cast=""))
    rep = _diagnose("--code", str(script), "--log", str(_nan_log(tmp_path / "run.out")))
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] == "fp16_overflow"


def test_the_same_loss_in_bfloat16_names_the_unsafe_exp(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(HALF_SCRIPT.format(cast="").replace(".half()", ".bfloat16()"))
    rep = _diagnose("--code", str(script), "--log", str(_nan_log(tmp_path / "run.out")))
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] == "numerical_instability"


DEEP_SIGMOID_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    N_CLASSES, DEPTH = 4, {depth}
    x, y = torch.randn(1024, 16), torch.randint(0, N_CLASSES, (1024,))
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    layers = [nn.Linear(16, 64), nn.Sigmoid()]
    for _ in range(DEPTH - 1):
        layers += [nn.Linear(64, 64), nn.Sigmoid()]
    model = nn.Sequential(*layers, nn.Linear(64, N_CLASSES))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    for epoch in range(12):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
    """)


def _flat_at_ln4(path):
    train = [1.386 + (0.003 if i % 2 else -0.003) for i in range(12)]
    return _epochs(path, train, [1.387 + (0.002 if i % 3 else -0.002) for i in range(12)])


def test_a_flat_loss_under_ten_stacked_sigmoid_layers_names_vanishing_gradients(tmp_path):
    """Ten Sigmoid layers built in a loop (each passes at most a quarter of the gradient) and a loss
    flat at ln 4: the gradient vanished before reaching the first layers."""
    script = tmp_path / "train.py"
    script.write_text(DEEP_SIGMOID_SCRIPT.format(depth=10))
    rep = _diagnose("--code", str(script), "--log", str(_flat_at_ln4(tmp_path / "run.out")))
    assert rep["symptom"]["id"] == "not_learning"
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "vanishing_gradients"


def test_the_same_flat_loss_under_two_sigmoid_layers_does_not_name_vanishing_gradients(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(DEEP_SIGMOID_SCRIPT.format(depth=2))
    rep = _diagnose("--code", str(script), "--log", str(_flat_at_ln4(tmp_path / "run.out")))
    assert rep["symptom"]["id"] == "not_learning"
    named = rep["root_causes"][0]["id"] if rep["status"] == "diagnosed" and rep["root_causes"] else None
    assert named != "vanishing_gradients"


def test_a_margin_loss_with_a_small_reconstruction_mse_is_no_regression_loss_on_classes(tmp_path):
    """A capsule-style classifier trained on a margin loss plus 0.0005 x a reconstruction MSE: the
    MSE compares the decoder's output with the input, not with the classes, so a run whose loss falls
    and whose validation follows is healthy, not a wrong loss function."""
    script = tmp_path / "train.py"
    script.write_text(_case("a_margin_loss_plus_a_small_reconstruction_mse_is_hand_written"))
    train = [0.62 * 0.8 ** i + 0.05 for i in range(10)]
    log = _epochs(tmp_path / "run.out", train, [t + 0.01 for t in train])
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["status"] == "healthy"
    assert not any(c["id"] == "wrong_loss_function" and c["confidence"] >= 0.5 for c in rep["root_causes"])


RAW_SCALE_SCRIPT = textwrap.dedent("""\
    import torch, torch.nn as nn
    from torch.utils.data import DataLoader, TensorDataset
    torch.manual_seed(0)
    x = {inputs}
    y = torch.randn(2000, 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model = nn.Sequential(nn.Linear(6, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.MSELoss()
    for epoch in range(24):
        for xb, yb in loader:
            opt.zero_grad()
            loss = crit(model(xb), yb)
            loss.backward()
            opt.step()
        print(f"epoch {{epoch + 1}} loss {{loss.item():.4f}}")
    """)


def _stalled_early(path):
    """A loss that falls over the first three epochs, then wanders at one level for the other 17."""
    train = [1.52, 1.35, 1.31, 1.311, 1.319, 1.314, 1.320, 1.321, 1.307, 1.305, 1.326, 1.311, 1.311,
             1.330, 1.317, 1.326, 1.317, 1.321, 1.309, 1.321]
    val = [1.370, 1.367, 1.380, 1.371, 1.369, 1.378, 1.379, 1.366, 1.366, 1.366, 1.368, 1.365, 1.365,
           1.381, 1.373, 1.398, 1.381, 1.392, 1.382, 1.395]
    return _epochs(path, train, val)


def test_a_loss_stalled_early_on_inputs_in_the_thousands_names_unnormalized_inputs(tmp_path):
    """Raw features in physical units (hundreds to thousands) through tanh layers: the loss falls a
    little, then stalls under a constant LR. Read as a plateau, the raw inputs explain it; a missing LR
    decay (the plateau's most common cause) does not, and must not lead."""
    log = _stalled_early(tmp_path / "run.out")
    script = tmp_path / "train.py"
    script.write_text(RAW_SCALE_SCRIPT.format(inputs="300 + 1500 * torch.rand(2000, 6)"))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "plateau"
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "unnormalized_inputs"


def test_the_same_stalled_loss_on_standardised_inputs_does_not_name_unnormalized_inputs(tmp_path):
    log = _stalled_early(tmp_path / "run.out")
    script = tmp_path / "train.py"
    script.write_text(RAW_SCALE_SCRIPT.format(inputs="torch.randn(2000, 6)"))
    rep = _diagnose("--code", str(script), "--log", str(log))
    assert rep["symptom"]["id"] == "plateau"
    assert "unnormalized_inputs" not in [c["id"] for c in rep["root_causes"][:1]]
