"""``probe:input_stats``: NaN/Inf and the scale of the inputs where the model receives them."""

from __future__ import annotations

import traindx.probes.live.data as D
from traindx.probes.live.probe import Probe


class InputStats(Probe):
    source = "probe:input_stats"
    facts = ("inputs_have_nan", "input_scale", "input_scale_spread", "batch_size", "batch_mean_spread")
    needs = frozenset({"batch"})
    schedule = "first 10 training forwards (or loader batches), every 100; every one while armed"
    parameters = ("input_stats.spread_percentiles", "input_stats.constant_rel", "input_stats.batch_mean_min_batches")

    def findings(self, m, emit, params):
        info = m._nan_info or {}
        if "inputs_have_nan" not in info and m._inputs_nan is not None:
            # (the NaN trace's look at the offending batch, when there is one, is the better answer)
            emit("inputs_have_nan", bool(m._inputs_nan),
                 "NaN/Inf in sampled input batches" if m._inputs_nan else "sampled input batches are finite")
        if m._input_moments is not None:
            s, q, n = m._input_moments
            means, stds = D.feature_stats(s.tolist(), q.tolist(), n)
            sc, sp = D.input_scale(means, stds), D.input_scale_spread(stds, params)
            emit("input_scale", sc, f"largest |feature mean| or std {sc:.4g} over {len(means)} features"
                 if sc is not None else "")
            p_lo, p_hi = params["input_stats.spread_percentiles"]
            emit("input_scale_spread", sp,
                 f"feature stds span {sp:.3g}x ({p_hi * 100:.0f}th/{p_lo * 100:.0f}th percentile)"
                 if sp is not None else "")
        self._batch_mean_spread(m, emit, params)

    @staticmethod
    def _batch_mean_spread(m, emit, params):
        """How much more the sampled training batches' means differ than random batches' would:
        not read where the training DataLoader's sampler draws at random (its batches are random
        draws by construction; a spread there would be the inputs themselves changing)."""
        acc = m._batch_means
        loader = m._loaders.get("train")
        if acc is None or (loader is not None and D.loader_shuffles(loader)):
            return
        out = m._last_out_shape
        if not out or out[0] != m._batch_size:
            # the model answers for fewer (or more) rows than it was fed: its input rows are parts
            # of an example (an image's region proposals, a graph's nodes), not examples drawn one
            # by one, and rows of one example are alike by nature
            return
        s, q, v, k = acc
        spread = D.batch_mean_spread(s.tolist(), q.tolist(), v.tolist(), k,
                                     int(params["input_stats.batch_mean_min_batches"]))
        emit("batch_mean_spread", spread,
             f"the means of {k} sampled training batches vary {spread:.3g}x as much as batches drawn at random "
             f"from the same examples would (1 = random batches)" if spread is not None else "")

