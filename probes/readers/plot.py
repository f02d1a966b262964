"""Draw a log's curves with what the analysis found: ``plot_curves(analysis_or_logdata, out_png)``.

One panel per kind of curve the log has (loss, accuracy, learning rate, gradient norm, time per
step), sharing the step axis. The loss panel shows the raw training loss (with the min-max band of
each bucket for long logs), its running median, the validation loss, the detected symptom region
shaded and labelled, the first NaN/Inf as a red line, every remembered NaN/Inf step as a red tick
on the top edge, spikes as red triangles and restarts as grey dotted lines.

matplotlib is imported only here, through its object API (no pyplot, no global backend change),
so plotting never disturbs a user's interactive session. ``pip install traindx[plot]``.
"""

from __future__ import annotations

import math
import os

from traindx.engine.errors import InputError

#: Drawing choices, not knowledge (the plot shows the curves; no fact is read from it): a log y axis
#: when a positive series spans more than _LOG_SCALE_RATIO, symlog when a signed one spans more
#: than _SYMLOG_SPAN, point markers up to _MARKERS_UP_TO points.
_LOG_SCALE_RATIO = 30
_SYMLOG_SPAN = 1e3
_MARKERS_UP_TO = 60

_TREND_COLOURS = {"flat": "#f4a261", "plateaued": "#e9c46a", "oscillating": "#e76f51",
                  "diverging": "#d62828", "nonfinite": "#d62828"}
_TRAIN = "#1d3557"
_VAL = "#2a9d8f"


def _y_scale(ax, values: list) -> None:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    if not vals:
        return
    lo, hi = min(vals), max(vals)
    if lo > 0 and hi / lo > _LOG_SCALE_RATIO:
        ax.set_yscale("log")
    elif lo < 0 and max(abs(lo), abs(hi)) > _SYMLOG_SPAN and (hi - lo) > _SYMLOG_SPAN:
        ax.set_yscale("symlog", linthresh=max(1.0, min(abs(v) for v in vals if v) or 1.0))


def plot_curves(analysis_or_logdata, out_png: str | os.PathLike, num_classes: int | None = None,
                dpi: int = 110) -> str:
    """Write a PNG of the log's curves and findings; returns the path written.

    Accepts a :class:`~traindx.probes.readers.curves.CurveAnalysis` or a
    :class:`~traindx.probes.readers.logs.LogData` (analysed here, with ``num_classes`` if given).
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plotting needs the matplotlib package",
                         hint="pip install traindx[plot]") from None
    from traindx.probes.readers.curves import CurveAnalysis, analyze

    an = analysis_or_logdata
    if not isinstance(an, CurveAnalysis):
        _, an = analyze(an, num_classes=num_classes)
    log = an.log
    unit = {"step": "step", "epoch": "epoch"}.get(an.x_label, "row")
    panels = _panels(an.curves)
    heights = [2.0 if p == "loss" else 1.0 for p in panels]
    fig = Figure(figsize=(9.5, 1.2 + 1.9 * sum(heights)), dpi=dpi)
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False,
                        gridspec_kw={"height_ratios": heights})[:, 0]

    trend = an.loss_trend or "no training loss"
    detail = an.finding("loss_trend").detail if an.finding("loss_trend") else ""
    fig.suptitle(f"{an.name}: training loss {trend}", fontsize=12, fontweight="bold",
                 x=0.01, ha="left")
    if detail:
        fig.text(0.01, 1 - 0.42 / fig.get_figheight(), detail, fontsize=9, ha="left",
                 va="top", color="#333333")

    for ax, panel in zip(axes, panels):
        ax.grid(True, alpha=0.25)
        if panel == "loss":
            _draw_loss(ax, an, log)
        elif panel == "accuracy":
            _draw_accuracy(ax, an.curves)
        else:
            _draw_other(ax, an.curves[panel], panel, unit)
        if panel != "loss":
            _mark_region_and_restarts(ax, an)
    axes[-1].set_xlabel(unit if unit != "row" else "row (no step column)")
    notes = [n for n in an.notes if "restart" not in n][:2]
    if notes:
        fig.text(0.01, 0.005, "; ".join(notes), fontsize=7.5, color="#555555", ha="left",
                 va="bottom")
    fig.tight_layout(rect=(0, 0.02, 1, 1 - 0.62 / fig.get_figheight()))
    out = os.fspath(out_png)
    fig.savefig(out)
    return out


def _panels(curves: dict) -> list[str]:
    """The panels drawn, top to bottom: loss, accuracy, then LR, grad norm and step time if logged."""
    panels = []
    if "loss" in curves or "val_loss" in curves:
        panels.append("loss")
    if "accuracy" in curves or "val_accuracy" in curves:
        panels.append("accuracy")
    for role in ("lr", "grad_norm", "step_time"):
        if role in curves and curves[role].x:
            panels.append(role)
    if not panels:
        panels.append("loss")
    return panels


def _draw_accuracy(ax, curves: dict) -> None:
    for role, colour, label in (("accuracy", _TRAIN, "train accuracy"),
                                ("val_accuracy", _VAL, "val accuracy")):
        c = curves.get(role)
        if c and c.x:
            ax.plot(c.x, c.y, color=colour, lw=1.3, label=label,
                    marker="o" if len(c.x) <= _MARKERS_UP_TO else None, ms=3)
    ax.set_ylabel("accuracy")
    ax.set_ylim(-0.02, 1.02)
    ax.legend(loc="best", fontsize=8, frameon=False)


def _draw_other(ax, c, panel: str, unit: str) -> None:
    """The LR, grad-norm or step-time panel."""
    ax.plot(c.x, c.y, color="#6c757d", lw=1.2, marker="o" if len(c.x) <= _MARKERS_UP_TO else None,
            ms=3)
    label = {"lr": "learning rate", "grad_norm": "grad norm",
             "step_time": f"s / {unit}"}[panel]
    ax.set_ylabel(label)
    _y_scale(ax, c.y)


def _mark_region_and_restarts(ax, an) -> None:
    """Shade the loss trend's region and draw restarts (the loss panel draws its own)."""
    if an.region is not None:
        ax.axvspan(an.region.start, an.region.end, color=_TREND_COLOURS.get(
            an.region.label, "#e9c46a"), alpha=0.12, lw=0)
    for ev in an.events:
        if ev.kind == "restart":
            ax.axvline(ev.start, color="#888888", ls=":", lw=1)


