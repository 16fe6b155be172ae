"""What the suite relies on in its dependencies still holds; an upgrade that breaks it fails here first."""
from __future__ import annotations

import http.client
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema_rs
from hypothesis import settings

from conformance.profiles import PROFILES
from conformance.reference import ReferenceServer


def test_hypothesis_profiles_load_with_their_example_counts() -> None:
    current = settings._current_profile
    assert current is not None   # hypothesis loads its "default" profile when imported
    try:
        for profile in PROFILES.values():
            settings.load_profile(profile.hypothesis_profile)
            assert settings().max_examples == profile.examples and settings().deadline is None
    finally:
        settings.load_profile(current)


def test_jsonschema_rs_reports_paths_and_messages() -> None:
    validator = jsonschema_rs.validator_for({"type": "object", "properties": {"a": {"type": "integer"}},
                                             "components": {}})
    errors = list(validator.iter_errors({"a": "x"}))
    assert [list(error.instance_path) for error in errors] == [["a"]] and errors[0].message


def test_jsonschema_rs_resolves_component_references() -> None:
    validator = jsonschema_rs.validator_for({"$ref": "#/components/schemas/N",
                                             "components": {"schemas": {"N": {"type": "integer"}}}})
    assert validator.is_valid(3) and not validator.is_valid("3")


def test_the_reference_keeps_connections_alive() -> None:
    with ReferenceServer() as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        for _ in range(3):
            connection.request("POST", "/ext/index/X/tx", body=b'{"jsonrpc":"2.0","id":1,"method":"x"}',
                               headers={"content-type": "application/json"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200 and not response.will_close
        connection.close()


def test_the_suite_does_not_use_hypothesis_jsonschema() -> None:
    # hypothesis-jsonschema 0.23.1 breaks with hypothesis >= 6.170.10 (objects with optional properties).
    package = Path(__file__).resolve().parents[1] / "conformance"
    users = [str(p) for p in package.rglob("*.py") if "hypothesis_jsonschema" in p.read_text(encoding="utf-8")]
    assert users == []


def test_junit_xml_carries_user_properties(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "def test_a(record_property):\n    record_property('rule', 'RPC-IDX-004')\n")
    junit = tmp_path / "junit.xml"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_x.py"),
                    f"--junitxml={junit}", "-o", "junit_family=xunit1", "--rootdir", str(tmp_path)],
                   check=True, capture_output=True, cwd=tmp_path)
    properties = ET.parse(junit).getroot().iter("property")
    assert ("rule", "RPC-IDX-004") in [(p.get("name"), p.get("value")) for p in properties]
