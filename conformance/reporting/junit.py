"""junit.xml for CI test views, written from the report itself: the same tests, outcomes and counts as report.json.

Each test is a <testcase> (classname: its module, name: the test with its parameters), its rules are
<property name="rule"> entries, a violation is a <failure> whose text is the bug report, an error of the suite or
of the target's availability an <error>, a skip a <skipped> with its reason. A run that tested nothing (the target
did not answer) is one errored test case saying why, so a CI view never shows an older run's file.
"""
from __future__ import annotations

from typing import Any
from xml.etree import ElementTree

SUITE_NAME = "conformance"


def render(report: dict[str, Any]) -> str:
    tests = report.get("tests", [])
    summary = report.get("summary", {})
    aborted = report.get("suite", {}).get("aborted")
    # An excused failure is a skipped test case saying why (JUnit has no expected failure: CI views show it as
    # skipped), counted once; the suite's properties say how many of the skipped are excused, as report.json does.
    counts = {"tests": len(tests) or (1 if aborted else 0),
              "failures": sum(t["outcome"] == "failed" and "excused" not in t for t in tests),
              "errors": sum(t["outcome"] == "error" and "excused" not in t for t in tests) or (1 if aborted else 0),
              "skipped": sum(t["outcome"] == "skipped" or "excused" in t for t in tests)}
    attributes = {name: str(value) for name, value in counts.items()}
    attributes["time"] = f"{report.get('suite', {}).get('duration_s', 0.0):.3f}"
    root = ElementTree.Element("testsuites", {"name": SUITE_NAME, **attributes})
    suite = ElementTree.SubElement(root, "testsuite", {
        "name": SUITE_NAME, "timestamp": str(report.get("suite", {}).get("started", "")), **attributes})
    properties = ElementTree.SubElement(suite, "properties")
    for name in ("requests", "exit_code", "verdict", "skipped", "expected_failures"):
        if name in summary:
            ElementTree.SubElement(properties, "property", name=name, value=str(summary[name]))
    if aborted:
        case = ElementTree.SubElement(suite, "testcase", classname=SUITE_NAME, name="target_answers", time="0")
        ElementTree.SubElement(case, "error", message=_attribute(aborted)).text = _text(aborted)
    for test in tests:
        _testcase(suite, test)
    ElementTree.indent(root, space=" ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(root, encoding="unicode") + "\n"


def _testcase(suite: ElementTree.Element, test: dict[str, Any]) -> None:
    module, _, name = test["id"].partition("::")
    classname = module.removesuffix(".py").replace("/", ".")
    case = ElementTree.SubElement(suite, "testcase", classname=classname, name=name or module,
                                  time=f"{test.get('duration_s', 0.0):.3f}")
    if test.get("rules") or "excused" in test:
        properties = ElementTree.SubElement(case, "properties")
        for rule in test.get("rules", []):
            ElementTree.SubElement(properties, "property", name="rule", value=rule)
        if "excused" in test:
            ElementTree.SubElement(properties, "property", name="expected_failure", value=_attribute(test["excused"]))
    message = test.get("message", "")
    if "excused" in test:
        ElementTree.SubElement(case, "skipped", message=_attribute(f"expected failure: {test['excused']}")
                               ).text = _text(message)
    elif test["outcome"] == "failed":
        violation = test.get("violation") or {}
        headline = f"[{violation['rule']}] {violation.get('summary', '')}" if violation.get("rule") else \
            message.splitlines()[0] if message else "a rule was violated"
        ElementTree.SubElement(case, "failure", message=_attribute(headline)).text = _text(message)
    elif test["outcome"] == "error":
        first = message.splitlines()[0] if message else "the test could not test the target"
        ElementTree.SubElement(case, "error", message=_attribute(first)).text = _text(message)
    elif test["outcome"] == "skipped":
        ElementTree.SubElement(case, "skipped", message=_attribute(message))


def _attribute(text: str, limit: int = 500) -> str:
    text = _text(text).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "…"


def _text(text: str) -> str:
    """Text XML 1.0 can carry: a target's answer may hold control characters."""
    return "".join(ch if ch in "\t\n\r" or 0x20 <= ord(ch) < 0xD800 or 0xE000 <= ord(ch) < 0xFFFE
                   or ord(ch) > 0xFFFF else "\ufffd" for ch in text)
