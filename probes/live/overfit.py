"""Overfit one batch (costly: at most once per run, while armed): can a copy of the model and its
optimizer drive one batch's loss toward 0, and does it fit the true labels faster than shuffled ones?

Source (kb/sources.yaml): ``probe:overfit_batch``.

Nothing of the user's run changes: the model is deep-copied with every hook stripped from the copy,
the optimizer is rebuilt over the copy's parameters with the same class and hyper-parameters and a
deep copy of its state, the torch/numpy/random RNG states are saved and restored, and the label
shuffle uses a private ``torch.Generator``. The copy trains in the model's current mode (so dropout
stays on when the user's model has it on) and under the same autocast dtype.
"""

from __future__ import annotations

import contextlib
import copy as _copy
import math

from traindx.engine.parameters import resolve
from traindx.probes.live.data import preserved_rng
from traindx.probes.live.loss_tape import LossTape, replay_loss

_HOOK_DICTS = ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_backward_hooks",
               "_backward_pre_hooks")


def clean_copy(model):
    """A deep copy of ``model`` with no module hooks (None if the model cannot be copied)."""
    import torch

    # the memo maps every hook dict of the original to a fresh empty one, so hooks (and whatever
    # they reference, a monitor included) are never copied and the original is not touched
    memo = {}
    for m in model.modules():
        for attr in _HOOK_DICTS:
            d = m.__dict__.get(attr)
            if d is not None:
                memo[id(d)] = type(d)()
    try:
        with torch.no_grad():
            c = _copy.deepcopy(model, memo)
    except Exception:
        return None
    for m in c.modules():
        if "_is_full_backward_hook" in m.__dict__:
            m._is_full_backward_hook = None
    return c


def copy_optimizer(optimizer, model, model_copy):
    """A new optimizer of the same class over ``model_copy``'s parameters, with the same param-group
    hyper-parameters and a deep copy of the state (momentum buffers etc.). None if not possible."""
    import torch

    mapping = {id(p): q for p, q in zip(model.parameters(), model_copy.parameters())}
    groups = []
    for g in optimizer.param_groups:
        ps = [mapping.get(id(p)) for p in g["params"]]
        ps = [q for q in ps if q is not None]
        if not ps:
            continue
        groups.append({**{k: v for k, v in g.items() if k != "params"}, "params": ps})
    if not groups:
        return None
    try:
        new = type(optimizer)(groups)
    except TypeError:
        try:
            new = type(optimizer)(groups, **{k: v for k, v in optimizer.defaults.items()})
        except Exception:
            return None
    except Exception:
        return None
    # carry the state over for the parameters that were mapped, deep-copied
    try:
        with torch.no_grad():
            for p in model.parameters():
                q = mapping.get(id(p))
                if q is not None and p in optimizer.state and q in {x for g in new.param_groups for x in g["params"]}:
                    new.state[q] = _copy.deepcopy(optimizer.state[p])
    except Exception:
        pass
    return new


def _slice(obj, n: int, size: int):
    import torch

    if torch.is_tensor(obj):
        return obj[:n] if obj.dim() >= 1 and obj.shape[0] == size else obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(_slice(o, n, size) for o in obj)
    if isinstance(obj, dict):
        return {k: _slice(v, n, size) for k, v in obj.items()}
    return obj


def _batch_size(args, kwargs):
    from traindx.probes.live.data import tensors_in

    for t in tensors_in([list(args), kwargs or {}]):
        if t.dim() >= 1:
            return int(t.shape[0])
    return None


def batch_loss(model, loss_fn, args, kwargs, targets, out_shape=None, autocast=None):
    """The loss of ``model`` on one batch as the user's loop computes it: the forward under the
    same autocast state, the outputs reshaped to the shape the loss saw (when only a view differs),
    a non-scalar loss averaged."""
    import torch

    ctx = (torch.autocast(device_type=autocast[0], dtype=getattr(torch, autocast[1]))
           if autocast else contextlib.nullcontext())
    with ctx:
        out = model(*args, **(kwargs or {}))
        if out_shape is not None and torch.is_tensor(out) and tuple(out.shape) != tuple(out_shape) \
                and out.numel() == math.prod(out_shape):
            out = out.reshape(out_shape)
        if type(targets) is LossTape:        # a hand-written loss: replayed with this model's parameters
            targets = targets.bound(model) if loss_fn is replay_loss else targets.targets
        loss = loss_fn(out, targets)
    return loss.mean() if loss.dim() > 0 else loss


