"""Hypothesis strategies generated from the specs: valid and invalid JSON-RPC params, container ranges."""
from __future__ import annotations

from conformance.strategies.jsonrpc import (InvalidCase, boundary_values, container_ranges, invalid_params,
                                            invalid_values, valid_params, values)

__all__ = ["InvalidCase", "boundary_values", "container_ranges", "invalid_params", "invalid_values", "valid_params",
           "values"]
