"""Train/validation overlap for runs that feed raw tensors (no DataLoader to hash).

A script that slices one tensor into train and validation by hand (or with overlapping index ranges,
or after duplicating examples) hands its model the same rows in training forwards and in evaluation
forwards. :class:`RowHashes` hashes the rows of the model's first input where the model receives
them: training forwards (gradients on, train mode) until ``leakage.max_train_hashed`` rows, evaluation
forwards (no gradients or eval mode) until ``leakage.max_val_hashed`` rows. A row's hash is exact and
does not depend on the batch it came in: its bit pattern, read as integers, on a fixed strided sample
of at most ``leakage.row_hash_elements`` elements, times fixed odd weights, summed (int64 arithmetic
wraps, no rounding). Nothing of the run changes: the arithmetic is on views of the inputs, no RNG is
drawn (the weights come from a seeded generator of their own), and device results are read at the end.

Hashing costs a few hundred microseconds per forward on a small CPU step, and a run that never
evaluates has nothing to compare its training rows with. So training forwards are hashed only once an
evaluation forward has been seen. Before that, the training inputs are kept by reference (no copy, no
arithmetic: at least the latest ``leakage.max_train_hashed`` rows, or half of ``leakage.pending_train_bytes``,
never more than those bytes) with
their in-place version counter; the first evaluation forward hashes those still unmodified (a buffer
the script refills in place is skipped: its content is no longer the training rows it was), then
every training forward after it is hashed.
A run that evaluates after each epoch re-feeds its training rows after the first evaluation; one that
evaluates once at the end has its latest training rows kept.
"""

from __future__ import annotations

_INT_VIEW = {8: "int64", 4: "int32", 2: "int16", 1: "int8"}


