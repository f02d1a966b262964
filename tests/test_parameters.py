"""Parameters live in the knowledge base: shown by ``explain``, overridden by a pack, checked on load."""
import pytest

from traindx.engine.api import Session
from traindx.engine.errors import KBError
from traindx.engine.loader import load_kb
from traindx.engine.parameters import resolve, shipped


def _pack(tmp_path, body):
    (tmp_path / "p.yaml").write_text(body)
    return str(tmp_path)


def test_every_shipped_parameter_is_documented_and_used():
    kb = load_kb(entry_point_packs=False)
    assert kb.parameters, "the core knowledge base defines parameters"
    for pid, p in kb.parameters.items():
        assert p["description"].strip() and p["unit"].strip() and p["used_by"], pid
    assert shipped() == kb.params()
    assert resolve(None) == kb.params()


def test_pack_override_changes_the_interview(tmp_path):
    """engine.min_gain_bits decides whether a low-value question is still asked: a pack raising it
    ends the interview where the core one asks on."""
    core = Session(load_kb(entry_point_packs=False))
    core.add_complaint("loss flat from epoch 0")
    assert core.next_question()["id"] == "learning_rate"
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  engine.min_gain_bits: 100\n")],
                 entry_point_packs=False)
    assert kb.param("engine.min_gain_bits") == 100
    s = Session(kb)
    s.add_complaint("loss flat from epoch 0")
    q = s.next_question()
    assert q is None or q["id"] == "loss_behavior"


@pytest.mark.parametrize("body, message", [
    ("kind: parameters\noverrides:\n  engine.min_gain_bitz: 1\n", "unknown parameter 'engine.min_gain_bitz'"),
    ("kind: parameters\noverrides:\n  engine.min_gain_bits: fast\n", "wrong type"),
    ("kind: parameters\noverrides:\n  engine.min_gain_bits: -1\n", "outside its range"),
    ("kind: parameters\nparameters:\n"
     "  - {id: engine.min_gain_bits, value: 1, unit: bits, description: x, used_by: [engine:x]}\n",
     "clashes with the core"),
])
def test_bad_override_is_one_line_with_its_line(tmp_path, body, message):
    with pytest.raises(KBError) as exc:
        load_kb([_pack(tmp_path, body)], entry_point_packs=False)
    text = str(exc.value)
    assert message in text and "p.yaml:" in text and "\n" not in text


def _flat_then_level_log(path):
    """A per-step loss that falls 15% (2.30 -> 1.95) and then levels off: a plateau under the shipped
    curves.flat_fraction (10%), a loss that never got going under 20%."""
    import math
    import random

    rng = random.Random(0)
    rows = ["step,loss"] + [f"{s},{2.30 - 0.35 * (1 - math.exp(-s / 40)) + rng.gauss(0, 0.005):.5f}"
                            for s in range(400)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_a_pack_overriding_a_curve_threshold_changes_the_diagnosis_end_to_end(tmp_path):
    """The same log, through the CLI: with a pack that raises curves.flat_fraction the curve reader
    reads the 15% fall as flat, and the diagnosis moves from a plateau to not learning."""
    import json

    from conftest import run_cli

    log = _flat_then_level_log(tmp_path / "metrics.csv")
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "thresholds.yaml").write_text("kind: parameters\noverrides:\n  curves.flat_fraction: 0.2\n")
    base = json.loads(run_cli("diagnose", "--log", log, "--non-interactive", "--format", "json").stdout)
    moved = json.loads(run_cli("diagnose", "--log", log, "--kb", str(pack), "--non-interactive",
                               "--format", "json").stdout)
    trend = {r["id"]: [e for e in r["evidence"] if e["fact"] == "loss_trend"] for r in (base["symptom"],
                                                                                        moved["symptom"])}
    assert base["symptom"]["id"] == "plateau" and moved["symptom"]["id"] == "not_learning", trend
    assert base["root_causes"][0]["id"] != moved["root_causes"][0]["id"]


def test_the_script_runner_hands_a_packs_overrides_to_the_childs_monitor(tmp_path):
    """The --script child builds its monitor with the pack's overrides (only the changed values
    travel, as --params): train_val_gap.min_metric_steps raised past the run's length withholds the
    training loss that the shipped value reports after 20 steps."""
    pytest.importorskip("torch")
    from traindx.engine.parameters import shipped
    from traindx.probes.runner.supervise import params_args, run_script

    assert params_args(None) == [] and params_args(shipped()) == []
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\ntorch.manual_seed(0)\nm = torch.nn.Linear(4, 3)\n"
        "opt = torch.optim.SGD(m.parameters(), lr=0.1)\nx, y = torch.randn(64, 4), torch.randint(0, 3, (64,))\n"
        "for _ in range(40):\n    loss = torch.nn.functional.cross_entropy(m(x), y)\n"
        "    opt.zero_grad(); loss.backward(); opt.step()\n")
    facts = {f.fact for f in run_script(str(script), timeout=600).findings}
    raised = {**shipped(), "train_val_gap.min_metric_steps": 10_000}
    assert params_args(raised) == ["--params", '{"train_val_gap.min_metric_steps": 10000}']
    facts_raised = {f.fact for f in run_script(str(script), timeout=600, params=raised).findings}
    assert "train_loss" in facts and "train_loss" not in facts_raised
    assert "current_loss" in facts_raised


def test_which_source_wins_a_disagreement_is_a_parameter(tmp_path):
    """A user's answer outranks a probe by default; a pack that ranks probes higher keeps the probe's value."""
    def lr_after(kb):
        s = Session(kb)
        s.add("learning_rate", 0.1, "probe:optimizer_coverage")
        s.add("learning_rate", 0.001, "user")
        return s.value("learning_rate")
    assert lr_after(load_kb(entry_point_packs=False)) == 0.001
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  engine.source_rank.probe: 9\n")],
                 entry_point_packs=False)
    assert lr_after(kb) == 0.1
