"""`tourney ladder` as people read it: a bot's placement among the rungs, by batch Elo
(:class:`harness.league.ladder.Placement`) or against the calibrated rungs
(:class:`harness.league.ladder_table.CalibratedPlacement`), as lines of text; the JSON is the
models' own ``as_dict``."""

from __future__ import annotations

from harness.league.ladder import ANCHOR, Placement, wilson
from harness.league.ladder_table import CalibratedPlacement, fmt_elo


def placement_lines(placement: Placement) -> list[str]:
    """A placement among the rungs by batch Elo, as `tourney ladder` prints it."""
    fit = placement.fit
    anchor = f"{fit.anchor} = 0" if fit.anchor else "mean 0"
    out = [f"ladder: {fit.rated_games} rated games, batch Elo ({anchor}), "
           f"{100 * fit.level:g} % intervals",
           f"  {'':2} {'bot':<28} {'elo':>6}  {'interval':<15} {'games':>5}  "
           f"{'points of ' + placement.bot + ' vs it':<24}"]
    for b in fit.bots:
        mark = "->" if b.name == placement.bot else ""
        span = f"[{b.low:+.0f}, {b.high:+.0f}]"
        versus = ""
        if b.name in placement.versus:
            points, games = placement.versus[b.name]
            p, low, high = wilson(points, games, fit.level)
            versus = f"{points:g}/{games} = {100 * p:.0f} % ({100 * low:.0f}-{100 * high:.0f})"
        flag = f"  ({b.perfect})" if b.perfect else ""
        out.append(f"  {mark:2} {b.name:<28} {b.elo:+6.0f}  {span:<15} {b.games:>5}  "
                   f"{versus}{flag}")
    names = [b.name for b in fit.bots]
    i = placement.rank - 1
    where = [f"{placement.bot} places {placement.rank} of {len(names)}"]
    if i + 1 < len(names):
        where.append(f"above {names[i + 1]} (LOS {100 * (fit.los[i][i + 1] or 0):.0f} %)")
    if i > 0:
        where.append(f"below {names[i - 1]} (LOS {100 * (fit.los[i - 1][i] or 0):.0f} %)")
    out.append(", ".join(where))
    return out


def calibrated_lines(placement: CalibratedPlacement) -> list[str]:
    """A placement against the calibrated rungs, as `tourney ladder` prints it."""
    cal = placement.calibration
    out = [f"ladder: rungs at their calibrated ratings ({ANCHOR} = 0; round robin of "
           f"{cal.games_per_pair} games a pair: {cal.command}); {placement.bot} fit against them "
           f"over {placement.fit.games} games, {100 * placement.fit.level:g} % intervals",
           f"  {'':2} {'bot':<28} {'elo':>6}  {'interval':<16} "
           f"{'points of ' + placement.bot + ' vs it':<24}"]
    rungs = {r.name: r for r in cal.rungs}
    for name, elo in placement.order():
        if name == placement.bot:
            low, high = placement.fit.low, placement.fit.high
            versus = f"{placement.fit.points:g}/{placement.fit.games} in all"
        else:
            low, high = rungs[name].low, rungs[name].high
            versus = _versus(placement, name)
        mark = "->" if name == placement.bot else ""
        out.append(f"  {mark:2} {name:<28} {fmt_elo(elo):>6}  "
                   f"{'[' + fmt_elo(low) + ', ' + fmt_elo(high) + ']':<16} {versus}")
    out.append(placement.verdict())
    return out


def _versus(placement: CalibratedPlacement, name: str) -> str:
    if name not in placement.versus:
        return ""
    got, games = placement.versus[name]
    p, low, high = wilson(got, games, placement.fit.level)
    return f"{got:g}/{games} = {100 * p:.0f} % ({100 * low:.0f}-{100 * high:.0f})"
