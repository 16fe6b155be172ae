"""The pytest plugin: the door between pytest, the suite and the engine that runs it.

`options` (settings and what a run installs), `collection` (which tests a run holds), `verdicts` (what each test
proved), `state` (the reports at the end) and `fixtures` (what tests ask for). pytest finds the hooks and fixtures
by their names here.
"""
from conformance.plugin.collection import pytest_collection_modifyitems, pytest_ignore_collect, rule_ids
from conformance.plugin.fixtures import (admin, catalogue, data_api, endpoints, evm, evm_chain, generated_cases, http,
                                         metrics_api, observe, once, profile, rpc_at, sample, target, validators)
from conformance.plugin.options import pytest_addoption, pytest_configure
from conformance.plugin.state import resolved_target
from conformance.plugin.verdicts import (pytest_report_teststatus, pytest_runtest_call, pytest_runtest_makereport,
                                         pytest_runtest_setup)
from conformance.reporting.outcomes import RULES_KEY

__all__ = ["RULES_KEY", "admin", "catalogue", "data_api", "endpoints", "evm", "evm_chain", "generated_cases", "http",
           "metrics_api", "observe", "once", "profile", "pytest_addoption", "pytest_collection_modifyitems",
           "pytest_configure", "pytest_ignore_collect", "pytest_report_teststatus", "pytest_runtest_call",
           "pytest_runtest_makereport", "pytest_runtest_setup", "resolved_target", "rule_ids", "rpc_at", "sample",
           "target", "validators"]
