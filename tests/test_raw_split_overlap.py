"""Train/validation overlap for a run that slices raw tensors by hand (no DataLoader to hash): the rows
the model is fed in training forwards against those it is fed in evaluation forwards."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import traindx.probes as tp  # noqa: E402
from traindx.probes.live.row_hashes import RowHashes  # noqa: E402

pytestmark = pytest.mark.usefixtures("one_thread")   # conftest.py


def _run(duplicate: bool, train_eval: bool = False, eval_each_epoch: bool = True, epochs: int = 2):
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
        for e in range(epochs):
            for i in range(0, 720, 32):
                out = model(xtr[i:i + 32])
                loss = nn.functional.cross_entropy(out, ytr[i:i + 32])
                w.observe(loss, outputs=out, targets=ytr[i:i + 32])
                loss.backward()
                opt.step()
                opt.zero_grad()
            if not eval_each_epoch and e < epochs - 1:
                continue
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


def _counting(monkeypatch):
    calls = []
    real = RowHashes._hash

    def counted(self, x, train):
        calls.append(train)
        return real(self, x, train)

    monkeypatch.setattr(RowHashes, "_hash", counted)
    return calls


def test_rows_trained_on_before_one_final_evaluation_are_still_compared():
    # train for three epochs, evaluate once at the very end: the training rows were kept, then hashed
    f, truth = _run(duplicate=True, eval_each_epoch=False, epochs=3)
    assert truth > 0.3
    assert f is not None and f.value == pytest.approx(truth, abs=0.05)


def test_a_run_that_never_evaluates_hashes_nothing(monkeypatch):
    calls = _counting(monkeypatch)
    torch.manual_seed(0)
    x, y = torch.randn(640, 64), torch.randint(0, 4, (640,))
    model = nn.Linear(64, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with tp.watch(model, opt) as w:
        for i in range(0, 640, 32):
            loss = nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
            w.observe(loss)
            loss.backward()
            opt.step()
            opt.zero_grad()
        assert calls == [] and w.monitor._rows.pending_rows == 640   # kept by reference only
        model.eval()
        with torch.no_grad():
            model(torch.randn(32, 64))    # the first evaluation forward: the kept rows are hashed now
    assert calls.count(True) == 20 and calls.count(False) == 1
    assert not w.monitor._rows.pending


def test_a_batch_buffer_refilled_in_place_is_not_a_leak():
    # one preallocated batch buffer for training batches (30 rows, its first half) and evaluation
    # batches (60 rows, all of it), clean split: the kept training references all point into it, and
    # at the evaluation forward it holds evaluation rows
    torch.manual_seed(0)
    x, y = torch.randn(900, 64), torch.randint(0, 4, (900,))
    model = nn.Linear(64, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    buf = torch.empty(60, 64)
    with tp.watch(model, opt) as w:
        for _ in range(2):
            for i in range(0, 720, 30):
                buf[:30].copy_(x[i:i + 30])
                loss = nn.functional.cross_entropy(model(buf[:30]), y[i:i + 30])
                w.observe(loss)
                loss.backward()
                opt.step()
                opt.zero_grad()
            model.eval()
            with torch.no_grad():
                for i in range(720, 900, 60):
                    buf.copy_(x[i:i + 60])
                    o = model(buf)
                    w.observe(nn.functional.cross_entropy(o, y[i:i + 60]), outputs=o, targets=y[i:i + 60])
            model.train()
    found = {f.fact: f for f in w.findings()}
    assert found["val_train_overlap"].value == 0


def test_the_kept_training_inputs_stay_within_their_byte_budget():
    from traindx.engine.parameters import resolve

    params = dict(resolve(None))
    params["leakage.pending_train_bytes"] = 10 * 32 * 64 * 4          # ten batches of 32 rows x 64 floats
    rows = RowHashes(params)
    for _ in range(100):
        rows.add(torch.randn(32, 64), True)
        assert rows.pending_bytes <= params["leakage.pending_train_bytes"]
        assert rows.pending_bytes == sum(t.numel() * t.element_size() for t, *_ in rows.pending)
    assert len(rows.pending) >= 5 and rows.train == []                 # the latest half at least, none hashed
