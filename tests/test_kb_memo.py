"""A process that loads the knowledge base again gets the first load's result, never a stale or shared one."""
import os

import pytest

from traindx.engine import kbmemo
from traindx.engine.errors import KBError
from traindx.engine.loader import load_kb, pack_files


def _pack(tmp_path, value) -> str:
    pack = tmp_path / "pack"
    pack.mkdir(exist_ok=True)
    (pack / "p.yaml").write_text(f"kind: parameters\noverrides:\n  code.default_lr.sgd: {value}\n")
    return str(pack)


def test_a_second_load_is_a_copy_the_caller_may_change(tmp_path):
    pack = _pack(tmp_path, 0.5)
    first = load_kb([pack], entry_point_packs=False)
    first.rules.clear()
    first.parameters["code.default_lr.sgd"]["value"] = 9.0
    second = load_kb([pack], entry_point_packs=False)
    assert second is not first
    assert second.rules, "a change to one caller's knowledge base leaked into the next load"
    assert second.param("code.default_lr.sgd") == 0.5


def test_an_edited_pack_is_read_afresh_even_with_the_same_size_and_time(tmp_path):
    pack = _pack(tmp_path, 0.5)
    path = os.path.join(pack, "p.yaml")
    assert load_kb([pack], entry_point_packs=False).param("code.default_lr.sgd") == 0.5
    st = os.stat(path)
    _pack(tmp_path, 0.7)                       # the same number of bytes
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size
    assert load_kb([pack], entry_point_packs=False).param("code.default_lr.sgd") == 0.7


def test_a_broken_pack_fails_on_every_load(tmp_path):
    pack = tmp_path / "bad"
    pack.mkdir()
    (pack / "p.yaml").write_text("kind: parameters\noverrides:\n  no.such.parameter: 1\n")
    for _ in range(2):
        with pytest.raises(KBError):
            load_kb([str(pack)], entry_point_packs=False)


def test_the_key_names_every_file_a_load_reads(tmp_path):
    pack = _pack(tmp_path, 0.5)
    before = kbmemo.key([pack], pack_files, core=True)
    os.mkdir(os.path.join(pack, "rules"))
    assert kbmemo.key([pack], pack_files, core=True) == before          # an empty folder reads nothing
    with open(os.path.join(pack, "rules", "r.yaml"), "w") as f:
        f.write("kind: rules\nrules: []\n")
    assert kbmemo.key([pack], pack_files, core=True) != before
    assert kbmemo.key([pack], pack_files, core=False) != kbmemo.key([pack], pack_files, core=True)


def test_a_pipe_in_a_pack_is_refused_by_the_loader_not_waited_on_by_the_memo(tmp_path, monkeypatch):
    import time

    from traindx.engine import bounded
    monkeypatch.setattr(bounded, "limits", lambda params=None: bounded.Limits(pipe_wait_seconds=1))
    pack = tmp_path / "pack"
    (pack / "rules").mkdir(parents=True)
    os.mkfifo(pack / "rules" / "r.yaml")
    assert kbmemo.key([str(pack)], pack_files, core=True) is None          # not hashed: a pipe is never opened to read
    load_kb([], entry_point_packs=False)   # the core's files, parsed outside the clock (a busy machine took 32 s)
    start = time.monotonic()
    with pytest.raises(KBError, match="pipe") as err:
        load_kb([str(pack)], entry_point_packs=False)
    assert time.monotonic() - start < 30
    assert str(pack / "rules" / "r.yaml") in str(err.value)


def _rule_pack(folder, rule_id: str) -> str:
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "r.yaml"), "w", encoding="utf-8") as f:
        f.write("kind: rules\nrules:\n"
                f"  - id: {rule_id}\n    description: a pack's own rule\n"
                "    when: {fact: loss_trend, eq: diverging}\n"
                "    then: {evidence: [{cause: lr_too_high, lr: 2.0}]}\n"
                "    cases: [{given: {loss_trend: diverging}, fires: true}]\n")
    return str(folder)


def test_packs_loaded_one_after_another_each_see_the_core_and_only_themselves(tmp_path):
    # the core's parsed files are kept and copied once a process parses them twice: a pack's entities
    # must not leak into the next pack's load, nor a caller's change to one load into another
    a = load_kb([_rule_pack(tmp_path / "a", "pack-a-rule")], entry_point_packs=False)
    a.rules.pop("derive-loss-at-chance", None)
    b = load_kb([_rule_pack(tmp_path / "b", "pack-b-rule")], entry_point_packs=False)
    c = load_kb([_rule_pack(tmp_path / "c", "pack-c-rule")], entry_point_packs=False)
    core = load_kb([], entry_point_packs=False)
    for kb, own in ((a, "pack-a-rule"), (b, "pack-b-rule"), (c, "pack-c-rule")):
        assert own in kb.rules
        assert not {"pack-a-rule", "pack-b-rule", "pack-c-rule"} - {own} & set(kb.rules)
    assert not {"pack-a-rule", "pack-b-rule", "pack-c-rule"} & set(core.rules)
    assert set(core.rules) <= set(c.rules) and set(core.rules) <= set(b.rules)


def test_a_pack_that_adds_no_examples_shares_the_cores_classifier_and_one_that_does_learns_them(tmp_path):
    # the example classifier is built once per set of examples: a grammar-word pack reuses the core's,
    # a pack with its own utterances gets its own, and the core's stays as it was
    grammar = tmp_path / "grammar"
    grammar.mkdir()
    (grammar / "g.yaml").write_text("kind: language\nunit_words: ['runs?']\n", encoding="utf-8")
    taught = tmp_path / "taught"
    taught.mkdir()
    (taught / "u.yaml").write_text(
        "kind: language\nsymptoms:\n  - symptom: plateau\n    utterances:\n"
        "      - 'the zorblax metric froze solid after the quagmire'\n"
        "      - 'zorblax froze, quagmire everywhere, nothing moves'\n", encoding="utf-8")
    core = load_kb([], entry_point_packs=False).language.model
    assert load_kb([str(grammar)], entry_point_packs=False).language.model is core
    own = load_kb([str(taught)], entry_point_packs=False).language.model
    assert own is not core
    text = "zorblax froze after the quagmire"
    assert own.similarities(text)["plateau"] > core.similarities(text).get("plateau", 0.0)
    assert load_kb([], entry_point_packs=False).language.model is core


def test_the_classifiers_similarities_are_the_cosines_to_each_centroid():
    # similarities are read through one pass over the text's features: they must equal the plain
    # cosine with every file's centroid (the closest per symptom) and with each writing system's
    lang = load_kb([], entry_point_packs=False).language
    from traindx.engine.understand import _Examples, _features
    model = _Examples(lang.training, lang.params, lang.stop_words)   # built here, not read from a store
    for text in ("my loss is flat at 2.3 after ten epochs", "验证集损失一直上升", "loss nan after 300 steps"):
        v = model._vector(_features(text, model.stop))
        want: dict = {}
        for (sym, _origin), c in model.groups.items():
            want[sym] = max(want.get(sym, -1.0), sum(w * c.get(k, 0.0) for k, w in v.items()))
        got = model.similarities(text)
        assert got.keys() == want.keys() and all(abs(got[s] - want[s]) < 1e-12 for s in want)
        best = max(sum(w * c.get(k, 0.0) for k, w in v.items()) for c in model.script_groups)
        assert abs(model.resemblance(text) - best) < 1e-12
