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
    """The same log, through the CLI: with a pack that raises curves.flat_fraction (and the
    smallest fall that still reads as fell-then-flat, curves.plateau_min_fall) the curve reader
    reads the 15% fall as flat, and the diagnosis moves from a plateau to not learning."""
    import json

    from conftest import run_cli

    log = _flat_then_level_log(tmp_path / "metrics.csv")
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "thresholds.yaml").write_text("kind: parameters\noverrides:\n  curves.flat_fraction: 0.2\n"
                                          "  curves.plateau_min_fall: 0.2\n")
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


def _lr_too_low_session(kb):
    """lr_too_low diagnosed from the code and a probe while the loss still falls: no symptom is
    observed, so the report predicts the one the cause will show."""
    s = Session(kb)
    s.add("learning_rate", 1e-8, "code:train.py:3")
    s.add("optimizer", "sgd", "code:train.py:3")
    s.add("update_ratio", 1e-7, "probe:update_ratio")
    s.add("loss_trend", "decreasing", "log:metrics.csv:steps 0-99")
    return s.report()


def test_the_predicted_symptom_follows_the_curve_symptoms_parameter(tmp_path):
    """Which symptom a curve shape is compatible with is knowledge (report.curve_symptoms.*): a
    still-falling loss predicts Training slow for a too-low LR by default (the loss is still going
    down: it learns, too slowly), not learning with a pack that ranks not_learning first for that
    shape."""
    base = _lr_too_low_session(load_kb(entry_point_packs=False))
    assert base["status"] == "diagnosed" and base["root_causes"][0]["id"] == "lr_too_low"
    assert base["symptom"]["id"] == "slow_training" and base["symptom"]["predicted"]
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n"
                                  "  report.curve_symptoms.decreasing: [not_learning, plateau]\n")],
                 entry_point_packs=False)
    moved = _lr_too_low_session(kb)
    assert moved["symptom"]["id"] == "not_learning" and moved["symptom"]["predicted"]


def test_a_curve_symptoms_override_naming_no_symptom_is_one_line_at_the_override(tmp_path):
    with pytest.raises(KBError) as exc:
        load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  report.curve_symptoms.flat: [not_lerning]\n")],
                entry_point_packs=False)
    text = str(exc.value)
    assert "unknown symptom 'not_lerning'" in text and "not_learning" in text
    assert "p.yaml:3" in text and "\n" not in text


def _symptom(kb, **facts):
    s = Session(kb)
    for name, value in facts.items():
        s.add(name, value, "probe:data_timing" if name == "data_time_fraction" else "user")
    return s.value("symptom")


def test_a_rule_threshold_shared_through_a_parameter_moves_with_a_pack(tmp_path):
    """The slow-training cut is one parameter (rules.data_wait.slow) that the rules read as
    {param: ...}: raising it in a pack turns a data-bound run with a levelled-off loss from
    Training Slow into a plateau."""
    facts = {"data_time_fraction": 0.6, "loss_trend": "plateaued", "loss_decrease_fraction": 0.5}
    assert _symptom(load_kb(entry_point_packs=False), **facts) == "slow_training"
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  rules.data_wait.slow: 0.65\n")],
                 entry_point_packs=False)
    assert _symptom(kb, **facts) == "plateau"


def test_loss_at_chance_from_stated_numbers_uses_the_curve_readers_tolerance(tmp_path):
    """A loss 13% off ln(10) is not at chance under the shipped curves.chance_tolerance (10%), in
    the rule as in the curve reader; a pack widening it to 20% moves the rule too."""
    def at_chance(kb):
        s = Session(kb)
        s.add("num_classes", 10, "user")
        s.add("current_loss", 2.0, "user")
        return s.value("loss_at_chance")
    assert at_chance(load_kb(entry_point_packs=False)) is not True
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  curves.chance_tolerance: 0.2\n")],
                 entry_point_packs=False)
    assert at_chance(kb) is True


def test_a_rule_naming_an_unknown_parameter_is_one_line_with_its_line(tmp_path):
    (tmp_path / "pack.yaml").write_text("kind: pack\nname: p\nprovides: []\n")
    (tmp_path / "r.yaml").write_text(
        "kind: rules\nrules:\n  - id: p-wait\n    description: x\n"
        "    when: {fact: data_time_fraction, ge: {param: rules.data_wait.slw}}\n"
        "    then: {evidence: [{cause: data_loading_bottleneck, lr: 2}]}\n"
        "    cases: [{given: {data_time_fraction: 0.9}, fires: true}]\n")
    with pytest.raises(KBError) as exc:
        load_kb([str(tmp_path)], entry_point_packs=False)
    text = str(exc.value)
    assert "unknown parameter 'rules.data_wait.slw'" in text and "r.yaml:5" in text and "\n" not in text
    assert "did you mean 'rules.data_wait.slow'" in text


