"""A live run reads its loss curve as the log reader does, flat share included: a loss that fell over
most of the run and levelled only over its last stretch is a run settling (symptom-levelling-off),
not a plateau. The live probe used to pass on loss_trend without loss_flat_share, so in script mode
every levelled curve was a plateau (s470: CenterNet's focal loss 4.00 -> 1.03, level for the last
41%, named plateau / missing_lr_decay)."""
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402
from traindx.engine.api import Session  # noqa: E402
from traindx.engine.loader import load_kb  # noqa: E402


def _curve(n: int, fall_share: float) -> list[float]:
    """A loss that falls from 4 to 1 over the first ``fall_share`` of ``n`` steps, then holds at 1
    with a small deterministic ripple."""
    k = int(n * fall_share)
    falling = [4.0 - 3.0 * i / (k - 1) for i in range(k)]
    return falling + [1.0 + 0.01 * ((i * 7) % 5 - 2) for i in range(n - k)]


def _watched(losses):
    torch.manual_seed(0)
    m = nn.Linear(4, 2)
    opt = torch.optim.Adam(m.parameters(), lr=1e-3)
    with tp.watch(m, opt) as w:
        for v in losses:
            out = m(torch.randn(8, 4))
            loss = (out * 0).sum() + v
            w.observe(loss)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return {f.fact: f for f in w.findings()}


def test_a_live_loss_levelled_over_its_last_stretch_has_its_flat_share():
    facts = _watched(_curve(200, 0.7))
    assert facts["loss_trend"].value == "plateaued"
    assert facts["loss_flat_share"].value < 0.5


def test_a_live_run_settling_at_the_end_is_no_plateau():
    facts = _watched(_curve(200, 0.7))
    s = Session(load_kb())
    s.add_answers({"loss_trend": facts["loss_trend"].value,
                   "loss_flat_share": facts["loss_flat_share"].value,
                   "loss_decrease_fraction": 0.74, "lr_final_ratio": 1.0, "scheduler": "none"})
    s.run()
    r = s.report()
    assert r["symptom"]["id"] != "plateau"
    assert r["status"] == "healthy"


def test_a_long_live_plateau_stays_one():
    facts = _watched(_curve(200, 0.3))
    assert facts["loss_trend"].value == "plateaued"
    assert facts["loss_flat_share"].value >= 0.5
