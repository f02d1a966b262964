"""The code reader's cases: every script in tests/code_cases/ is read by :func:`analyze_code` and must
report what its expectation comments say (syntax: tests/code_expectations.py)."""

from __future__ import annotations

import pytest
from code_expectations import case_id, case_paths, check, parse_expectations

from traindx.probes.readers.code import analyze_code

CASES = case_paths()


def test_there_are_cases_and_each_expects_something():
    assert len(CASES) >= 37
    for path in CASES:
        exp = parse_expectations(path)
        assert exp.at_line or exp.absent or exp.unresolved or exp.config_paths is not None, path


@pytest.mark.parametrize("path", CASES, ids=[case_id(p) for p in CASES])
def test_code_case(path):
    problems = check(analyze_code(path), parse_expectations(path))
    assert not problems, f"{case_id(path)}:\n  " + "\n  ".join(problems)
