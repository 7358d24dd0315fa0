"""The statistics of tourney, pure functions of plain data (one floor above ``records``, below
everything that stores or plays games): how a stored game counts (:mod:`.outcome`), Elo and
Bradley–Terry fits with intervals (:mod:`.elo`), duplicate pairs (:mod:`.pairs`), the SPRT
(:mod:`.sprt`) and what a stop does to its figures (:mod:`.stopping`), and the TrueSkill
leaderboard (:mod:`.ratings`)."""
