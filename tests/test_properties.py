"""Property-based tests (hypothesis): whatever the input, a result or one clean line — never a traceback.

Deterministic (``derandomize=True``: the same examples every run) and small (bounded examples,
no deadline), so they are fast and never flaky; ``benchmarks/fuzz.py`` is the long run.
"""

import json
import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from traindx.engine import bounded  # noqa: E402
from traindx.engine.errors import InputError  # noqa: E402

FAST = settings(max_examples=60, derandomize=True, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

yaml_ish = st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#,? \n\t01.e%<=@`\\") + ["\u00e9", "\x00", "\r"]),
                   max_size=200)
json_values = st.recursive(st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                           max_leaves=20)


def _one_line(err: InputError, source: str):
    text = str(err)
    assert "\n" not in text.strip(), text
    assert text.startswith(source), text


@FAST
@given(yaml_ish)
def test_load_yaml_gives_data_or_one_line(text):
    from traindx.engine.yamlio import load_yaml
    try:
        load_yaml(text, "f.yaml")
    except InputError as err:
        _one_line(err, "f.yaml")


@FAST
@given(st.text(max_size=300) | json_values.map(json.dumps))
def test_loads_json_gives_data_or_one_line(text):
    try:
        bounded.loads_json(text, "f.json", bounded.Limits())
    except InputError as err:
        _one_line(err, "f.json")


@FAST
@given(st.integers(min_value=0, max_value=300), st.sampled_from("[{"))
def test_json_depth_limit_is_exact(depth, opener):
    closer = "]" if opener == "[" else "}"
    body = (opener if opener == "[" else '{"a":') * depth
    text = body + "1" + closer * depth if opener == "[" else ('{"a":' * depth) + "1" + "}" * depth
    lim = bounded.Limits(max_depth=100)
    if depth <= 100:
        bounded.loads_json(text, "f.json", lim)
    else:
        with pytest.raises(InputError, match="nested more than 100"):
            bounded.loads_json(text, "f.json", lim)


@FAST
@given(st.binary(max_size=400), st.sampled_from(["csv", "jsonl", "json", "log"]))
def test_read_log_gives_a_log_or_one_line(tmp_path_factory, data, ext):
    from traindx.probes.readers.logs import read_log
    p = tmp_path_factory.mktemp("log") / f"m.{ext}"
    p.write_bytes(data)
    try:
        read_log(p)
    except InputError as err:
        _one_line(err, str(p))


@FAST
@given(st.dictionaries(st.sampled_from(["learning_rate", "batch_size", "optimizer", "symptom", "uses_amp",
                                        "train_accuracy", "loss_value", "regularization", "num_classes"]),
                       json_values, max_size=4))
def test_answers_of_any_type_are_taken_or_refused_with_a_line(kb, answers):
    from traindx.engine.api import Session
    s = Session(kb)
    try:
        s.add_answers(answers, path="answers.yaml")
    except InputError as err:
        _one_line(err, "answers.yaml")
        return
    for c in s.report()["root_causes"]:
        assert 0.0 <= c["confidence"] <= 1.0 and not math.isnan(c["confidence"])


@FAST
@given(st.text(max_size=500))
def test_any_complaint_gives_a_report_with_confidences_in_range(kb, text):
    from traindx.engine.api import Session
    s = Session(kb)
    s.add_complaint(text)
    rep = s.report()
    assert rep["status"] in ("diagnosed", "healthy", "out_of_scope", "insufficient_evidence")
    for c in rep["root_causes"]:
        assert 0.0 <= c["confidence"] <= 1.0


@FAST
@given(st.sampled_from(["start_diagnosis", "add_facts", "answer", "next_question", "explain", "why", "how",
                        "get_report", "read_log", "read_config", "read_code", "nope"]),
       st.dictionaries(st.sampled_from(["session_id", "complaint", "facts", "question_id", "answer", "id", "path",
                                        "format", "cause", "source", "extra"]), json_values, max_size=4))
def test_mcp_requests_get_a_result_or_a_tool_error(name, args):
    from traindx.engine.frontends.mcp_server import ToolFailure
    eng = _engine()
    try:
        json.dumps(eng.call(name, args), default=str)
    except ToolFailure as err:
        assert "\n" not in err.message.strip()


_ENGINE = []


def _engine():
    from traindx.engine.frontends.mcp_server import Engine
    if not _ENGINE:
        _ENGINE.append(Engine())
    return _ENGINE[0]
