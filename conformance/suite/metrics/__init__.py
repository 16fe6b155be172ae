"""Conformance tests of the Metrics API (3-metrics-api.md)."""
