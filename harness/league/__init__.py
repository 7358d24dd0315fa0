"""Leagues: configuration, schedule, the results store, ratings, and the League service
(:mod:`~harness.league.service`) that the command line, the tests and the benchmark all use."""
