"""The target is resolved once, with one precedence: command line, environment, config file, reference."""
from __future__ import annotations

from pathlib import Path

import pytest

from conformance.config import resolve
from conformance.errors import ConfigError


def test_no_url_means_the_embedded_reference_with_every_api(tmp_path: Path) -> None:
    target = resolve({}, env={}, cwd=tmp_path)
    assert target.reference and target.apis == ("admin", "index", "evm", "validators", "data", "metrics")


def test_target_url_serves_all_three_apis(tmp_path: Path) -> None:
    target = resolve({"target_url": "http://node.test:9650/"}, env={}, cwd=tmp_path)
    assert (target.node_url, target.data_url, target.metrics_url) == ("http://node.test:9650",) * 3
    assert not target.reference


def test_only_apis_with_a_url_are_tested(tmp_path: Path) -> None:
    target = resolve({"node_url": "http://127.0.0.1:9650"}, env={}, cwd=tmp_path)
    assert target.apis == ("admin", "index", "evm", "validators")


def test_command_line_beats_environment_beats_config_file(tmp_path: Path) -> None:
    (tmp_path / "conformance.toml").write_text('node_url = "http://file.test"\nprofile = "thorough"\n'
                                               'rate_limit = "5/s"\n')
    env = {"CONFORMANCE_NODE_URL": "http://env.test", "CONFORMANCE_PROFILE": "quick"}
    target = resolve({"node_url": "http://cli.test"}, env=env, cwd=tmp_path)
    assert (target.node_url, target.profile, target.rate_limit) == ("http://cli.test", "quick", 5.0)


def test_pyproject_tool_table_is_read(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.conformance]\nmetrics-url = "http://m.test"\n')
    assert resolve({}, env={}, cwd=tmp_path).metrics_url == "http://m.test"


def test_the_api_key_is_not_in_the_targets_repr(tmp_path: Path) -> None:
    target = resolve({"data_url": "http://d.test", "api_key": "sekrit-123"}, env={}, cwd=tmp_path)
    assert target.api_key == "sekrit-123" and "sekrit-123" not in repr(target)


