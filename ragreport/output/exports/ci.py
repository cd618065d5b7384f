"""What a CI system reads of the gates: JUnit XML and GitHub Actions workflow commands.

JUnit: one ``testsuite`` named ``ragreport gates``, one ``testcase`` per gate check (``classname``
the rule, ``name`` the run and metric it read), a ``failure`` element with the figure when the check
failed; GitLab's merge-request widget and most CI systems read it. Workflow commands: an
``::error`` line per failed check, which GitHub Actions shows as an annotation on the run.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from ...core.escape import visible
from .gates import GateResult

SUITE_NAME = "ragreport gates"


def _xml_text(text: str) -> str:
    """Text XML 1.0 can hold: characters it forbids (controls, lone surrogates) become U+FFFD."""
    return "".join(
        c
        if c in "\t\n\r" or ("\x20" <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c >= "\U00010000"
        else "\ufffd"
        for c in text
    )


def junit(results: Sequence[GateResult]) -> str:
    """JUnit XML with one test case per gate check (an empty suite when no rule was asked for)."""
    failures = sum(not r.passed for r in results)
    suites = ET.Element("testsuites", {"name": SUITE_NAME, "tests": str(len(results)), "failures": str(failures)})
    suite = ET.SubElement(
        suites,
        "testsuite",
        {"name": SUITE_NAME, "tests": str(len(results)), "failures": str(failures), "errors": "0", "skipped": "0"},
    )
    for r in results:
        name = f"{r.run} {r.metric}".strip() or r.rule
        case = ET.SubElement(suite, "testcase", {"classname": _xml_text(r.rule), "name": _xml_text(name)})
        if r.passed:
            ET.SubElement(case, "system-out").text = _xml_text(r.line)
        else:
            failure = ET.SubElement(case, "failure", {"message": _xml_text(r.line), "type": r.kind})
            failure.text = _xml_text(r.figure)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _command_data(text: str) -> str:
    """A workflow command's message: %, CR and LF escaped as the runner expects; any other control
    or bidi character (a run name's escape sequence) shown as an escape, as in every text output."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return visible(text)


def _command_property(text: str) -> str:
    return _command_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_errors(results: Sequence[GateResult]) -> list[str]:
    """An ``::error`` workflow command per failed gate check."""
    return [
        f"::error title={_command_property('ragreport gate ' + r.rule)}::{_command_data(r.line)}"
        for r in results
        if not r.passed
    ]
