"""The second voice: a classifier built at load time from the knowledge base's example utterances.
It names the symptom when no phrasing speaks, overrules only a weak phrasing, never pushes a
reassuring post to a fault, and learns what a pack adds without code. The sentences here are
written for these tests (not taken from the complaint corpus)."""
import pytest

from traindx.engine.api import Session
from traindx.engine.frontends.cli import understood_lines
from traindx.engine.frontends.mcp_server import Engine
from traindx.engine.loader import load_kb
from traindx.engine.understand import understand

# no phrasing in kb/language says anything about this one; its words are the examples' words
# (session 13: the sentence was "... after a while, kinda stagnant" until "stagnant" became a plateau phrasing;
# session 22: "the accuracy goes up nicely ..." until web_r's utterances made "goes up" lean overfitting, 0.246
# against plateau 0.243: the examples voice still reads the mechanism, the corpus measures its accuracy;
# session 51: "... sits around 80 percent forever" until web_au's utterances left the examples without a clear
# lead for it, so no symptom - "from then on" reads plateau as before)
UNPHRASED = "the accuracy climbs nicely for a few epochs and then just sits around 80 percent from then on"
# made-up jargon no knowledge base knows
JARGON = "our zorbly gauge is wobbling like crazy on the flumph board"
PACK = ("kind: language\n"
        "symptoms:\n"
        "  - symptom: {symptom}\n"
        "    utterances:\n"
        "      - the zorbly gauge wobbles on the flumph board\n"
        "      - zorbly flumph wobbling again\n"
        "      - every flumph run the zorbly gauge is wobbling\n")


@pytest.fixture(scope="module")
def kb():
    return load_kb(entry_point_packs=False)


def test_a_phrasing_no_pattern_knows_is_read_from_the_examples(kb):
    u = understand(UNPHRASED, kb.language)
    assert u.scores.get("plateau", 0) < 1.0             # the phrasings alone do not reach the floor
    assert u.symptom == "plateau" and u.how == "examples"
    assert u.symptom_words and set(u.symptom_words.split()) <= set(UNPHRASED.replace(",", "").split())


def test_the_echo_names_the_words_and_mcp_returns_them(kb):
    s = Session(kb)
    s.add_complaint(UNPHRASED)
    line = understood_lines(s)[0]
    assert line.startswith("I read:  plateau (from your description as a whole, like its examples:")
    out = Engine().call("start_diagnosis", {"complaint": UNPHRASED})
    sym = out["understood"]["symptom"]
    assert sym["id"] == "plateau" and sym["how"] == "examples" and sym["words"] and sym["phrase"] is None
    assert out["symptom"]["id"] == "plateau"


def test_a_pack_that_adds_utterances_changes_the_reading_without_code(tmp_path, kb):
    before = understand(JARGON, kb.language)
    assert before.symptom != "instability"
    (tmp_path / "lang.yaml").write_text(PACK.format(symptom="instability"))
    packed = load_kb([str(tmp_path)], entry_point_packs=False)
    after = understand(JARGON, packed.language)
    assert after.symptom == "instability" and after.how == "examples"
    assert "zorbly" in after.symptom_words


def test_utterances_train_but_are_not_test_cases(tmp_path):
    from traindx.engine.kbtest import run_cases
    (tmp_path / "lang.yaml").write_text(PACK.format(symptom="slow_training")
                                        + "      - my loss is nan after 10 steps\n")   # a phrasing reads it otherwise
    packed = load_kb([str(tmp_path)], entry_point_packs=False)
    assert not [r for r in run_cases(packed) if r.where.startswith(str(tmp_path))]


def test_a_reassuring_post_is_not_pushed_to_a_fault(tmp_path):
    # the pack teaches that the jargon is a fault; said beside a weak healthy phrasing it stays healthy
    (tmp_path / "lang.yaml").write_text(PACK.format(symptom="instability"))
    packed = load_kb([str(tmp_path)], entry_point_packs=False)
    text = "zorbly flumph wobbling again. the loss goes down slowly"
    guess, p, _ = packed.language.model.classify(text)
    assert guess == "instability" and p >= 0.7                       # sure enough to overrule a fault
    u = understand(text, packed.language)
    assert 1.0 <= u.scores["healthy"] < 3.0                         # a weak phrasing: healthy
    assert u.symptom == "healthy" and u.how == "phrases"


def test_a_strong_phrasing_is_not_overruled(tmp_path, kb):
    text = "the loss becomes nan after a few steps"
    (tmp_path / "lang.yaml").write_text(
        "kind: language\nsymptoms:\n  - symptom: slow_training\n    utterances:\n"
        + "".join(f"      - {t}\n" for t in [text] * 20))
    packed = load_kb([str(tmp_path)], entry_point_packs=False)
    u = understand(text, packed.language)
    assert packed.language.model.classify(text)[0] == "slow_training"     # the examples alone disagree
    assert u.symptom == "explosion" and u.how == "phrases"


def test_a_weak_phrasing_is_overruled_by_a_sure_classifier(tmp_path, kb):
    text = "zorbly flumph wobbling again and it is stuck"      # 'stuck' alone is a weak phrasing
    u = understand(text, kb.language)
    assert u.how == "phrases" and u.scores[u.symptom] < 3.0
    (tmp_path / "lang.yaml").write_text(PACK.format(symptom="slow_training")   # a pack sure of its jargon
                                        + "      - zorbly flumph wobbling again and again\n")
    packed = load_kb([str(tmp_path)], entry_point_packs=False)
    v = understand(text, packed.language)
    assert v.symptom == "slow_training" and v.how == "examples"


@pytest.mark.parametrize("text", ["something is off with my model, I train with sgd", "I have a question about my run"])
def test_a_vague_complaint_is_not_guessed_at(kb, text):
    u = understand(text, kb.language)
    assert u.symptom is None                                    # the interview asks for the symptom
