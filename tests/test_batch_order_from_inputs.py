"""Session 47: batches drawn in the order the data was collected, measured from their inputs.

A tactic classifier read its proof states package by package through a shuffle buffer far smaller
than the data (IBM/graph2tac's pull request 95): each batch held a few packages' states, yet its
labels were as mixed as shuffled batches' (21% majority label against 20%), so the label probe
said "shuffled", the code reader saw a shuffle, and traindx named no symptom. The inputs tell:
the means of batches drawn in data order differ from batch to batch far more than random batches'
would (batch_mean_spread). Live probe tests on small synthetic runs, and the rules on facts of the
kind they produce.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

import traindx.probes as tp  # noqa: E402
from traindx.engine.api import Session  # noqa: E402

REGIONS, PER_REGION, BATCH, DIM = 40, 320, 32, 16


def _data(seed=0):
    g = torch.Generator().manual_seed(seed)
    offsets = torch.randn(REGIONS, DIM, generator=g) * 1.5
    x = torch.randn(REGIONS, PER_REGION, DIM, generator=g) + offsets[:, None, :]
    y = torch.randint(0, 4, (REGIONS * PER_REGION,), generator=g)      # labels mixed in every region
    return x.reshape(-1, DIM), y


def _spread(order, loader=False):
    torch.manual_seed(0)
    x, y = _data()
    model = torch.nn.Sequential(torch.nn.Linear(DIM, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    if loader:
        ds = torch.utils.data.TensorDataset(x, y)
        batches = torch.utils.data.DataLoader(ds, batch_size=BATCH, shuffle=True)
    else:
        idx = order(len(x))
        batches = [(x[idx[i:i + BATCH]], y[idx[i:i + BATCH]]) for i in range(0, len(x), BATCH)]
    with tp.watch(model, opt, experiments=False, train_loader=batches if loader else None) as w:
        for xb, yb in (w.loader(batches) if loader else batches):
            out = model(xb)
            loss = torch.nn.functional.cross_entropy(out, yb)
            w.observe(loss, out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    found = {f.fact: f for f in w.findings()}
    return found.get("batch_mean_spread")


def _in_order(n):
    return torch.arange(n)


def _random(n):
    return torch.randperm(n, generator=torch.Generator().manual_seed(1))


def test_batches_read_in_collection_order_spread_far_more_than_random_ones():
    ordered, shuffled = _spread(_in_order), _spread(_random)
    assert ordered is not None and shuffled is not None
    assert ordered.value >= 10 and "batches drawn at random" in ordered.detail
    assert shuffled.value < 3


def _train(watched):
    torch.manual_seed(0)
    x, y = _data()
    model = torch.nn.Sequential(torch.nn.Linear(DIM, 32), torch.nn.Dropout(0.1), torch.nn.Linear(32, 4))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)

    def loop(w=None):
        for i in range(0, 200 * BATCH, BATCH):          # in data order: the spread is measured
            out = model(x[i:i + BATCH])
            loss = torch.nn.functional.cross_entropy(out, y[i:i + BATCH])
            if w is not None:
                w.observe(loss, out, y[i:i + BATCH])
            opt.zero_grad()
            loss.backward()
            opt.step()

    if watched:
        with tp.watch(model, opt, experiments=False) as w:
            loop(w)
            assert "batch_mean_spread" in {f.fact for f in w.findings()}
    else:
        loop()
    return [p.detach().clone() for p in model.parameters()], torch.get_rng_state(), opt.state_dict()


def test_measuring_the_batch_means_leaves_the_run_bit_identical():
    """Probes never change the user's run: with the probe sampling the batch means (and dropout
    drawing from the RNG every step), weights, optimizer state and RNG end as without traindx."""
    params, rng, state = _train(watched=False)
    params_w, rng_w, state_w = _train(watched=True)
    assert all(torch.equal(a, b) for a, b in zip(params, params_w))
    assert torch.equal(rng, rng_w)
    assert all(torch.equal(state["state"][k]["exp_avg"], state_w["state"][k]["exp_avg"]) for k in state["state"])


def test_rows_that_are_parts_of_one_example_are_not_batches_of_examples():
    """One image per step, its region proposals as the rows (weakly supervised detection): the
    model answers once per image, and proposals of one image are alike by nature."""
    torch.manual_seed(0)
    x, _ = _data()
    model = torch.nn.Linear(DIM, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with tp.watch(model, opt, experiments=False) as w:
        for i in range(0, len(x), BATCH):
            out = model(x[i:i + BATCH]).mean(0, keepdim=True)          # one answer per image
            loss = torch.nn.functional.cross_entropy(out, torch.tensor([i % 4]))
            w.observe(loss, out, torch.tensor([i % 4]))
            opt.zero_grad()
            loss.backward()
            opt.step()
    assert "batch_mean_spread" not in {f.fact for f in w.findings()}


def test_a_loader_that_samples_at_random_is_not_second_guessed():
    assert _spread(None, loader=True) is None


def _report(kb, facts):
    s = Session(kb)
    s.add_answers(facts)
    s.run()
    return s.report()


# facts of the kind --script measured on the proof-state run (its loss still falling at the end,
# a validation loss falling beside it, labels mixed in the batches and a shuffle read in the code)
_ORDERED_RUN = {"loss_trend": "decreasing", "val_loss_trend": "decreasing", "loss_decrease_fraction": 0.57,
                "initial_loss": 2.69, "current_loss": 1.16, "num_classes": 16, "train_accuracy": 0.585,
                "val_accuracy": 0.44, "batch_label_purity": 0.21, "batch_purity_excess": 0.01, "shuffle": True,
                "optimizer": "adam", "learning_rate": 0.001, "loss_function": "cross_entropy",
                "grad_norm_trend": "steady", "grads_have_nan": False, "loss_has_nonfinite": False}


def test_a_falling_loss_on_batches_in_data_order_is_slow_training_from_unshuffled_data(kb):
    rep = _report(kb, {**_ORDERED_RUN, "batch_mean_spread": 70.0})
    assert rep["symptom"]["id"] == "slow_training"
    assert rep["root_causes"][0]["id"] == "unshuffled_data"


def test_the_same_run_on_random_batches_names_no_order_fault(kb):
    rep = _report(kb, {**_ORDERED_RUN, "batch_mean_spread": 1.1})
    assert not (rep["root_causes"] and rep["root_causes"][0]["id"] == "unshuffled_data"
                and rep["root_causes"][0]["confidence"] >= 0.5)