def test_every_probe_declares_parameters_the_knowledge_base_has_and_that_name_it():
    """A probe's ``parameters`` are ids in kb/parameters whose ``used_by`` names the probe's source."""
    from traindx.probes.live.sources import COSTLY, PROBES

    kb = load_kb(entry_point_packs=False)
    for probe in PROBES + COSTLY:
        for pid in probe.parameters:
            assert pid in kb.parameters, (probe.__name__, pid)
            assert probe.source in kb.parameters[pid]["used_by"], (probe.__name__, pid)


def test_the_live_lr_collapse_is_the_curve_readers_parameter():
    """lr_collapse_fraction means the same from a log and from a live run: one parameter
    (curves.lr_collapse) decides both."""
    import traindx.probes.live.updates as U

    changes = [(0, 1.0), (50, 0.005)]
    assert U.lr_collapse_fraction(changes, 100) == 0.5
    assert U.lr_collapse_fraction(changes, 100, {**shipped(), "curves.lr_collapse": 0.001}) == 1.0


def test_live_label_and_shuffle_cuts_are_parameters():
    import traindx.probes.live.data as D

    neighbours = {"agreement": 0.5, "chance": 0.1, "z": 3.0, "items": 300}
    assert D.labels_related(neighbours) is None
    assert D.labels_related(neighbours, {**shipped(), "label_neighbours.related_z": 2.5}) is True
    purities, counts, same = [0.85] * 8, {0: 400, 1: 400}, [True] * 7
    assert D.shuffle_inferred(purities, counts, 32, same) is None
    assert D.shuffle_inferred(purities, counts, 32, same, {**shipped(), "shuffle.sorted_purity": 0.8}) is False


def test_a_pack_raising_the_curve_readers_minimum_points_changes_the_diagnosis(tmp_path):
    """How many points the curve reader needs before it judges noise or a plateau is knowledge
    (curves.noise_min_points, 5): an 8-epoch log that fell and then held for five epochs is a
    plateau; a pack asking for 10 points leaves the fall unjudged, and the run reads healthy."""
    import json

    from conftest import run_cli

    log = tmp_path / "metrics.csv"
    log.write_text("epoch,loss,val_loss,val_acc\n" + "".join(
        f"{i + 1},{tr},{va},{acc}\n" for i, (tr, va, acc) in enumerate([
            (1.20, 1.25, 0.40), (0.80, 0.86, 0.58), (0.62, 0.70, 0.66), (0.61, 0.69, 0.66),
            (0.61, 0.70, 0.67), (0.60, 0.69, 0.66), (0.61, 0.70, 0.66), (0.60, 0.69, 0.67)])))
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "points.yaml").write_text("kind: parameters\noverrides:\n  curves.noise_min_points: 10\n")
    args = ("diagnose", "--log", str(log), "--non-interactive", "--format", "json")
    base = json.loads(run_cli(*args).stdout)
    moved = json.loads(run_cli(*args, "--kb", str(pack)).stdout)
    assert base["symptom"]["id"] == "plateau" and base["status"] != "healthy"
    assert moved["symptom"]["id"] == "healthy" and moved["status"] == "healthy"


def test_the_live_trend_minimum_is_a_parameter():
    """grad_norm_trend and step_time_trend read their minimum sample from the parameters they are handed."""
    from traindx.probes.live.gradients import grad_norm_trend
    from traindx.probes.live.timing import step_time_trend

    norms = [1.0, 1.1, 1.0, 4.0, 4.2, 4.1, 4.3]
    assert grad_norm_trend(norms) == "growing"
    assert grad_norm_trend(norms, {**shipped(), "trends.min_points": 8}) is None
    times = [0.5] * 3 + [0.1] * 5 + [0.3] * 5
    assert step_time_trend(times) == "increasing"
    assert step_time_trend(times, {**shipped(), "data_timing.step_time_min_steps": 11}) is None


