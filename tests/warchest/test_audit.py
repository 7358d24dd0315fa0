"""Rules audit: scenario tests pinning rules and rulings of the spec not pinned elsewhere.

Each test names the rule it pins (spec: /work/shared/rules/warchest.md, project page:
docs/rules/warchest.md). Hex names: ``f4`` is the centre (0,0); letter = q, digit = r.
"""

from __future__ import annotations

import random

import pytest

from games.protocol import IllegalAction, InvalidAction
from games.warchest.ops import Frame, frame_from_ints
from games.warchest.state import WarChestState
from games.warchest.units import COIN_BY_NAME, UNIT_BY_NAME
from tests.warchest.builder import position, unit_at


def legal_with(s: WarChestState, prefix: str) -> set[str]:
    return {a for a in s.legal_actions() if a.startswith(prefix)}


def box(s: WarChestState, seat: int, unit: str) -> int:
    return s.box[seat][UNIT_BY_NAME[unit]]


# --- Footman tactic: each Footman unit maneuvers once --------------------------------------

def test_footman_tactic_second_footman_may_use_the_hex_the_first_one_left() -> None:
    # i1's neighbours are h1, h2 and i2, all occupied by seat 0: that Footman can do nothing
    # until the Footman on h2 moves away; it must still get its maneuver then.
    s = position("footman@h2:0 footman@i1:0 knight@h1:0 archer@i2:0",
                 hands={0: "footman", 1: "royal"})
    s.apply("footman tactic")
    s.apply("free h2 move g2")
    assert s.current_player == 0
    assert "free i1 move h2" in s.legal_actions()
    s.apply("free i1 move h2")
    assert unit_at(s, "h2") == ("footman", 0, 1) and s.current_player == 1


def test_footman_tactic_asks_nothing_of_a_footman_left_without_a_maneuver() -> None:
    # The Footman on i1 can only move to h1 (h2 and i2 are taken); the Footman on g1 takes h1,
    # so no pointless stop-only decision is asked and the turn passes.
    s = position("footman@g1:0 footman@i1:0 knight@h2:0 archer@i2:0",
                 hands={0: "footman", 1: "royal"})
    s.apply("footman tactic")
    assert "free i1 move h1" in s.legal_actions()
    s.apply("free g1 move h1")
    assert s.current_player == 1 and not s.pending
    assert "stop" not in s.legal_actions()


# --- Marshall-granted attacks carry the attacker's attributes ------------------------------

def test_swordsman_moves_after_a_marshall_granted_attack() -> None:
    s = position("marshall@f4:0 swordsman@g4:0 scout@h4:1", hands={0: "marshall", 1: "royal"})
    s.apply("marshall f4 tactic g4 h4")
    assert unit_at(s, "h4") is None
    assert "free g4 move h4" in s.legal_actions()
    s.apply("free g4 move h4")
    assert unit_at(s, "h4") == ("swordsman", 0, 1) and s.current_player == 1


def test_warrior_priest_draws_after_a_marshall_granted_attack_and_uses_it_at_once() -> None:
    s = position("marshall@f4:0 warrior-priest@g4:0 scout@h4:1x2",
                 hands={0: "marshall", 1: "royal"}, bags={0: "warrior-priest"})
    s.apply("marshall f4 tactic g4 h4")
    assert s.current_player == 0
    legal = s.legal_actions()
    assert legal and all(a.startswith("warrior-priest ") for a in legal)
    assert "warrior-priest g4 attack h4" in legal and "warrior-priest pass" in legal


def test_berserker_repeats_after_a_marshall_granted_attack() -> None:
    s = position("marshall@f4:0 berserker@g4:0x3 scout@h4:1x2",
                 hands={0: "marshall", 1: "royal"})
    s.apply("marshall f4 tactic g4 h4")
    assert "repeat g4 attack h4" in s.legal_actions()
    s.apply("repeat g4 attack h4")
    assert unit_at(s, "h4") is None and unit_at(s, "g4") == ("berserker", 0, 2)
    assert s.faceup[0][UNIT_BY_NAME["berserker"]] == 1


def test_knight_is_safe_from_a_marshall_granted_attack_by_an_unbolstered_unit() -> None:
    s = position("marshall@f4:0 swordsman@g4:0 knight@h4:1", hands={0: "marshall", 1: "royal"})
    assert not legal_with(s, "marshall f4 tactic")
    s = position("marshall@f4:0 swordsman@g4:0x2 knight@h4:1",
                 hands={0: "marshall", 1: "royal"})
    assert legal_with(s, "marshall f4 tactic") == {"marshall f4 tactic g4 h4"}