def _draw_loss(ax, an, log) -> None:
    curves = an.curves
    all_y: list = []
    tr = curves.get("loss")
    if tr and tr.x:
        bucketed = any(lo != hi for lo, hi in zip(tr.lo, tr.hi))
        if bucketed:
            ax.fill_between(tr.x, tr.lo, tr.hi, color=_TRAIN, alpha=0.12, lw=0,
                            label="train loss (min-max per bucket)")
        few = len(tr.x) <= _MARKERS_UP_TO
        ax.plot(tr.x, tr.y, color=_TRAIN, lw=1.0 if few else 0.7, alpha=1.0 if few else 0.45,
                marker="o" if few else None, ms=3, label="train loss")
        if tr.smooth and not few:
            ax.plot(tr.x, tr.smooth, color=_TRAIN, lw=2.0, label="train loss (running median)")
        all_y += tr.y + [h for h in tr.hi if h is not None]
    va = curves.get("val_loss")
    if va and va.x:
        ax.plot(va.x, va.y, color=_VAL, lw=1.3, marker="s" if len(va.x) <= _MARKERS_UP_TO else None, ms=3,
                label="val loss")
        all_y += va.y
    _y_scale(ax, all_y)
    ax.set_ylabel("loss")

    if an.region is not None:
        colour = _TREND_COLOURS.get(an.region.label, "#e9c46a")
        ax.axvspan(an.region.start, an.region.end, color=colour, alpha=0.18, lw=0,
                   label=f"{an.region.label} region")
    s = log.get("loss") if log is not None else None
    if s is not None and s.nonfinite_steps:
        for x in s.nonfinite_steps:
            ax.plot([x], [1.0], marker="|", color="#d62828", ms=9, mew=1.5,
                    transform=ax.get_xaxis_transform(), clip_on=False)
    restart_label = "restart (step went back)"
    for ev in an.events:
        if ev.kind == "restart":
            ax.axvline(ev.start, color="#888888", ls=":", lw=1, label=restart_label)
            restart_label = None
        elif ev.kind == "nan":
            ax.axvline(ev.start, color="#d62828", lw=1.6, ls="--", label="first NaN/Inf")
            ax.annotate(ev.label, xy=(ev.start, 0.96), xycoords=("data", "axes fraction"),
                        xytext=(4, 0), textcoords="offset points", color="#d62828", fontsize=8,
                        va="top")
        elif ev.kind == "spike":
            peak = _peak(tr, ev.start, ev.end)
            if peak is not None:
                ax.plot([peak[0]], [peak[1]], marker="v", color="#d62828", ms=8, ls="none")
                ax.annotate(ev.label, xy=peak, xytext=(5, -2), textcoords="offset points",
                            fontsize=7.5, color="#d62828", va="top")
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="best", fontsize=8, frameon=False)


def _peak(curve, a, b):
    if curve is None:
        return None
    best = None
    for x, h in zip(curve.x, curve.hi):
        if a <= x <= b and h is not None and (best is None or h > best[1]):
            best = (x, h)
    return best


__all__ = ["plot_curves"]