def test_the_time_stamp_test_is_a_parameter(tmp_path):
    """A time column that goes back once in 30 rows (a resumed run) is time stamps at the shipped
    logs.time_stamp_back_share (5 %); a pack that allows no step back reads it as durations."""
    from traindx.probes.readers.logs import read_log

    t, rows = 1000.0, []
    for i in range(30):
        t = 1000.0 if i == 15 else t + 2.0 + 0.1 * (i % 3)
        rows.append(f"{i},{2.0 / (i + 1):.4f},{t:.2f}\n")
    log = tmp_path / "metrics.csv"
    log.write_text("step,loss,time\n" + "".join(rows))
    assert read_log(log).time_kind == "cumulative"
    assert read_log(log, params={**shipped(), "logs.time_stamp_back_share": 0.0}).time_kind == "duration"


def test_the_accuracy_trend_minimum_is_a_parameter(tmp_path):
    """A log with three accuracies and no loss gets an accuracy_trend; a pack asking for four does not."""
    from traindx.probes.readers.logs import analyze_log

    log = tmp_path / "metrics.csv"
    log.write_text("epoch,accuracy\n1,0.30\n2,0.50\n3,0.70\n")
    facts = {f.fact: f.value for f in analyze_log(log)[0]}
    assert facts["accuracy_trend"] == "rising"
    moved = {f.fact: f.value for f in analyze_log(log, params={**shipped(), "curves.accuracy_trend_min_points": 4})[0]}
    assert "accuracy_trend" not in moved


def test_the_near_copy_check_reads_its_cuts_from_params():
    """Validation examples jittered from training ones are near-copies; a pack that wants more
    training rows per neighbour than the set holds leaves the check unanswered."""
    torch = pytest.importorskip("torch")
    from traindx.probes.live.data import near_duplicate_fraction

    g = torch.Generator().manual_seed(0)
    orig = torch.randn(240, 30, generator=g)
    copies = torch.cat([orig + 0.05 * torch.randn(240, 30, generator=g) for _ in range(5)])
    data = torch.utils.data.TensorDataset(copies, torch.randint(0, 4, (1200,), generator=g))
    tr, va = torch.utils.data.random_split(data, [960, 240], generator=torch.Generator().manual_seed(1))
    assert near_duplicate_fraction(tr, va)["fraction"] > 0.8
    assert near_duplicate_fraction(tr, va, params={**shipped(), "leakage.near_copy_train_per_neighbour": 60}) is None


def _gap_report(kb):
    """Stated numbers: train 95%, validation 87% (an 8-point gap), the loss still falling."""
    s = Session(kb)
    for fact, value in dict(train_accuracy=0.95, val_accuracy=0.87, loss_trend="decreasing", num_classes=10,
                            train_loss=0.2, initial_loss=2.3).items():
        s.add(fact, value, "log:metrics.csv")
    return s.report()


def test_a_pack_narrowing_the_rules_overfitting_gap_changes_the_diagnosis(tmp_path):
    """rules.train_val_gap.wide is the one cut every gap rule reads (it was a bare 0.1 in ten rules):
    an 8-point gap is healthy by default and overfitting once a pack sets the cut to 5 points."""
    base = _gap_report(load_kb(entry_point_packs=False))
    assert base["symptom"]["id"] == "healthy" and base["status"] == "healthy"
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  rules.train_val_gap.wide: 0.05\n")],
                 entry_point_packs=False)
    moved = _gap_report(kb)
    assert moved["symptom"]["id"] == "overfitting"
    assert moved["root_causes"][0]["id"] == "insufficient_regularization"


def test_a_pasted_metrics_withheld_values_are_a_parameter(tmp_path):
    """Which facts a pasted loss printed under rival names withholds is knowledge
    (console.role_value_facts.*): with a pack that empties the loss's list, its value is read."""
    from traindx.engine.frontends.gather import read_pasted

    text = ("Epoch 0, Batch 0, Loss: 9.8123\n"
            "Epoch: 0, Training Loss: 7.5021\n"
            "Epoch: 1, Training Loss: 7.1302\n")
    base = {f.fact for f in read_pasted(text, params=shipped()).findings}
    moved = {f.fact for f in read_pasted(text, params={**shipped(), "console.role_value_facts.loss": []}).findings}
    assert "current_loss" not in base and "current_loss" in moved


def _parameter_reads(tree):
    """(line, id, has a default) for every ``X.get("area.name", ...)``, ``kb.param("area.name")``,
    ``X["area.name"]`` and any call that passes a number right after an id (``_param(kb, ID, 3)``)."""
    import ast

    def number(n):
        return isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "param") \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            yield node.lineno, node.args[0].value, len(node.args) > 1
        elif isinstance(node, ast.Call):
            for a, b in zip(node.args, node.args[1:]):
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and number(b):
                    yield node.lineno, a.value, True
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            yield node.lineno, node.slice.value, False


