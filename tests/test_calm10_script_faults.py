"""Faults that first-run scripts (s210-s225) showed and traindx missed (issue 12, session 14).

What a user would notice:
- a meta-learner whose LSTM cells sit in a plain Python list (99% of its weights never trained)
  was blamed on exploding gradients: the share of the model's weights that are in no param group
  now counts (params_not_in_optimizer_share), not only that some are missing;
- a log whose only loss column is named with a qualifier (``meta_loss``) was refused with exit 2
  ("no loss, accuracy or other known metric"): such a column is now read as the loss when nothing
  else is a metric;
- a seq2seq at SGD 0.5 whose gradient norm grew ~2000-fold and whose loss never came back read as
  mere instability/lr_too_high: a thousandfold growth of the gradient norm over its start
  (grad_norm_blowup) is the Explosion symptom and exploding gradients;
- a network whose output ReLU died (every gradient exactly zero, the loss flat at the all-zero
  prediction) was called healthy "at its data's floor": exact-zero gradients are no floor;
- a double-softmax classifier at 76% training accuracy with a flat loss well below chance was
  called Not Learning: a flat loss beside a learned accuracy is a plateau.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402
from traindx.engine.api import diagnose  # noqa: E402
from traindx.engine.errors import InputError  # noqa: E402
from traindx.probes.live import gradients as G  # noqa: E402
from traindx.probes.readers.logs import read_log  # noqa: E402
from traindx.probes.readers.words import log_words  # noqa: E402

match_role = log_words().match_role   # the shipped knowledge base's vocabulary


# ------------------------------------------------------------------ layers in a plain list

class _ListNet(torch.nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        self.inp = torch.nn.Linear(2, width)
        self.blocks = [torch.nn.Linear(width, width) for _ in range(depth)]   # not registered
        self.out = torch.nn.Linear(width, 1)

    def forward(self, x):
        x = torch.tanh(self.inp(x))
        for b in self.blocks:
            x = torch.tanh(b(x))
        return self.out(x)


def _watch_list_net(steps=30):
    torch.manual_seed(0)
    model = _ListNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(128, 2), torch.randn(128, 1)
    with tp.watch(model, opt, experiments=False) as w:
        for step in range(steps):
            xb, yb = x[(step * 16) % 128:(step * 16) % 128 + 16], y[(step * 16) % 128:(step * 16) % 128 + 16]
            out = model(xb)
            loss = ((out - yb) ** 2).mean()
            w.observe(loss, out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}


def test_the_share_of_weights_missing_from_the_optimizer_is_measured():
    found = _watch_list_net()
    assert found["params_not_in_optimizer"].value           # the hidden blocks
    share = found["params_not_in_optimizer_share"].value
    assert 0.8 < share < 1.0                                 # 3 x 32x32 blocks against two thin layers


def test_most_of_the_model_missing_outranks_swinging_gradients():
    """s213's measured facts: a per-unroll meta loss that swings, a large gradient norm, and 99% of
    the weights in no param group."""
    facts = {"params_not_in_optimizer": ["lstms[0].ih.weight", "lstms[0].hh.weight"],
             "params_not_in_optimizer_share": 0.99, "loss_trend": "oscillating", "loss_spikes": 101,
             "oscillation_trend": "shrinking", "grad_norm_max": 7589.0, "grad_norm_trend": "steady",
             "learning_rate": 0.001, "optimizer": "adam", "loss_function": "custom", "initial_loss": 52.9,
             "current_loss": 12.9, "loss_decrease_fraction": 0.76}
    top = diagnose(facts)["root_causes"][0]
    assert top["id"] == "params_not_in_optimizer" and top["confidence"] >= 0.5
    few = diagnose({**facts, "params_not_in_optimizer_share": 0.01})["root_causes"][0]
    assert few["id"] != "params_not_in_optimizer" or few["confidence"] < top["confidence"]


# ------------------------------------------------------------------ a qualified loss column

def test_a_qualified_loss_column_is_read_as_the_loss(tmp_path):
    p = tmp_path / "metrics.csv"
    p.write_text("epoch,meta_loss,final_f\n" + "".join(f"{e},{5.0 / (e + 1):.4f},{1.0 / (e + 1):.4f}\n"
                                                         for e in range(12)))
    log = read_log(str(p))
    assert log.columns["loss"] == "meta_loss"
    v = tmp_path / "v.csv"
    v.write_text("step,val_recon_loss\n" + "".join(f"{s},{1.0 / (s + 1):.4f}\n" for s in range(12)))
    assert read_log(str(v)).columns == {"val_loss": "val_recon_loss"}


def test_a_qualified_loss_never_displaces_a_plain_metric_or_an_rl_log(tmp_path):
    assert match_role("kd_loss") is None                     # alone it is still no known name
    p = tmp_path / "m.csv"
    p.write_text("epoch,acc,aux_loss\n" + "".join(f"{e},{0.5 + e / 40:.3f},{1.0 / (e + 1):.4f}\n" for e in range(12)))
    assert "loss" not in read_log(str(p)).columns            # an accuracy is there: the aux loss stays a side column
    rl = tmp_path / "rl.csv"
    rl.write_text("episode,reward,policy_loss,value_loss\n" + "".join(f"{e},{e},{0.1},{0.2}\n" for e in range(12)))
    with pytest.raises(InputError, match="reinforcement"):
        read_log(str(rl))
    amp = tmp_path / "amp.csv"
    amp.write_text("step,loss_scale\n" + "".join(f"{s},65536\n" for s in range(12)))
    with pytest.raises(InputError, match="no loss"):
        read_log(str(amp))


# ------------------------------------------------------------------ gradients that blew up

def test_grad_norm_blowup_is_measured_against_the_first_steps():
    series = [1.9, 2.0, 1.8, 1.9, 2.1, 1.9, 2.0, 1.9, 1.8, 2.0, 2.2, 3700.0, 150.0, 120.0]
    assert G.grad_norm_blowup(series, 10) == pytest.approx(3700.0 / 1.9)
    assert G.grad_norm_blowup(series[:10], 10) is None       # nothing after the start yet


S221 = {"loss_trend": "diverging", "initial_loss": 84.0, "current_loss": 3159.0, "loss_spikes": 1,
        "loss_blowup": 55.9, "loss_decrease_fraction": -36.6, "grad_norm_max": 3670.0, "grad_norm_median": 145.0,
        "grad_norm_trend": "growing", "learning_rate": 0.5, "optimizer": "sgd", "loss_function": "cross_entropy",
        "num_classes": 30, "init_constant": False, "oscillation_trend": "steady", "exp_lr_down": "refutes",
        "exp_clip": "refutes", "output_activation": "none", "train_accuracy": 0.036}


def test_a_thousandfold_gradient_growth_is_an_explosion_of_the_gradients():
    r = diagnose({**S221, "grad_norm_blowup": 1900.0})
    assert r["symptom"]["id"] == "explosion"
    assert r["root_causes"][0]["id"] == "exploding_gradients"
    r0 = diagnose({**S221, "grad_norm_blowup": 30.0})
    assert r0["symptom"]["id"] == "instability"


# ------------------------------------------------------------------ exact-zero gradients, flat loss

S217 = {"loss_trend": "plateaued", "grads_all_zero": True, "lr_decay_helps": False, "loss_function": "mse",
        "initial_loss": 0.000676, "current_loss": 0.000603, "loss_decrease_fraction": 0.108,
        "val_loss_trend": "flat", "lr_final_ratio": 1.0, "optimizer": "adam", "learning_rate": 0.001,
        "output_activation": "none", "grad_norm_median": 0.0, "grad_norm_max": 0.02, "outputs_all_zero": True}


def test_exact_zero_gradients_are_not_a_data_floor():
    r = diagnose(S217)
    assert r["status"] != "healthy" and r["symptom"]["id"] == "not_learning"
    assert r["root_causes"][0]["id"] == "dead_relu"
    assert diagnose({**S217, "grads_all_zero": False, "outputs_all_zero": False})["status"] == "healthy"


def test_a_dead_output_relu_is_measured_live():
    torch.manual_seed(0)
    head = torch.nn.Linear(8, 1)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), head, torch.nn.ReLU())
    with torch.no_grad():
        head.bias.fill_(-100.0)                              # the output ReLU is dead for every input
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(64, 4), torch.rand(64, 1) * 1e-3
    with tp.watch(model, opt, experiments=False) as w:
        for step in range(20):
            out = model(x[(step * 8) % 64:(step * 8) % 64 + 8])
            loss = torch.nn.functional.mse_loss(out, y[(step * 8) % 64:(step * 8) % 64 + 8])
            w.observe(loss, out, y[(step * 8) % 64:(step * 8) % 64 + 8])
            opt.zero_grad()
            loss.backward()
            opt.step()
    found = {f.fact: f for f in w.findings()}
    assert found["outputs_all_zero"].value is True and found["grads_all_zero"].value is True


def test_a_flat_loss_beside_a_learned_accuracy_is_a_plateau():
    facts = {"loss_trend": "flat", "initial_loss": 1.70, "current_loss": 1.59, "num_classes": 10,
             "loss_decrease_fraction": 0.06, "train_accuracy": 0.76, "output_activation": "softmax",
             "loss_function": "cross_entropy"}
    r = diagnose(facts)
    assert r["symptom"]["id"] == "plateau" and r["root_causes"][0]["id"] == "double_softmax"
    assert diagnose({**facts, "train_accuracy": 0.12, "current_loss": 2.29})["symptom"]["id"] == "not_learning"
