"""The readers' vocabulary lives in the knowledge base (kb/parameters/log_words.yaml): a pack adds a
word with ``extends`` and the log readers read what they could not read before, with no code."""
import json
import math

import pytest

from conftest import run_cli
from traindx.engine.api import load_kb
from traindx.engine.errors import KBError, NoMetricsError
from traindx.probes.readers.words import log_words


def _curves(epochs=30):
    """(train, held-out) loss per epoch: both fall for ten epochs, then the held-out loss climbs."""
    out = []
    for e in range(1, epochs + 1):
        train = 2.3 * math.exp(-e / 8) + 0.05
        held = 1.2 + 0.002 * (e - 10) ** 2 if e > 10 else train + 0.2
        out.append((e, train, held))
    return out


def _pack(tmp_path, name, body):
    pack = tmp_path / name
    pack.mkdir()
    (pack / "words.yaml").write_text(body, encoding="utf-8")
    return str(pack)


def _diagnose(*args):
    r = run_cli("diagnose", *args, "--non-interactive", "--format", "json")
    return r, (json.loads(r.stdout) if r.returncode == 0 else None)


def test_a_pack_adding_metric_words_of_a_new_language_makes_a_console_log_readable(tmp_path):
    """A Hebrew console log (אפוק, הפסד אימון / אימות): the shipped vocabulary knows no Hebrew, so
    `diagnose --log` reads it only by guessing the names from their values, and says so; a pack that
    adds the four words to console.local_words reads both losses for sure and diagnoses the
    overfitting they show."""
    log = tmp_path / "train.log"
    log.write_text("".join(f"אפוק {e}/30  הפסד אימון: {t:.4f}  הפסד אימות: {v:.4f}\n"
                           for e, t, v in _curves()), encoding="utf-8")
    pack = _pack(tmp_path, "hebrew", 'kind: parameters\nextends:\n  console.local_words:\n'
                 '    "אפוק": epoch\n    "הפסד": loss\n    "אימון": train\n    "אימות": val\n')
    core, _ = _diagnose("--log", str(log))
    assert core.returncode == 0 and "read by their values" in core.stderr.splitlines()[0]
    extended, report = _diagnose("--log", str(log), "--kb", pack)
    assert extended.returncode == 0, extended.stderr
    assert "2 metrics (loss, val_loss) over 30 epochs." in extended.stderr
    assert "read by their values" not in extended.stderr
    assert report["symptom"]["id"] == "overfitting"


def test_a_pack_adding_a_split_word_reads_that_column_as_the_validation_loss(tmp_path):
    """``holdout_loss`` names no split the shipped vocabulary knows, so a CSV of a training loss and
    a rising holdout loss reads as a healthy run; a pack adding ``holdout`` to logs.split_words
    reads the column as the validation loss and the diagnosis becomes overfitting."""
    log = tmp_path / "metrics.csv"
    log.write_text("epoch,loss,holdout_loss\n" + "".join(f"{e},{t:.4f},{v:.4f}\n" for e, t, v in _curves()))
    pack = _pack(tmp_path, "split", "kind: parameters\nextends:\n  logs.split_words:\n    holdout: val\n")
    core, before = _diagnose("--log", str(log))
    extended, after = _diagnose("--log", str(log), "--kb", pack)
    assert core.returncode == 0 and extended.returncode == 0, (core.stderr, extended.stderr)
    assert before["symptom"]["id"] != "overfitting"
    assert after["symptom"]["id"] == "overfitting"


