"""Would an LR decay lower this plateau? (costly: at most once per run, only on a plateau)

Source (kb/sources.yaml): ``probe:lr_decay``.

A loss that levelled off under a constant learning rate is either held up by the optimizer's own
step noise (SGD at a fixed LR jitters around the minimum; a decay lets it settle: the seed's
"Need LR decay") or it has reached what the data and the model allow (label noise, capacity):
then no schedule helps. The curve alone cannot tell these apart; a counterfactual on copies can.

Two copies of the model and its optimizer (``overfit.clean_copy`` / ``copy_optimizer``: no hooks,
the optimizer's state deep-copied) continue training on the same recent training batches in the
same order, one at the current LR and one at ``factor`` x the LR. Both are then scored on held-out
recent batches that neither trained on, in eval mode and without gradients, at several checkpoints
over the second half of the continuation (the control copy still jitters: one checkpoint would be
one draw of its noise). ``gain`` is the relative fall of that held-out loss that the lower LR
bought::

    gain = (mean loss at the current LR - mean loss at the lowered LR) / mean loss at the current LR

``helps`` is True when ``gain >= lr_decay.helps`` (5 %), False when ``gain < lr_decay.no_help`` (1 %),
None in between (``kb/parameters/probes.yaml``).
The continuation is one pass over the batches: repeated passes would fit those few batches and
reward the copy that moves least. Nothing of the user's run changes: copies only, RNG states saved
and restored (``data.preserved_rng``), the user's batches only read.
"""

from __future__ import annotations

import math

from traindx.engine.parameters import resolve
from traindx.probes.live.data import preserved_rng
from traindx.probes.live.overfit import batch_loss, clean_copy, copy_optimizer

MIN_TRAIN = 8
MIN_EVAL = 4


def _loss_of(model, loss_fn, batch, autocast):
    args, kwargs, targets, out_shape = batch
    return batch_loss(model, loss_fn, args, kwargs, targets, out_shape, autocast)


def _score(model, loss_fn, batches, autocast) -> float:
    import torch

    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            vals = [float(_loss_of(model, loss_fn, b, autocast).detach().float()) for b in batches]
    finally:
        model.train(was)
    vals = [v for v in vals if math.isfinite(v)]
    return sum(vals) / len(vals) if vals else math.nan


def _continue(model, optimizer, loss_fn, train, held, autocast, checkpoints) -> list[float]:
    scores = []
    for i, b in enumerate(train):
        optimizer.zero_grad(set_to_none=True)
        loss = _loss_of(model, loss_fn, b, autocast)
        if not math.isfinite(float(loss.detach().float())):
            return [math.nan]
        loss.backward()
        optimizer.step()
        if i + 1 in checkpoints:
            scores.append(_score(model, loss_fn, held, autocast))
    return scores


def lr_decay_test(model, optimizer, batches, loss_fn, *, factor: float = 0.1,
                  autocast: tuple | None = None, params=None) -> dict | None:
    """Continue copies of ``model``/``optimizer`` on ``batches`` at the current LR and at
    ``factor`` x the LR, and compare their loss on held-out batches.

    ``batches``: recent training batches, each ``(args, kwargs, targets, out_shape)`` as the model
    and the loss saw them, oldest first; the last quarter (at least :data:`MIN_EVAL`) is held out,
    the rest (at least :data:`MIN_TRAIN`) is trained on once. ``loss_fn(outputs, targets)``.
    Returns plain data::

        {"helps": bool | None, "gain": float, "loss_same_lr": float, "loss_lower_lr": float,
         "loss_before": float, "factor": float, "steps": int, "held_out": int, "lr": float}

    or ``{"error": ...}`` when a copy cannot be trained, None when the copies cannot be made or
    there are too few batches.
    """
    import torch

    batches = list(batches)
    n_eval = max(MIN_EVAL, len(batches) // 4)
    train, held = batches[:-n_eval], batches[-n_eval:]
    if len(train) < MIN_TRAIN:
        return None
    half = len(train) // 2
    checkpoints = {half + k * max(1, (len(train) - half) // 4) for k in range(1, 4)} | {len(train)}
    lr = float(optimizer.param_groups[0].get("lr", math.nan))
    result = {"factor": factor, "steps": len(train), "held_out": len(held), "lr": lr}
    with preserved_rng(), torch.enable_grad():
        ma = clean_copy(model)
        oa = copy_optimizer(optimizer, model, ma) if ma is not None else None
        mb = clean_copy(model)
        ob = copy_optimizer(optimizer, model, mb) if mb is not None else None
        if oa is None or ob is None:
            return None
        for g in ob.param_groups:
            if isinstance(g.get("lr"), (int, float)):
                g["lr"] = g["lr"] * factor
        try:
            before = _score(ma, loss_fn, held, autocast)
            same = _continue(ma, oa, loss_fn, train, held, autocast, checkpoints)
            lower = _continue(mb, ob, loss_fn, train, held, autocast, checkpoints)
        except Exception as e:  # a copy that cannot be trained (custom loss signature, OOM, ...)
            return {**result, "error": f"{type(e).__name__}: {e}"[:200]}
        finally:
            del ma, oa, mb, ob
    a = sum(same) / len(same)
    b = sum(lower) / len(lower)
    if not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
        return {**result, "helps": None, "gain": None, "loss_same_lr": a, "loss_lower_lr": b,
                "loss_before": before}
    gain = (a - b) / a
    p = resolve(params)
    helps = True if gain >= p["lr_decay.helps"] else False if gain < p["lr_decay.no_help"] else None
    return {**result, "helps": helps, "gain": gain, "loss_same_lr": a, "loss_lower_lr": b,
            "loss_before": before}
