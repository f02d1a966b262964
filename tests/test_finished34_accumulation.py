"""A finished run whose loop never clears its gradients, under Adam at 1e-2 (session 34): the climbing,
swinging loss is what the accumulation predicts, so the missing zero_grad() is named, not the rate
(torch-free: the code reader never runs the script)."""
import textwrap

from conftest import diagnose_json

SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn

    x, y = torch.randn(2000, 12), torch.randn(2000, 1)
    net = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.Adam(net.parameters(), lr=0.01)
    for epoch in range(12):
        perm = torch.randperm(2000)
        for s in range(0, 2000, 100):
            idx = perm[s:s + 100]
    {clear}        loss = nn.functional.mse_loss(net(x[idx]), y[idx])
            loss.backward()
            opt.step()
        print(f"epoch {{epoch}} loss {{loss.item():.4f}}")
    """)

#: a loss that climbs from its start with swings growing as it goes
LOSSES = (0.81, 1.21, 0.95, 1.77, 1.30, 2.31, 1.60, 2.86, 1.90, 3.40, 2.20, 3.84)


def _run(tmp_path, clear: str):
    code = tmp_path / "train.py"
    code.write_text(SCRIPT.format(clear=clear))
    log = tmp_path / "console.log"
    log.write_text("".join(f"epoch {e} loss {v:.4f}\n" for e, v in enumerate(LOSSES, 1)))
    return diagnose_json("--code", str(code), "--log", str(log))


def _ranking(rep) -> list:
    return [(c["id"], c["confidence"]) for c in rep["root_causes"][:3]]


def test_a_loop_that_never_clears_gradients_is_named_over_adams_rate(tmp_path):
    rep = _run(tmp_path, "")
    assert rep["root_causes"][0]["id"] == "missing_zero_grad", _ranking(rep)


def test_the_same_climb_in_a_loop_that_clears_them_keeps_the_rate_first(tmp_path):
    rep = _run(tmp_path, "        opt.zero_grad()\n")
    assert rep["root_causes"][0]["id"] == "lr_too_high", _ranking(rep)
