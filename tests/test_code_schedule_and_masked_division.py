"""Code and console modes on two classes of scripts written without traindx in mind:

- a geometric LR schedule (StepLR / ExponentialLR) stepped every epoch of a counted loop: the code
  alone says where the LR ends, so a schedule that sits below 1% of its start for most of the run
  ranks lr_schedule_collapse first before the run is seen, and a console log whose LR column shows the
  same thing does too; a standard step decay at two thirds of the run is not blamed;
- a masked mean (a loss divided by the count a data mask keeps) is no unsafe division: a padded
  sequence model whose loss blew up is not read as numerical instability because of it.
"""
from conftest import diagnose_json

HALVING_EVERY_EPOCH = '''
import torch, torch.nn as nn
hp = dict(lr=2e-3, lr_every=1, lr_factor=0.5, epochs=20)
enc = nn.Sequential(nn.Linear(12, 48), nn.GELU(), nn.Linear(48, 12))
opt = torch.optim.Adam(enc.parameters(), lr=hp["lr"])
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=hp["lr_every"], gamma=hp["lr_factor"])
data = torch.randn(400, 12)
for ep in range(hp["epochs"]):
    for b in range(0, 400, 40):
        batch = data[b:b + 40]
        loss = ((enc(batch) - batch) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    sched.step()
    print(f"Epoch {ep}: loss={loss.item():.4f} lr={sched.get_last_lr()[0]:.2e}")
'''

STANDARD_STEP_DECAY = HALVING_EVERY_EPOCH.replace("lr_every=1, lr_factor=0.5, epochs=20",
                                                  "lr_every=20, lr_factor=0.1, epochs=60")


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_code_alone_ranks_a_schedule_halving_every_epoch_first(tmp_path):
    rep = diagnose_json("--code", _write(tmp_path, "train.py", HALVING_EVERY_EPOCH))
    assert rep["root_causes"][0]["id"] == "lr_schedule_collapse"
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["lr_collapse_fraction"] < 0.5
    assert facts["lr_final_ratio"] < 1e-4


def test_a_standard_step_decay_is_not_blamed(tmp_path):
    rep = diagnose_json("--code", _write(tmp_path, "train.py", STANDARD_STEP_DECAY))
    named = {rc["id"]: rc["confidence"] for rc in rep["root_causes"]}
    assert named.get("lr_schedule_collapse", 0) < 0.1
    assert rep["status"] != "diagnosed"


def test_a_console_log_whose_lr_sits_below_one_percent_for_most_of_the_run(tmp_path):
    # the loss fell for three epochs, then crept to a stop while the LR halved every epoch
    falls = [0.52, 0.27, 0.2410, 0.2365, 0.2348, 0.2341, 0.2338, 0.2337, 0.2336]
    lines, lr = [], 2e-3
    for ep in range(20):
        loss = falls[min(ep, len(falls) - 1)]
        lines.append(f"Epoch {ep}: 100%|##########| 40/40 [loss={loss:.4f}, val/loss={loss + 0.02:.4f}, lr={lr:.2e}]")
        lr /= 2
    log = _write(tmp_path, "console.log", "\n".join(lines) + "\n")
    rep = diagnose_json("--code", _write(tmp_path, "train.py", HALVING_EVERY_EPOCH), "--log", log)
    top = rep["root_causes"][0]
    assert top["id"] == "lr_schedule_collapse"
    assert any(e["fact"] == "lr_collapse_fraction" for e in top["evidence"])


MASKED_SEQ2SEQ = '''
import numpy as np, torch, torch.nn as nn
torch.manual_seed(0)
V = 50
emb = nn.Embedding(V, 16); rnn = nn.GRU(16, 32, batch_first=True); head = nn.Linear(32, V)
params = list(emb.parameters()) + list(rnn.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.3)
def batch(n=16, T=10):
    tok, pad = np.zeros((n, T), np.int64), np.zeros((n, T), np.float32)
    for i in range(n):
        k = np.random.randint(3, T + 1)
        tok[i, :k] = np.random.randint(1, V, k); pad[i, :k] = 1
    return torch.tensor(tok), torch.tensor(pad)
for step in range(300):
    tok, pad = batch()
    out, _ = rnn(emb(tok))
    nll = nn.functional.cross_entropy(head(out).reshape(-1, V), tok.reshape(-1), reduction="none").view(tok.shape)
    loss = (nll * pad).sum() / pad.sum()
    opt.zero_grad(); loss.backward(); opt.step()
    if step % 20 == 0:
        print(f"update {step} cost {loss.item():.3f}")
'''


def test_a_masked_mean_is_no_unsafe_division(tmp_path):
    rep = diagnose_json("--code", _write(tmp_path, "train.py", MASKED_SEQ2SEQ))
    facts = {f["fact"]: f["value"] for f in rep["facts"]}
    assert facts["unsafe_math"] == []
    assert all(rc["id"] != "numerical_instability" or rc["confidence"] < 0.1 for rc in rep["root_causes"])


def test_a_blown_up_masked_loss_is_not_called_numerical_instability(tmp_path):
    costs = [52.0 - 0.02 * i for i in range(6)] + [1.0e6 * (1 + 0.3 * (i % 3)) for i in range(20)]
    log = _write(tmp_path, "console.log", "".join(f"update {20 * i} cost {c:.3f}\n" for i, c in enumerate(costs)))
    rep = diagnose_json("--code", _write(tmp_path, "train.py", MASKED_SEQ2SEQ), "--log", log)
    assert rep["symptom"]["id"] == "explosion"
    assert rep["root_causes"][0]["id"] in ("exploding_gradients", "lr_too_high")
