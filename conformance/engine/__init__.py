"""How the suite's tests run: tests in flight, generated cases, run-wide caches (see README.md beside this file).

The plugin (conformance.plugin) is the one door: suite tests, checks, strategies and the reference import nothing
from here, and reach what they need through fixtures and `conformance.generated`.
"""
