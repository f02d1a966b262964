"""Faults that first-run scripts (s193-s209) showed and traindx missed (issue 12, session 13).

What a user would notice:
- a validation step that applies softmax before the same CrossEntropyLoss the training step feeds
  raw logits: the validation loss stalls far above 0 while accuracy is fine, and traindx blamed
  overfitting (probe:output_squash now reads what reaches the *validation* loss too:
  val_double_squash);
- a loop that makes each batch in Python (no DataLoader) and spends most of each step doing so read
  no symptom at all (probe:data_timing now times the gap from each optimizer step to the next
  training forward when there is no DataLoader; a model's own Python overhead on a tiny step is
  not counted: data_timing.host_gap_min_s);
- an unfreeze written `if p.requires_grad: p.requires_grad = flag` skips exactly the frozen
  parameters (code:model unfreeze_guarded; tests/code_cases/ has the scripts);
- a predicted symptom never contradicts the run: with the validation loss still falling, a
  train/eval mode misuse is predicted to show as instability, not overfitting.
"""

from __future__ import annotations

import time

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402
from traindx.engine.api import diagnose  # noqa: E402
from traindx.probes.live import timing as T  # noqa: E402


def _classifier(val_softmax: bool, steps=40):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    crit = torch.nn.CrossEntropyLoss()
    x, y = torch.randn(256, 8), torch.randint(0, 3, (256,))
    with tp.watch(model, opt, criterion=crit, experiments=False) as w:
        for step in range(steps):
            xb, yb = x[(step * 32) % 256:(step * 32) % 256 + 32], y[(step * 32) % 256:(step * 32) % 256 + 32]
            out = model(xb)
            loss = crit(out, yb)
            w.observe(loss, out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 9:
                model.eval()
                with torch.no_grad():
                    vo = model(x[:64])
                    vo = torch.softmax(vo, dim=1) if val_softmax else vo
                    w.observe(crit(vo, y[:64]), vo, y[:64])
                model.train()
    return {f.fact: f for f in w.findings()}


def test_a_softmax_in_the_validation_step_alone_is_a_double_squash():
    found = _classifier(val_softmax=True)
    assert found["val_double_squash"].value is True
    assert found["output_activation"].value == "none"     # the training path is right
    assert _classifier(val_softmax=False)["val_double_squash"].value is False


def test_the_validation_double_squash_names_double_softmax():
    facts = {"val_double_squash": True, "output_activation": "none", "loss_function": "cross_entropy",
             "loss_trend": "plateaued", "val_loss_trend": "flat", "train_accuracy": 0.88, "val_accuracy": 0.81,
             "loss_decrease_fraction": 0.73, "lr_final_ratio": 1.0}
    assert diagnose(facts)["root_causes"][0]["id"] == "double_softmax"
    assert diagnose({**facts, "val_double_squash": False})["root_causes"][0]["id"] != "double_softmax"


def _host_loop(make_batch_s: float, steps=14):
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with tp.watch(model, opt, experiments=False) as w:
        for _ in range(steps):
            time.sleep(make_batch_s)              # the script makes its batch in Python
            xb, yb = torch.randn(16, 8), torch.randn(16, 2)
            loss = ((model(xb) - yb) ** 2).mean()
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}


def test_a_batch_made_in_python_between_steps_is_data_time():
    f = _host_loop(0.03)["data_time_fraction"]
    assert f.value >= 0.5
    assert "no DataLoader" in f.detail
    # a tiny step's own overhead is no bottleneck: no fraction is read at all
    assert "data_time_fraction" not in _host_loop(0.0)


def test_host_gap_fraction_needs_steps_and_a_real_gap():
    p = {"data_timing.min_steps": 3, "data_timing.host_gap_min_s": 0.01}
    assert T.host_gap_fraction([0.2, 0.2, 0.2], [0.3, 0.3, 0.3], p) == pytest.approx(2 / 3)
    assert T.host_gap_fraction([0.2, 0.2], [0.3, 0.3], p) is None
    assert T.host_gap_fraction([0.001] * 5, [0.002] * 5, p) is None


def test_one_step_the_machine_preempted_does_not_make_a_data_bottleneck():
    # nine steps of a 15 ms step with a 1 ms batch slice, one of them stalled 150 ms between the
    # optimizer step and the next forward (another process had the core): the script's own share
    # is still ~7%, not the 0.6 a ratio of sums would read
    p = {"data_timing.min_steps": 3, "data_timing.host_gap_min_s": 0.0005}
    gaps = [0.001] * 8 + [0.15]
    steps = [0.015] * 8 + [0.165]
    assert sum(gaps) / sum(steps) > 0.5
    assert T.host_gap_fraction(gaps, steps, p) < 0.1
    # a batch made in Python on every step stays a bottleneck
    assert T.host_gap_fraction([0.03] * 8 + [0.2], [0.04] * 8 + [0.21], p) > 0.7


