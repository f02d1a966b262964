"""A loss summed over a sequence's time steps is read per term; a validation figure that keeps up
with training is read from a console log; a rule may leave a note in the report (a harmless quirk
such as validation in train mode on a healthy run) instead of naming a cause."""

from __future__ import annotations

import json
import math
import textwrap

import pytest
from conftest import run_cli

from traindx.engine.api import Session
from traindx.engine.errors import KBError
from traindx.engine.frontends import gather
from traindx.engine.loader import load_kb

KB = load_kb(entry_point_packs=False)


def _console(pairs):
    lines = ["Training for 8 epochs..."]
    lines += [f"[{i * 30}s ({i + 1} {(i + 1) * 12}%) Train: {t:.4f} Valid: {v:.4f}]" for i, (t, v) in enumerate(pairs)]
    return "\n".join(lines) + "\n"


def _facts(text):
    read = gather.read_pasted(text, params=KB.params())
    return {f.fact: f.value for f in read.findings}


TRAIN = [2.13, 0.796, 0.440, 0.370, 0.343, 0.336, 0.328, 0.320]


def test_a_validation_loss_that_keeps_up_with_the_training_loss_printed_with_it_tracks_it():
    facts = _facts(_console([(t, t * 0.99 + 0.004) for t in TRAIN]))
    assert facts.get("val_tracks_train") is True


def test_a_validation_loss_well_above_training_does_not_track_it():
    facts = _facts(_console([(t, t * 1.6) for t in TRAIN]))
    assert facts.get("val_tracks_train") is False


HEALTHY_TRAIN_MODE_VALIDATION = {
    "symptom": "healthy", "loss_trend": "decreasing", "loss_decrease_fraction": 0.85,
    "model_mode_in_validation": "train", "model_has_dropout_or_bn": True, "model_mode_in_training": "train",
    "val_tracks_train": True, "val_loss_trend": "decreasing",
}


def _report(facts):
    s = Session(KB)
    s.add_answers(facts)
    s.run()
    return s.report()


def test_validation_in_train_mode_on_a_healthy_run_is_a_note_not_a_cause():
    report = _report(HEALTHY_TRAIN_MODE_VALIDATION)
    assert report["status"] == "healthy"
    assert not any(c["confidence"] >= 0.5 for c in report["root_causes"])
    notes = [c for c in report["caveats"] if "model.eval()" in c]
    assert notes and "no visible harm" in notes[0]


def test_validation_in_train_mode_with_a_widening_gap_is_still_the_cause():
    facts = dict(HEALTHY_TRAIN_MODE_VALIDATION, symptom="overfitting", val_tracks_train=False,
                 val_loss_trend="increasing", train_accuracy=0.99, val_accuracy=0.6)
    report = _report(facts)
    assert report["root_causes"][0]["id"] == "train_eval_mode_mismatch"
    assert not any("no visible harm" in c for c in report["caveats"])


NOTE_RULE = """\
kind: rules
rules:
  - id: pack-note
    description: A note from a pack.
    when: {fact: learning_rate, lt: 1.0e-6}
    then:
      note: "the learning rate {learning_rate} is tiny; {batch_size} is the batch"
    cases:
      - {given: {learning_rate: 1.0e-7}, fires: true}
"""


def test_a_rule_note_may_name_only_facts_its_condition_reads(tmp_path):
    d = tmp_path / "pack"
    d.mkdir()
    (d / "rules.yaml").write_text(textwrap.dedent(NOTE_RULE))
    with pytest.raises(KBError) as e:
        load_kb([str(d)])
    msg = str(e.value)
    assert "\n" not in msg and "rules.yaml" in msg and "batch_size" in msg


def test_a_pack_rule_with_only_a_note_loads_and_its_note_reaches_the_report(tmp_path):
    d = tmp_path / "pack"
    d.mkdir()
    (d / "rules.yaml").write_text(textwrap.dedent(NOTE_RULE).replace("; {batch_size} is the batch", ""))
    kb = load_kb([str(d)])
    s = Session(kb)
    s.add_answers({"learning_rate": 1e-7})
    s.run()
    assert "the learning rate 1e-07 is tiny" in s.report()["caveats"]


SEQUENCE_SCRIPT = """\
    import os
    os.environ["OMP_NUM_THREADS"] = "1"
    import torch, torch.nn as nn
    torch.manual_seed(0)
    V, H, T, B = 12, 48, 20, 16

    def batch(g):
        start = torch.randint(0, V, (B, 1), generator=g)
        seq = (start + torch.arange(T + 1)) % V
        flip = torch.rand(seq.shape, generator=g) < 0.1
        seq = torch.where(flip, torch.randint(0, V, seq.shape, generator=g), seq)
        return seq[:, :-1], seq[:, 1:]

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, H); self.gru = nn.GRU(H, H, 2, dropout=0.3, batch_first=True)
            self.out = nn.Linear(H, V)
        def forward(self, x, h):
            o, h = self.gru(self.emb(x).unsqueeze(1), h)
            return self.out(o.squeeze(1)), h

    model = CharRNN()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()

    def step(x, y, validation):
        h = torch.zeros(2, B, H)
        model.zero_grad()
        loss = 0
        for t in range(T):
            out, h = model(x[:, t], h)
            loss += criterion(out, y[:, t])     # one cross-entropy per time step, summed
        if not validation:
            loss.backward(); opt.step()
        return loss.item() / T

    gt, gv = torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)
    for epoch in range(8):
        tr = sum(step(*batch(gt), False) for _ in range(15)) / 15
        va = sum(step(*batch(gv), True) for _ in range(4)) / 4
        print(f"[epoch {epoch}] Train: {tr:.4f} Valid: {va:.4f}", flush=True)
"""


@pytest.mark.slow
def test_a_loss_summed_over_time_steps_is_read_per_step_against_chance(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "seq.py").write_text(textwrap.dedent(SEQUENCE_SCRIPT))
    r = run_cli("diagnose", "--script", "seq.py", "--non-interactive", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    facts = {f["fact"]: f for f in report["facts"]}
    cur = facts["current_loss"]
    # twenty summed cross-entropies over 12 classes start near 20 ln 12 = 50: per step the loss is
    # read against ln 12, as the script itself prints it
    assert cur["value"] < math.log(12) and "per term" in cur["detail"]
    assert report["symptom"]["id"] != "not_learning"
    assert "loss_above_chance" not in facts
    assert facts["val_tracks_train"]["value"] is True