def test_a_pack_adding_a_reward_word_defers_that_agent_log_as_reinforcement_learning(tmp_path):
    """An agent's log (episode, payoff, epsilon) names its reward with a word the shipped vocabulary
    does not know, so ``diagnose --log`` refuses it as a log without metrics (exit 2); a pack adding
    ``payoff`` to logs.rl_reward_words reads it as a reinforcement-learning run: out of scope, said."""
    log = tmp_path / "agent.csv"
    log.write_text("episode,payoff,epsilon\n" + "".join(f"{e},{e * 0.37 % 5:.3f},{max(0.05, 1 - e / 50):.3f}\n"
                                                       for e in range(1, 80)))
    pack = _pack(tmp_path, "rl", "kind: parameters\nextends:\n  logs.rl_reward_words: [payoff]\n")
    core, _ = _diagnose("--log", str(log))
    extended, after = _diagnose("--log", str(log), "--kb", pack)
    assert core.returncode == 2 and "no loss, accuracy or other known metric" in core.stderr
    assert extended.returncode == 0, extended.stderr
    assert after["symptom"]["id"] == "out_of_scope"
    assert "reinforcement-learning" in extended.stderr


def test_extends_adds_to_the_shipped_words_and_explain_names_the_pack(tmp_path):
    pack = _pack(tmp_path, "it", "kind: parameters\nextends:\n  console.latin_words:\n    häviö: loss\n"
                 "  logs.filler_words: [media]\n  logs.role_spellings:\n    loss: [perdita_totale]\n")
    kb = load_kb([pack], entry_point_packs=False)
    words = log_words(kb.params())
    assert words.latin_words("Val-Häviö") == "Val-loss"
    assert words.latin_words("Val-Verlust") == "Val-loss"            # the shipped words stay
    assert words.match_role("media_loss") == ("loss", words.generic_rank)
    assert words.match_role("perdita_totale")[0] == "loss"
    assert log_words(kb.params()) is words                           # compiled once per knowledge base
    assert log_words().latin_words("Val-Häviö") == "Val-Häviö"       # the shipped vocabulary is unchanged
    r = run_cli("explain", "console.latin_words", "--kb", pack)
    assert r.returncode == 0 and "Extended by:" in r.stdout and "words.yaml" in r.stdout


@pytest.mark.parametrize("body, message", [
    ("kind: parameters\nextends:\n  logs.split_wordz:\n    holdout: val\n", "unknown parameter 'logs.split_wordz'"),
    ("kind: parameters\nextends:\n  logs.split_words: [holdout]\n", "wrong type"),
    ("kind: parameters\nextends:\n  logs.generic_rank: [1]\n", "wrong type"),
    ("kind: parameters\nextends:\n  logs.role_spellings:\n    loss: perdita\n", "wrong type"),
])
def test_a_bad_extension_is_one_line_with_its_line(tmp_path, body, message):
    with pytest.raises(KBError) as exc:
        load_kb([_pack(tmp_path, "bad", body)], entry_point_packs=False)
    text = str(exc.value)
    assert message in text and "words.yaml:" in text and "\n" not in text


def test_a_vocabulary_entry_of_the_wrong_shape_fails_the_schema(tmp_path):
    body = ("kind: parameters\nparameters:\n  - id: mine.words\n    value: {holdout: 3}\n    unit: words\n"
            "    description: x\n    used_by: [log:curves]\n")
    with pytest.raises(KBError) as exc:
        load_kb([_pack(tmp_path, "shape", body)], entry_point_packs=False)
    assert "words.yaml:" in str(exc.value)


def test_every_table_the_readers_compile_is_a_documented_parameter_of_the_log_reader():
    from traindx.probes.readers.words import TABLES
    kb = load_kb(entry_point_packs=False)
    for pid in TABLES:
        assert pid in kb.parameters and "log:curves" in kb.parameters[pid]["used_by"], pid