def test_code_reads_every_parameter_from_the_knowledge_base_without_a_default_of_its_own():
    """A parameter the code reads is declared in kb/parameters (so a missing one fails here, not at
    run time), and no read carries a fallback number of its own that could drift from the KB's."""
    import ast
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    ids = set(shipped())
    areas = {i.split(".")[0] for i in ids}
    shaped = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")
    unknown, defaulted = [], []
    for path in sorted(list((root / "engine").rglob("*.py")) + list((root / "probes").rglob("*.py"))):
        for line, ident, has_default in _parameter_reads(ast.parse(path.read_text())):
            if not shaped.match(ident) or ident.split(".")[0] not in areas:
                continue
            where = f"{path.relative_to(root)}:{line}: {ident}"
            if ident not in ids and not any(i.startswith(ident + ".") for i in ids):
                unknown.append(where)
            if has_default and ident in ids:
                defaulted.append(where)
    assert not unknown, unknown
    assert not defaulted, defaulted


def _double_softmax_session(pace):
    """A softmax fed to cross-entropy, read from the code, under a curve that still falls."""
    s = Session(load_kb(entry_point_packs=False))
    s.add("output_activation", "softmax", "code:train.py:12")
    s.add("loss_function", "cross_entropy", "code:train.py:20")
    s.add("zero_grad_called", True, "code:train.py:30")
    s.add("frozen_params", [], "code:train.py:1")
    s.add("optimizer", "adam", "code:train.py:25")
    s.add("learning_rate", 0.001, "code:train.py:25")
    s.add("loss_trend", "decreasing", "log:console.log:steps 0-99")
    s.add("loss_pace", pace, "log:console.log:steps 0-99")
    return s.report()


def test_a_cap_under_a_normal_pace_predicts_the_plateau_it_stops_at():
    """A diagnosed cause that caps the loss, under a still-falling loss whose pace reads normal,
    predicts a Plateau (report.curve_symptoms.decreasing_normal_pace), not Training slow; under a
    slow pace, Training slow stays first."""
    normal = _double_softmax_session("normal")
    assert normal["root_causes"][0]["id"] == "double_softmax" and normal["status"] == "diagnosed"
    assert normal["symptom"]["id"] == "plateau" and normal["symptom"]["predicted"]
    slow = _double_softmax_session("slow")
    assert slow["symptom"]["id"] == "slow_training"


def _fitted_run_with_a_loss_just_under_zero(params):
    """A linear regression that starts at its exact fit, trained on MSE minus 5e-7 (a constant
    subtracted from the loss): every training loss is 5e-7 under zero, about the size of float
    rounding in a loss near zero. The live monitor's findings, under ``params``."""
    torch = pytest.importorskip("torch")
    import traindx.probes as tp

    torch.manual_seed(0)
    w = torch.tensor([[1.0, -2.0, 0.5, 1.5]])
    x = torch.randn(64, 4)
    y = x @ w.T
    model = torch.nn.Linear(4, 1)
    with torch.no_grad():
        model.weight.copy_(w)
        model.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    mon = tp.Monitor(params=params)
    with mon:
        mon.bind(model, opt)
        for _ in range(30):
            out = model(x)
            loss = torch.nn.functional.mse_loss(out, y) - 5e-7
            mon.on_loss(loss, phase="train", outputs=out, targets=y, loss_name="mse")
            opt.zero_grad()
            loss.backward()
            opt.step()
    return mon.findings()


def _report(kb, findings):
    s = Session(kb)
    for f in findings:
        s.add(f.fact, f.value, f.source)
    return s.report()


@pytest.mark.slow
def test_a_pack_overriding_the_negative_loss_tolerance_changes_a_live_diagnosis(tmp_path):
    """monitor.negative_loss_tolerance (it was a bare -1e-6 in losses.loss_negative): under the
    shipped value a live MSE loss 5e-7 under zero is rounding, and the report finds no cause; a pack
    allowing no rounding reads the loss as negative, and the negative-loss rule diagnoses a wrong
    loss function. The pack's values reach the monitor as the runner hands them (kb.params())."""
    core = load_kb(entry_point_packs=False)
    base = _fitted_run_with_a_loss_just_under_zero(core.params())
    assert {f.fact: f.value for f in base}["loss_negative"] is False
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  monitor.negative_loss_tolerance: 0\n")],
                 entry_point_packs=False)
    moved = _fitted_run_with_a_loss_just_under_zero(kb.params())
    assert {f.fact: f.value for f in moved}["loss_negative"] is True
    before, after = _report(core, base), _report(kb, moved)
    assert not before["root_causes"] or before["root_causes"][0]["id"] != "wrong_loss_function"
    assert after["status"] == "diagnosed" and after["root_causes"][0]["id"] == "wrong_loss_function"


