"""Session 20 (calm16): confident false causes of script mode, decided by what the run and its code show.

What a user would notice:
- a classifier whose head is a module of its own, never handed to the optimizer (``opt =
  Adam(backbone.parameters())``, ``loss = crit(head(backbone(x)), y)``), plateaued and was read as
  a missing LR decay: the live probe compared the optimizer with the backbone only and said "every
  trainable parameter is in the optimizer", overruling the code reader. A module the training step
  runs beside the model whose parameters the loss's backward reaches, held by no optimizer, is
  now in ``params_not_in_optimizer``; a GAN's other half (its own optimizer) and a frozen encoder
  run under ``no_grad`` are not.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from traindx.probes.runner.supervise import run_script  # noqa: E402

HEAD_APART = """\
    import os, sys
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch, torch.nn as nn
    torch.manual_seed(0)
    x = torch.randn(512, 8); y = (x[:, 0] > 0).long()
    backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
    head = nn.Linear(16, 2)
    encoder = nn.Linear(8, 8)             # a frozen feature map, run under no_grad
    disc = nn.Linear(2, 1)                # trained by its own optimizer
    params = backbone.parameters() if sys.argv[1] == "apart" else [*backbone.parameters(), *head.parameters()]
    opt = torch.optim.SGD(params, lr=0.05)
    opt_d = torch.optim.SGD(disc.parameters(), lr=0.01)
    for step in range(40):
        i = (step * 32) % 512
        with torch.no_grad():
            feats = encoder(x[i:i + 32]) * 0 + x[i:i + 32]
        out = head(backbone(feats))
        loss = nn.functional.cross_entropy(out, y[i:i + 32])
        opt.zero_grad(); loss.backward(); opt.step()
        opt_d.zero_grad(); disc(out.detach()).pow(2).mean().backward(); opt_d.step()
    print("done", flush=True)
"""


def _script(tmp_path: Path) -> Path:
    p = tmp_path / "head_apart.py"
    p.write_text(textwrap.dedent(HEAD_APART))
    return p


@pytest.mark.parametrize("how", ["apart", "held"])
def test_a_head_outside_the_optimizer_is_named_by_the_live_probe(tmp_path, how):
    r = run_script(_script(tmp_path), [how])
    assert r.exit_code == 0, r.stderr_tail
    f = r.finding("params_not_in_optimizer")
    assert f is not None
    if how == "apart":
        assert f.value == ["Linear.weight", "Linear.bias"]          # the head's two tensors, nothing else
        assert "beside the model" in f.detail
    else:
        assert f.value == []
