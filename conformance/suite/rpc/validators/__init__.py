"""Validators API tests."""