def test_marshall_granted_attack_on_a_pikeman_costs_the_attacker_not_the_marshall() -> None:
    s = position("marshall@f4:0 swordsman@g4:0x2 pikeman@h4:1x2",
                 hands={0: "marshall", 1: "royal"})
    s.apply("marshall f4 tactic g4 h4")
    assert unit_at(s, "h4") == ("pikeman", 1, 1)
    assert unit_at(s, "g4") == ("swordsman", 0, 1)
    assert unit_at(s, "f4") == ("marshall", 0, 1)
    assert box(s, 0, "swordsman") == 1


# --- Pikeman counter-loss by kind of attack ------------------------------------------------

def test_cavalry_charge_into_a_pikeman_costs_the_cavalry_a_coin() -> None:
    s = position("cavalry@f4:0x2 pikeman@h4:1x2", hands={0: "cavalry", 1: "royal"})
    s.apply("cavalry f4 tactic g4 h4")
    assert unit_at(s, "g4") == ("cavalry", 0, 1)
    assert unit_at(s, "h4") == ("pikeman", 1, 1)
    assert box(s, 0, "cavalry") == 1 and box(s, 1, "pikeman") == 1


def test_crossbowman_adjacent_attack_on_a_pikeman_counters_its_ranged_attack_does_not() -> None:
    s = position("crossbowman@f4:0x2 pikeman@g4:1x2", hands={0: "crossbowman", 1: "royal"})
    s.apply("crossbowman f4 attack g4")
    assert unit_at(s, "f4") == ("crossbowman", 0, 1)
    s = position("crossbowman@f4:0x2 pikeman@h4:1x2", hands={0: "crossbowman", 1: "royal"})
    s.apply("crossbowman f4 tactic h4")
    assert unit_at(s, "f4") == ("crossbowman", 0, 2)
    assert unit_at(s, "h4") == ("pikeman", 1, 1)


def test_knight_needs_a_bolstered_lancer_or_cavalry() -> None:
    s = position("lancer@f4:0 cavalry@f6:0 knight@i4:1", hands={0: "lancer cavalry", 1: "royal"})
    assert not legal_with(s, "lancer f4 tactic") and not legal_with(s, "cavalry f6 tactic")
    s = position("lancer@f4:0x2 knight@i4:1", hands={0: "lancer", 1: "royal"})
    assert legal_with(s, "lancer f4 tactic") == {"lancer f4 tactic h4 i4"}


# --- Berserker ------------------------------------------------------------------------------

def test_berserker_never_pays_its_last_coin() -> None:
    s = position("berserker@f4:0", hands={0: "berserker", 1: "royal"})
    s.apply("berserker f4 move f5")
    assert not s.pending and s.current_player == 1


def test_berserker_control_that_wins_ends_the_game_without_a_repeat() -> None:
    control = {"e2": 0, "h1": 0, "g3": 0, "i2": 0, "h4": 0, "d7": 1, "g6": 1}
    s = position("berserker@d4:0x3", hands={0: "berserker", 1: "royal"}, control=control)
    s.apply("berserker d4 control")
    assert s.winner == 0 and s.is_terminal() and not s.pending
    assert s.legal_actions() == []


# --- Ensign, Light Cavalry, Royal Guard movement ------------------------------------------

def test_ensign_moves_only_friends_within_two_to_hexes_within_two() -> None:
    s = position("ensign@f4:0 swordsman@h4:0 scout@i4:0", hands={0: "ensign", 1: "royal"})
    moves = legal_with(s, "ensign f4 tactic")
    assert {"ensign f4 tactic h4 h3", "ensign f4 tactic h4 g4", "ensign f4 tactic h4 g5"} <= moves
    assert "ensign f4 tactic h4 h5" not in moves  # h5 is 3 from the Ensign
    assert not any(m.startswith("ensign f4 tactic i4") for m in moves)  # i4 is 3 away
    assert not any(m.startswith("ensign f4 tactic f4") for m in moves)


def test_light_cavalry_path_may_bend_but_not_pass_through_a_unit() -> None:
    s = position("light-cavalry@i1:0 scout@h2:1", hands={0: "light-cavalry", 1: "royal"})
    dests = {a.split()[-1] for a in legal_with(s, "light-cavalry i1 tactic")}
    # exactly 2 away (h1 and i2 are the plain move); g2 by a bend via h1; not g3
    assert dests == {"g1", "g2", "h3", "i3"}


