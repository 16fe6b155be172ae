"""Live differential runs: the same read-only requests to two endpoints, and where their answers differ."""
