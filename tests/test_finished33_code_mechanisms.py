"""Finished runs whose script names the mechanism the log's curve shows (session 33): coupled weight
decay that holds a loss at its start, a parameter read through ``.data`` in a forward under a plateau,
and a weight matrix drawn at unit std (torch-free: the code reader never runs the script)."""
import math
import textwrap

from conftest import diagnose_json

DECAY_SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn

    feats, target = torch.randn(1500, 10), torch.randint(0, 4, (1500,))
    clf = nn.Sequential(nn.Linear(10, 40), nn.ReLU(), nn.Linear(40, 4))
    opt = torch.optim.{opt}(clf.parameters(), lr=2e-3, weight_decay={wd})
    for epoch in range(20):
        perm = torch.randperm(1500)
        for s in range(0, 1500, 50):
            idx = perm[s:s + 50]
            opt.zero_grad()
            nn.functional.cross_entropy(clf(feats[idx]), target[idx]).backward()
            opt.step()
        print(f"epoch {{epoch}} loss {{0.0:.4f}}")
    """)


def _flat_log(tmp_path, start=1.3863):
    rows = [f"epoch {e} loss {start - 0.002 * math.sin(e):.4f} acc {0.25 + 0.003 * math.cos(e):.4f}"
            for e in range(1, 21)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    return log


def _run(tmp_path, script, log):
    code = tmp_path / "train.py"
    code.write_text(script)
    return diagnose_json("--code", str(code), "--log", str(log))


def test_coupled_weight_decay_under_a_flat_loss_names_excessive_regularization(tmp_path):
    rep = _run(tmp_path, DECAY_SCRIPT.format(opt="Adam", wd=0.2), _flat_log(tmp_path))
    assert rep["status"] == "diagnosed", rep["confidence_assessment"]
    assert rep["root_causes"][0]["id"] == "excessive_regularization"


def test_coupled_decay_of_005_in_adam_is_heavy(tmp_path):
    rep = _run(tmp_path, DECAY_SCRIPT.format(opt="Adam", wd=0.05), _flat_log(tmp_path))
    assert rep["root_causes"][0]["id"] == "excessive_regularization", [c["id"] for c in rep["root_causes"][:3]]


def test_adamw_decay_of_005_is_not_read_as_heavy(tmp_path):
    rep = _run(tmp_path, DECAY_SCRIPT.format(opt="AdamW", wd=0.05), _flat_log(tmp_path))
    top = rep["root_causes"][0] if rep["root_causes"] else {"id": None}
    assert not (rep["status"] == "diagnosed" and top["id"] == "excessive_regularization")


def test_a_healthy_run_with_adamws_usual_decay_stays_healthy(tmp_path):
    rows = [f"epoch {e} loss {1.39 * math.exp(-e / 4) + 0.05:.4f} acc {min(0.97, 0.25 + 0.06 * e):.4f}"
            for e in range(1, 21)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    rep = _run(tmp_path, DECAY_SCRIPT.format(opt="AdamW", wd=0.05), log)
    assert rep["status"] == "healthy", rep["confidence_assessment"]


DATA_CUT_SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Mix(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.mix = nn.Parameter(torch.eye(k))
            self.shift = nn.Parameter(torch.zeros(k))

        def forward(self, z):
            return z @ self.mix.data + self.shift


    body = nn.Sequential(Mix(16), nn.Tanh(), nn.Linear(16, 1))
    opt = torch.optim.SGD(body.parameters(), lr=0.05)
    u, v = torch.randn(800, 16), torch.randn(800, 1)
    for epoch in range(25):
        opt.zero_grad()
        err = nn.functional.mse_loss(body(u), v)
        err.backward()
        opt.step()
        print(f"epoch {epoch} mse {err.item():.4f}")
    """)


def test_a_parameter_read_through_data_in_forward_explains_a_plateau(tmp_path):
    rows = [f"epoch {e} mse {0.62 + 0.38 * math.exp(-e / 2) + 0.001 * math.sin(3 * e):.4f}" for e in range(1, 41)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    rep = _run(tmp_path, DATA_CUT_SCRIPT, log)
    assert rep["symptom"]["id"] == "plateau"
    assert rep["status"] == "diagnosed", rep["confidence_assessment"]
    assert rep["root_causes"][0]["id"] == "broken_gradient_flow"


RAW_INIT_SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class Unrolled(nn.Module):
        def __init__(self, n, m, steps):
            super().__init__()
            self.enc = nn.Parameter(torch.randn(n, m))
            self.rec = nn.Parameter(torch.randn(n, n))
            self.steps = steps

        def forward(self, obs):
            code = torch.relu(obs @ self.enc.T)
            for _ in range(self.steps):
                code = torch.relu(obs @ self.enc.T + code @ self.rec.T)
            return code


    net = Unrolled(32, 24, 5)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    obs, truth = torch.randn(512, 24), torch.randn(512, 32).clamp(min=0)
    for epoch in range(30):
        opt.zero_grad()
        loss = ((net(obs) - truth) ** 2).mean()
        loss.backward()
        opt.step()
    """)


def test_a_unit_std_weight_matrix_is_read_as_a_bad_initialization(tmp_path):
    rows = [f"epoch {e} loss {4.1e6 * (1 - 0.001 * e):.1f}" for e in range(1, 31)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    rep = _run(tmp_path, RAW_INIT_SCRIPT, log)
    fact = next(f for f in rep["facts"] if f["fact"] == "init_weight_std")
    assert fact["value"] == 1.0 and ("self.enc" in fact["detail"] or "self.rec" in fact["detail"])
    assert rep["root_causes"][0]["id"] == "bad_initialization", [c["id"] for c in rep["root_causes"][:3]]