def test_royal_guard_tactic_cannot_pass_a_unit_nor_end_on_an_occupied_location() -> None:
    control = {"e2": 0, "h1": 0, "d4": 0, "e5": 0, "d7": 1, "g6": 1}
    s = position("royal-guard@f4:0 scout@e4:1 archer@e5:0", hands={0: "royal", 1: "royal"},
                 control=control)
    assert not legal_with(s, "royal f4 tactic")  # d4 only via e4 (taken); e5 occupied
    s = position("royal-guard@f4:0 archer@e5:0", hands={0: "royal", 1: "royal"},
                 control=control)
    assert legal_with(s, "royal f4 tactic") == {"royal f4 tactic d4"}


# --- coins and actions ----------------------------------------------------------------------

def test_royal_coin_pays_only_initiative_recruit_and_pass() -> None:
    s = position("archer@f4:0", hands={0: "royal", 1: "royal"}, supply={0: "archer"},
                 initiative=1)
    assert s.legal_actions() == ["royal initiative", "royal pass", "royal recruit archer"]
    with pytest.raises(InvalidAction):
        s.apply("royal recruit royal")  # the Royal Coin is no unit: not even well-formed
    s.apply("royal recruit archer")
    assert s.facedown[0][COIN_BY_NAME["royal"]] == 1
    assert s.faceup[0][UNIT_BY_NAME["archer"]] == 1 and s.supply[0][UNIT_BY_NAME["archer"]] == 0


def test_deploy_only_onto_an_empty_location_your_side_controls() -> None:
    s = position("knight@h1:0", hands={0: "archer", 1: "royal"}, control={
        "e2": 0, "h1": 0, "d4": 0, "d7": 1, "g6": 1})
    assert legal_with(s, "archer deploy") == {"archer deploy e2", "archer deploy d4"}
    for where in ("h1", "d7", "g3"):  # occupied, enemy, neutral
        with pytest.raises(IllegalAction):
            s.apply(f"archer deploy {where}")


def test_attack_boxes_a_coin_and_a_removed_unit_may_be_deployed_again() -> None:
    s = position("swordsman@f4:0x2 archer@g4:1", hands={0: "swordsman", 1: "archer"})
    s.apply("swordsman f4 attack g4")
    assert unit_at(s, "g4") is None and box(s, 1, "archer") == 1
    s.apply("stop")  # the Swordsman's optional move
    assert s.current_player == 1
    assert "archer deploy d7" in s.legal_actions()
    s.apply("archer deploy d7")
    assert unit_at(s, "d7") == ("archer", 1, 1)


def test_short_bag_and_discards_draw_what_there_is() -> None:
    s = position("", hands={0: "royal", 1: "royal"}, bags={0: "archer"}, cards={1: "knight"})
    s.apply("royal pass")
    s.apply("royal pass")
    assert s.round == 2
    assert s.hand[0][UNIT_BY_NAME["archer"]] == 1 and s.hand[0][COIN_BY_NAME["royal"]] == 1
    assert sum(s.hand[0]) == 2 and sum(s.hand[1]) == 1
    assert sum(s.facedown[0]) == sum(s.facedown[1]) == 0


# --- four players -----------------------------------------------------------------------------

def test_four_players_teammates_share_locations_but_not_initiative_or_recruits() -> None:
    s = position("knight@f4:2", players=4, hands={0: "archer", 1: "royal", 2: "royal"},
                 supply={2: "knight"}, control={"e2": 0, "h1": 0, "b5": 0, "d4": 0,
                                                "d7": 1, "g6": 1, "j3": 1},
                 initiative=2)
    legal = s.legal_actions()
    deploys = {a for a in legal if " deploy " in a}
    assert deploys == {"archer deploy e2", "archer deploy h1", "archer deploy b5",
                       "archer deploy d4"}
    assert "archer initiative" not in legal  # the teammate holds it
    assert not any(" recruit " in a for a in legal)  # seat 0 plays no Knight
    assert not any(a.startswith("archer f4") for a in legal)  # not the teammate's unit
    with pytest.raises(IllegalAction):
        s.apply("archer recruit knight")



