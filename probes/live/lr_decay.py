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

The gain is weighed against what the data allows: ``batch_spread`` is the held-out batches' own
relative spread under the unchanged copy (the standard deviation of the per-batch loss over its
mean), the loss a batch wins or loses by the luck of its examples. At a noise floor (label noise,
target noise) that spread is wide and a lower LR shaves off less than one batch's luck; SGD's own
step noise on a plateau it holds up costs every batch alike, and the lower LR gains well beyond it.
``helps`` is True when ``gain >= lr_decay.helps``, the paired gain (per held-out batch) stands
``lr_decay.min_z`` standard errors above zero *and* ``gain >= lr_decay.noise_multiple x
batch_spread``; False when ``gain < lr_decay.no_help``; None in between (``kb/parameters/probes.yaml``):
a gain inside the data's noise answers nothing, so a converged run stays healthy.
The continuation is one pass over the batches: repeated passes would fit those few batches and
reward the copy that moves least. Both copies start from the same random states (``data.rng_rewind``):
a model with dropout or noise in its forward draws the same masks in both, so the gain is the lower
LR's alone and not two draws of the dropout noise. Nothing of the user's run changes: copies only, RNG
states saved and restored (``data.preserved_rng``), the user's batches only read.
"""

from __future__ import annotations

import math
import statistics

from traindx.engine.parameters import resolve
from traindx.probes.live.data import preserved_rng, rng_rewind
from traindx.probes.live.overfit import batch_loss, clean_copy, copy_optimizer, output_mismatch



def _loss_of(model, loss_fn, batch, autocast):
    args, kwargs, targets, out_shape = batch
    return batch_loss(model, loss_fn, args, kwargs, targets, out_shape, autocast)


def _per_batch(model, loss_fn, batches, autocast) -> list[float]:
    import torch

    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            return [float(_loss_of(model, loss_fn, b, autocast).detach().float()) for b in batches]
    finally:
        model.train(was)


def _score(model, loss_fn, batches, autocast) -> float:
    vals = [v for v in _per_batch(model, loss_fn, batches, autocast) if math.isfinite(v)]
    return sum(vals) / len(vals) if vals else math.nan


def _continue(model, optimizer, loss_fn, train, held, autocast, checkpoints, val=()):
    """Train on ``train`` once; the held-out (and validation) loss per batch at each checkpoint."""
    scores, vscores = [], []
    for i, b in enumerate(train):
        optimizer.zero_grad(set_to_none=True)
        loss = _loss_of(model, loss_fn, b, autocast)
        if not math.isfinite(float(loss.detach().float())):
            return [[math.nan]], []
        loss.backward()
        optimizer.step()
        if i + 1 in checkpoints:
            scores.append(_per_batch(model, loss_fn, held, autocast))
            if val:
                vscores.append(_per_batch(model, loss_fn, val, autocast))
    return scores, vscores


def _paired(same: list[float], lower: list[float]):
    """(relative gain, paired z) of ``lower`` against ``same``, per batch."""
    a, b = sum(same) / len(same), sum(lower) / len(lower)
    if not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
        return None, None
    d = [x - y for x, y in zip(same, lower)]
    sd_d = statistics.stdev(d) if len(d) > 1 else 0.0
    z = (a - b) / (sd_d / math.sqrt(len(d))) if sd_d > 0 else (math.inf if a > b else 0.0)
    return (a - b) / a, z


def _batch_means(scores: list[list[float]]) -> list[float]:
    """Each held-out batch's loss, averaged over the checkpoints."""
    return [sum(s[j] for s in scores) / len(scores) for j in range(len(scores[0]))]


def lr_decay_test(model, optimizer, batches, loss_fn, *, factor: float = 0.1,
                  autocast: tuple | None = None, params=None, val=()) -> dict | None:
    """Continue copies of ``model``/``optimizer`` on ``batches`` at the current LR and at
    ``factor`` x the LR, and compare their loss on held-out batches.

    ``batches``: recent training batches, each ``(args, kwargs, targets, out_shape)`` as the model
    and the loss saw them, oldest first; the last quarter (at least ``lr_decay.min_held_out_batches``)
    is held out, the rest (at least ``lr_decay.min_train_batches``) is trained on once. ``loss_fn(outputs, targets)``.
    Returns plain data::

        {"helps": bool | None, "gain": float, "loss_same_lr": float, "loss_lower_lr": float,
         "loss_before": float, "factor": float, "steps": int, "held_out": int, "lr": float}

    or ``{"error": ...}`` when a copy cannot be trained, None when the copies cannot be made or
    there are too few batches.
    """
    import torch

    P = resolve(params)
    min_eval = int(P["lr_decay.min_held_out_batches"])
    batches = list(batches)
    n_eval = max(min_eval, len(batches) // 4)
    train, held = batches[:-n_eval], batches[-n_eval:]
    if len(train) < P["lr_decay.min_train_batches"]:
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
            unfaithful = output_mismatch(ma, *train[0][:2], train[0][3])
            if unfaithful:
                return {**result, "error": unfaithful}
            before = _score(ma, loss_fn, held, autocast)
            val = list(val or ()) if len(val or ()) >= min_eval else []
            rewind = rng_rewind()   # both copies draw the same dropout masks and noise: the LR alone differs
            same, vsame = _continue(ma, oa, loss_fn, train, held, autocast, checkpoints, val)
            rewind()
            lower, vlower = _continue(mb, ob, loss_fn, train, held, autocast, checkpoints, val)
        except Exception as e:  # a copy that cannot be trained (custom loss signature, OOM, ...)
            return {**result, "error": f"{type(e).__name__}: {e}"[:200]}
        finally:
            del ma, oa, mb, ob
    same, lower = _batch_means(same), _batch_means(lower)
    a = sum(same) / len(same)
    b = sum(lower) / len(lower)
    if not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
        return {**result, "helps": None, "gain": None, "loss_same_lr": a, "loss_lower_lr": b,
                "loss_before": before}
    gain, z = _paired(same, lower)
    spread = (statistics.stdev(same) if len(same) > 1 else 0.0) / a
    p = resolve(params)
    clear = gain >= p["lr_decay.helps"] and z >= p["lr_decay.min_z"] and gain >= p["lr_decay.noise_multiple"] * spread
    # a gain well inside one batch's luck is no gain: the data's floor, not the step size, holds it
    within = gain < p["lr_decay.no_help"] or gain < p["lr_decay.within_noise"] * spread
    helps = True if clear else False if within else None
    out = {**result, "helps": helps, "gain": gain, "loss_same_lr": a, "loss_lower_lr": b,
           "loss_before": before, "z": z, "batch_spread": spread}
    if vsame and vlower and len(vsame) == len(vlower):
        vg, vz = _paired(_batch_means(vsame), _batch_means(vlower))
        if vg is not None:
            out.update(val_gain=vg, val_z=vz, val_batches=len(val))
            # the floor is what unseen data allows: a decay that lowers the recent training batches'
            # loss but not the validation loss fits the data it trains on; it crosses no floor
            if helps and not (vg >= p["lr_decay.val_helps"] and vz >= p["lr_decay.min_z"]):
                out["helps"] = False if vg < p["lr_decay.no_help"] else None
    return out
