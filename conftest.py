"""Loads the conformance pytest plugin for runs from a source checkout.

The installed package also registers it through its `pytest11` entry point under the same name, so
pytest loads it once either way.
"""
pytest_plugins = ["conformance.plugin"]
