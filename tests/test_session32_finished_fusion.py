"""Code facts a finished run's diagnosis depends on (session 32, finish32).

What a user would notice: a script whose mechanism the code reader misread, so a finished run was given
a cause it does not have (or its real cause was hidden behind a wrong one).

- A mixture of class distributions weighted by routing probabilities (a soft decision tree, a mixture of
  experts: ``sigmoid gates * softmax leaves``, ``path_probs @ softmax(leaf_logits)``) is itself a
  distribution; its log is a log-probability, so ``F.nll_loss(torch.log(probs + eps), y)`` is the right
  pairing, not NLL on raw logits.
"""
from __future__ import annotations

import pytest
from conftest import diagnose_json

TREE = '''
import torch, torch.nn as nn, torch.nn.functional as F


class TwoLeafTree(nn.Module):
    def __init__(self, d, c):
        super().__init__()
        self.split = nn.Linear(d, {n_split})
        self.leaf_logits = nn.Parameter(torch.zeros({n_leaf}, c))

    def forward(self, x):
        p = torch.sigmoid(self.split(x))
        {mix}
        return probs


x = torch.randn(800, 6)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
model = TwoLeafTree(6, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for ep in range(8):
    perm = torch.randperm(800)
    for i in range(0, 800, 50):
        b = perm[i:i + 50]
        probs = model(x[b])
        loss = F.nll_loss(torch.log(probs + 1e-9), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
'''

#: the two leaves' distributions weighted elementwise by the gate and its complement
WEIGHTED = ("leaves = F.softmax(self.leaf_logits, dim=1)\n"
            "        probs = p * leaves[0] + (1 - p) * leaves[1]")
#: path probabilities (right / left) times the leaf distributions as one matrix product
MATMUL = ("paths = torch.cat([p, 1 - p], dim=1)\n"
          "        probs = paths @ F.softmax(self.leaf_logits, dim=1)")


def _report(tmp_path, text):
    p = tmp_path / "train.py"
    p.write_text(text)
    rep = diagnose_json("--code", str(p))
    return {f["fact"]: f["value"] for f in rep["facts"]}, [c["id"] for c in rep.get("root_causes") or []]


def test_gate_weighted_leaf_distributions_are_probabilities_under_their_log(tmp_path):
    facts, causes = _report(tmp_path, TREE.format(n_split=1, n_leaf=2, mix=WEIGHTED))
    assert facts.get("output_activation") == "log_softmax"
    assert causes[:1] != ["wrong_loss_function"]


def test_path_probabilities_times_leaf_distributions_are_probabilities(tmp_path):
    facts, causes = _report(tmp_path, TREE.format(n_split=1, n_leaf=2, mix=MATMUL))
    assert facts.get("output_activation") == "log_softmax"
    assert causes[:1] != ["wrong_loss_function"]


def test_attention_weights_over_raw_values_stay_unsquashed(tmp_path):
    # softmax weights times raw (unsquashed) leaf scores average the scores: no distribution comes out,
    # and the log of that is no log-probability: NLL on it is still NLL on raw outputs
    mix = ("w = F.softmax(self.split(x), dim=1)\n"
           "        probs = w @ self.leaf_logits")
    facts, _ = _report(tmp_path, TREE.format(n_split=2, n_leaf=2, mix=mix))
    assert facts.get("output_activation") == "none"


# A finished run whose script steps a per-epoch StepLR after every batch (the LR is at 1e-12 of its start
# within the first epoch), and whose console printed the LR once, in its header. One record of the LR says
# where it started, not where it went: the schedule's course is the code's.
SCHEDULED = '''
import torch, torch.nn as nn

EPOCHS, STEPS = 12, 40
x = torch.randn(2000, 8)
y = x @ torch.randn(8, 1)
model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.002)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
print("lr=0.002 batch=50")
for ep in range(EPOCHS):
    perm = torch.randperm(2000)
    for i in range(STEPS):
        b = perm[i * 50:(i + 1) * 50]
        loss = nn.functional.mse_loss(model(x[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    print(f"epoch {ep + 1} loss {loss.item():.4f}")
'''


