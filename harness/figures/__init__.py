"""What people read, each figure one model rendered as text, JSON and HTML: the tables
(:mod:`.table`), `tourney ratings`' verdicts (:mod:`.verdicts`)."""