def output_mismatch(model, args, kwargs, out_shape) -> str | None:
    """Why a copy of ``model`` cannot stand for the run, or None: its output on a batch the run's
    loss saw has another shape than the output that loss saw (and cannot be viewed as it), so the
    loss is computed from another module (a feature extractor while the classifier head is a second
    module, a projection head applied outside the model). A copy trained on that loss measures
    something else. Checked in eval mode without gradients: nothing of the model changes (call it
    on a copy, inside :func:`~traindx.probes.live.data.preserved_rng`)."""
    import torch

    if out_shape is None:
        return None
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model(*args, **(kwargs or {}))
    except Exception:
        return None          # training the copy reports what fails
    finally:
        model.train(was)
    if not torch.is_tensor(out) or tuple(out.shape) == tuple(out_shape) or out.numel() == math.prod(out_shape):
        return None
    return (f"the copied model's output {tuple(out.shape)} is not what the loss saw {tuple(out_shape)}: "
            f"the loss is computed from another module")


def _fit(model, optimizer, loss_fn, args, kwargs, targets, steps, out_shape, autocast, stop_loss):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        loss = batch_loss(model, loss_fn, args, kwargs, targets, out_shape, autocast)
        v = float(loss.detach().float())
        losses.append(v)
        if not math.isfinite(v):
            break
        if v < stop_loss:   # memorised: more steps say nothing more
            break
        loss.backward()
        optimizer.step()
    return losses


def _fit_batch(args, kwargs, targets, n_all, max_examples, taped):
    """The batch the copy fits, ``(n, args, kwargs, targets)``: its first ``max_examples`` examples, or the
    whole batch for the :class:`~traindx.probes.live.loss_tape.LossTape` of a hand-written loss (with
    ``loss_fn`` :func:`~traindx.probes.live.loss_tape.replay_loss`; a tape replays the shapes it was made
    on); None when the targets do not go with the batch."""
    import torch

    if n_all is None:
        return None
    if taped:
        return n_all, tuple(args), kwargs, targets
    if not torch.is_tensor(targets) or targets.dim() == 0 or targets.shape[0] != n_all:
        return None
    n = min(n_all, max_examples)
    return n, _slice(tuple(args), n, n_all), _slice(kwargs, n, n_all), targets[:n]


