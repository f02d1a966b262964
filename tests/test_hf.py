"""``traindx.probes.integrations.hf.TrainDxCallback`` on a real ``transformers.Trainer`` (CPU, nothing mocked).

Tiny models built from configs (a 2-layer BERT classifier, a 2-layer GPT-2), synthetic datasets
(lists of dicts). Checked: the Trainer's own ``loss`` / ``grad_norm`` / ``learning_rate`` logs are
read and analysed, a far too small learning rate is diagnosed as such (also when the model computes
no loss itself and the logs are the only loss evidence), a NaN stops the run, no hook is left
behind (also when ``train()`` raises), and the callback changes nothing in the run.
"""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate")     # the Trainer needs it

from transformers import (BertConfig, BertForSequenceClassification, GPT2Config, GPT2LMHeadModel,  # noqa: E402
                          Trainer, TrainingArguments)

from traindx.probes.integrations.hf import TrainDxCallback  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore")

EXPLOSION_FAMILY = {"lr_too_high", "exploding_gradients", "numerical_instability", "nan_in_inputs", "fp16_overflow"}
ORIG_CLIP = torch.nn.utils.clip_grad_norm_


@pytest.fixture(autouse=True, scope="module")
def _quiet_one_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    yield
    transformers.logging.set_verbosity(verbosity)
    torch.set_num_threads(n)


def dataset(n, seed, kind="bert"):
    """Token sequences; for BERT the label is whether the first token is below 50 (learnable)."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        ids = torch.randint(5, 100, (12,), generator=g)
        out.append({"input_ids": ids, "attention_mask": torch.ones(12, dtype=torch.long),
                    "labels": int(ids[0] < 50) if kind == "bert" else ids.clone()})
    return out


def model_of(kind, seed=0):
    torch.manual_seed(seed)
    if kind == "bert":
        return BertForSequenceClassification(BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                                        intermediate_size=37, vocab_size=100, num_labels=2))
    return GPT2LMHeadModel(GPT2Config(n_embd=32, n_layer=2, n_head=2, vocab_size=100, n_positions=32))


def train(tmp_path, *, kind="bert", lr=1e-3, steps=40, callback=True, stop_on_nan=False, evaluate=True,
          train_data=None, with_context=False, **args):
    model = model_of(kind)
    cb = TrainDxCallback(stop_on_nan=stop_on_nan, verbose=False) if callback else None
    targs = TrainingArguments(output_dir=str(tmp_path), max_steps=steps, logging_steps=1, report_to=[], use_cpu=True,
                              per_device_train_batch_size=16, learning_rate=lr, save_strategy="no", disable_tqdm=True,
                              eval_strategy="steps" if evaluate else "no", eval_steps=20, **args)
    trainer = Trainer(model=model, args=targs, train_dataset=train_data or dataset(256, 0, kind),
                      eval_dataset=dataset(64, 1, kind) if evaluate else None, callbacks=[cb] if cb else [])
    trainer.train()
    trainer.rng_after_train = torch.get_rng_state().clone()
    return model, trainer, cb


def top(report):
    causes = report["root_causes"]
    return causes[0] if causes else {"id": None, "confidence": 0.0}


def assert_clean(model, opt):
    for name, m in model.named_modules():
        for attr in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                     "_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs"):
            assert not getattr(m, attr, None), f"{name or 'model'}.{attr} left behind"
    for name, p in model.named_parameters():
        assert not p._backward_hooks, f"tensor hook left on {name}"
    inner = getattr(opt, "optimizer", opt)
    assert not inner._optimizer_step_pre_hooks and not inner._optimizer_step_post_hooks
    assert torch.nn.utils.clip_grad_norm_ is ORIG_CLIP, "clip_grad_norm_ wrapper left behind"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    cache = {}

    def get(name, **kw):
        if name not in cache:
            cache[name] = train(tmp_path_factory.mktemp(name), **kw)
        return cache[name]
    return get


def test_trainer_logs_are_read(runs):
    model, trainer, cb = runs("bert", lr=3e-3)
    recs = [r for r in cb.probe.records if "loss" in r]
    assert len(recs) == 40 and all({"grad_norm", "learning_rate"} <= set(r) for r in recs)
    assert [r["step"] for r in recs] == list(range(1, 41))
    assert any("eval_loss" in r for r in cb.probe.records)
    facts = {f.fact: f for f in cb.findings()}
    assert facts["loss_trend"].value == "decreasing"
    assert any(f.source.startswith("log:Trainer.log_history:steps") for f in facts.values())
    assert facts["learning_rate"].value == pytest.approx(3e-3)
    assert facts["clip_max_norm"].value == 1.0      # max_grad_norm: clipping seen by the probe
    assert facts["num_classes"].value == 2
    assert facts["val_loss"].source == "probe:train_val_gap"
    rep = cb.report()
    assert rep["status"] == "healthy" or top(rep)["confidence"] < 0.5, (rep["status"], top(rep))
    # the summary: in the Trainer's log history and as files in output_dir
    last = trainer.state.log_history[-1]
    assert "train_runtime" in last       # still the Trainer's own end-of-training entry
    assert last["traindx/status"] == rep["status"] and last["traindx/confidence"] == top(rep)["confidence"]
    out = trainer.args.output_dir
    with open(os.path.join(out, "traindx_report.json")) as f:
        assert json.load(f)["status"] == rep["status"]
    assert os.path.getsize(os.path.join(out, "traindx_report.md")) > 0
    assert_clean(model, trainer.optimizer)


def test_tiny_learning_rate_is_lr_too_low(runs):
    model, trainer, cb = runs("bert_tiny_lr", lr=1e-8, steps=60, lr_scheduler_type="constant")
    rep = cb.report()
    assert rep["symptom"]["id"] == "not_learning"
    assert top(rep)["id"] == "lr_too_low" and top(rep)["confidence"] > 0.8, rep["root_causes"][:3]
    assert cb.summary()["armed"], "the flat loss did not arm the costly probes"
    assert_clean(model, trainer.optimizer)


def test_logs_alone_carry_the_loss_when_the_model_computes_none(tmp_path):
    """With ``compute_loss_func`` the labels never reach the model: the forward hook sees no loss
    and the Trainer's logged loss is the loss evidence."""
    def ce(outputs, labels, num_items_in_batch=None):
        return torch.nn.functional.cross_entropy(outputs["logits"], labels)

    model = model_of("bert")
    cb = TrainDxCallback(verbose=False)
    args = TrainingArguments(output_dir=str(tmp_path), max_steps=40, logging_steps=1, report_to=[], use_cpu=True,
                             per_device_train_batch_size=16, learning_rate=1e-8, lr_scheduler_type="constant",
                             save_strategy="no", disable_tqdm=True)
    Trainer(model=model, args=args, train_dataset=dataset(256, 0), callbacks=[cb], compute_loss_func=ce).train()
    facts = {f.fact: f for f in cb.findings()}
    assert facts["loss_trend"].source.startswith("log:Trainer.log_history")
    assert facts["loss_trend"].value == "flat"
    assert top(cb.report())["id"] == "lr_too_low"