def test_the_live_cuts_moved_out_of_the_code_are_read_from_params():
    """The numbers that were literals in the live probes (issue 11: loss_negative's -1e-6,
    grads_all_zero's 1e-30 over the last 5 samples, _still_falling's 10 steps) follow the
    parameters they are handed."""
    import traindx.probes.live.gradients as G
    import traindx.probes.live.losses as L
    import traindx.probes.live.overfit as OF

    P = shipped()
    assert L.loss_negative([0.3, -5e-7], P) is False
    assert L.loss_negative([0.3, -5e-7], {**P, "monitor.negative_loss_tolerance": 0.0}) is True
    assert G.grads_all_zero([1e-31] * 5, P) is True
    assert G.grads_all_zero([1e-31] * 5, {**P, "grad_flow.zero_norm": 1e-32}) is False
    assert G.grads_all_zero([0.5] + [0.0] * 5, P) is True
    assert G.grads_all_zero([0.5] + [0.0] * 5, {**P, "grad_flow.zero_recent_samples": 6}) is False
    falling = [2.0 - 0.1 * i for i in range(9)]
    assert OF._still_falling(falling, P) is None
    assert OF._still_falling(falling, {**P, "overfit.still_falling_min_steps": 5}) is True


def test_the_output_and_target_tolerances_are_read_from_params():
    """output_activation's log-softmax ceiling and target_kind's row-sum tolerance are parameters."""
    torch = pytest.importorskip("torch")
    import traindx.probes.live.losses as L

    P = shipped()
    logp = torch.log_softmax(torch.randn(8, 4), dim=1)
    tol = P["output_squash.sum_tolerance"]
    assert L.output_activation(logp, 8, tol, P["output_squash.log_softmax_max"]) == "log_softmax"
    assert L.output_activation(logp, 8, tol, -1e3) == "none"
    out = torch.randn(8, 4)
    two_labels = torch.eye(4)[torch.arange(8) % 4] + torch.eye(4)[(torch.arange(8) + 1) % 4]
    assert L.target_kind(out, two_labels, row_tolerance=P["output_squash.target_row_tolerance"]) == "multi_hot"
    assert L.target_kind(out, two_labels, row_tolerance=1.5) == "one_hot"


def _val_turns_up_at_the_end_log(path):
    """Train and validation losses falling together to a level (no gap), the validation loss climbing
    over its last six evaluations of sixty: a rise only its last tenth shows."""
    import math
    import random

    rng = random.Random(0)
    rows = ["epoch,loss,val_loss"]
    for e in range(60):
        train = 0.85 + 1.2 * math.exp(-e / 6) + rng.gauss(0, 0.005)
        val = 0.9 + 1.2 * math.exp(-e / 6) + rng.gauss(0, 0.005) if e < 54 else 0.9 + 0.06 * (e - 53)
        rows.append(f"{e},{train:.4f},{val:.4f}")
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.slow
def test_a_pack_overriding_a_moved_curve_window_changes_the_diagnosis_end_to_end(tmp_path):
    """curves.val_rise_tail_parts (was ``n // 10`` in the curve reader, session 18): shipped, the
    last tenth of the evaluations sits above the best and the run overfits; a pack reading the rise
    over all the evaluations (1 part) sees no rise, and the same log is a plateau."""
    import json

    from conftest import run_cli

    log = _val_turns_up_at_the_end_log(tmp_path / "metrics.csv")
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "window.yaml").write_text("kind: parameters\noverrides:\n  curves.val_rise_tail_parts: 1\n")
    base = json.loads(run_cli("diagnose", "--log", log, "--non-interactive", "--format", "json").stdout)
    moved = json.loads(run_cli("diagnose", "--log", log, "--kb", str(pack), "--non-interactive",
                               "--format", "json").stdout)
    trend = {r["symptom"]["id"]: [e["value"] for e in r["symptom"]["evidence"] if e["fact"] == "val_loss_trend"]
             for r in (base, moved)}
    assert base["symptom"]["id"] == "overfitting" and trend["overfitting"] == ["increasing"], trend
    assert moved["symptom"]["id"] == "plateau", trend
    assert base["root_causes"][0]["id"] != moved["root_causes"][0]["id"]


