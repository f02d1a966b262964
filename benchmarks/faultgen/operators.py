"""Fault operators: one change to a healthy base program, at several magnitudes, with its
ground-truth root cause (contract section 3) and the symptoms it can show.

In the spirit of the mutation operators of the deep-learning fault literature (DeepCrime and its
kin: change the learning rate, remove or freeze parameters, change the loss, corrupt or reorder
the labels and data, change initialisation, regularisation, activation): each operator maps a
base's :class:`Spec` to a faulty one. Healthy controls are operators too (``cause=None``),
including healthy runs that *look* alarming: a label-noise floor, a regression at its noise
floor, small-batch noise, a warm-up bump, slow steady progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from bases import Base

ANY_KIND = ("cls", "bin", "reg", "ae")
CLASS_KINDS = ("cls", "bin")


@dataclass(frozen=True)
class Spec:
    """Every setting :mod:`render` reads; a base gives the defaults, an operator changes some."""

    opt: str
    lr: float
    epochs: int
    batch: int
    weight_decay: float = 0.0
    dropout: float = 0.1
    clip: float | None = None
    schedule: str | None = None       # None | "per_batch_collapse" | "warmup"
    sched_gamma: float = 0.5
    zero_grad: bool = True
    shuffle: bool = True
    sort_by_label: bool = False
    normalize: bool = True
    input_scale: float = 1.0          # multiply the (standardised) inputs' features by a spread of scales
    freeze: str | None = None         # None | "body" | "all_but_bias" (body and the head's weight)
    opt_params: str = "all"           # all | head | body
    detach: bool = False
    squash: str | None = None         # None | "softmax" | "sigmoid"
    loss: str | None = None           # None (the base's) | "mse_on_ids" | "log0" | "log_sigmoid_hand"
    labels: str | None = None         # None | "shuffle" | "constant"
    label_noise: float = 0.0          # healthy: a fraction of training AND validation labels drawn at random
    target_noise: float = 0.0         # healthy regression: noise added to targets (a floor)
    nan_rows: int = 0                 # training rows with a NaN feature
    inf_rows: int = 0                 # training rows with a +Inf feature
    init: str | None = None           # None | "zeros" | "large"
    eval_mode: bool = False
    overlap: float = 0.0              # fraction of validation rows copied from training
    shuffle_frac: float = 1.0         # labels.shuffle: fraction of the rows permuted

    @staticmethod
    def of(base: Base) -> "Spec":
        return Spec(opt=base.opt, lr=base.lr, epochs=base.epochs, batch=base.batch,
                    weight_decay=0.01 if base.opt == "adamw" else 0.0)


@dataclass(frozen=True)
class Operator:
    name: str
    cause: str | None                         # None: a healthy control
    symptoms: tuple                           # acceptable symptom ids (the first is the usual one)
    magnitudes: tuple                         # ((label, {field: value} or callable(spec, base)), ...)
    kinds: tuple = ANY_KIND
    also: tuple = ()                          # other causes an expert would accept as top-1
    needs: tuple = ()                         # base properties: "loader", "floats", "dropout", "not_tokens"
    summary: str = ""
    families: tuple = field(default_factory=tuple)   # only these families (empty: any)

    def applies(self, base: Base) -> bool:
        if base.kind not in self.kinds:
            return False
        if self.families and base.family not in self.families:
            return False
        for need in self.needs:
            if need == "loader" and not base.loader:
                return False
            if need == "floats" and base.tokens:
                return False
            if need == "dropout" and "DROPOUT" not in base.body:
                return False
            if need == "sgd" and not base.opt.startswith("sgd"):
                return False
            if need == "bn_or_dropout" and "DROPOUT" not in base.body and "BatchNorm" not in base.body:
                return False
        return True

    def spec(self, base: Base, magnitude) -> Spec:
        s = Spec.of(base)
        change = magnitude[1]
        if callable(change):
            return change(s, base)
        return replace(s, **change)


def _lr(factor):
    return lambda s, b: replace(s, lr=s.lr * factor)


def _sgd_lr(factor):
    return lambda s, b: replace(s, lr=s.lr * factor, opt="sgd" if s.opt == "sgd" else s.opt)


OPERATORS = [
    # ---------------------------------------------------------------- healthy controls
    Operator("healthy", None, ("healthy",), (("base", {}),), summary="the base program as written"),
    Operator("healthy_label_noise", None, ("healthy",), (("noise25", {"label_noise": 0.25}),),
             kinds=CLASS_KINDS, summary="healthy at a label-noise floor (25% random labels, train and val)"),
    Operator("healthy_noise_floor", None, ("healthy",), (("noise", {"target_noise": 0.5}),),
             kinds=("reg",), summary="healthy regression at its data's noise floor"),
    Operator("healthy_small_batch", None, ("healthy",),
             (("batch8", lambda s, b: replace(s, batch=8, epochs=max(2, s.epochs // 3),
                                              lr=s.lr / 2)),),
             summary="healthy with batch 8: noisy per-step losses"),
    Operator("healthy_warmup", None, ("healthy",), (("warmup", {"schedule": "warmup"}),),
             summary="healthy with a linear warm-up then cosine decay (a bump while the LR rises)"),
    Operator("healthy_slow_steady", None, ("healthy",),
             (("lr_third", lambda s, b: replace(s, lr=s.lr / 3, epochs=s.epochs * 2)),),
             summary="healthy but slow: a third of the LR for twice the epochs, still falling steadily"),
    # ---------------------------------------------------------------- learning rate
    Operator("lr_up", "lr_too_high", ("instability", "explosion", "not_learning", "plateau"),
             (("x30", _lr(30)), ("x300", _lr(300)), ("x3000", _lr(3000))),
             also=("exploding_gradients",), summary="learning rate multiplied"),
    Operator("lr_down", "lr_too_low", ("not_learning", "plateau", "slow_training"),
             (("div1000", _lr(1e-3)), ("div1e5", _lr(1e-5))), summary="learning rate divided"),
    # ---------------------------------------------------------------- parameters and gradients
    Operator("freeze", "frozen_parameters", ("not_learning", "plateau"),
             (("all_but_bias", {"freeze": "all_but_bias"}), ("body", {"freeze": "body"})),
             summary="requires_grad=False on the body (and on the head's weight)"),
    Operator("drop_params", "params_not_in_optimizer", ("not_learning", "plateau"),
             (("head_only", {"opt_params": "head"}), ("body_only", {"opt_params": "body"})),
             summary="the optimizer is given only part of the model's parameters"),
    Operator("detach", "broken_gradient_flow", ("not_learning", "plateau"),
             (("before_head", {"detach": True}),), summary=".detach() between body and head"),
    Operator("no_zero_grad", "missing_zero_grad", ("instability", "explosion", "plateau", "not_learning"),
             (("removed", {"zero_grad": False}),), summary="optimizer.zero_grad() removed"),
    Operator("over_clip", "over_clipping", ("not_learning", "plateau", "slow_training"),
             (("1e-4", {"clip": 1e-4}), ("1e-6", {"clip": 1e-6})), needs=("sgd",),
             summary="clip_grad_norm_ to a tiny norm (SGD: Adam's steps do not scale with the gradient norm)"),
    Operator("bad_init", "bad_initialization", ("not_learning", "plateau", "explosion", "instability"),
             (("zeros", {"init": "zeros"}), ("large", {"init": "large"})),
             families=("mlp", "linear", "autoencoder"), also=("vanishing_gradients", "dead_relu"),
             summary="every weight zero, or weights drawn 10x too large"),
    # ---------------------------------------------------------------- loss and outputs
    Operator("double_softmax", "double_softmax", ("not_learning", "plateau"),
             (("softmax", {"squash": "softmax"}),), kinds=("cls",),
             summary="softmax on the outputs before CrossEntropyLoss"),
    Operator("double_sigmoid", "double_softmax", ("not_learning", "plateau"),
             (("sigmoid", {"squash": "sigmoid"}),), kinds=("bin",),
             summary="sigmoid on the output before BCEWithLogitsLoss"),
    Operator("wrong_loss", "wrong_loss_function", ("not_learning", "plateau", "instability"),
             (("mse_on_ids", {"loss": "mse_on_ids"}),), kinds=("cls",),
             summary="MSELoss between the argmax-free logits' first column and the class ids"),
    Operator("log0_loss", "numerical_instability", ("explosion",),
             (("masked_softmax", {"loss": "log0"}),), kinds=("cls",),
             summary="a hand-written cross-entropy taking log of a probability forced to 0"),
    Operator("log_sigmoid_hand", "numerical_instability", ("explosion",),
             (("hand_bce_x30", {"loss": "log_sigmoid_hand"}),), kinds=("bin",),
             summary="a hand-written BCE: log(sigmoid(30*z)) saturates to log(0)"),
    # ---------------------------------------------------------------- labels and data
    Operator("shuffle_labels", "corrupted_labels", ("not_learning", "plateau", "overfitting"),
             (("all", {"labels": "shuffle"}), ("80pct", {"labels": "shuffle", "shuffle_frac": 0.8})),
             needs=(), summary="training labels permuted against their inputs"),
    Operator("constant_labels", "corrupted_labels", ("overfitting", "not_learning", "plateau", "healthy"),
             (("zero", {"labels": "constant"}),), kinds=CLASS_KINDS,
             summary="every training label is 0"),
    Operator("unnormalized", "unnormalized_inputs", ("not_learning", "instability", "explosion", "plateau"),
             (("scales1e2", {"normalize": False, "input_scale": 100.0}),
              ("scales1e4", {"normalize": False, "input_scale": 1e4})),
             needs=("floats",), summary="inputs left at raw scales up to 100x / 10000x"),
    Operator("sorted_no_shuffle", "unshuffled_data", ("instability", "plateau", "not_learning"),
             (("by_label", {"sort_by_label": True, "shuffle": False}),), kinds=CLASS_KINDS,
             summary="training data sorted by label, never shuffled"),
    Operator("nan_inputs", "nan_in_inputs", ("explosion",),
             (("one_row", {"nan_rows": 1}), ("one_pct", {"nan_rows": -1}), ("inf_row", {"inf_rows": 1})),
             needs=("floats",), summary="NaN (or +Inf) in a few training inputs"),
    # ---------------------------------------------------------------- regularisation, schedule, mode
    Operator("weight_decay", "excessive_regularization", ("not_learning", "plateau"),
             (("wd1", {"weight_decay": 1.0}), ("wd10", {"weight_decay": 10.0})),
             summary="weight decay far too strong"),
    Operator("dropout", "excessive_regularization", ("not_learning", "plateau"),
             (("p0.9", {"dropout": 0.9}), ("p0.97", {"dropout": 0.97})), needs=("dropout",),
             summary="dropout far too strong"),
    Operator("sched_per_batch", "lr_schedule_collapse", ("plateau", "not_learning"),
             (("gamma0.5", {"schedule": "per_batch_collapse", "sched_gamma": 0.5}),
              ("gamma0.9", {"schedule": "per_batch_collapse", "sched_gamma": 0.9})),
             summary="an epoch-wise StepLR stepped after every batch"),
    Operator("eval_mode", "train_eval_mode_mismatch", ("not_learning", "plateau", "overfitting", "instability"),
             (("eval", {"eval_mode": True}),), needs=("bn_or_dropout",),
             summary="model.eval() before the training loop, never model.train()"),
    Operator("val_overlap", "data_leakage", ("overfitting", "healthy"),
             (("half", {"overlap": 0.5}), ("all", {"overlap": 1.0})), needs=("loader", "floats"),
             summary="validation rows copied from the training set"),
]

BY_NAME = {o.name: o for o in OPERATORS}
