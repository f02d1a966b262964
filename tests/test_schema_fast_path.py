"""Knowledge-base files are shape-checked by a compiled validator first (``jsonschema_rs``), and by
the Python validator only when that one refuses or cannot check a file. A pack author must see the
same outcome either way: a file accepted by one is accepted by the other, and a refused file gets
the same one-line message naming the same line. Checked on every core file and on a few hundred
deterministic mutations of them (a value of the wrong type, a missing or unknown field, a number
too wide for 64 bits, a date)."""

from __future__ import annotations

import copy
import datetime
import os
import random

import pytest

from traindx.engine import bounded
from traindx.engine import loader
from traindx.engine.errors import KBError
from traindx.engine.yamlio import load_yaml

pytest.importorskip("jsonschema_rs")

ODD = [None, True, 0, -1, 2.5, 2 ** 70, "", "x", [], {}, [1], {"a": 1}, datetime.date(2021, 1, 1),
       float("nan"), "fact", {"fact": "x"}, {"all": []}]


def _core_docs():
    out = []
    for base, _dirs, names in os.walk(loader.core_dir()):
        for name in sorted(names):
            if name.endswith(".yaml"):
                path = os.path.join(base, name)
                with open(path, encoding="utf-8") as fh:
                    data, marks = load_yaml(fh.read(), path, bounded.limits())
                out.append((path, data, marks))
    return sorted(out, key=lambda t: t[0])


def _schema(data) -> str:
    return "kb-pack" if data["kind"] == "pack" else f"kb-{data['kind']}"


def _outcome(data, marks, path, monkeypatch, validator):
    monkeypatch.setenv(loader.VALIDATOR_ENV, validator)
    try:
        loader.validate_shape(data, marks, _schema(data), path)
        return "accepted"
    except KBError as exc:
        return str(exc)


def _containers(node, trail=()):
    """Every (container, key) inside ``node``, with its path."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield node, k, trail + (k,)
            yield from _containers(v, trail + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield node, i, trail + (i,)
            yield from _containers(v, trail + (i,))


def _mutate(rng, data):
    data = copy.deepcopy(data)
    spots = [s for s in _containers(data) if s[2][0] != "kind"]
    if not spots:
        return data
    holder, key, _ = rng.choice(spots)
    move = rng.randrange(3)
    if move == 0:
        holder[key] = copy.deepcopy(rng.choice(ODD))
    elif move == 1 and isinstance(holder, dict):
        del holder[key]
    elif isinstance(holder, dict):
        holder["unheard_of_field"] = rng.choice(ODD)
    else:
        holder.append(copy.deepcopy(rng.choice(ODD)))
    return data


@pytest.fixture(scope="module")
def docs():
    return _core_docs()


def test_every_core_file_passes_the_compiled_validator(docs):
    refused = [path for path, data, _ in docs if not loader._fast_valid(data, _schema(data))]
    assert not refused, refused


def test_a_mutated_file_gets_the_same_outcome_with_either_validator(docs, monkeypatch):
    rng = random.Random(7)
    small = [d for d in docs if os.path.getsize(d[0]) < 40_000]
    outcomes = {"accepted": 0, "refused": 0}
    for _ in range(300):
        path, data, marks = rng.choice(small)
        bad = _mutate(rng, data)
        fast = _outcome(bad, marks, path, monkeypatch, "compiled")
        slow = _outcome(bad, marks, path, monkeypatch, "python")
        assert fast == slow, (path, fast, slow)
        outcomes["accepted" if fast == "accepted" else "refused"] += 1
    # the mutations exercise both ways out, so an always-accepting fast path would fail above
    assert outcomes["refused"] > 100 and outcomes["accepted"] > 10, outcomes


def test_a_refused_file_names_its_line(tmp_path):
    pack = tmp_path / "p.yaml"
    pack.write_text("kind: facts\nfacts:\n  - id: ok_fact\n    type: number\n  - id: 7\n    type: number\n",
                    encoding="utf-8")
    b = loader._Builder()
    with pytest.raises(KBError) as info:
        b.add_file(str(pack), "pack")
    msg = str(info.value)
    assert msg.startswith(f"{pack}:5:") and "\n" not in msg, msg