class RowHashes:
    def __init__(self, params):
        self.max_train = int(params["leakage.max_train_hashed"])
        self.max_val = int(params["leakage.max_val_hashed"])
        self.elements = int(params["leakage.row_hash_elements"])
        self.min_width = int(params["leakage.row_hash_min_width"])
        # rows kept whole (detached, as they came) for the overlapping-window check: windows of one
        # series split at random share stretches of values at shifted positions, which a row's hash
        # cannot see; bounded by leakage.window_max_elements per row and near_copy_max_* rows
        self.window_width = int(params["leakage.window_max_elements"])
        self.keep_train = int(params["leakage.near_copy_max_train"])
        self.keep_val = int(params["leakage.near_copy_max_val"])
        self.kept_train: list = []
        self.kept_val: list = []   # (index of the batch in self.val, rows)
        self.n_kept_train = self.n_kept_val = 0
        self.max_pending_bytes = int(params["leakage.pending_train_bytes"])
        self.train: list = []      # hash tensors (one per batch), maybe on a device
        self.val: list = []
        self.n_train = 0
        self.n_val = 0
        self.width = None          # the row width (elements) of the first input hashed
        self._w = None
        self.eval_seen = False     # an evaluation forward has been fed: training rows are hashed from now on
        self.pending: list = []    # (input, its _version, rows, bytes): training inputs before any evaluation
        self.pending_rows = 0
        self.pending_bytes = 0
        self.hashed_forwards = 0   # inputs hashed (the cost paid), training and evaluation
        # room left for training or evaluation rows (n_train < max_train or n_val < max_val): a plain
        # attribute, kept up to date by _hash (the only place the counts move), read at every forward
        self.open = self.max_train > 0 or self.max_val > 0
        import torch

        self._T = torch.Tensor

    def add(self, x, train: bool) -> None:
        """Hash the rows of ``x`` (the model's first input) as training or evaluation rows (training
        rows before any evaluation forward: kept by reference, hashed at the first one)."""
        if self.eval_seen:
            self._hash(x, train)
        elif train:
            self.keep(x)
        else:
            self.eval_seen = True
            self._hash_pending(x)
            self._hash(x, False)

    def keep(self, x) -> None:
        """Keep a training input by reference (before any evaluation forward: the monitor calls this
        directly then, one frame fewer a forward). Trimmed in bulk, so a step pays an append: the
        oldest go once more than twice ``max_train`` rows or the byte budget are held, down to
        ``max_train`` rows and half the budget."""
        if not isinstance(x, self._T) or x.is_sparse or x.is_inference():
            return            # (an inference tensor has no version counter to vouch for it later)
        shape = x.shape
        if len(shape) < 2:
            return
        n = shape[0]
        numel = x.numel()
        if n == 0 or numel < n * self.min_width:
            return
        size = numel * x.element_size()
        self.pending.append((x, x._version, n, size))
        self.pending_rows += n
        self.pending_bytes += size
        if self.pending_rows > 2 * self.max_train or self.pending_bytes > self.max_pending_bytes:
            self._trim()

    def _trim(self) -> None:
        pending, rows, kept = self.pending, self.pending_rows, self.pending_bytes
        cut = 0
        while cut < len(pending) and (rows > self.max_train or kept > self.max_pending_bytes // 2):
            rows -= pending[cut][2]
            kept -= pending[cut][3]
            cut += 1
        del pending[:cut]
        self.pending_rows, self.pending_bytes = rows, kept

    def _hash_pending(self, x_eval) -> None:
        """Hash the training inputs kept before the first evaluation forward, skipping any modified in
        place since (their version moved) and the evaluation input itself (the same view of the same
        memory: a buffer refilled through ``.data``, whose version does not move). Slices of one tensor
        that overlap the evaluation input are hashed: that is the split this check exists for."""
        import torch

        same = (x_eval.data_ptr(), tuple(x_eval.shape)) if isinstance(x_eval, torch.Tensor) else None
        pending, self.pending = self.pending, []
        self.pending_rows = self.pending_bytes = 0
        for t, version, _, _ in pending:
            if t._version != version or (t.data_ptr(), tuple(t.shape)) == same:
                continue
            self._hash(t, True)

    def drop_pending(self) -> None:
        """Release the kept training inputs (the watch is detached: no evaluation forward will come)."""
        self.pending.clear()
        self.pending_rows = self.pending_bytes = 0

    def _hash(self, x, train: bool) -> None:
        import torch

        if not torch.is_tensor(x) or x.dim() < 2 or x.is_sparse or x.shape[0] == 0:
            return
        n = int(x.shape[0])
        if train:
            room = self.max_train - self.n_train
        else:
            room = self.max_val - self.n_val
        if room <= 0:
            return
        rows = x.detach().reshape(n, -1)
        width = int(rows.shape[1])
        if width < self.min_width:
            return            # a few features: equal rows are expected between any two samples
        if self.width is None:
            self.width = width
        elif width != self.width:
            return            # another input (a second model input, a different resolution): not comparable
        rows = rows[:room]
        self._keep_whole(rows, train)
        step = max(1, -(-width // self.elements))
        rows = rows[:, ::step]
        kind = _INT_VIEW.get(rows.element_size())
        if kind is None:
            return
        self.hashed_forwards += 1
        ints = rows.contiguous().view(getattr(torch, kind)).to(torch.int64)
        if self._w is None or self._w.device != ints.device:
            g = torch.Generator().manual_seed(0x5EED)
            w = torch.randint(1, 2 ** 31 - 1, (int(ints.shape[1]),), generator=g, dtype=torch.int64) * 2 + 1
            self._w = w.to(ints.device)
        h = (ints * self._w).sum(dim=1)
        if train:
            self.train.append(h)
            self.n_train += int(h.shape[0])
        else:
            self.val.append(h)
            self.n_val += int(h.shape[0])
        self.open = self.n_train < self.max_train or self.n_val < self.max_val

    def _keep_whole(self, rows, train: bool) -> None:
        """Keep float rows of at most ``window_width`` values whole, up to the caps (a detached copy on
        the rows' device, read when findings are gathered: a buffer the script refills stays as fed)."""
        if not rows.is_floating_point() or rows.shape[1] > self.window_width:
            return
        if train and self.n_kept_train < self.keep_train:
            part = rows[:self.keep_train - self.n_kept_train].clone()
            self.kept_train.append(part)
            self.n_kept_train += int(part.shape[0])
        elif not train and self.n_kept_val < self.keep_val:
            part = rows[:self.keep_val - self.n_kept_val].clone()
            self.kept_val.append((len(self.val), part))
            self.n_kept_val += int(part.shape[0])

    def window_overlap(self, window_copies, params, train_eval: float):
        """(fraction of the kept evaluation rows that share a stretch of values with a kept training row
        at a shifted position, rows checked), from ``window_copies`` (:func:`~traindx.probes.live.data.
        window_copies`); evaluation batches of training rows (see :meth:`overlap`) left out. None
        when nothing comparable was kept."""
        import torch

        if not self.kept_train or not self.kept_val:
            return None
        _, _, aside = self._val_batches(train_eval)
        vals = [rows for i, rows in self.kept_val if i not in aside]
        if not vals:
            return None
        T = torch.cat([t.detach().to("cpu", torch.float64) for t in self.kept_train])
        V = torch.cat([v.detach().to("cpu", torch.float64) for v in vals])
        hit = window_copies(T, V, params)
        if hit is None:
            return None
        return float(hit.double().mean()), len(V)

    def overlap(self, min_val: int, min_train: int, train_eval: float):
        """(fraction of the evaluation rows hashed that are also training rows, evaluation rows
        counted, training rows, evaluation batches set aside), or None under ``min_val`` /
        ``min_train`` rows. An evaluation batch whose rows are training rows at ``train_eval`` or more
        is an evaluation of the training data (train accuracy in eval mode), not a split: set aside."""
        if self.n_val < min_val or self.n_train < min_train:
            return None
        tr, split, aside = self._val_batches(train_eval)
        hit = sum(k for k, _ in split)
        n = sum(m for _, m in split)
        if n < min_val:
            return None
        return hit / n, n, len(tr), len(aside)

    def _val_batches(self, train_eval: float):
        """(the training rows' hashes, ``(rows also in training, rows)`` of each evaluation batch that
        is a split, the indices of the batches set aside): a batch whose rows are training rows at
        ``train_eval`` or more is an evaluation of the training data (train accuracy in eval mode)."""
        tr = set()
        for h in self.train:
            tr.update(h.tolist())
        split, aside = [], set()
        for i, h in enumerate(self.val):
            vs = h.tolist()
            k = sum(1 for v in vs if v in tr)
            if vs and k >= train_eval * len(vs):
                aside.add(i)
            else:
                split.append((k, len(vs)))
        return tr, split, aside