def test_a_pack_adding_a_data_wait_word_measures_the_data_wait(tmp_path):
    """``io_time`` names no data-loading time the shipped words know (console.data_wait_words), so the
    share of each step spent waiting for data goes unmeasured; a pack that adds ``io`` to the
    data-wait words reads it (0.25 s of a 0.30 s step), with no code."""
    from traindx.engine.frontends.gather import read_pasted
    text = "".join(f"epoch {e} loss {2.0 / e:.4f} time 0.30 io_time 0.25\n" for e in range(1, 9))
    core = {f.fact: f.value for f in read_pasted(text, params=load_kb(entry_point_packs=False).params()).findings}
    assert "data_time_fraction" not in core
    pack = _pack(tmp_path, "io", "kind: parameters\nextends:\n  console.data_wait_words: [io]\n"
                 "  console.data_time_words: [io]\n")
    kb = load_kb([pack], entry_point_packs=False)
    extended = {f.fact: f.value for f in read_pasted(text, params=kb.params()).findings}
    assert extended["data_time_fraction"] == pytest.approx(0.25 / 0.30, abs=1e-3)
    assert extended["loss_trend"] == core["loss_trend"] == "decreasing"


def test_every_table_the_vocabulary_reads_keys_its_cache():
    """log_words() compiles once per set of tables: a table LogWords reads but the cache key omits
    would let a pack's words go unseen (the reader would keep the shipped vocabulary)."""
    import inspect
    import re

    from traindx.probes.readers import words
    read = set(re.findall(r'p\["([a-z_]+\.[a-z_]+)"\]', inspect.getsource(words.LogWords)))
    keyed = set(words.TABLES) | set(words.AUX_TABLES)
    assert read and read <= keyed, sorted(read - keyed)


def test_stand_in_metric_names_are_knowledge_a_pack_extends(tmp_path):
    """A word error rate stands in for the validation accuracy (1 - WER) and a perplexity for the loss
    (ln ppl); a symbol error rate (``SER``) or a ``pplx`` column is read only once a pack adds the word
    to console.error_rate_names / console.perplexity_words."""
    from traindx.probes.readers.console import read_console_text

    def text(err, ppl):
        return "".join(f"epoch {e} | train {ppl} {math.exp(2.0 - e / 20):.3f} | valid {err} {0.6 - e / 100:.3f}\n"
                       for e in range(1, 21))
    shipped = read_console_text(text("wer", "ppl"))
    assert shipped.series["val_accuracy"].points[-1].mean == pytest.approx(0.6, abs=1e-6)   # 1 - WER 0.40
    assert shipped.series["loss"].points[0].mean == pytest.approx(1.95, abs=1e-3)         # ln ppl
    with pytest.raises(NoMetricsError):    # "train", "valid": the readers' words, so no guess from the values
        read_console_text(text("ser", "pplx"))
    pack = _pack(tmp_path, "speech", "kind: parameters\nextends:\n  console.error_rate_names: [ser]\n"
                 "  console.perplexity_words: [pplx]\n")
    extended = read_console_text(text("ser", "pplx"), params=load_kb([pack], entry_point_packs=False).params())
    assert extended.series["val_accuracy"].points[-1].mean == pytest.approx(0.6, abs=1e-6)
    assert extended.series["loss"].points[0].mean == pytest.approx(1.95, abs=1e-3)


def test_a_pack_adding_loss_part_names_reads_a_keypoint_tables_parts_as_the_loss(tmp_path):
    """A pose model's per-epoch table prints its loss only as parts (a heatmap loss ``hm``, a
    part-affinity loss ``paf``) under names the shipped console.loss_part_names lacks: the log holds
    no metric the reader knows. A pack adding the two names reads them as parts of one loss, and the
    loss is their sum (the console reader's ranks and part names are knowledge, not code)."""
    from traindx.probes.readers.console import read_console_text

    rows = ["      Epoch        hm       paf"]
    for e in range(1, 21):
        rows.append(f"{e:>11d} {0.9 * 0.9 ** e + 0.05:9.4f} {1.5 * 0.85 ** e + 0.1:9.4f}")
    text = "\n".join(rows)
    with pytest.raises(NoMetricsError):
        read_console_text(text)
    pack = _pack(tmp_path, "pose", "kind: parameters\nextends:\n  console.loss_part_names: ['hm', 'paf']\n")
    log = read_console_text(text, params=load_kb([pack]).params())
    assert log.names["loss"] == "hm + paf"
