"""One game: the referee (:mod:`~harness.match.referee`: observation -> agent -> check ->
apply, a typed end) and where it runs (:mod:`~harness.match.placement`: one game, one CPU)."""
