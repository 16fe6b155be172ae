"""Thin HTTP clients that return recorded exchanges."""
