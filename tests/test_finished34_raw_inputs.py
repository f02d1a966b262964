"""A finished run whose script feeds inputs in the hundreds (session 34): its curve may look healthy,
but the script shows the mechanism, and a healthy-looking curve does not show what the same run on
normalised inputs would have reached, so the raw inputs are named (torch-free: the code reader never
runs the script)."""
import math
import textwrap

from conftest import diagnose_json

SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn

    raw = torch.randn(2000, 8) * 60 + 200
    feats = {feats}
    target = (raw[:, 0] > 200).long()
    net = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(15):
        perm = torch.randperm(2000)
        for s in range(0, 2000, 50):
            idx = perm[s:s + 50]
            opt.zero_grad()
            nn.functional.cross_entropy(net(feats[idx]), target[idx]).backward()
            opt.step()
        print(f"epoch {{epoch}} loss {{0.0:.4f}}")
    """)


def _run(tmp_path, feats):
    code = tmp_path / "train.py"
    code.write_text(SCRIPT.format(feats=feats))
    rows = [f"epoch {e} loss {0.69 * math.exp(-e / 5) + 0.04:.4f} val_loss {0.69 * math.exp(-e / 5) + 0.05:.4f}"
            for e in range(1, 16)]
    log = tmp_path / "console.log"
    log.write_text("\n".join(rows) + "\n")
    return diagnose_json("--code", str(code), "--log", str(log))


def test_inputs_in_the_hundreds_under_a_healthy_looking_curve_are_named(tmp_path):
    rep = _run(tmp_path, "raw")
    assert rep["status"] == "diagnosed", rep["confidence_assessment"]
    assert rep["root_causes"][0]["id"] == "unnormalized_inputs"


def test_the_same_run_on_standardised_inputs_stays_healthy(tmp_path):
    rep = _run(tmp_path, "(raw - raw.mean(0)) / raw.std(0)")
    assert rep["status"] == "healthy", [c["id"] for c in rep["root_causes"][:3]]