def _flat_after_first_epoch_log() -> str:
    lines = ["lr=0.002 batch=50"]
    for ep in range(12):
        loss = 0.9 if ep == 0 else 0.7 + 0.004 * ((ep * 7) % 3)
        lines.append(f"epoch {ep + 1} loss {loss:.4f} val_loss {loss + 0.02:.4f}")
    return "\n".join(lines) + "\n"


def test_a_header_lr_is_no_course_the_codes_schedule_is(tmp_path):
    code, log = tmp_path / "train.py", tmp_path / "console.log"
    code.write_text(SCHEDULED)
    log.write_text(_flat_after_first_epoch_log())
    rep = diagnose_json("--code", str(code), "--log", str(log))
    facts = {f["fact"]: f for f in rep["facts"]}
    assert facts["lr_collapse_fraction"]["source"].startswith("code")
    assert facts["lr_collapse_fraction"]["value"] < 0.1
    assert [c["id"] for c in rep["root_causes"]][:1] == ["lr_schedule_collapse"]


# A finished run whose curve reads healthy (the loss falls steadily, validation follows) while its script shows
# a mechanism decisive on its own: every weight drawn with std 2, many times torch's fan-in scale.
# A milder finding (Adam at 1e-2, above its usual range but common in working scripts) leaves the run healthy.
CUT = '''
import torch, torch.nn as nn

x = torch.randn(1200, 10)
y = (x[:, :3].sum(1) > 0).long()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 2)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std={std})

    def forward(self, inp):
        return self.head(self.body(inp))


model = Net()
opt = torch.optim.Adam(model.parameters(), lr={lr})
for ep in range(15):
    perm = torch.randperm(1000)
    for i in range(0, 1000, 50):
        b = perm[i:i + 50]
        loss = nn.functional.cross_entropy(model(x[b]), y[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        val = nn.functional.cross_entropy(model(x[1000:]), y[1000:])
    print(f"epoch {{ep + 1}} loss {{loss.item():.4f}} val_loss {{val.item():.4f}}")
'''


def _healthy_log() -> str:
    return "".join(f"epoch {ep + 1} loss {0.69 * 0.86 ** ep:.4f} val_loss {0.70 * 0.87 ** ep + 0.01:.4f}\n"
                   for ep in range(15))


def _finished(tmp_path, std: str, lr: str) -> dict:
    code, log = tmp_path / "train.py", tmp_path / "console.log"
    code.write_text(CUT.format(std=std, lr=lr))
    log.write_text(_healthy_log())
    return diagnose_json("--code", str(code), "--log", str(log))


def test_a_decisive_mechanism_in_the_script_is_named_over_a_healthy_looking_curve(tmp_path):
    rep = _finished(tmp_path, "2.0", "1e-3")
    assert rep["status"] == "diagnosed"
    assert rep["root_causes"][0]["id"] == "bad_initialization"


def test_a_mild_finding_over_a_healthy_curve_stays_healthy(tmp_path):
    rep = _finished(tmp_path, "0.05", "1e-2")
    assert rep["status"] == "healthy"


@pytest.mark.parametrize("text", [
    "is this normal? my validation loss stays below the training loss. I use early stopping, the lr is 8e-7",
    "is it fine that val loss is lower than train loss? dropout 0.5, lr 5e-7, adam",
])
def test_a_run_the_user_calls_fine_is_not_overruled_by_an_lr_they_typed(text):
    # the override names a mechanism the code, a log or a probe shows; a quoted LR alone is the person's words
    from traindx.engine.api import Session
    from traindx.engine.loader import load_kb
    from traindx.engine.report import build_report
    s = Session(load_kb(entry_point_packs=False))
    s.add_complaint(text)
    r = build_report(s)
    assert r["status"] == "healthy"
