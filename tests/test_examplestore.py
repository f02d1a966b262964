"""The complaint classifier kept on disk (engine/examplestore.py): a later process reads what the first
one built, answers exactly as the built classifier does, and a missing, damaged or foreign store, an
unwritable folder or a cache switched off never changes an answer or raises."""
import os
import sqlite3
import subprocess
import sys

import pytest

from traindx.engine import examplestore
from traindx.engine.loader import load_kb
from traindx.engine.understand import _Examples, _StoredExamples, _stored_or_built
from traindx.engine.parameters import resolve

TEXTS = [
    "my loss is stuck at 2.3, 10 classes, Adam lr=1e-3",
    "validation accuracy is 55% while train accuracy is 99%, I only have 800 training images",
    "After I switched to bf16 the loss becomes inf at step 3000",
    "loss goes up and down wildly, batch size 4, SGD lr 0.1",
    "training is so slow, GPU utilisation 20%, dataloader num_workers=0",
    "验证集损失一直上升，训练集损失下降",
    "лосс не падает уже 10 эпох",
    "학습이 너무 느려요",
    "is this normal? loss 0.35 after 20 epochs and val 0.37",
    "2.3",
    "",
    "zzqx vvbn",
]


@pytest.fixture(scope="module")
def lang():
    return load_kb([], entry_point_packs=False).language


def answers(model):
    out = []
    for t in TEXTS:
        sims = model.similarities(t)
        out.append((sims, model.resemblance(t), model.classify(t),
                    {s: model.telling(t, s) for s in sorted(sims)}))
    return out


def disk_key(lang, training):
    p = resolve(lang.params)
    return examplestore.key(training, lang.stop_words, p["language.example_sharpness"],
                            p["language.example_char_weight"])


@pytest.fixture(scope="module")
def small(lang):
    """Every tenth example: a classifier a tenth as costly to build, for the tests of what goes wrong."""
    training = list(lang.training[::10])
    built = _Examples(training, lang.params, lang.stop_words)
    return training, built, answers(built)


def test_a_stored_classifier_answers_exactly_as_the_built_one(lang, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINDX_CACHE_DIR", str(tmp_path))
    built = _Examples(lang.training, lang.params, lang.stop_words)
    k = disk_key(lang, lang.training)
    path = examplestore.save(built, k)
    assert path and os.path.isfile(path)
    stored = examplestore.open_store(k, _StoredExamples, lang.params, lang.stop_words, lambda: None)
    assert isinstance(stored, _StoredExamples)
    assert answers(stored) == answers(built)          # the same floats, not merely close ones
    assert stored.docs == built.docs


def test_a_second_process_reads_the_store_and_prints_the_same_report(tmp_path):
    env = dict(os.environ, TRAINDX_CACHE_DIR=str(tmp_path / "cache"))
    cmd = [sys.executable, "-m", "traindx.engine", "diagnose", "--complaint",
           "my loss is stuck at 2.303, 10 classes, Adam lr=1e-3", "--non-interactive"]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    stores = os.listdir(tmp_path / "cache")
    assert first.returncode == 0 and [s for s in stores if s.endswith(".sqlite")], first.stderr
    probe = ("from traindx.engine.loader import load_kb; import sys; "
             "m = load_kb(entry_point_packs=False).language.model; "
             "print(type(m).__name__, 'torch' in sys.modules)")
    kind = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=600)
    assert kind.stdout.split() == ["_StoredExamples", "False"], kind.stderr
    second = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert second.returncode == 0 and second.stdout == first.stdout


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_store_is_ignored_and_rebuilt(lang, small, tmp_path, monkeypatch, damage):
    training, built, want = small
    monkeypatch.setenv("TRAINDX_CACHE_DIR", str(tmp_path))
    k = disk_key(lang, training)
    path = examplestore.save(built, k)
    data = open(path, "rb").read()
    with open(path, "wb") as fh:
        fh.write({"garbage": b"\x00not a database" * 999, "truncated": data[:len(data) // 3],
                  "empty": b""}[damage])
    model = _stored_or_built(training, lang.params, lang.stop_words, k)
    assert answers(model) == want
    assert examplestore.open_store(k, _StoredExamples, lang.params, lang.stop_words, lambda: None) is not None


@pytest.mark.parametrize("post, told", [("'{not json'", "'[1, 2'"), ("post", "'[1, 2]'")])
def test_a_row_damaged_after_opening_falls_back_to_building(lang, small, tmp_path, monkeypatch, post, told):
    training, built, want = small
    monkeypatch.setenv("TRAINDX_CACHE_DIR", str(tmp_path))
    k = disk_key(lang, training)
    path = examplestore.save(built, k)
    con = sqlite3.connect(path)
    con.execute(f"UPDATE feat SET post = {post} WHERE f LIKE 'w:%'")         # no JSON; JSON of another shape
    con.execute(f"UPDATE feat SET told = {told} WHERE told IS NOT NULL")
    con.commit()
    con.close()
    stored = examplestore.open_store(k, _StoredExamples, lang.params, lang.stop_words,
                                     lambda: _Examples(training, lang.params, lang.stop_words))
    assert stored is not None
    assert answers(stored) == want


def test_a_store_under_another_key_is_not_read(lang, small, tmp_path, monkeypatch):
    # a store copied or renamed under another classifier's name says whose it is, and is passed over
    monkeypatch.setenv("TRAINDX_CACHE_DIR", str(tmp_path))
    path = examplestore.save(small[1], "a" * 64)
    os.replace(path, examplestore._path(str(tmp_path), "b" * 64))
    assert examplestore.open_store("b" * 64, _StoredExamples, lang.params, lang.stop_words, lambda: None) is None


def test_the_key_follows_the_examples_the_settings_and_the_stop_words(lang):
    base = examplestore.key(lang.training, lang.stop_words, 4.0, 0.5)
    assert base == examplestore.key(list(lang.training), frozenset(lang.stop_words), 4.0, 0.5)
    edited = [(lang.training[0][0], lang.training[0][1] + " again")] + list(lang.training[1:])
    assert len({base, examplestore.key(edited, lang.stop_words, 4.0, 0.5),
                examplestore.key(lang.training, lang.stop_words, 4.5, 0.5),
                examplestore.key(lang.training, lang.stop_words, 4.0, 0.6),
                examplestore.key(lang.training, lang.stop_words | {"zzz"}, 4.0, 0.5)}) == 5


def test_switched_off_or_unwritable_the_cache_writes_nothing_and_still_answers(lang, small, tmp_path, monkeypatch):
    training, _built, want = small
    k = disk_key(lang, training)
    monkeypatch.setenv("TRAINDX_CACHE_DIR", "off")
    assert examplestore.folder() is None
    model = _stored_or_built(training, lang.params, lang.stop_words, k)
    assert isinstance(model, _Examples) and not isinstance(model, _StoredExamples)
    assert answers(model) == want
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TRAINDX_CACHE_DIR", str(blocker / "cache"))
    assert answers(_stored_or_built(training, lang.params, lang.stop_words, k)) == want
    assert blocker.read_text() == "not a folder"


def test_the_folder_keeps_only_the_newest_stores(small, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINDX_CACHE_DIR", str(tmp_path))
    for i in range(examplestore.KEEP + 2):
        path = examplestore.save(small[1], str(i) * 64)
        os.utime(path, (1000 + i, 1000 + i))
    left = sorted(f for f in os.listdir(tmp_path) if f.endswith(".sqlite"))
    assert len(left) == examplestore.KEEP
    assert os.path.basename(examplestore._path(str(tmp_path), str(examplestore.KEEP + 1) * 64)) == left[-1]
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".tmp-")]
