"""``tourney serve``: a competition server over a living league (uploads, a live leaderboard,
each entrant's games and logs, a human seat), built on Starlette and uvicorn."""
