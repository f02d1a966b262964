"""A detector's evaluation summary printed as a table: the YOLO family's validation header and its ``all`` row.

YOLOv5, YOLOv7 and Ultralytics YOLOv8/v11 print, after each epoch's training bar, a header naming the
classes' column, the counts of images and boxes, then the scores (precision, recall, mAP at one IoU and
over a range), and a row ``all`` over every class::

                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%|...
                   all        128        929          0          0          0          0

The numbers after ``all`` are the counts first (as many as the header names between ``Class`` and the
first score, ``P`` or ``Box(P``), then the scores. :func:`header_counts` reads how many counts a header
names; :func:`row_scores` the scores of an ``all`` row under it. The console reader keeps the best score of
every such row (``ConsoleLog.detection_best``): a detector whose every precision, recall and mAP stays 0
finds nothing, whatever its losses do. Torch-free.
"""

from __future__ import annotations

import re

#: the first score column of a detection header: ``P`` alone, or the box's (``Box(P``, a mask's ``Mask(P``)
_FIRST_SCORE = re.compile(r"^(?:[A-Za-z]+\()?P$")
#: the fewest words of a header: ``Class``, one count, ``P``, an ``mAP`` (structure, not a cut)
_HEADER_MIN_WORDS = 4
#: the fewest scores an ``all`` row holds after its counts (precision and recall at least)
_ROW_MIN_SCORES = 2
#: a number of a summary row (a count, a score; ``5.57e+04`` as YOLOv5 prints a large count)
_NUMBER = re.compile(r"^(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")


def header_counts(line: str) -> int | None:
    """How many count columns a detection header names between ``Class`` and its first score, when
    ``line`` is one (``Class Images Instances Box(P R mAP50 mAP50-95)``: 2); None for any other line."""
    words = line.split(":", 1)[0].split()
    if len(words) < _HEADER_MIN_WORDS or words[0] != "Class" or not any(w.startswith("mAP") for w in words):
        return None
    first = next((i for i, w in enumerate(words) if _FIRST_SCORE.match(w)), None)
    return first - 1 if first is not None and first > 1 else None


def row_scores(line: str, counts: int) -> list | None:
    """The scores of the ``all`` row of a detection summary (the numbers after its ``counts`` counts),
    None when ``line`` is no such row or holds no two scores."""
    words = line.split()
    if not words or words[0] != "all" or not all(_NUMBER.match(w) for w in words[1:]):
        return None
    scores = [float(w) for w in words[1 + counts:]]
    return scores if len(scores) >= _ROW_MIN_SCORES else None
