"""Train/validation overlap for a run that slices raw tensors by hand (no DataLoader to hash): the rows
the model is fed in training forwards against those it is fed in evaluation forwards."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_thread")   # conftest.py


def _run(duplicate: bool, train_eval: bool = False):
    torch.manual_seed(0)
    base = torch.randn(600, 1, 8, 8)
    x = torch.cat([base, base[:300]]) if duplicate else torch.randn(900, 1, 8, 8)
    y = torch.randint(0, 4, (900,))
    perm = torch.randperm(900)
    x, y = x[perm], y[perm]
    xtr, ytr, xva, yva = x[:720], y[:720], x[720:], y[720:]
    model = nn.Sequential(nn.Flatten(), nn.Linear(64, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with tp.watch(model, opt) as w:
        for _ in range(2):
            for i in range(0, 720, 32):
                out = model(xtr[i:i + 32])
                loss = nn.functional.cross_entropy(out, ytr[i:i + 32])
                w.observe(loss, outputs=out, targets=ytr[i:i + 32])
                loss.backward()
                opt.step()
                opt.zero_grad()
            model.eval()
            with torch.no_grad():
                if train_eval:
                    model(xtr[:64])           # train accuracy measured in eval mode
                for i in range(0, 180, 60):
                    o = model(xva[i:i + 60])
                    w.observe(nn.functional.cross_entropy(o, yva[i:i + 60]), outputs=o, targets=yva[i:i + 60])
            model.train()
    seen = {r.numpy().tobytes() for r in xtr}
    truth = sum(r.numpy().tobytes() in seen for r in xva) / len(xva)
    found = {f.fact: f for f in w.findings()}
    return found.get("val_train_overlap"), truth


def test_a_pool_with_duplicates_split_by_hand_shows_its_copies():
    f, truth = _run(duplicate=True)
    assert truth > 0.3
    assert f is not None and f.value == pytest.approx(truth, abs=0.05)   # 256 evaluation rows sampled
    assert "byte-identical" in f.detail


def test_a_clean_split_by_hand_shows_none():
    f, truth = _run(duplicate=False)
    assert truth == 0 and f is not None and f.value == 0


def test_an_evaluation_of_the_training_rows_is_not_a_leak():
    f, _ = _run(duplicate=False, train_eval=True)
    assert f.value == 0 and "set aside" in f.detail
