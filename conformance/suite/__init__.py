"""The conformance tests: they run against any configured target, grouped by API then method."""
