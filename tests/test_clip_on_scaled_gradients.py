"""Clipping gradients a GradScaler still holds multiplied by its scale.

What a user would notice: under mixed precision a script calls ``clip_grad_norm_(params, 5)``
between ``scaler.scale(loss).backward()`` and ``scaler.step(optimizer)`` without
``scaler.unscale_(optimizer)`` first. The norm it clips is the scaled one (x65536 by default), so
the true gradients are cut to 5/65536 of their size and the loss does not move. traindx must see
that clip even when the script imported the function by name (``from torch.nn.utils import
clip_grad_norm_``, bound before traindx's monitor attached), say that it ran on scaled gradients,
rank over-clipping first, and its experiment copies (which train without a scaler) must clip as the
run really does: at max_norm / scale, so removing the clip confirms the cause instead of refuting it.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from traindx.engine import differential  # noqa: E402
from traindx.engine.api import Session  # noqa: E402

SCRIPT = """
import torch
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
centres = torch.randn(4, 10) * 2
y = torch.randint(0, 4, (3000,))
x = centres[y] + torch.randn(3000, 10)
model = torch.nn.Sequential(torch.nn.Linear(10, 48), torch.nn.ReLU(), torch.nn.Linear(48, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu")
crit = torch.nn.CrossEntropyLoss()
for step in range(140):
    i = (step * 20) % 2980
    xb, yb = x[i:i + 20], y[i:i + 20]
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = crit(model(xb), yb)
    scaler.scale(loss).backward()
    UNSCALE
    clip_grad_norm_(model.parameters(), 5.0)
    scaler.step(opt)
    scaler.update()
print("done", round(float(loss), 4))
"""


def _run(tmp_path, kb, unscale: bool):
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(SCRIPT.replace("UNSCALE", "scaler.unscale_(opt)" if unscale else "pass"))

    def experiment(findings, steps, done):
        return differential.spec(kb, "remove_clipping") if not done else None

    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, experiment=experiment, timeout=300)
    assert r.exit_code == 0 and "done" in r.stdout_tail, r.stdout_tail
    return r, {f.fact: f for f in r.findings}


def test_a_clip_before_unscale_is_seen_and_its_removal_confirms_over_clipping(tmp_path, kb):
    r, f = _run(tmp_path, kb, unscale=False)
    assert f["clip_max_norm"].source == "probe:clipping"          # seen although imported by name
    assert f["clip_on_scaled_gradients"].value is True
    assert f["clip_shrink_ratio"].value < 0.01
    assert f["exp_remove_clipping"].value == "confirms", f["exp_remove_clipping"].detail


def test_a_clip_after_unscale_is_not_on_scaled_gradients(tmp_path, kb):
    r, f = _run(tmp_path, kb, unscale=True)
    assert f["clip_on_scaled_gradients"].value is False
    assert f["exp_remove_clipping"].value != "confirms", f["exp_remove_clipping"].detail


def test_clipping_scaled_gradients_ranks_over_clipping_first(kb):
    s = Session(kb)
    s.add("symptom", "not_learning", source="probe:loss_vs_chance")
    s.add("clip_max_norm", 5.0, source="probe:clipping")
    s.add("grad_scaler_used", True, source="probe:amp")
    s.add("grad_scale", 65536.0, source="probe:amp")
    s.add("clip_on_scaled_gradients", True, source="probe:clipping")
    post = s.posterior()
    assert max(post, key=post.get) == "over_clipping", sorted(post.items(), key=lambda kv: -kv[1])[:3]


AFTER_STEP = """
import torch

torch.manual_seed(0)
x = torch.randn(2000, 6)
y = x @ torch.randn(6, 1) * 30
model = torch.nn.Sequential(torch.nn.Linear(6, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(120):
    i = (step * 25) % 1975
    loss = torch.nn.functional.mse_loss(model(x[i:i + 25]), y[i:i + 25])
    opt.zero_grad()
    loss.backward()
    opt.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
print("done", round(float(loss), 3))
"""


def test_a_clip_after_the_step_clips_no_update(tmp_path, kb):
    """The clip comes after optimizer.step(): the gradients it shrinks were already used. No shrink
    ratio is read from it and over-clipping is argued against, however small max_norm is."""
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(AFTER_STEP)
    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, timeout=300)
    assert r.exit_code == 0 and "done" in r.stdout_tail, r.stdout_tail
    f = {x.fact: x for x in r.findings}
    assert f["clip_after_step"].value is True, f["clip_after_step"].detail
    assert "clip_shrink_ratio" not in f or f["clip_shrink_ratio"].value is None
    s = Session(kb)
    s.add("symptom", "plateau", source="probe:loss_vs_chance")
    before = s.posterior()["over_clipping"]
    s.add("clip_after_step", True, source="probe:clipping")
    assert s.posterior()["over_clipping"] < before / 5


def test_the_runners_clip_wrapper_is_gone_after_the_run():
    """The runner wraps clip_grad_norm_ from the import of torch on; uninstalling puts it back."""
    from traindx.probes.runner import child as _child

    orig, orig_mod = torch.nn.utils.clip_grad_norm_, torch.nn.utils.clip_grad.clip_grad_norm_
    saved = _child._S
    _child._S = _child._State()
    _child._S.monitor_spec = "traindx.probes.live.monitor:Monitor"
    try:
        _child.install()
        assert torch.nn.utils.clip_grad_norm_ is not orig
        from torch.nn.utils import clip_grad_norm_    # a script's by-name import gets the wrapper
        p = torch.nn.Parameter(torch.ones(3))
        p.grad = torch.full((3,), 4.0)
        total = clip_grad_norm_([p], 1.0)
        assert float(total) == pytest.approx(48 ** 0.5) and float(p.grad.norm()) == pytest.approx(1.0, rel=1e-5)
    finally:
        _child.uninstall()
        _child._S = saved
    assert torch.nn.utils.clip_grad_norm_ is orig and torch.nn.utils.clip_grad.clip_grad_norm_ is orig_mod
