"""Admin API tests; state-changing ones run only with --allow-mutations."""
