"""The probe protocol: one live evidence source (``probe:<id>`` in ``kb/sources.yaml``) per file.

A probe is a small class in ``probes/live/sources/<id>.py`` (in the spirit of Cockpit's quantities)
that declares, as class attributes:

* ``source``: its evidence-source id, ``probe:<id>`` (``kb/sources.yaml`` names the module);
* ``facts``: the facts that source may produce (the ``facts`` of its ``kb/sources.yaml`` entry; a
  test checks that the two agree and that a live run emits nothing else);
* ``needs``: what it reads, a subset of :data:`NEEDS` (``model``, ``optimizer``, ``batch``,
  ``loader``, ``loss``);
* ``cost``: ``"cheap"`` (always on, within the monitor's step budget) or ``"costly"`` (only when
  armed by a symptom or by hand; runs on copies);
* ``schedule``: when it looks, in words (the cheap schedules are :data:`SCHEDULE`);
* ``parameters``: the ids of the ``kb/parameters`` values it decides with.

and one method, :meth:`Probe.findings` ``(monitor, emit, params)``: read the observations the monitor
recorded (plain data: series, counters, the bound model/optimizer/loaders) and call
``emit(fact, value, detail, **extra)`` for each fact (a ``None`` value is dropped). It must not
raise for missing data, and never touches the user's tensors' ``.grad``, parameters or RNG.

Why the monitor records and the probes read: one sampled gradient-norm reduction feeds three
sources (grad_flow, grad_norms, activations), one look at a batch feeds input_stats and labels;
recording once in the monitor's hooks keeps the always-on cost at one pass per step (the overhead
budget is 3 % of a step). The monitor installs the hooks, dispatches each observation, arms the
costly probes, and gathers the probes' findings in :attr:`Monitor.PROBES` order.

Costly probes (:class:`CostlyProbe`: overfit_batch, lr_decay, experiment) have their own state and a small
arming interface the monitor drives; see :class:`CostlyProbe`. A new costly experiment plugs in
by subclassing it and being listed in :attr:`Monitor.COSTLY`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar
from collections.abc import Callable

#: What a probe may need from the run.
NEEDS = frozenset({"model", "optimizer", "batch", "loader", "loss"})


@dataclass(frozen=True)
class Schedule:
    """Run at step/count ``i`` when ``i < first`` or ``i % every == 0`` (Cockpit's linear schedule)."""

    first: int
    every: int

    def __call__(self, i: int) -> bool:
        return i < self.first or (self.every > 0 and i % self.every == 0)


#: The cheap schedule of each sampled quantity (see the monitor's module docstring).
SCHEDULE = {
    "grads": Schedule(10, 50),
    "grad_clear": Schedule(6, 100),
    "update": Schedule(4, 100),
    "outputs": Schedule(10, 100),
    "accuracy": Schedule(10, 20),
    "squash": Schedule(10, 500),
    "inputs": Schedule(10, 100),
    "labels": Schedule(30, 100),
    "amp": Schedule(10, 50),
    "loss_weights": Schedule(10, 50),
    "gpu_util": Schedule(1, 50),     # (off the CPU only)
}
#: While armed.
ARMED_SCHEDULE = {"grads": Schedule(0, 1), "update": Schedule(0, 5), "outputs": Schedule(0, 1),
                  "inputs": Schedule(0, 1), "labels": Schedule(0, 1)}

Emit = Callable[..., None]


class Probe:
    """One ``probe:*`` evidence source. Subclasses set the class attributes and :meth:`findings`."""

    source: ClassVar[str] = ""
    facts: ClassVar[tuple[str, ...]] = ()
    needs: ClassVar[frozenset] = frozenset()
    cost: ClassVar[str] = "cheap"
    schedule: ClassVar[str] = ""
    parameters: ClassVar[tuple[str, ...]] = ()

    @property
    def id(self) -> str:
        """The source id without its ``probe:`` prefix."""
        return self.source.split(":", 1)[1]

    def findings(self, m, emit: Emit, params) -> None:
        """Emit this source's facts from the monitor ``m``'s records. ``params``: the knowledge
        base's parameter values (``kb/parameters``, a pack's overrides applied)."""
        raise NotImplementedError


class CostlyProbe(Probe):
    """A probe that runs an experiment on copies of the model and optimizer, at most a few times.

    The monitor drives it through this interface (all calls on the training thread, between the
    user's steps, never while :attr:`Monitor.busy`):

    * :meth:`setup` ``(m)``: once, when the monitor is built (its ``params`` and options are set);
    * :meth:`arm` ``(m, reason)``: a symptom (or ``Monitor.arm``) switched the costly probes on;
      the probe decides whether this reason calls for it and becomes :attr:`pending`.
    * :meth:`on_train_value` ``(m, n)``: the n-th training loss value was recorded (at each flush;
      cheap: a probe that arms itself on the curve's shape paces its own looks);
    * :meth:`on_curve` ``(m, analysis)``: the training-loss curve was read (when findings are
      gathered), a :class:`~traindx.probes.readers.curves.CurveAnalysis` or None;
    * :meth:`on_train_loss` ``(m, outputs, targets)``: every training loss while :attr:`collecting`
      (to keep the batches it will replay: references, never copies).
    * :attr:`ready`: run it at the next sampled optimizer step; the monitor then calls
      :meth:`run` inside its own-time accounting with ``m.busy`` set (so the copies' steps and
      losses are not taken for the user's).
    * :meth:`finish` ``(m, final)``: at :meth:`Monitor.findings`; ``final`` when the run is over.
    * :attr:`pending`: started and not finished (a runner does not stop the run then).
    """

    cost = "costly"
    #: run at the next sampled step (an attribute or a property)
    ready: bool = False
    #: wants each training loss's batch (:meth:`on_train_loss`)
    collecting: bool = False

    @property
    def pending(self) -> bool:
        return False

    def setup(self, m) -> None:
        """Called once by the monitor's constructor, after its ``params`` and options are set."""

    def on_train_value(self, m, n: int) -> None:
        """Called for each finite training loss value recorded (the n-th)."""

    def on_curve(self, m, analysis) -> None:
        """Called with the training-loss curve's analysis when findings are gathered."""

    def arm(self, m, reason: str) -> None:
        """Called by :meth:`Monitor.arm`."""

    def on_train_loss(self, m, outputs, targets) -> None:
        """Called for each training loss while :attr:`collecting`."""

    def run(self, m) -> None:
        """Run the experiment now (the monitor has set ``busy`` and times it as its own)."""

    def finish(self, m, final: bool) -> None:
        """Called when findings are gathered; run what is still pending if it must."""

    def summary(self):
        """Plain data for :meth:`Monitor.summary`."""
        return None
