"""JUnit XML and GitHub workflow commands from gate results."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ragreport.output.exports.gates import GateResult, junit, workflow_errors

#: A require line's figure as the gates word it (tests/test_gates.py): its < and >= reach the XML whole.
FIGURE = "lower band bound 0.380 < 0.40 (mean 0.410; to gate the mean: mean:nDCG@10>=0.40)"


def _result(passed, run="dense", rule="require nDCG@10>=0.40", figure=FIGURE):
    line = f"{'PASS' if passed else 'FAIL'}  {rule}  {run} nDCG@10: {figure}"
    return GateResult("require", rule, run, "nDCG@10", figure, 0.38, 0.40, passed, line)


def test_junit_has_one_case_per_check_and_a_failure_for_each_failed_one():
    results = [_result(True, "bm25"), _result(False, 'splade <&> "x"'), _result(False, "dense\x01")]
    root = ET.fromstring(junit(results).encode("utf-8"))
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "2"
    (suite,) = root
    assert suite.get("name") == "ragreport gates" and suite.get("failures") == "2"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["bm25 nDCG@10", 'splade <&> "x" nDCG@10', "dense\ufffd nDCG@10"]
    assert cases[0].find("failure") is None and cases[0].find("system-out").text.startswith("PASS")
    failure = cases[1].find("failure")
    assert failure.get("type") == "require" and failure.text == FIGURE
    assert failure.get("message").startswith("FAIL  require nDCG@10>=0.40  splade")


def test_an_empty_suite_is_valid():
    root = ET.fromstring(junit([]).encode("utf-8"))
    assert root.get("tests") == "0" and root[0].findall("testcase") == []


def test_workflow_errors_only_for_failed_checks_with_escapes():
    lines = workflow_errors([_result(True), _result(False, run="a%b\nc", rule="require R@10>=0.5,x:y")])
    assert lines == [
        "::error title=ragreport gate require R@10>=0.5%2Cx%3Ay::FAIL  require R@10>=0.5,x:y  a%25b%0Ac nDCG@10: "
        "lower band bound 0.380 < 0.40 (mean 0.410; to gate the mean: mean:nDCG@10>=0.40)"
    ]


def test_a_workflow_command_shows_a_run_names_controls_as_escapes():
    from ragreport.output.exports.gates import _command_data

    assert _command_data("evil\x1b[2J\u202e 50%\nnext") == "evil\\x1b[2J\\u202e 50%25%0Anext"
