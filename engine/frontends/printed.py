"""``log:printed``: what a script run under ``--script`` printed, read like a console log for the
facts only its printed figures hold.

The live probes measure the model, the optimizer and the batches; what the script *says* about
them is its own. A validation figure that is the very number the training figure beside it is, at
every evaluation (``val_mirrors_train``), shows that the script's "validation" pass scores the
training data: no hook sees which loader a print statement names. A validation loss that stays
within a small multiple of the training loss printed with it (``val_tracks_train``) compares two
figures of one print statement's scale, where a live validation pass may go unseen (one run in
train mode with grad enabled and never back-propagated). Only the facts this source
declares in ``kb/sources.yaml`` are taken, and only where nothing else gave them: the live run and
the code reader speak first about everything they measure.
"""

from __future__ import annotations

from traindx.engine.errors import InputError

#: The evidence source (``kb/sources.yaml``) this module implements, and its facts.
SOURCE_ID = "log:printed"
FACTS = ("val_mirrors_train", "val_tracks_train")


def printed_findings(session, text: str, name: str) -> list:
    """The findings of ``text`` (a script's stdout) for this source's facts that ``session`` does
    not know yet; none when the text reads as no log."""
    if not text.strip():
        return []
    from . import gather
    kb = session.kb
    declared = set(kb.sources.get(SOURCE_ID, {}).get("facts", FACTS))
    try:
        read = gather.read_pasted(text, name=name, num_classes=session.value("num_classes"), params=kb.params())
    except InputError:
        return []
    return [f for f in read.findings if f.fact in declared and session.value(f.fact) is None]
