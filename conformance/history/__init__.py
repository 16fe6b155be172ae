"""Every run kept in a SQLite file: what is new since the previous run of a target, what was fixed, the trend."""
