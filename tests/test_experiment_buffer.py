"""The batches a watched run keeps for experiments are bounded by bytes, from the knowledge base.

What a user would notice: a run whose loader makes new, large batches every step must not carry a
second copy of its data set in memory because traindx is watching. The monitor keeps references to
the recent training batches (``experiments.buffer_batches``, 64) so that an experiment can train
copies of the model on them; ``experiments.buffer_bytes`` caps the memory those references pin,
and a pack moves the cap.
"""

from __future__ import annotations

import pytest

from traindx.engine.loader import load_kb

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.usefixtures("one_thread")


def _pack(tmp_path, body):
    (tmp_path / "p.yaml").write_text(body)
    return str(tmp_path)


def _pinned_bytes(box):
    """Bytes of the distinct tensor storages the kept batches hold alive (what memory they pin)."""
    seen = {}
    for args, kwargs, targets, _shape in box.batches:
        for t in [*args, *kwargs.values(), targets]:
            s = t.untyped_storage()
            seen[s.data_ptr()] = s.nbytes()
    return sum(seen.values())


def _run(params, steps=30, batch=(16, 3, 64, 64)):
    """A watched run whose loader makes a new 768 KiB batch every step; the experiment buffer."""
    import torch.nn.functional as F

    from traindx.probes.live.experiments import Experiments
    from traindx.probes.live.monitor import Monitor

    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(3, 4, 4, stride=4), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
                          nn.Linear(16, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    mon = Monitor(model, opt, num_classes=10, params=params)
    with mon:
        for _ in range(steps):
            x, y = torch.randn(*batch), torch.randint(0, 10, (batch[0],))
            mon.on_batch(x, y, phase="train")
            out = model(x)
            loss = F.cross_entropy(out, y)
            mon.on_loss(loss, phase="train", outputs=out, targets=y, loss_name="cross_entropy")
            loss.backward()
            opt.step()
            opt.zero_grad()
        boxes = [v for v in vars(mon.costly["experiment"]).values() if isinstance(v, Experiments)]
    assert len(boxes) == 1
    return boxes[0]


def test_a_run_with_big_batches_keeps_under_the_byte_bound(tmp_path):
    batch_bytes = 16 * 3 * 64 * 64 * 4 + 16 * 8
    bound = 4 * 2 ** 20
    kb = load_kb([_pack(tmp_path, f"kind: parameters\noverrides:\n  experiments.buffer_bytes: {bound}\n")],
                 entry_point_packs=False)
    box = _run(kb.params())
    # the newest batches, as many as fit: the bound, not the count (64), decides
    assert len(box.batches) == bound // batch_bytes < kb.param("experiments.buffer_batches")
    assert box.kept_bytes == _pinned_bytes(box) <= bound
    # the shipped bound lets the same 30 batches (23 MiB) be kept: the pack's bound is what held it
    shipped = _run(load_kb(entry_point_packs=False).params())
    assert len(shipped.batches) == 30 and shipped.kept_bytes == 30 * batch_bytes


def test_a_sparse_input_batch_is_kept_and_counted_at_its_dense_size():
    """A sparse COO input (no ``nbytes`` in torch) is kept like any batch, its bytes counted as
    ``numel() * element_size()``: the buffer's byte cap sees it, and the watched step is not broken."""
    from traindx.probes.live.experiments import Experiments

    box = Experiments(True)
    x = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0]]), torch.tensor([1.0, 2.0]), (4, 8))
    y = torch.tensor([0, 1, 0, 1])
    box.keep((x,), {}, y, torch.Size([4, 2]))
    dense = torch.zeros(4, 8)
    box.keep((dense,), {}, y.clone(), torch.Size([4, 2]))
    assert len(box.batches) == 2
    assert box.sizes == [4 * 8 * 4 + 4 * 8, 4 * 8 * 4 + 4 * 8]
    assert box.kept_bytes == 2 * (4 * 8 * 4 + 4 * 8)
