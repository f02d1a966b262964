"""Differential diagnosis: experiments declared in the KB, chosen by the engine, run on copies.

What a user would notice: an ambiguous diagnosis makes traindx try the candidate fix on a copy and
report what it measured ("with the LR ×10 on a copy, the held-out loss fell 41% in 40 steps; the
unchanged copy 1%"); the outcome moves the confidence the way the experiment's likelihood ratios
say; a pack adds an experiment without code and a broken one is one line naming the file and line;
nothing runs with --no-experiments; a decided or healthy run runs none.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from traindx.engine import differential
from traindx.engine.api import Session, load_kb
from traindx.engine.errors import KBError



def _ambiguous(kb):
    s = Session(kb)
    s.add("symptom", "not_learning", source="probe:loss_vs_chance")
    return s


def test_at_least_20_root_causes_are_covered_by_an_experiment(kb):
    causes = {x["cause"] for e in kb.experiments.values() for o in ("confirms", "refutes")
              for x in (e["evidence"].get(o) or []) if x["lr"] != 1}
    assert len(causes) >= 20, sorted(causes)
    assert len({e["intervention"]["kind"] for e in kb.experiments.values()}) >= 12


def test_an_open_diagnosis_picks_the_most_informative_experiment_per_cost(kb):
    s = _ambiguous(kb)
    assert differential.undecided(s)
    ranked = differential.rank(s)
    assert ranked and ranked == sorted(ranked, key=lambda r: (-r["score"], r["id"]))
    nxt = differential.next_experiment(s)
    assert nxt["id"] == ranked[0]["id"] and nxt["fact"] == f"exp_{nxt['id']}"
    assert nxt["intervention"]["kind"] and nxt["steps"] > 0 and nxt["measure"]["metric"]


def test_the_outcome_moves_the_confidence_by_its_likelihood_ratios(kb):
    s = _ambiguous(kb)
    before = dict(s.posterior())
    s.add("exp_lr_up", "confirms", source="probe:experiment", detail="with the LR ×10 on a copy ...")
    up = s.posterior()
    assert up["lr_too_low"] > 2 * before["lr_too_low"]
    s2 = _ambiguous(kb)
    s2.add("exp_lr_up", "refutes", source="probe:experiment")
    assert s2.posterior()["lr_too_low"] < before["lr_too_low"] / 3
    # the same experiment is not picked twice
    assert differential.next_experiment(s2) is None or differential.next_experiment(s2)["id"] != "lr_up"


def test_a_decided_or_healthy_run_runs_no_experiment(kb):
    s = Session(kb)
    s.add("symptom", "healthy", source="probe:loss_vs_chance")
    assert differential.next_experiment(s) is None
    s = _ambiguous(kb)
    s.add("learning_rate", 1e-8, source="code:train.py:3")
    s.add("optimizer", "sgd", source="code:train.py:3")
    s.add("exp_lr_up", "confirms", source="probe:experiment")
    assert s.decided()
    assert differential.next_experiment(s) is None


def test_an_experiment_whose_condition_fails_is_not_considered(kb):
    s = _ambiguous(kb)
    ids = {r["id"] for r in differential.rank(s)}
    assert "unfreeze" not in ids            # no frozen parameters known
    s.add("frozen_params", ["fc.weight"], source="probe:grad_flow")
    assert "unfreeze" in {r["id"] for r in differential.rank(s)}


def test_report_states_each_experiment_and_the_verified_fix(kb):
    s = _ambiguous(kb)
    from traindx.engine.evidence import Finding
    text = "with the LR ×10 on a copy, the held-out loss fell 41% in 40 steps; the unchanged copy fell 1%"
    s.add_finding(Finding("exp_lr_up", "confirms", "probe:experiment", text, {"gain": 0.4, "treated_drop": 0.41,
                                                                             "control_drop": 0.01, "steps": 40}))
    s.add("learning_rate", 1e-6, source="code:train.py:3")
    r = s.report()
    assert r["experiments"][0]["id"] == "lr_up" and r["experiments"][0]["result"] == text
    assert r["experiments"][0]["measured"]["treated_drop"] == 0.41
    assert r["fix"]["verified"] == {"on_copy": True, "experiment": "lr_up", "outcome": "confirms", "effect": text}
    md = s.markdown()
    assert "Experiments on copies" in md and text in md and "**Verified on a copy:** yes" in md
    import jsonschema
    from traindx.engine.loader import schema_for
    jsonschema.validate(json.loads(json.dumps(r, default=str)), schema_for("report"))


def _pack(tmp_path, body):
    d = tmp_path / "pack"
    d.mkdir()
    (d / "experiments.yaml").write_text(textwrap.dedent(body))
    return d


def test_a_pack_adds_an_experiment_without_code(tmp_path):
    d = _pack(tmp_path, """\
        kind: experiments
        experiments:
          - id: lr_up_100
            description: A hundred times the LR.
            intervention: {kind: lr_scale, factor: 100}
            steps: 20
            measure: {metric: progress_ratio, min_drop: 0.001, confirm_ratio: 3, refute_ratio: 1.5}
            evidence:
              confirms: [{cause: lr_too_low, lr: 9}]
              refutes: [{cause: lr_too_low, lr: 0.2}]
            cost: 3
        """)
    kb = load_kb([str(d)])
    assert "lr_up_100" in kb.experiments and "exp_lr_up_100" in kb.facts
    s = Session(kb)
    s.add("exp_lr_up_100", "confirms", source="probe:experiment")
    assert any(f.rule.id == "exp-lr_up_100-confirms" for f in s.run().firings)


def test_a_broken_experiment_is_one_line_with_file_and_line(tmp_path):
    d = _pack(tmp_path, """\
        kind: experiments
        experiments:
          - id: bad
            description: x
            intervention: {kind: lr_scale, factor: 10}
            steps: 20
            measure: {metric: heldout_gain, confirm_gain: 0.1, refute_gain: 0.0}
            evidence:
              confirms: [{cause: lr_too_lowww, lr: 9}]
            cost: 3
        """)
    with pytest.raises(KBError) as ei:
        load_kb([str(d)])
    msg = str(ei.value)
    assert "experiments.yaml:" in msg and "lr_too_lowww" in msg and "lr_too_low" in msg
    d2 = tmp_path / "p2"
    d2.mkdir()
    (d2 / "experiments.yaml").write_text("kind: experiments\nexperiments:\n  - id: x\n    description: y\n"
                                         "    intervention: {kind: change_everything}\n    steps: 5\n"
                                         "    measure: {metric: finite}\n    evidence: {}\n    cost: 1\n")
    with pytest.raises(KBError) as ei:
        load_kb([str(d2)])
    assert "change_everything" in str(ei.value) and ":5:" in str(ei.value)


# ------------------------------------------------------------------ the script runner's protocol
torch = pytest.importorskip("torch")

SCRIPT = """\
import torch
torch.manual_seed(0)
X = torch.randn(1024, 10); W = torch.randn(10, 3); Y = (X @ W).argmax(1)
model = torch.nn.Sequential(torch.nn.Linear(10, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
crit = torch.nn.CrossEntropyLoss()
for step in range(120):
    i = (step * 32) % 1024
    xb, yb = X[i:i + 32], Y[i:i + 32]
    opt.zero_grad()
    loss = crit(model(xb), yb)
    loss.backward()
    opt.step()
print("done", float(loss))
"""


def test_the_runner_runs_the_engines_experiment_at_the_end_of_the_run(tmp_path, kb):
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    asked = []

    def experiment(findings, steps, done):
        asked.append(list(done))
        return differential.spec(kb, "lr_up") if not done else None

    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, experiment=experiment, timeout=300)
    assert r.exit_code == 0 and "done" in r.stdout_tail
    assert asked == [[], ["lr_up"]]
    f = next(f for f in r.findings if f.fact == "exp_lr_up")
    assert f.source == "probe:experiment" and f.value == "confirms", f
    assert "the LR ×10 on a copy" in f.detail and "unchanged copy" in f.detail
    # the script's own result is the same as without traindx (nothing changed the run)
    import subprocess
    import sys
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                           env={"OMP_NUM_THREADS": "1", "PATH": ""})
    assert plain.stdout.strip() in r.stdout_tail


def test_no_experiments_flag_runs_none(tmp_path, kb):
    from traindx.probes.runner.supervise import run_script

    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    r = run_script(str(script), env={"OMP_NUM_THREADS": "1"}, timeout=300)
    assert not [f for f in r.findings if f.source == "probe:experiment"]


def _regression_at(lr, noise, steps=1500):
    torch.manual_seed(0)
    X = torch.randn(4096, 16)
    Y = X @ torch.randn(16, 1) + noise * torch.randn(4096, 1)
    m = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    o = torch.optim.SGD(m.parameters(), lr=lr)
    fn = torch.nn.MSELoss()
    batches = []
    for i in range(steps):
        j = (i * 32) % 4096
        xb, yb = X[j:j + 32], Y[j:j + 32]
        o.zero_grad()
        fn(m(xb), yb).backward()
        o.step()
        if i >= steps - 64:
            batches.append(((xb,), {}, yb, (32, 1)))
    return m, o, batches, fn


@pytest.mark.parametrize("lr,noise,expect", [(0.01, 1.0, {"inconclusive", "refutes"}),
                                             (0.003, 1.0, {"inconclusive", "refutes"}),
                                             (0.1, 0.0, {"confirms"})])
def test_a_lower_lr_at_the_data_noise_floor_confirms_nothing(kb, lr, noise, expect):
    """A regression sitting at its label noise (σ=1) gains a little from a lower LR, inside the
    batch-to-batch noise: no cause. A noiseless one held up by SGD's own jitter gains clearly."""
    from traindx.probes.live.experiments import run_experiment

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        m, o, batches, fn = _regression_at(lr, noise)
        r = run_experiment(m, o, batches, fn, differential.spec(kb, "lr_decay_on_plateau"))
    finally:
        torch.set_num_threads(n)
    assert r["outcome"] in expect, r["detail"]
    assert r["steps"] <= r["trained_on"]          # one pass over the kept batches, never cycled


def test_copies_train_in_the_runs_training_mode_after_an_evaluation_pass(kb):
    """A run that ends an epoch with model.eval() leaves the model in eval mode when the experiment
    starts. The copies must still train as the run trains (dropout on): with dropout 0.9 switched
    off on the treated copy, it learns faster than the unchanged one. (Trained in eval mode, both
    copies would skip dropout and come out identical.)"""
    from traindx.probes.live.experiments import run_experiment

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        centres = torch.randn(6, 16) * 2
        y = torch.randint(0, 6, (64 * 32,))
        x = centres[y] + torch.randn(len(y), 16)
        m = torch.nn.Sequential(torch.nn.Linear(16, 128), torch.nn.ReLU(), torch.nn.Dropout(0.9),
                                torch.nn.Linear(128, 6))
        o = torch.optim.Adam(m.parameters(), lr=1e-3)
        fn = torch.nn.CrossEntropyLoss()
        batches = []
        for i in range(64):
            xb, yb = x[i * 32:(i + 1) * 32], y[i * 32:(i + 1) * 32]
            o.zero_grad()
            fn(m(xb), yb).backward()
            o.step()
            batches.append(((xb,), {}, yb, (32, 6)))
        m.eval()                                    # the run's validation pass came last
        r = run_experiment(m, o, batches, fn, differential.spec(kb, "no_regularization"),
                           context={"training": True})
    finally:
        torch.set_num_threads(n)
    assert r["treated_loss"] < 0.95 * r["control_loss"], r["detail"]
    assert m.training is False                      # the user's model is left as it was