def test_nan_stops_the_run(tmp_path):
    model, trainer, cb = train(tmp_path, kind="gpt2", lr=1e8, steps=40, optim="sgd", max_grad_norm=0.0,
                               stop_on_nan=True, evaluate=False)
    assert cb.probe.nan_step is not None
    assert trainer.state.global_step < 10, "stop_on_nan did not stop the run"
    for rep in (cb.nan_report, cb.report()):
        assert rep["symptom"]["id"] == "explosion"
        assert top(rep)["id"] in EXPLOSION_FAMILY, rep["root_causes"][:3]
    facts = {f.fact: f.value for f in cb.findings()}
    assert facts["task_type"] == "language_modeling" and facts["num_classes"] == 100
    assert_clean(model, trainer.optimizer)


class Flaky(torch.utils.data.Dataset):
    """A dataset whose loading fails after ``ok`` items (a data bug surfacing mid-run)."""

    def __init__(self, items, ok):
        self.items, self.ok, self.calls = items, ok, 0

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        self.calls += 1
        if self.calls > self.ok:
            raise ValueError("corrupt record")
        return self.items[i]


def test_no_hook_left_when_train_raises(tmp_path):
    model = model_of("bert")
    cb = TrainDxCallback(verbose=False)
    args = TrainingArguments(output_dir=str(tmp_path), max_steps=20, logging_steps=1, report_to=[], use_cpu=True,
                             per_device_train_batch_size=16, save_strategy="no", disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=Flaky(dataset(256, 0), ok=5 * 16), callbacks=[cb])
    with pytest.raises(ValueError, match="corrupt record"), cb:
        trainer.train()
    assert_clean(model, trainer.optimizer)
    steps = {f.fact: f.value for f in cb.findings()}["run_length_steps"]   # evidence kept
    assert steps == trainer.state.global_step >= 3
    # without the context manager the next train() removes what the interrupted one left
    trainer.train_dataset = Flaky(dataset(256, 0), ok=3 * 16)
    with pytest.raises(ValueError):
        trainer.train()
    assert cb.probe.running                    # no exception event in transformers ...
    trainer.train_dataset = dataset(256, 0)
    trainer.train()                            # ... on_train_begin cleans up, on_train_end detaches
    assert not cb.probe.running
    assert_clean(model, trainer.optimizer)


@pytest.mark.slow
@pytest.mark.parametrize("name,kw", [("bert", dict(lr=3e-3)), ("bert_tiny_lr", dict(lr=1e-8, steps=60,
                                                                                    lr_scheduler_type="constant"))])
def test_the_callback_changes_nothing(runs, tmp_path, name, kw):
    model, trainer, _ = runs(name, **kw)
    bare_model, bare_trainer, _ = train(tmp_path, callback=False, **kw)
    for (k, a), (k2, b) in zip(model.state_dict().items(), bare_model.state_dict().items()):
        assert k == k2 and torch.equal(a, b), f"parameter {k} differs"
    sa, sb = trainer.optimizer.state_dict()["state"], bare_trainer.optimizer.state_dict()["state"]
    assert sa.keys() == sb.keys()
    for i in sa:
        for n in sa[i]:
            assert torch.equal(torch.as_tensor(sa[i][n]), torch.as_tensor(sb[i][n])), f"optimizer state {i}.{n}"
    assert torch.equal(trainer.rng_after_train, bare_trainer.rng_after_train), "the torch RNG moved"
    losses = lambda t: [r["loss"] for r in t.state.log_history if "loss" in r]  # noqa: E731
    assert losses(trainer) == losses(bare_trainer)