def overfit_one_batch(model, optimizer, args, kwargs, targets, loss_fn, *, steps: int = 100,
                      max_examples: int = 16, out_shape=None, autocast: tuple | None = None,
                      shuffled: bool = True, seed: int = 0, params=None) -> dict | None:
    """Train copies of ``model``/``optimizer`` on one batch (its first ``max_examples`` examples).

    ``args``/``kwargs``: the model's forward arguments for that batch; ``targets``: what the loss
    compares against; ``loss_fn(outputs, targets)``. Returns plain data::

        {"fits": bool | None, "initial": float, "final": float, "steps": int,
         "labels_match_inputs": bool | None, "shuffled_final": float | None,
         "optimizer": str, "lr": float, "examples": int}

    ``fits`` is True when the loss fell below 10% of its start (or below 1e-3), False when it stayed
    above 50%, None in between (``overfit.*`` in kb/parameters; ``params``: the knowledge base's
    values, None: the shipped ones). ``labels_match_inputs`` compares how fast a second copy fits the
    same batch with its targets shuffled across examples: the mean loss over the first
    ``steps // 2`` steps (a fit that stopped early counts its last loss for the remaining steps),
    true over shuffled. True when the true targets are fitted clearly faster (< 0.5x); otherwise
    None -- never False: one small batch of shuffled labels is memorised about as fast as a hard
    true labelling, so a slow true fit does not show corruption. None too when the true labels
    could not be fitted (``fits`` not True) or the batch's targets are all equal (or a tape: :func:`_fit_batch`).
    ``still_falling``: :func:`_still_falling` when ``fits`` is False. None when the copy cannot be made."""
    import torch

    P = resolve(params)
    stop = P["overfit.stop_loss"]
    kwargs = dict(kwargs or {})
    n_all = _batch_size(args, kwargs)
    cut = _fit_batch(args, kwargs, targets, n_all, max_examples, type(targets) is LossTape)
    if cut is None:
        return None
    n, a, kw, t = cut
    if out_shape is not None and len(out_shape) >= 1 and out_shape[0] == n_all:
        out_shape = (n,) + tuple(out_shape[1:])
    else:
        out_shape = None
    result = {"optimizer": type(optimizer).__name__.lower(), "examples": n,
              "lr": float(optimizer.param_groups[0].get("lr", float("nan")))}
    with preserved_rng():
        m1 = clean_copy(model)
        o1 = copy_optimizer(optimizer, model, m1) if m1 is not None else None
        if o1 is None:
            return None
        try:
            unfaithful = output_mismatch(m1, a, kw, out_shape)
            if unfaithful:
                return {**result, "fits": None, "error": unfaithful}
            true_losses = _fit(m1, o1, loss_fn, a, kw, t, steps, out_shape, autocast, stop)
        except Exception as e:  # the copy could not be trained (custom loss signature, OOM, ...)
            return {**result, "fits": None, "error": f"{type(e).__name__}: {e}"[:200]}
        finally:
            del o1, m1
        if not true_losses:
            return None
        first, last = true_losses[0], true_losses[-1]
        fits = _fits(first, last, P)
        result.update({"fits": fits, "initial": first, "final": last, "steps": len(true_losses),
                       "labels_match_inputs": None, "shuffled_final": None,
                       "still_falling": _still_falling(true_losses, P) if fits is False else None})
        if not shuffled or type(t) is LossTape:      # a tape's targets are inside it: nothing to shuffle
            return result
        g = torch.Generator(device="cpu").manual_seed(seed)
        perm = torch.randperm(n, generator=g).to(t.device)
        ts = t[perm]
        if bool((ts == t).all()):
            return result
        half = max(2, steps // 2)
        m2 = clean_copy(model)
        o2 = copy_optimizer(optimizer, model, m2)
        try:
            shuf = _fit(m2, o2, loss_fn, a, kw, ts, half, out_shape, autocast, stop)
        except Exception:
            shuf = []
        finally:
            del o2, m2
    if not shuf:
        return result
    result["shuffled_final"] = shuf[-1]
    _labels_verdict(result, true_losses, shuf, half, P)
    return result


def _still_falling(losses: list, P) -> bool | None:
    """A fit that did not get there: was its loss still coming down steadily when its steps ran out
    (True: the optimizer's LR set the pace, the budget ended the test) or had it stopped (False: the
    model or the loss path cannot go lower)? The late fall (the mean of the window
    ``overfit.still_falling_window`` against the mean of the last ``overfit.still_falling_end_share``
    of the steps, which a noisy per-step loss does not decide) against the whole fall to there: at
    least ``overfit.still_falling_share`` of it, with the whole fall at least
    ``overfit.still_falling_min_fall`` of the start. None with fewer than
    ``overfit.still_falling_min_steps`` finite steps."""
    n = len(losses)
    if n < P["overfit.still_falling_min_steps"] or not all(math.isfinite(v) for v in losses) \
            or losses[0] <= 0:
        return None
    lo, hi = P["overfit.still_falling_window"]
    mid = losses[int(lo * n):max(int(hi * n), int(lo * n) + 1)]
    end = losses[min(int((1.0 - P["overfit.still_falling_end_share"]) * n), n - 1):]
    a, b = sum(mid) / len(mid), sum(end) / len(end)
    total = losses[0] - b
    return bool(total >= P["overfit.still_falling_min_fall"] * losses[0]
                and a - b >= P["overfit.still_falling_share"] * total)


def _fits(first: float, last: float, P) -> bool | None:
    """Did the copy fit the batch: True (fell below overfit.fits_ratio of its start or below
    overfit.fits_loss), False (stayed above overfit.no_fit_ratio, or went NaN/Inf), None in between."""
    if math.isfinite(first) and math.isfinite(last):
        if last < P["overfit.fits_ratio"] * first or last < P["overfit.fits_loss"]:
            return True
        if last > P["overfit.no_fit_ratio"] * first:
            return False
        return None
    return False if math.isfinite(first) else None


def _labels_verdict(result: dict, true_losses: list, shuf: list, half: int, P) -> None:
    """``labels_match_inputs`` (and ``auc_ratio``) from the mean losses of the true and the shuffled fit."""
    fits, first = result["fits"], true_losses[0]

    def auc(xs):
        xs = list(xs[:half]) + [xs[-1]] * max(0, half - len(xs))
        return sum(xs) / len(xs)

    a_true, a_shuf = auc(true_losses), auc(shuf)
    progress = (first - min(true_losses[min(half, len(true_losses)) - 1], shuf[-1])) / abs(first) if first else 0.0
    # only a copy that can fit the true labels says anything about them: when it cannot (lr too
    # low, double softmax, ...) both fits crawl and their ratio means nothing
    if (fits and math.isfinite(a_true) and math.isfinite(a_shuf) and progress > P["overfit.labels_min_progress"]
            and a_shuf > 0):
        r = a_true / a_shuf
        result["auc_ratio"] = r
        # only a clear difference speaks: a model memorises one small batch of shuffled labels about
        # as fast as hard-but-true ones (heavy augmentation, invariances to learn), so a ratio near 1
        # does not show the labels are corrupted
        result["labels_match_inputs"] = True if r < P["overfit.labels_ratio"] else None