def test_a_pack_overriding_the_config_key_scores_changes_which_lr_is_read(tmp_path):
    """A config sets lr at the top and under its optimizer section: the section key wins
    (config.section_key_bonus); a pack that gives the section no bonus lets the shallower key win.
    Read as the CLI and MCP read a --config file (gather, with the knowledge base's parameters)."""
    from traindx.engine.frontends import gather
    cfg = tmp_path / "train.yaml"
    cfg.write_text("lr: 0.001\nepochs: 10\noptimizer:\n  name: adam\n  lr: 0.1\n")

    def lr_read(kb):
        found = {f.fact: (f.value, f.source) for f in gather.read_config(str(cfg), kb.params()).findings}
        return found["learning_rate"]

    assert lr_read(load_kb(entry_point_packs=False)) == (0.1, "config:train.yaml:optimizer.lr")
    pack = tmp_path / "pack"
    pack.mkdir()
    kb = load_kb([_pack(pack, "kind: parameters\noverrides:\n  config.section_key_bonus: 0\n")],
                 entry_point_packs=False)
    assert lr_read(kb) == (0.001, "config:train.yaml:lr")


def _batch_of_eight_session(kb):
    """A script that trains on batches of 8 and a loss that swings: too high an LR or too small a batch."""
    s = Session(kb)
    s.add("batch_size", 8, "code:train.py:3")
    s.add("loss_trend", "oscillating", "log:metrics.csv:steps 0-99")
    return s.report()


def test_a_pack_moving_a_cut_two_rules_share_moves_both(tmp_path):
    """rules.batch_size.tiny is the one cut between tiny-batch (strong evidence for batch_too_small) and
    small-batch (weak evidence), once a bare 4 written in each rule: a pack that calls 8 examples tiny
    makes a batch of 8 the leading suspect of a swinging loss, where the shipped cut ranks the LR first."""
    base = _batch_of_eight_session(load_kb(entry_point_packs=False))
    assert [c["id"] for c in base["root_causes"][:2]] == ["lr_too_high", "batch_too_small"]
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  rules.batch_size.tiny: 8\n")],
                 entry_point_packs=False)
    assert kb.rules["tiny-batch"].test({"batch_size": 8}) and not kb.rules["small-batch"].test({"batch_size": 8})
    moved = _batch_of_eight_session(kb)
    assert moved["root_causes"][0]["id"] == "batch_too_small"


def _rule_literals_module():
    import importlib.util
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location("rule_literals", os.path.join(root, "benchmarks", "rule_literals.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_no_rule_condition_compares_with_a_bare_threshold():
    """Every number a rule decides a fact or evidence with is a kb/parameters entry a pack can move
    (issue 11); what is left bare is the shape of a test or a formula (rule_literals.STRUCTURAL)."""
    rl = _rule_literals_module()
    bare = [f"{r['rule']}: {r['fact']} {r['op']} {r['value']}" for r in rl.rule_literals() if not rl.structural(r)]
    assert not bare, "bare thresholds in rule conditions (make each a {param: ID}): " + "; ".join(bare)


def _overlap_session(kb, overlap):
    """A probe found this share of the validation examples in the training set."""
    s = Session(kb)
    s.add("val_train_overlap", overlap, "probe:val_train_overlap")
    return s.report()


def test_a_pack_moving_a_single_rule_cut_changes_the_diagnosis(tmp_path):
    """val-overlaps-train's 5% (once a bare 0.05 in its condition) is rules.val_overlap.notable: 3% of the
    validation set found in training is no leak with the shipped cut, and a pack that calls 2% notable
    makes data_leakage the leading cause of the same finding."""
    base = _overlap_session(load_kb(entry_point_packs=False), 0.03)
    assert base["root_causes"][0]["id"] != "data_leakage"
    kb = load_kb([_pack(tmp_path, "kind: parameters\noverrides:\n  rules.val_overlap.notable: 0.02\n")],
                 entry_point_packs=False)
    assert kb.rules["val-overlaps-train"].test({"val_train_overlap": 0.03})
    moved = _overlap_session(kb, 0.03)
    assert moved["root_causes"][0]["id"] == "data_leakage"
