"""Conformance tests of the node JSON-RPC APIs (1-node-jsonrpc-apis.md)."""