@pytest.mark.parametrize(("options", "message"), [
    ({"node_url": "node.test"}, "not an http"),
    ({"node_url": "ftp://node.test"}, "not an http"),
    ({"node_url": "http://node.test:99999"}, "invalid port"),
    ({"api": "admin,chat"}, "unknown API chat"),
    ({"profile": "fast"}, "unknown profile"),
    ({"node_url": "http://n.test", "api": "data"}, "no URL is configured"),
    ({"rate_limit": "lots"}, "not a rate"),
    ({"sample": ["noequals"]}, "NAME=VALUE"),
])
def test_bad_settings_are_configuration_errors(options: dict, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve(options, env={}, cwd=tmp_path)


def test_an_unknown_config_file_setting_is_refused(tmp_path: Path) -> None:
    (tmp_path / "conformance.toml").write_text('nod_url = "http://typo.test"\n')
    with pytest.raises(ConfigError, match="unknown setting nod_url"):
        resolve({}, env={}, cwd=tmp_path)


def test_every_run_setting_is_read_from_the_command_line_the_environment_and_the_file(tmp_path: Path) -> None:
    (tmp_path / "conformance.toml").write_text('concurrency = 4\ndraw_ahead = false\ngate = "must"\n'
                                               'report_dir = "out"\nrule = ["RPC-IDX"]\n')
    target = resolve({}, env={}, cwd=tmp_path)
    assert (target.concurrency, target.draw_ahead, target.gate, target.report_dir, target.rules) == \
        (4, False, "must", "out", ("RPC-IDX",))
    env = {"CONFORMANCE_CONCURRENCY": "2", "CONFORMANCE_DRAW_AHEAD": "true", "CONFORMANCE_EXPECTATIONS": "known.yaml"}
    target = resolve({"gate": "standard"}, env=env, cwd=tmp_path)
    assert (target.concurrency, target.draw_ahead, target.gate, target.expectations) == \
        (2, True, "standard", "known.yaml")
    assert resolve({"draw_ahead": False, "report_dir": ""}, env=env, cwd=tmp_path).draw_ahead is False
    assert resolve({"report_dir": ""}, env={}, cwd=tmp_path).report_dir is None


def test_the_defaults_are_the_same_wherever_the_suite_runs(tmp_path: Path) -> None:
    from conformance.config import SETTINGS, Target

    resolved, built = resolve({}, env={}, cwd=tmp_path), Target()
    for setting in SETTINGS:
        if setting.field_name and setting.default is not None:
            assert getattr(resolved, setting.field_name) == getattr(built, setting.field_name) == setting.default, \
                setting.name


def test_every_setting_sets_a_field_of_the_target_but_the_one_url_spread_over_three() -> None:
    from dataclasses import fields

    from conformance.config import SETTINGS, Target

    names = {setting.field_name for setting in SETTINGS}
    assert names - {""} <= {f.name for f in fields(Target)}
    assert {f.name for f in fields(Target)} - names == {"reference"}


def test_an_empty_value_is_not_given_unless_it_is_a_value_of_its_own(tmp_path: Path) -> None:
    env = {"CONFORMANCE_TIMEOUT": "", "CONFORMANCE_REPORT_DIR": ""}
    assert (resolve({}, env=env, cwd=tmp_path).timeout, resolve({}, env=env, cwd=tmp_path).report_dir) == (30.0, None)
    assert resolve({"seed": "", "api_key_header": ""}, env={}, cwd=tmp_path).api_key_header == "x-data-api-key"


@pytest.mark.parametrize(("options", "message"), [
    ({"concurrency": "0"}, "at least 1"),
    ({"gate": "may"}, "not one of must, standard"),
    ({"timeout": "0.05"}, "--timeout: must be at least 0.1"),
    ({"max_memory": "10"}, "--max-memory: must be at least 64"),
    ({"recheck": "-1"}, "--recheck: must be at least 0"),
    ({"max_requests": "0"}, "--max-requests: must be at least 1"),
    ({"seed": "x"}, "--seed: 'x' is not a number"),
    ({"flaky": "maybe"}, "--flaky: 'maybe' is not one of report, fail"),
])
def test_bad_run_settings_are_configuration_errors(options: dict, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve(options, env={}, cwd=tmp_path)


def test_a_coverage_above_a_hundred_percent_is_refused_before_the_run(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--min-coverage: must be at most 100"):
        resolve({"min_coverage": "150"}, env={}, cwd=tmp_path)


def test_a_bad_value_from_the_environment_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="^CONFORMANCE_TIMEOUT: 'soon' is not a number"):
        resolve({}, env={"CONFORMANCE_TIMEOUT": "soon"}, cwd=tmp_path)


def test_a_bad_value_from_the_config_file_names_the_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "conformance.toml").write_text("min_coverage = 150\n")
    with pytest.raises(ConfigError, match=r"^conformance.toml: min_coverage: must be at most 100"):
        resolve({}, env={}, cwd=tmp_path)


def test_an_unknown_variable_gets_a_did_you_mean(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"CONFORMANCE_PROFLE: not a setting \(did you mean CONFORMANCE_PROFILE\?\)"):
        resolve({}, env={"CONFORMANCE_PROFLE": "quick"}, cwd=tmp_path)


def test_an_unknown_config_key_gets_a_did_you_mean(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.conformance]\nrate-limt = "5/s"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml \[tool.conformance\]: unknown setting rate_limt "
                                          r"\(did you mean rate_limit\?\)"):
        resolve({}, env={}, cwd=tmp_path)


def test_the_suites_own_variables_are_not_settings_and_not_refused(tmp_path: Path) -> None:
    own = {"CONFORMANCE_CASES_DIR": str(tmp_path), "CONFORMANCE_DOCS_DIR": "x"}
    assert resolve({}, env=own, cwd=tmp_path).reference
