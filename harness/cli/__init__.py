"""The `tourney` command line: the typer app (:mod:`harness.cli.app`) and one module per group
of commands. The top of the arrows: nothing else in the harness imports this package."""
