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
