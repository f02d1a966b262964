"""One file per live evidence source (``probe:<id>`` in ``kb/sources.yaml``); see
:mod:`traindx.probes.live.probe` for the protocol. :data:`PROBES` is the order in which the
monitor gathers their findings; :data:`COSTLY` are the experiments it arms."""

from __future__ import annotations

from traindx.probes.live.sources.activations import Activations
from traindx.probes.live.sources.amp import Amp
from traindx.probes.live.sources.clipping import Clipping
from traindx.probes.live.sources.data_timing import DataTiming
from traindx.probes.live.sources.dataset_size import DatasetSize
from traindx.probes.live.sources.experiment import Experiment
from traindx.probes.live.sources.grad_accumulation import GradAccumulation
from traindx.probes.live.sources.grad_flow import GradFlow
from traindx.probes.live.sources.grad_norms import GradNorms
from traindx.probes.live.sources.init import Init
from traindx.probes.live.sources.input_stats import InputStats
from traindx.probes.live.sources.labels import Labels
from traindx.probes.live.sources.leakage import Leakage
from traindx.probes.live.sources.loss_vs_chance import LossVsChance
from traindx.probes.live.sources.loss_weights import LossWeights
from traindx.probes.live.sources.lr_decay import LrDecay
from traindx.probes.live.sources.lr_trace import LrTrace
from traindx.probes.live.sources.mode import Mode
from traindx.probes.live.sources.nan_trace import NanTrace
from traindx.probes.live.sources.optimizer_coverage import OptimizerCoverage
from traindx.probes.live.sources.output_squash import OutputSquash
from traindx.probes.live.sources.overfit_batch import OverfitBatch
from traindx.probes.live.sources.regularization import Regularization
from traindx.probes.live.sources.train_val_gap import TrainValGap
from traindx.probes.live.sources.update_ratio import UpdateRatio

#: Cheap probes, in the order their findings are gathered.
PROBES = (GradFlow, GradNorms, GradAccumulation, LossVsChance, NanTrace, DataTiming, Mode, TrainValGap,
          DatasetSize, InputStats, Labels, Leakage, Regularization, OptimizerCoverage, Init, OutputSquash,
          UpdateRatio, LrTrace, Clipping, Activations, Amp, LossWeights)
#: Costly probes (experiments on copies), gathered after the cheap ones.
COSTLY = (OverfitBatch, LrDecay, Experiment)

__all__ = ["PROBES", "COSTLY"] + [c.__name__ for c in PROBES + COSTLY]
