"""``probe:train_val_gap``: training and validation loss/accuracy at the same point of training, the
validation-loss trend and where its best came."""

from __future__ import annotations

import traindx.probes.live.losses as L
from traindx.probes.live.probe import Probe

class TrainValGap(Probe):
    source = "probe:train_val_gap"
    facts = ("train_accuracy", "val_accuracy", "train_loss", "val_loss", "val_loss_trend", "best_val_fraction",
             "test_accuracy", "test_loss", "val_accuracy_best", "val_loss_unchanged")
    needs = frozenset({"loss"})
    schedule = "every validation loss; training accuracy first 10 training losses, every 20"
    parameters = ("train_val_gap.min_metric_steps", "train_val_gap.acc_window", "train_val_gap.acc_min_batches",
                  "monitor.gap_evaluations", "curves.val_rise", "curves.val_fall", "curves.val_min_points",
                  "curves.val_scatter_min_points", "curves.val_drift_min_points", "curves.tail_min_points",
                  "curves.val_rise_noise", "curves.val_slight_rise", "curves.val_rise_giveback",
                  "train_val_gap.unchanged_min_evaluations", "train_val_gap.unchanged_rtol")

    def findings(self, m, emit, params):
        first = params["train_val_gap.min_metric_steps"]
        if m.steps < first:
            return
        s = L.finite(m._train_vals)
        if s:
            emit("train_loss", m._recent_train_loss(), f"mean of the latest {min(m._recent, len(s))} training losses")
        epochs = self._evaluations(m, first)
        if m._train_acc:
            self._train_accuracy(m, emit, epochs)
        if epochs:
            self._validation(m, emit, epochs, params)
        tests = [e for e in m.test_epochs() if e["step"] >= first]
        if tests:
            self._test(emit, tests)

    @staticmethod
    def _evaluations(m, first) -> list[dict]:
        epochs = [e for e in m.validation_epochs() if e["step"] >= first]
        run = m._val_run
        val_set = next((e["set"] for e in m._val_epochs if e["set"] is not None), None)
        if run is not None and run["n"] and run["n"] >= m._val_batches_expected() and \
                run["step"] >= first and (val_set is None or run["set"] in (None, val_set)):
            # an evaluation still open at a look mid-run, counted once it has as many batches as
            # the validation loader (or as the previous evaluation): a partial one would mislead
            epochs.append({"step": run["step"], "loss": run["sum"] / run["n"], "batches": run["n"],
                           "accuracy": L.accuracy(run["correct"], run["counted"]), "train_loss": None})
        return epochs

    @staticmethod
    def _train_accuracy(m, emit, epochs):
        # the sampled batches of the last train_val_gap.acc_window of the run up to the latest
        # evaluation (so that the two accuracies are measured at the same point of training), at
        # least train_val_gap.acc_min_batches of them
        end = epochs[-1]["step"] if epochs else m.steps
        least = int(m.params["train_val_gap.acc_min_batches"])
        pool = [a for a in m._train_acc if a[0] <= end] or m._train_acc
        recent = [a for a in pool if a[0] >= (1 - m.params["train_val_gap.acc_window"]) * end]
        if len(recent) < least:
            recent = pool[-least:]
        acc = L.accuracy(sum(c for _, c, _ in recent), sum(n for _, _, n in recent))
        emit("train_accuracy", acc,
             f"training accuracy {acc * 100:.1f}% over {len(recent)} sampled batches, steps "
             f"{recent[0][0]}-{recent[-1][0]}" + (" (up to the latest evaluation)" if epochs else "")
             if acc is not None else "")

    @staticmethod
    def _validation(m, emit, epochs, params):
        last = epochs[-1]
        emit("val_loss", last["loss"], f"validation loss {last['loss']:.4g} at step {last['step']} "
             f"({len(epochs)} evaluation(s))")
        if last["accuracy"] is not None:
            emit("val_accuracy", last["accuracy"], f"validation accuracy {last['accuracy'] * 100:.1f}%")
        accs = [e["accuracy"] for e in epochs if e["accuracy"] is not None]
        if accs:
            emit("val_accuracy_best", max(accs), f"best validation accuracy {max(accs) * 100:.1f}% over "
                 f"{len(accs)} evaluation(s)")
        vl = [e["loss"] for e in epochs]
        van = L.curve_analysis((), (), [(e["step"], e["loss"]) for e in epochs], params=params)
        vf = van.finding("val_loss_trend") if van is not None else None
        if vf is not None:
            emit("val_loss_trend", vf.value, f"{vf.detail} ({len(vl)} evaluations)")
        TrainValGap._unchanged(emit, epochs, params)
        b = L.best_val_fraction([(e["step"], e["loss"]) for e in epochs], m.steps)
        emit("best_val_fraction", b, f"best validation loss at {b * 100:.0f}% of the run" if b is not None else "")

    @staticmethod
    def _unchanged(emit, epochs, params):
        # the same held-out set scored after training steps gives the same loss to the last digits
        # only when no weight the forward reads has moved: the evaluations at distinct steps
        marks = {}
        for e in epochs:
            marks.setdefault(e["step"], e["loss"])
        vals = L.finite(list(marks.values()))
        if len(vals) < int(params["train_val_gap.unchanged_min_evaluations"]) or len(vals) < len(marks):
            return
        spread = max(vals) - min(vals)
        same = spread <= params["train_val_gap.unchanged_rtol"] * max(abs(v) for v in vals)
        emit("val_loss_unchanged", same,
             f"the validation loss is {vals[0]:.7g} at each of {len(vals)} evaluations after different "
             "numbers of training steps: the weights the forward reads never moved" if same else
             f"the validation loss moves between evaluations (spread {spread:.3g} over {len(vals)})")

    @staticmethod
    def _test(emit, tests):
        # a second held-out set the script evaluates (a test loader after the validation loader):
        # its latest evaluation, which the validation/test gap compares with validation
        last = tests[-1]
        emit("test_loss", last["loss"], f"loss {last['loss']:.4g} on a second held-out set the script "
             f"evaluates (step {last['step']}, {len(tests)} evaluation(s))")
        if last["accuracy"] is not None:
            emit("test_accuracy", last["accuracy"], f"accuracy {last['accuracy'] * 100:.1f}% on a second "
                 "held-out set the script evaluates, besides the validation set")
