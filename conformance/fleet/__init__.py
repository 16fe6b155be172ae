"""Many targets in one run: each target's own reports, and the fleet's view of them side by side."""
