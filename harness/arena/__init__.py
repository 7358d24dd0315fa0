"""The living league: bots join, change and leave while it runs; games go where ratings are
least sure (:mod:`harness.league.matchmaking`); a final stage over its top bots."""