def test_four_players_initiative_changes_hands_once_and_its_taker_starts_next_round() -> None:
    s = position("", players=4, hands={0: "royal", 1: "royal", 2: "royal", 3: "royal"},
                 initiative=0)
    assert "royal initiative" not in s.legal_actions()  # seat 0 holds it
    s.apply("royal pass")
    s.apply("royal initiative")  # seat 1 takes it from the other team
    assert s.initiative == 1
    assert "royal initiative" not in s.legal_actions()  # seat 2: it already changed hands
    s.apply("royal pass")
    assert "royal initiative" not in s.legal_actions()  # seat 3: its team holds it
    s.apply("royal pass")
    assert s.round == 2 and s.current_player == 1  # the taker starts the next round
    assert "royal initiative" not in s.legal_actions()
    s.apply("royal pass")
    assert "royal initiative" in s.legal_actions()  # seat 2, a new round


# --- information ------------------------------------------------------------------------------

def test_a_recruit_shows_the_recruited_coin_but_not_the_coin_paid_face_down() -> None:
    def after_recruit(paid: str) -> WarChestState:
        s = position("", hands={0: "archer royal", 1: "royal"}, supply={0: "knight"},
                     cards={0: "archer knight"})
        s.apply(f"{paid} recruit knight")
        return s

    a, b = after_recruit("archer"), after_recruit("royal")
    obs_a, obs_b = a.observation(1), b.observation(1)
    assert obs_a["faceup"][0] == {"knight": 1} and obs_a["facedown_count"][0] == 1
    assert obs_a == obs_b  # seat 1 cannot tell which coin paid
    assert a.observation(0)["facedown"] == {"archer": 1}
    assert b.observation(0)["facedown"] == {"royal": 1}


def test_four_players_a_teammates_hand_is_hidden_too() -> None:
    a = position("", players=4, hands={0: "royal", 1: "royal", 2: "archer", 3: "royal"},
                 bags={2: "knight"}, cards={2: "archer knight"})
    b = position("", players=4, hands={0: "royal", 1: "royal", 2: "knight", 3: "royal"},
                 bags={2: "archer"}, cards={2: "archer knight"})
    assert a.observation(0) == b.observation(0)
    assert a.observation(2)["hand"] == {"archer": 1} and b.observation(2)["hand"] == {"knight": 1}


# --- board symmetry through the rules --------------------------------------------------------

def _half_turn(s: WarChestState) -> WarChestState:
    """The position turned 180° with the two seats (and factions) swapped (2 players)."""
    b = s.board
    rot = [b.index[(-q, -r)] for (q, r) in b.coords]
    t = s.clone()
    for name in ("cell_unit", "cell_h"):
        src, dst = getattr(s, name), getattr(t, name)
        for h in range(b.size):
            dst[rot[h]] = src[h]
    for h in range(b.size):
        t.cell_owner[rot[h]] = 1 - s.cell_owner[h] if s.cell_owner[h] >= 0 else -1
        t.ctrl[rot[h]] = 1 - s.ctrl[h] if s.ctrl[h] >= 0 else -1
    t.reindex()
    for name in ("cards", "bag", "hand", "faceup", "facedown", "supply", "box"):
        rows = getattr(s, name)
        setattr(t, name, [list(rows[1]), list(rows[0])])
    t.turn, t.initiative = 1 - s.turn, 1 - s.initiative
    frames: list[Frame] = []
    for f in s.pending:
        kind, seat, rest = f[0], f[1], list(f[2:])
        if kind == "use":
            frames.append(frame_from_ints(kind, 1 - seat, rest))
        elif kind == "guard":
            frames.append(frame_from_ints(kind, 1 - seat, [rot[rest[0]], rot[rest[1]], rest[2]]))
        else:
            frames.append(frame_from_ints(kind, 1 - seat, [rot[h] for h in rest]))
    t.pending = frames
    t._legal = None
    return t


def _turn_action(s: WarChestState, action: str) -> str:
    b = s.board
    return " ".join(
        b.name[b.index[(-b.coords[b.by_name[tok]][0], -b.coords[b.by_name[tok]][1])]]
        if tok in b.by_name else tok
        for tok in action.split()
    )


@pytest.mark.parametrize("seed", [3, 11])
def test_rules_are_symmetric_under_a_half_turn_with_seats_swapped(seed: int) -> None:
    from games.warchest import GAME

    s = GAME.new_game(seed)
    rng = random.Random(seed)
    while not s.is_terminal() and s.decisions < 400:
        legal = s.legal_actions()
        turned = _half_turn(s)
        assert turned.current_player == 1 - s.current_player
        assert sorted(_turn_action(s, a) for a in legal) == turned.legal_actions()
        s.apply(rng.choice(legal))


# --- an independent reference for legal actions ---------------------------------------------
# Written from the spec alone (board from the listed coordinates, rules from the unit table),
# so it shares no table or hook with the engine.

_DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
_OUTER = {(-4, 1), (-4, 2), (-4, 3), (-5, 2), (-5, 3), (4, -3), (4, -2), (4, -1), (5, -3),
          (5, -2)}
_LOCS2 = {(-1, -2), (2, -3), (-2, 3), (1, 2), (-2, 0), (1, -1), (3, -2), (-3, 2), (-1, 1), (2, 0)}
_LOCS4 = _LOCS2 | {(-4, 1), (4, -1), (-5, 3), (5, -3)}


def _dist(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def _name(h: tuple[int, int]) -> str:
    return f"{chr(ord('a') + h[0] + 5)}{h[1] + 4}"


def _reference_actions(s: WarChestState, seat: int = -1, only: int = -1) -> set[str]:
    """Every action of an ordinary turn of ``seat`` (default: the turn), from the spec.

    ``only``: just the actions paid with that coin (a Warrior Priest's drawn coin).
    """
    from games.warchest.units import COIN_NAMES, UNITS

    hexes = {(q, r) for q in range(-3, 4) for r in range(-3, 4) if _dist((q, r), (0, 0)) <= 3}
    if s.n == 4:
        hexes |= _OUTER
    locs = _LOCS4 if s.n == 4 else _LOCS2
    coords = s.board.coords
    units = {coords[h]: (UNITS[t].name, o, k) for h, t, o, k in s.iter_units()}
    ctrl = {coords[h]: s.ctrl[h] for h in s.board.locations}
    seat = s.turn if seat < 0 else seat
    team = seat % 2

    def empty(h: tuple[int, int]) -> bool:
        return h in hexes and h not in units

    def side(h: tuple[int, int]) -> int:
        return units[h][1] % 2 if h in units else -1

    def hittable(height: int, h: tuple[int, int]) -> bool:
        return side(h) == 1 - team and (height >= 2 or units[h][0] != "knight")

    def nbrs(h: tuple[int, int]) -> list[tuple[int, int]]:
        return [(h[0] + dq, h[1] + dr) for dq, dr in _DIRS if (h[0] + dq, h[1] + dr) in hexes]

    def reach2(p: tuple[int, int]) -> set[tuple[int, int]]:
        one = {m for m in nbrs(p) if empty(m)}
        return (one | {d for m in one for d in nbrs(m) if empty(d)}) - {p}

    def can_maneuver(p: tuple[int, int]) -> bool:
        """A move, control or attack (Footman tactic: mandatory for each one that can)."""
        return (any(empty(m) for m in nbrs(p)) or (p in locs and ctrl[p] != team)
                or any(hittable(units[p][2], t) for t in nbrs(p)))

    cards = [UNITS[t].name for t in s.cards[seat]]
    out: set[str] = set()
    for c, count in enumerate(s.hand[seat]):
        if not count or only not in (-1, c):
            continue
        coin = COIN_NAMES[c]
        if s.initiative % 2 != team and not s.init_changed:
            out.add(f"{coin} initiative")
        out.add(f"{coin} pass")
        out |= {f"{coin} recruit {u}" for u in cards if s.supply[seat][UNIT_BY_NAME[u]]}
        if coin == "royal":
            for p, (u, o, _k) in units.items():
                if u == "royal-guard" and o == seat:
                    if s.rg_original:
                        dests = {m for m in nbrs(p) if empty(m)}
                    else:
                        dests = {d for d in reach2(p) if d in locs and ctrl[d] == team}
                    out |= {f"royal {_name(p)} tactic {_name(d)}" for d in dests}
            continue
        mine = [p for p, (u, o, _k) in units.items() if u == coin and o == seat]
        if len(mine) < (2 if coin == "footman" else 1):
            out |= {f"{coin} deploy {_name(h)}" for h in locs if empty(h) and ctrl[h] == team}
            if coin == "scout":
                out |= {f"{coin} deploy {_name(h)}" for h in hexes
                        if empty(h) and any(side(x) == team for x in nbrs(h))}
        for p in mine:
            k = units[p][2]
            pre = f"{coin} {_name(p)}"
            out.add(f"{coin} bolster {_name(p)}")
            out |= {f"{pre} move {_name(m)}" for m in nbrs(p) if empty(m)}
            if p in locs and ctrl[p] != team:
                out.add(f"{pre} control")
            if coin not in ("archer", "lancer"):
                out |= {f"{pre} attack {_name(t)}" for t in nbrs(p) if hittable(k, t)}
            tac = f"{pre} tactic"
            if coin == "archer":
                out |= {f"{tac} {_name(t)}" for t in hexes if _dist(p, t) == 2 and hittable(k, t)}
            elif coin == "cavalry":
                out |= {f"{tac} {_name(m)} {_name(t)}" for m in nbrs(p) if empty(m)
                        for t in nbrs(m) if hittable(k, t)}
            elif coin == "crossbowman":
                for dq, dr in _DIRS:
                    m, t = (p[0] + dq, p[1] + dr), (p[0] + 2 * dq, p[1] + 2 * dr)
                    if empty(m) and t in hexes and hittable(k, t):
                        out.add(f"{tac} {_name(t)}")
            elif coin == "lancer":
                for dq, dr in _DIRS:
                    for n in (1, 2):
                        path = [(p[0] + i * dq, p[1] + i * dr) for i in range(1, n + 1)]
                        t = (p[0] + (n + 1) * dq, p[1] + (n + 1) * dr)
                        if all(empty(x) for x in path) and t in hexes and hittable(k, t):
                            out.add(f"{tac} {_name(path[-1])} {_name(t)}")
            elif coin == "light-cavalry":
                out |= {f"{tac} {_name(d)}" for d in reach2(p) if _dist(p, d) == 2}
            elif coin == "footman" and any(can_maneuver(f) for f in mine):
                out.add(f"{coin} tactic")  # one string, whichever Footman units act
            elif coin in ("ensign", "marshall"):
                for f in units:
                    if side(f) != team or not 1 <= _dist(p, f) <= 2:
                        continue
                    if coin == "ensign":
                        out |= {f"{tac} {_name(f)} {_name(d)}" for d in nbrs(f)
                                if empty(d) and _dist(p, d) <= 2}
                    elif units[f][0] not in ("archer", "lancer"):
                        out |= {f"{tac} {_name(f)} {_name(t)}" for t in nbrs(f)
                                if hittable(units[f][2], t)}
    return out


def _reference_frame_actions(s: WarChestState) -> set[str]:
    """The decisions the pending effect on top offers, from the spec."""
    from games.warchest.units import UNITS

    kind, seat, *args = s.pending[-1]
    if kind == "use":
        return _reference_actions(s, seat, args[0])
    if kind == "guard":
        return {"guard supply", "guard unit"}
    coords = s.board.coords
    out = set() if kind == "footman" else {"stop"}  # every Footman that can must maneuver
    for h in args[:1] if kind in ("repeat", "sword") else args:
        if s.cell_owner[h] != seat:
            continue
        p, unit = coords[h], UNITS[s.cell_unit[h]].name
        height = s.cell_h[h] - (kind == "repeat")
        if height < 1:
            continue
        hexes = {(q, r) for q in range(-5, 6) for r in range(-3, 4) if s.board.index.get((q, r),
                                                                                        -1) >= 0}
        occupied = {coords[x] for x, *_ in s.iter_units()}
        pre = f"{'repeat' if kind == 'repeat' else 'free'} {_name(p)}"
        nbrs = [(p[0] + dq, p[1] + dr) for dq, dr in _DIRS if (p[0] + dq, p[1] + dr) in hexes]
        out |= {f"{pre} move {_name(m)}" for m in nbrs if m not in occupied}
        if kind == "sword":
            continue
        locs = _LOCS4 if s.n == 4 else _LOCS2
        if p in locs and s.ctrl[h] != seat % 2:
            out.add(f"{pre} control")
        if unit not in ("archer", "lancer"):
            for m in nbrs:
                x = s.board.index[m]
                if s.cell_unit[x] >= 0 and s.cell_owner[x] % 2 != seat % 2 and (
                        height >= 2 or UNITS[s.cell_unit[x]].name != "knight"):
                    out.add(f"{pre} attack {_name(m)}")
    return out


@pytest.mark.parametrize("variant", [{}, {"players": "4"}, {"royal-guard": "original"}],
                         ids=["2p", "4p", "rg-original"])
def test_legal_actions_match_a_reference_written_from_the_spec(variant: dict[str, str]) -> None:
    from games.warchest import GAME

    checked = 0
    for seed in range(6):
        s = GAME.new_game(seed, **variant)
        rng = random.Random(seed)
        while not s.is_terminal() and s.decisions < 300:
            legal = s.legal_actions()
            expected = _reference_frame_actions(s) if s.pending else _reference_actions(s)
            assert set(legal) == expected, s.history
            checked += 1
            s.apply(rng.choice(legal))
    assert checked > 500
