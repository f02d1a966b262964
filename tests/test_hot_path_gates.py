"""The always-on path tests one gate per feed before its sampled looks (losses, batches) and puts its
forward pre-hook on the module without a Python frame of its own: the gates must cover every
schedule they stand for, or a sampled look would silently never run."""

import functools
import sys

from traindx.probes.live.probe import ARMED_SCHEDULE, SCHEDULE
from traindx.probes.live.schedule import LOSS_FIRST, LOSS_GATE

import traindx.probes.live.monitor_batches as MB
from traindx.probes.live.hooks import CopyInert


def test_the_loss_gate_covers_every_sampled_look_at_a_training_loss():
    looks = [SCHEDULE[k] for k in ("outputs", "accuracy", "squash", "labels", "loss_weights")]
    for i in range(5000):
        if any(s(i) for s in looks):
            assert i < LOSS_FIRST or i % LOSS_GATE == 0, i
    assert LOSS_GATE > 1          # the gate skips something, or it is no gate


def test_the_batch_gate_covers_the_input_and_label_looks():
    for i in range(5000):
        if SCHEDULE["inputs"](i) or SCHEDULE["labels"](i):
            assert i < MB._BATCH_FIRST or i % MB._BATCH_GATE == 0, i


def test_armed_schedules_need_no_gate_of_their_own():
    # while armed every gate opens; the armed schedules are then read as before
    assert {"outputs", "inputs", "labels"} <= set(ARMED_SCHEDULE)


def test_copy_inert_adds_no_python_frame_and_stays_inert_when_copied():
    import copy
    import pickle

    calls = []

    def hook(module, args, kwargs):
        calls.append(args)

    h = CopyInert(hook)
    assert isinstance(h, functools.partial)
    frames = []
    sys.setprofile(lambda fr, ev, arg: frames.append(fr.f_code.co_name) if ev == "call" else None)
    try:
        h(None, (1,), {})
    finally:
        sys.setprofile(None)
    assert frames == ["hook"] and calls == [(1,)]
    for twin in (copy.copy(h), copy.deepcopy(h), pickle.loads(pickle.dumps(h))):
        assert twin(None, (2,), {}) is None
    assert calls == [(1,)]


def test_each_device_step_gate_covers_every_sampled_step_look():
    # the step pre-hook runs its sampled work on steps < FIRST or multiples of the device's gate only
    from traindx.probes.live.schedule import FIRST, FLUSH_EVERY, GATES

    looks = [SCHEDULE[k] for k in ("grads", "update", "grad_clear")]
    for kind, gate in GATES.items():
        flush = FLUSH_EVERY[kind]
        kind_looks = looks + ([] if kind == "cpu" else [SCHEDULE["gpu_util"]])
        for i in range(5000):
            if i % flush == 0 or any(s(i) for s in kind_looks):
                assert i < FIRST or i % gate == 0, (kind, i)
    assert GATES["cpu"] > 5       # the CPU gate skips the device flush's steps, or it buys nothing


def test_the_stock_loss_test_agrees_with_the_functional_it_stands_for():
    import traindx.probes.live.losses as L

    for name in ("cross_entropy", "CrossEntropyLoss", "F.nll_loss", "bce", "BCEWithLogitsLoss", "mse",
                 "l1", "smooth_l1", "huber", "custom", "unknown", "kl_div", None, "", "MyLoss"):
        for _ in range(2):                        # the second answer comes from the remembered one
            assert L.is_stock_loss(name) == (L.loss_callable(name) is not None), name


def test_the_loader_tap_reports_the_same_waits_and_batches_in_one_call_as_in_two():
    import torch

    from traindx.probes.live.monitor import Monitor
    from traindx.probes.live.timing import LoaderTap

    batches = [(torch.randn(4, 3), torch.tensor([0, 1, 0, 1])) for _ in range(40)]

    def feed(fused):
        model = torch.nn.Linear(3, 2)
        mon = Monitor(model, torch.optim.SGD(model.parameters(), lr=0.1))
        tap = LoaderTap(batches, mon, phase="train")
        with mon:
            for i, (x, y) in enumerate(tap):
                if i == 0 and not fused:
                    tap._fused = None             # the two-call path: on_data_wait, then on_batch
                assert mon._last_inputs is x and mon._last_targets is y
        return mon

    one, two = feed(True), feed(False)
    assert one._train_batch_count == two._train_batch_count == 40
    assert one._batch_count == two._batch_count == 40
    assert len(one._waits) == len(two._waits) == len(one._intervals) == len(two._intervals) == 39
    assert one._label_batches == two._label_batches > 0          # the sampled label looks ran in both
