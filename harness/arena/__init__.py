"""The living league: bots join, change and leave while it runs; games go where ratings are
least sure (:mod:`harness.arena.matchmaking`); a final stage over its top bots."""