def test_a_predicted_symptom_is_not_overfitting_while_validation_improves():
    facts = {"model_mode_in_training": "eval", "model_mode_in_validation": "eval", "loss_trend": "decreasing",
             "loss_decrease_fraction": 0.9, "val_loss_trend": "decreasing", "train_accuracy": 0.977,
             "val_accuracy": 0.98, "model_has_dropout_or_bn": True}
    r = diagnose(facts)
    assert r["root_causes"][0]["id"] == "train_eval_mode_mismatch"
    assert r["symptom"]["id"] == "instability"


def test_a_training_loss_levelled_under_a_ramped_weight_reads_healthy():
    facts = {"loss_weights_scheduled": True, "loss_trend": "plateaued", "loss_decrease_fraction": 0.35,
             "lr_final_ratio": 1.0, "optimizer": "adam", "learning_rate": 1.5e-4, "custom_loss": True}
    assert diagnose(facts)["status"] == "healthy"
    assert diagnose({**facts, "loss_weights_scheduled": False})["symptom"]["id"] == "plateau"


#: what the live run of s198 measured (benchmarks/scenarios/s198.py: a guarded unfreeze leaves the
#: encoder frozen; the head alone creeps down while the validation loss is flat)
_S198 = {
    'amp_dtype': 'float32', 'batch_label_purity': 0.1891, 'batch_size': 64, 'best_val_fraction': 1.0,
    'current_loss': 1.4034, 'custom_loss': False, 'dropout_p': 0.0, 'frozen_params': [],
    'grad_accumulates': False, 'grad_norm_max': 2.0199, 'grad_norm_median': 1.2236, 'grad_norm_trend': 'steady',
    'grad_scaler_used': False, 'grads_all_zero': False, 'grads_have_nan': False, 'graph_cut': False,
    'init_constant': False, 'initial_loss': 1.7555, 'input_scale': 3.5203, 'input_scale_spread': 11.4084,
    'inputs_have_nan': False, 'label_smoothing': 0.0, 'labels_constant': False, 'learning_rate': 0.005,
    'loss_decrease_fraction': 0.2006, 'loss_function': 'cross_entropy', 'loss_has_nonfinite': False,
    'loss_negative': False, 'loss_noise': 0.0663, 'loss_shape_mismatch': False, 'loss_spikes': 0,
    'loss_trend': 'decreasing', 'lr_collapse_fraction': 1.0, 'lr_decay_helps': False, 'lr_final_ratio': 1.0,
    'model_has_dropout_or_bn': False, 'model_mode_in_training': 'train', 'model_mode_in_validation': 'train',
    'nan_grad_params': [], 'num_classes': 8, 'optimizer': 'adam', 'optimizer_not_zeroed': False,
    'output_activation': 'none', 'output_range_max': 4.6445, 'params_not_in_optimizer': [],
    'params_without_grad': [], 'regularization': [], 'scheduler_step_per_batch': False, 'shuffle': True,
    'step_time_trend': 'steady', 'target_kind': 'class_indices', 'task_type': 'classification',
    'train_accuracy': 0.5437, 'train_loss': 1.4115, 'unfreeze_guarded': True, 'unsafe_math': [],
    'update_ratio': 0.0074, 'uses_amp': False, 'val_accuracy': 0.48, 'val_double_squash': False,
    'val_loss': 1.4878, 'val_loss_trend': 'flat', 'weight_decay': 0.0, 'zero_grad_called': True,
}


def test_a_predicted_symptom_is_not_training_slow_while_validation_is_flat():
    r = diagnose(_S198)
    assert r["root_causes"][0]["id"] == "frozen_parameters"
    assert r["symptom"]["id"] == "plateau"
    assert diagnose({**_S198, "unfreeze_guarded": False})["status"] == "healthy"


def test_a_cosine_run_that_levelled_at_mid_run_answers_the_lr_decay_question_itself():
    import math

    from traindx.probes.readers.curves import decayed_through_plateau

    lrs = [(s, 0.15 * (1 + math.cos(math.pi * s / 720))) for s in range(720)]
    assert decayed_through_plateau(lrs, 361) is not None       # levelled at 0.497 of the peak, then cut to ~0
    assert decayed_through_plateau(lrs, 600) is None           # levelled once the LR was mostly gone
