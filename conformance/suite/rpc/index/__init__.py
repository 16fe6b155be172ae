"""Index API tests, run at every documented index path."""
