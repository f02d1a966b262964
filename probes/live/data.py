"""Data quantities: dataset sizes, input statistics, label composition, val/train overlap.

Sources (kb/sources.yaml): ``probe:dataset_size``, ``probe:input_stats``, ``probe:labels``,
``probe:leakage``. Public functions return plain data. Reading dataset items (the leakage probe)
runs the user's ``__getitem__``, which may draw random numbers for augmentation: the torch, numpy
and ``random`` generator states are saved before and restored after.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import random as _random
import time
from statistics import mean
from collections.abc import Sequence

from traindx.engine.parameters import resolve

#: How deep into nested lists, tuples and dicts a batch is searched for tensors (tensors_in) and
#: hashed (_feed): the shape of batch structures, a bound on work, not knowledge.
_BATCH_DEPTH = 4
_HASH_DEPTH = 3
#: A floor under the largest std, so that an all-zero input still has a scale: arithmetic, not knowledge.
_TINY_STD = 1e-30


# --------------------------------------------------------------------------- sizes
def dataset_size(loader) -> int | None:
    """``len(loader.dataset)`` (or ``len(obj)`` for a dataset), None when it has no length."""
    ds = getattr(loader, "dataset", loader)
    try:
        return int(len(ds))
    except Exception:
        return None


def loader_shuffles(loader) -> bool | None:
    """Whether a DataLoader draws a random order: True for a RandomSampler (or a random batch
    sampler), False for a SequentialSampler, None when unknown."""
    try:
        from torch.utils.data import RandomSampler, SequentialSampler, SubsetRandomSampler
    except Exception:
        return None
    sampler = getattr(loader, "sampler", None)
    bs = getattr(loader, "batch_sampler", None)
    inner = getattr(bs, "sampler", None)
    for s in (sampler, inner):
        if isinstance(s, (RandomSampler, SubsetRandomSampler)):
            return True
    for s in (sampler, inner):
        if isinstance(s, SequentialSampler):
            return False
    return None


# --------------------------------------------------------------------------- inputs
def tensors_in(obj, _depth: int = 0):
    """The tensors inside a batch structure (tensor, list/tuple, dict), depth-first."""
    import torch

    if torch.is_tensor(obj):
        yield obj
    elif _depth < _BATCH_DEPTH and isinstance(obj, (list, tuple)):
        for o in obj:
            yield from tensors_in(o, _depth + 1)
    elif _depth < _BATCH_DEPTH and isinstance(obj, dict):
        for o in obj.values():
            yield from tensors_in(o, _depth + 1)


def inputs_have_nan(batch) -> bool:
    """Whether any floating tensor in the batch holds NaN or Inf."""
    import torch

    with torch.no_grad():
        for t in tensors_in(batch):
            if t.is_floating_point() or t.is_complex():
                if not bool(torch.isfinite(t).all()):
                    return True
    return False


#: Input statistics read at most this many examples of a sampled batch.
MOMENT_ROWS = 64
#: (time, batch, features) or (batch, time, features): which dimension holds the examples is unknown
_SEQUENCE_DIMS = 3


def _feature_moments(x):
    """(sum, sum of squares, count) per feature of (the first :data:`MOMENT_ROWS` examples of) a
    float batch: dim 1 of (N, F) or the channels of (N, C, ...). Private: returns tensors, so the
    caller can accumulate without a host sync."""
    import torch

    if not torch.is_tensor(x) or not x.is_floating_point() or x.dim() < 2 or x.shape[0] == 0:
        return None
    with torch.no_grad():
        xf = x.detach()[:MOMENT_ROWS].float()
        if xf.dim() > 2:
            xf = xf.transpose(0, 1).reshape(xf.shape[1], -1).t()
        return xf.sum(0), (xf * xf).sum(0), xf.shape[0]


def _batch_mean_moments(x):
    """(batch mean, the variance that mean would have in a batch drawn at random) per feature of
    (the first :data:`MOMENT_ROWS` examples of) a float batch: the examples' values of dim 1 of
    (N, F), or their per-channel averages of (N, C, H, W[, D]). None below two examples, and for
    three-dimensional batches, whose first dimension may be time (a sequence model fed time-major) as
    well as the examples: the values of one sequence over time are no random draws. Private: returns
    tensors, so the caller can accumulate without a host sync."""
    import torch

    if not torch.is_tensor(x) or not x.is_floating_point() or x.dim() < 2 or x.dim() == _SEQUENCE_DIMS \
            or x.shape[0] < 2:
        return None
    with torch.no_grad():
        xf = x.detach()[:MOMENT_ROWS].float()
        if xf.dim() > 2:
            xf = xf.flatten(2).mean(2)
        return xf.mean(0), xf.var(0) / xf.shape[0]


def batch_mean_spread(sum_means: Sequence[float], sum_sq_means: Sequence[float], sum_expected: Sequence[float],
                      batches: int, min_batches: int) -> float | None:
    """How far apart the sampled training batches' means are, over how far apart batches drawn at
    random from the same examples would be: per feature, the variance of the batch means across the
    sampled batches over the mean within-batch variance / batch size; the median over the features
    that vary within a batch. About 1 when every batch is a random draw; far above 1 when each batch
    comes from one region of the data (rows in the order they were collected, class by class, source
    by source). None below ``min_batches`` sampled batches."""
    if batches < max(2, min_batches):
        return None
    ratios = []
    for s, q, e in zip(sum_means, sum_sq_means, sum_expected):
        between = (q - s * s / batches) / (batches - 1)
        expected = e / batches
        if expected > 0 and math.isfinite(between) and math.isfinite(expected):
            ratios.append(max(0.0, between) / expected)
    if not ratios:
        return None
    ratios.sort()
    return float(ratios[len(ratios) // 2])


def feature_stats(sums: Sequence[float], sumsq: Sequence[float], count: int) -> tuple[list[float], list[float]]:
    """Per-feature means and standard deviations from accumulated moments."""
    if count <= 0:
        return [], []
    means = [s / count for s in sums]
    stds = [math.sqrt(max(0.0, q / count - m * m)) for q, m in zip(sumsq, means)]
    return means, stds


def input_scale(means: Sequence[float], stds: Sequence[float]) -> float | None:
    """Largest absolute feature mean or std across input features (about 1 for normalised data)."""
    vals = [abs(v) for v in list(means) + list(stds) if math.isfinite(v)]
    return float(max(vals)) if vals else None


def input_scale_spread(stds: Sequence[float], params=None) -> float | None:
    """Largest / smallest feature std across input features, robustly: the upper over the lower
    percentile of ``input_stats.spread_percentiles`` (95th over 5th), over features that vary at all
    (a std above ``input_stats.constant_rel`` of the largest: constant features, such as image
    borders, are left out). 1 means every feature has the same scale. ``params``: None for the
    shipped values."""
    P = resolve(params)
    s = sorted(v for v in stds if math.isfinite(v))
    if not s:
        return None
    top = s[-1]
    s = [v for v in s if v > P["input_stats.constant_rel"] * max(top, _TINY_STD)]
    if len(s) < 2:
        return 1.0 if s else None
    p_lo, p_hi = P["input_stats.spread_percentiles"]
    lo = s[int(p_lo * (len(s) - 1))]
    hi = s[int(round(p_hi * (len(s) - 1)))]
    return float(hi / lo) if lo > 0 else None


# --------------------------------------------------------------------------- labels
def _label_counts(targets):
    """Per-batch class counts for 1-D integer labels (negative labels, i.e. ignore_index, left out)
    or binary 0.0/1.0 float labels (a BCE head's), or None. Private: returns a tensor (index c: how many labels c)."""
    import torch

    if torch.is_tensor(targets) and targets.dim() == 2 and targets.shape[1] == 1:
        targets = targets[:, 0]           # a (N, 1) column of binary targets, as BCE heads take them
    if not torch.is_tensor(targets) or targets.dim() != 1 or targets.numel() == 0:
        return None
    if targets.is_complex() or targets.dtype == torch.bool:
        return None
    if targets.is_floating_point():
        # binary cross-entropy takes its labels as floats: 0.0/1.0 targets are two classes (soft
        # or smoothed targets, and regression targets, are not labels and stay out)
        with torch.no_grad():
            if not bool(((targets == 0) | (targets == 1)).all()):
                return None
            targets = targets.long()
    with torch.no_grad():
        # shift by one so that every negative label lands in bin 0, which is dropped
        return torch.bincount(targets.clamp(min=-1) + 1)[1:]


def batch_purity(counts: Sequence[int]) -> float | None:
    """Share of the majority label within one batch."""
    n = sum(counts)
    return float(max(counts) / n) if n else None


def labels_constant(global_counts: dict[int, int], batches: int) -> bool | None:
    """Every observed training label is the same value (over at least 2 batches)."""
    if batches < 2 or not global_counts:
        return None
    return sum(1 for c in global_counts.values() if c > 0) == 1


def batch_label_purity(purities: Sequence[float]) -> float | None:
    """Average share of the majority label within a training batch."""
    s = [p for p in purities if p is not None]
    return float(mean(s)) if s else None


def split_classes_apart(train_counts: dict[int, int], val_counts: dict[int, int],
                        min_per_class: float) -> float | None:
    """How far the training and validation labels keep to classes of their own: the smaller of the
    share of validation labels in classes no counted training label has and the share of training
    labels in classes no counted validation label has. 1 when the two parts hold different classes (a
    list collected class by class and cut in two without a shuffle), 0 when either holds the other's
    classes (a validation set of every class beside a training set whose labels were all overwritten
    with one of them has its share of that class: the labels, not the split). None when too few
    training labels were counted to have seen every class (fewer than ``min_per_class`` per class of
    the two sets together)."""
    seen = {c for c, k in train_counts.items() if k > 0}
    held = {c for c, k in val_counts.items() if k > 0}
    n_train, n_val = sum(train_counts.values()), sum(val_counts.values())
    if not seen or not n_val or n_train < min_per_class * len(seen | held):
        return None
    val_apart = sum(k for c, k in val_counts.items() if c not in seen) / n_val
    train_apart = sum(k for c, k in train_counts.items() if c not in held) / n_train
    return float(min(val_apart, train_apart))


def expected_purity(global_counts: dict[int, int], batch_size: int) -> float | None:
    """Roughly the purity a shuffled loader would give: the majority class share, corrected upward
    for small batches (the expected maximum of a multinomial, approximated)."""
    n = sum(global_counts.values())
    if not n or batch_size <= 0:
        return None
    p = max(global_counts.values()) / n
    k = sum(1 for c in global_counts.values() if c > 0)
    # the majority share of a random batch exceeds p by about sqrt(2 p (1-p) ln k / B)
    return min(1.0, p + math.sqrt(max(0.0, 2 * p * (1 - p) * math.log(max(k, 2)) / batch_size)))


def purity_excess(purities: Sequence[float], global_counts: dict[int, int], batch_size: int) -> float | None:
    """How far the batches' majority-label share runs above what shuffled batches of the same labels
    would give (:func:`expected_purity`): near 0 for a shuffled loader, large when batches are drawn
    from runs of one class (a class-ordered file list read through a small shuffle buffer, shards of
    one class). None without two classes among the counted labels."""
    pur = batch_label_purity(purities)
    exp = expected_purity(global_counts, batch_size)
    if pur is None or exp is None or sum(1 for c in global_counts.values() if c > 0) < 2:
        return None
    return float(pur - exp)


def shuffle_inferred(purities: Sequence[float], global_counts: dict[int, int], batch_size: int,
                     same_as_previous: Sequence[bool], params=None) -> bool | None:
    """False when batches are far purer than shuffling would give and consecutive batches share
    their majority class (data ordered by label); None when the labels cannot tell. The cuts are
    ``shuffle.*`` in kb/parameters (``params``: the knowledge base's values; None: the shipped ones)."""
    P = resolve(params)
    pur = batch_label_purity(purities)
    exp = expected_purity(global_counts, batch_size)
    classes = sum(1 for c in global_counts.values() if c > 0)
    if pur is None or exp is None or classes < 2 or len(purities) < P["shuffle.min_batches"]:
        return None
    runs = sum(1 for s in same_as_previous if s) / max(1, len(same_as_previous))
    if pur >= max(P["shuffle.sorted_purity"], exp + P["shuffle.sorted_excess"]) and runs >= P["shuffle.sorted_runs"]:
        return False
    if pur <= exp + P["shuffle.shuffled_excess"]:
        return True
    return None


# --------------------------------------------------------------------------- leakage
#: how far (attribute hops) and how many objects the search for a dataset's own generators looks
_RNG_SEARCH_DEPTH = 5
_RNG_SEARCH_NODES = 4000


def _generator_state(obj):
    """``(save, restore)`` for a random generator object the user owns, else None: numpy's
    ``Generator`` and ``RandomState``, ``random.Random`` and ``torch.Generator``."""
    kind = type(obj)
    mod = getattr(kind, "__module__", "") or ""
    if isinstance(obj, _random.Random):
        return obj.getstate, obj.setstate
    if mod.startswith("numpy.random"):
        if hasattr(obj, "bit_generator"):                 # numpy.random.Generator
            bg = obj.bit_generator
            return (lambda: bg.state), (lambda st: setattr(bg, "state", st))
        if hasattr(obj, "get_state") and hasattr(obj, "set_state"):   # RandomState
            return obj.get_state, obj.set_state
    if kind.__name__ == "Generator" and mod.startswith("torch"):
        return obj.get_state, obj.set_state
    return None


def _owned_generators(owners) -> list:
    """The random generators reachable from ``owners`` (a dataset, its transforms, a Subset's
    parent) through attributes, lists, tuples and dicts, at most ``_RNG_SEARCH_DEPTH`` hops and
    ``_RNG_SEARCH_NODES`` objects away: a dataset that augments with its own ``np.random.default_rng``
    draws from it in ``__getitem__``, so a probe that reads items must put it back."""
    found, seen = [], set()
    frontier = [o for o in owners if o is not None]
    visited = 0
    for _ in range(_RNG_SEARCH_DEPTH + 1):
        nxt = []
        for obj in frontier:
            if id(obj) in seen or visited >= _RNG_SEARCH_NODES:
                continue
            seen.add(id(obj))
            visited += 1
            st = _generator_state(obj)
            if st is not None:
                found.append(st)
                continue
            if isinstance(obj, (str, bytes, int, float, bool, type)) or obj is None:
                continue
            if isinstance(obj, dict):
                nxt.extend(list(obj.values())[:64])
            elif isinstance(obj, (list, tuple)):
                nxt.extend(obj[:64])
            else:
                d = getattr(obj, "__dict__", None)
                if isinstance(d, dict) and not _is_array(obj):
                    nxt.extend(list(d.values())[:64])
        frontier = nxt
    return found


def _is_array(obj) -> bool:
    mod = getattr(type(obj), "__module__", "") or ""
    return mod.startswith("torch") and type(obj).__name__ in ("Tensor", "Parameter") or \
        mod == "numpy" and type(obj).__name__ == "ndarray"


@contextlib.contextmanager
def preserved_rng(*owners):
    """Save and restore the torch (CPU and CUDA), numpy and ``random`` generator states, and the
    states of the generators ``owners`` (the datasets a probe reads items of) hold themselves."""
    import torch

    own = []
    for save, restore in _owned_generators(owners):
        try:
            own.append((restore, save()))
        except Exception:   # a generator whose state cannot be read: leave it
            pass

    host = _host_rng()
    devices = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    with torch.random.fork_rng(devices=devices):
        try:
            yield
        finally:
            host()
            for restore, state in own:
                try:
                    restore(state)
                except Exception:
                    pass


def rng_rewind():
    """A function that puts the torch (CPU and CUDA), numpy and ``random`` generators back where they
    are now: two copies that each start from it draw the same dropout masks and noise (paired
    experiments; call it inside :func:`preserved_rng`, which restores the run's own states after)."""
    import torch

    host = _host_rng()
    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None

    def rewind():
        host()
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
    return rewind


def _host_rng():
    """Save the ``random`` and numpy global generator states; return a function that puts them back."""
    py = _random.getstate()
    try:
        import numpy as np

        npst = np.random.get_state()
    except Exception:  # pragma: no cover - numpy is optional
        np, npst = None, None

    def restore():
        _random.setstate(py)
        if np is not None:
            np.random.set_state(npst)
    return restore


def example_hash(sample) -> str | None:
    """A content hash of one dataset example's input (the first element of a tuple, or the input
    keys of a dict): the bytes of its tensors/arrays, or its repr for other values."""
    from traindx.probes.live.timing import split_batch

    x, _ = split_batch(sample) if isinstance(sample, (tuple, list, dict)) else (sample, None)
    if x is None:
        return None
    h = hashlib.blake2b(digest_size=16)
    _feed(h, x)
    return h.hexdigest()


def _feed(h, x, depth: int = 0):
    import torch

    if torch.is_tensor(x):
        t = x.detach().cpu().contiguous()
        h.update(str(tuple(t.shape)).encode())
        h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        return
    try:
        import numpy as np

        if isinstance(x, np.ndarray):
            h.update(str(x.shape).encode())
            h.update(np.ascontiguousarray(x).tobytes())
            return
    except Exception:  # pragma: no cover
        pass
    if depth < _HASH_DEPTH and isinstance(x, (list, tuple)):
        for o in x:
            _feed(h, o, depth + 1)
        return
    if depth < _HASH_DEPTH and isinstance(x, dict):
        for k in sorted(x, key=str):
            h.update(str(k).encode())
            _feed(h, x[k], depth + 1)
        return
    h.update(repr(x).encode())


def val_train_overlap(train, val, *, max_val: int | None = None, max_train: int | None = None,
                      seed: int = 0, params=None) -> dict | None:
    """Fraction of (a sample of) validation examples whose input also appears in the training set.

    ``train``/``val`` are datasets or loaders (their ``.dataset`` is read by index; the loaders are
    not iterated). Hashes ``max_val`` validation examples (``leakage.max_val_hashed``) and
    ``max_train`` training examples (``leakage.max_train_hashed``), or all there are, in a random
    order from a private generator: the sample is set by counts, so it is the same on an idle and
    a busy machine. Wall time is only a safety cap (``data_sampling.safety_cap_s``, a third of it
    for the validation side) for a dataset whose items are very slow to read; once it is hit, at
    least ``leakage.min_val_hashed`` / ``leakage.min_train_hashed`` examples are still hashed and
    the result says ``capped``. When only part of the training set was hashed the found fraction
    is divided by the share covered (a uniform sample finds each duplicate with that
    probability). Returns ``{"overlap", "val_checked", "train_hashed", "train_size", "capped"}`` or
    None when the datasets cannot be indexed. RNG states are preserved.
    """
    tr, va = _dataset_of(train), _dataset_of(val)
    try:
        n_tr, n_va = len(tr), len(va)
    except Exception:
        return None
    if n_tr == 0 or n_va == 0:
        return None
    P = resolve(params)
    least_val, least_train = P["leakage.min_val_hashed"], P["leakage.min_train_hashed"]
    max_val = int(P["leakage.max_val_hashed"]) if max_val is None else max_val
    max_train = int(P["leakage.max_train_hashed"]) if max_train is None else max_train
    cap = P["data_sampling.safety_cap_s"]
    rnd = _random.Random(seed)
    t0 = time.perf_counter()
    t_end = t0 + cap / 3
    capped = False
    with preserved_rng(tr, va):
        tr_idx = rnd.sample(range(n_tr), min(n_tr, max_train))
        va_idx = rnd.sample(range(n_va), min(n_va, max_val))
        vh = []
        for i in va_idx:
            try:
                vh.append(example_hash(va[i]))
            except Exception:
                return None
            if len(vh) >= least_val and time.perf_counter() > t_end:
                capped = len(vh) < len(va_idx)
                break
        t_end = max(t0 + cap, time.perf_counter() + cap / 3)
        seen = set()
        hashed = 0
        for i in tr_idx:
            try:
                seen.add(example_hash(tr[i]))
            except Exception:
                return None
            hashed += 1
            if hashed >= least_train and time.perf_counter() > t_end:
                capped = capped or hashed < len(tr_idx)
                break
    vh = [v for v in vh if v is not None]
    if not vh or not hashed:
        return None
    found = sum(1 for v in vh if v in seen) / len(vh)
    coverage = hashed / n_tr
    overlap = min(1.0, found / coverage) if coverage < 1 else found
    return {"overlap": float(overlap), "val_checked": len(vh), "train_hashed": hashed, "train_size": n_tr,
            "capped": capped}


# --------------------------------------------------------------------------- labels vs inputs
def _dataset_of(obj):
    """The dataset behind a DataLoader (anything with ``batch_size`` and ``dataset``), else ``obj``
    itself (a Subset's ``.dataset`` is the whole set it was cut from, not the subset)."""
    if hasattr(obj, "batch_size") and hasattr(obj, "dataset"):
        return obj.dataset
    return obj


def _read_rows(ds, idx, max_features, t_end, min_rows, labels):
    """Flattened float64 inputs of ``ds[i]`` for ``i`` in ``idx`` (all of them; only past the
    safety cap ``t_end``, a wall-clock time, does it stop early, once ``min_rows`` are read) and,
    with ``labels``, their integer class labels: ``(X, Y)`` (``Y`` None without labels), or None
    when an item is not a float tensor/array of one fixed size of at most ``max_features`` values
    (token ids, text, PIL images) or, with ``labels``, has no single integer label. Runs the
    dataset's ``__getitem__``: call it inside :func:`preserved_rng`."""
    import torch

    from traindx.probes.live.timing import split_batch

    xs, ys = [], []
    for i in idx:
        try:
            item = ds[i]
            x, y = split_batch(item) if isinstance(item, (tuple, list, dict)) else (item, None)
            if x is None or (labels and y is None):
                return None
            x = x if torch.is_tensor(x) else torch.as_tensor(x)
            if labels:
                y = y if torch.is_tensor(y) else torch.as_tensor(y)
        except Exception:      # strings, PIL images, ...: not these probes' kind of data
            return None
        if not x.is_floating_point() or x.numel() > max_features:
            return None
        if labels:
            if y.numel() != 1 or y.is_floating_point() and float(y) != round(float(y)):
                return None
            ys.append(int(y))
        xs.append(x.detach().reshape(-1).to("cpu", torch.float64))
        if len(xs) >= min_rows and time.perf_counter() > t_end:
            break
    if not xs or len({x.numel() for x in xs}) != 1:
        return None
    return torch.stack(xs), (torch.tensor(ys) if labels else None)


def label_neighbour_agreement(train, *, max_items: int | None = None, max_features: int = 65536,
                              seed: int = 0, min_items: int = 64, params=None) -> dict | None:
    """Whether the training labels relate to the inputs at all: leave-one-out nearest-neighbour
    label agreement on a sample of the training set, against what unrelated labels would give.

    ``max_items`` examples (``label_neighbours.max_items``, or all there are) are read by index
    from ``train`` (a dataset or a loader's ``.dataset``; the loader is not iterated) in a random
    order from a private generator; only a read slower than ``data_sampling.safety_cap_s`` stops
    early. RNG states are preserved. Inputs must be floating-point tensors/arrays of at
    most ``max_features`` values and labels integer class ids (one per example). Each feature is
    standardised over the sample (so one large-scale feature does not decide the distances), and
    each example's label is compared with that of its nearest other example (Euclidean).

    With labels independent of the inputs the agreement is the chance that two examples share a
    class, ``sum_c n_c (n_c - 1) / (m (m - 1))``; any real labelling of data a network can learn
    puts near neighbours in the same class more often than that. Returns ``{"agreement",
    "chance", "z", "items", "classes"}`` (``z`` in binomial standard errors above chance), or None
    when the data do not fit (non-float inputs such as token ids, non-class targets, fewer than
    ``min_items`` examples read — ``label_neighbours.min_examples``, 64 — one class).
    """
    import torch

    ds = _dataset_of(train)
    try:
        n = len(ds)
    except Exception:
        return None
    if n < min_items:
        return None
    P = resolve(params)
    max_items = int(P["label_neighbours.max_items"]) if max_items is None else max_items
    rnd = _random.Random(seed)
    with preserved_rng(ds):
        rows = _read_rows(ds, rnd.sample(range(n), min(n, max_items)), max_features,
                          time.perf_counter() + P["data_sampling.safety_cap_s"], min_items, labels=True)
    if rows is None or len(rows[0]) < min_items:
        return None
    X, Y = rows
    m = len(Y)
    X = (X - X.mean(0)) / X.std(0).clamp_min(1e-12)
    counts = torch.bincount(Y - Y.min())
    counts = counts[counts > 0]
    if len(counts) < 2:
        return None
    chance = float((counts * (counts - 1)).sum()) / (m * (m - 1))
    d = torch.cdist(X, X)
    d.fill_diagonal_(math.inf)
    agree = float((Y[d.argmin(1)] == Y).double().mean())
    se = math.sqrt(max(chance * (1 - chance), 1e-12) / m)
    return {"agreement": agree, "chance": chance, "z": (agree - chance) / se, "items": m,
            "classes": int(len(counts))}


def labels_related(result: dict | None, params=None) -> bool | None:
    """The fact ``labels_match_inputs`` from :func:`label_neighbour_agreement`: True when near
    neighbours share a label clearly more often than chance (z >= 4 and 5 points above), False
    when not significantly more often (z < 2.5, less than 5 points above, 200+ examples), else
    None. The cuts are ``label_neighbours.*`` in kb/parameters."""
    if not result:
        return None
    P = resolve(params)
    lift = result["agreement"] - result["chance"]
    if result["z"] >= P["label_neighbours.related_z"] and lift >= P["label_neighbours.lift"]:
        return True
    if (result["z"] < P["label_neighbours.unrelated_z"] and lift < P["label_neighbours.lift"]
            and result["items"] >= P["label_neighbours.unrelated_items"]):
        return False
    return None


#: candidate training stretches compared value by value per validation stretch (a bound on work: a true
#: copy is among the first, a projection collision of unrelated values is rare)
WINDOW_CANDIDATES = 8


def near_duplicate_fraction(train, val, *, max_val: int | None = None, max_train: int | None = None,
                            max_features: int = 65536, seed: int = 0, params=None) -> dict | None:
    """Fraction of (a sample of) validation examples that are near-copies of training examples
    (jittered or augmented copies made before the split, overlapping windows), which exact hashing
    misses.

    Inputs are standardised with the training sample's statistics. For each validation example
    the distances to its ``k`` nearest training examples (``leakage.near_copy_neighbours``) are
    sorted; it counts as a near-copy when, among its ``k // 2`` nearest, one is ``jump`` times
    (``leakage.near_copy_gap``) or more closer than the next: a tight group of copies set apart
    from the rest of its neighbourhood (an exact copy, distance 0, always counts). For
    independent examples in ``d`` dimensions the chance of such a gap is about ``jump ** -d`` (4%
    in 2-D at the default, nil beyond); copies jittered by a few percent of a feature's spread sit
    tens of times closer than anything else. Only float inputs with 2+ varying features and
    training sets of at least ``leakage.near_copy_train_per_neighbour`` times ``k`` examples are
    read; None otherwise. The three are parameters of ``params``, as are the sample's counts
    (``leakage.near_copy_max_val``, ``leakage.near_copy_max_train``; only a read slower than
    ``data_sampling.safety_cap_s`` stops early).
    Returns ``{"fraction", "val_checked", "train_read"}``. RNG states are preserved.
    """
    import torch

    P = resolve(params)
    k, jump = int(P["leakage.near_copy_neighbours"]), P["leakage.near_copy_gap"]
    least = int(P["leakage.near_copy_train_per_neighbour"] * k)
    max_val = int(P["leakage.near_copy_max_val"]) if max_val is None else max_val
    max_train = int(P["leakage.near_copy_max_train"]) if max_train is None else max_train
    cap = P["data_sampling.safety_cap_s"]
    tr, va = _dataset_of(train), _dataset_of(val)
    try:
        n_tr, n_va = len(tr), len(va)
    except Exception:
        return None
    if n_tr < least or n_va == 0:
        return None
    rnd = _random.Random(seed)
    t0 = time.perf_counter()
    with preserved_rng(tr, va):
        V = _read_rows(va, rnd.sample(range(n_va), min(n_va, max_val)), max_features,
                       t0 + cap / 3, P["leakage.min_val_hashed"], labels=False)
        T = V and _read_rows(tr, rnd.sample(range(n_tr), min(n_tr, max_train)), max_features,
                             max(t0 + cap, time.perf_counter() + cap / 3), least, labels=False)
    if not T or T[0].shape[1] != V[0].shape[1] or len(T[0]) < least:
        return None
    T, V = T[0], V[0]
    raw_t, raw_v = T, V
    mu, sd = T.mean(0), T.std(0)
    keep = sd > 1e-12 * (1 + mu.abs())
    if int(keep.sum()) < 2:
        return None
    shifted = window_copies(raw_t, raw_v, P)
    T = ((T - mu) / sd)[:, keep].float()
    V = ((V - mu) / sd)[:, keep].float()
    near = torch.cdist(V, T).topk(k, dim=1, largest=False).values       # ascending
    head = near[:, : k // 2 + 1]
    gap = head[:, 1:] >= jump * head[:, :-1]
    copy = gap.any(1) | (near[:, 0] <= 1e-9 * (1 + near[:, -1]))
    if shifted is not None:
        copy = copy | shifted
    return {"fraction": float(copy.double().mean()), "val_checked": len(V), "train_read": len(T),
            "shifted": int(shifted.sum()) if shifted is not None else 0}


def window_copies(T, V, P):
    """Which validation rows share a stretch of consecutive values with a training row at another
    position: windows cut from one series with a stride shorter than the window and then split at
    random (each validation window is its neighbours' values shifted by a few steps, which a
    distance between whole rows misses when the series is noisy). A validation row counts when its
    first or its last ``c`` values (``c`` = half the row, at most ``leakage.window_chunk``) appear,
    in order and exactly, anywhere inside a training row. A stretch must hold at least
    ``leakage.window_distinct`` distinct values per value of it (continuous data: binary or one-hot
    rows repeat by chance). Candidates are found by a seeded random projection of every stretch
    and then compared value by value. A boolean tensor over the rows of ``V``, or None when the rows
    are too short (under two stretches of ``leakage.window_min_chunk``) or longer than
    ``leakage.window_max_elements`` (a bound on work)."""
    import torch

    n, L = T.shape
    c = min(L // 2, int(P["leakage.window_chunk"]))
    if c < P["leakage.window_min_chunk"] or L > P["leakage.window_max_elements"] or not n or not len(V):
        return None
    g = torch.Generator().manual_seed(0)
    w = torch.rand(c, generator=g, dtype=torch.float64) + 0.5
    th = torch.nn.functional.conv1d(T.unsqueeze(1), w.view(1, 1, c)).squeeze(1)      # (n, L - c + 1)
    flat, order = th.reshape(-1).sort()
    out = torch.zeros(len(V), dtype=torch.bool)
    for start in (0, L - c):
        chunks = V[:, start:start + c]
        distinct = torch.tensor([len(torch.unique(r)) for r in chunks])
        ok = distinct >= P["leakage.window_distinct"] * c
        h = chunks @ w
        tol = 1e-9 * (chunks.abs() @ w + 1e-300)
        lo = torch.searchsorted(flat, h - tol)
        hi = torch.searchsorted(flat, h + tol, right=True)
        for i in torch.nonzero(ok & (hi > lo)).flatten().tolist():
            for j in order[int(lo[i]):int(hi[i])][:WINDOW_CANDIDATES].tolist():
                row, off = divmod(j, th.shape[1])
                if torch.equal(T[row, off:off + c], chunks[i]):
                    out[i] = True
                    break
    return out


def train_label_disagreement(train, val, *, max_val: int | None = None, max_train: int | None = None,
                             max_features: int = 65536, seed: int = 0, min_items: int = 64,
                             params=None) -> dict | None:
    """Whether the training labels disagree with the validation labels about the same kind of
    input: for a sample of validation examples, how often the nearest *training* example has the
    same label, against how often the nearest other *validation* example does (standardised
    inputs, Euclidean). Training examples are the denser set, so with both label sets equally
    clean the training neighbour agrees at least as often; training labels that are misaligned
    or noisy (while validation's are not) make it agree clearly less often.

    Returns ``{"drop", "val_val", "val_train", "z", "val_checked"}`` (``drop = val_val -
    val_train``; ``z`` its binomial standard errors), or None when the data do not fit (see
    :func:`label_neighbour_agreement`) or fewer than ``min_items`` validation examples are read. The
    sample's counts are ``label_neighbours.max_val`` / ``label_neighbours.max_train`` (or all there
    are); only a read slower than ``data_sampling.safety_cap_s`` stops early. RNG states are
    preserved."""
    import torch

    tr, va = _dataset_of(train), _dataset_of(val)
    try:
        n_tr, n_va = len(tr), len(va)
    except Exception:
        return None
    if n_tr < min_items or n_va < min_items:
        return None
    P = resolve(params)
    max_val = int(P["label_neighbours.max_val"]) if max_val is None else max_val
    max_train = int(P["label_neighbours.max_train"]) if max_train is None else max_train
    cap = P["data_sampling.safety_cap_s"]
    rnd = _random.Random(seed)
    t0 = time.perf_counter()
    with preserved_rng(tr, va):
        V = _read_rows(va, rnd.sample(range(n_va), min(n_va, max_val)), max_features,
                       t0 + cap / 3, min_items, labels=True)
        T = V and _read_rows(tr, rnd.sample(range(n_tr), min(n_tr, max_train)), max_features,
                             max(t0 + cap, time.perf_counter() + cap / 3), min_items, labels=True)
    if not T or T[0].shape[1] != V[0].shape[1]:
        return None
    (Xt, yt), (Xv, yv) = T, V
    mu, sd = Xt.mean(0), Xt.std(0).clamp_min(1e-12)
    Xt, Xv = ((Xt - mu) / sd).float(), ((Xv - mu) / sd).float()
    dvv = torch.cdist(Xv, Xv)
    dvv.fill_diagonal_(math.inf)
    vv = float((yv[dvv.argmin(1)] == yv).double().mean())
    vt = float((yt[torch.cdist(Xv, Xt).argmin(1)] == yv).double().mean())
    m = len(yv)
    p = (vv + vt) / 2
    se = math.sqrt(max(2 * p * (1 - p) / m, 1e-12))
    return {"drop": vv - vt, "val_val": vv, "val_train": vt, "z": (vv - vt) / se, "val_checked": m}
