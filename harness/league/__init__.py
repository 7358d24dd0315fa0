"""Leagues: configuration, schedule, the results store, ratings, and the League service
(:mod:`~harness.league.service`) that the command line, the tests and the benchmark all use."""

BATCH_SIZE = 2000  # games per batch file at most (the store's; a light module: no pyarrow)
