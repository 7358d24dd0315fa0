"""The observation page and schemas hold, and the events replay.

* docs/observation.md is exactly what ``python -m tests.observation_doc`` generates (so its tables
  follow the schemas and its examples the engines);
* every observation of random games of every variant matches its schema (no key missing, none
  undeclared, every value of its type) and every declared key shows up in some observation;
* events replay: from a seat's observation at one decision, that decision and the events of its
  next observation rebuild the public state of that next observation. "Public state" is the
  observation without what only that seat knows: Battle Line drops the hand, what the seat knows
  of other hands and who knows its own (``hand``, ``opponent_known``, ``known_by_opponent``,
  ``known_in_hands``, ``known_by``) and keeps of ``deck_tops`` only how many returned cards lie
  on each deck; War Chest drops the seat's ``hand`` and ``facedown`` and the coin of a pending
  Warrior Priest draw. The replay starts from a state sampled from the earlier observation and
  applies each event's action: when a hidden part (a card or coin) must be chosen, it takes one
  whose public form is the event, and when the sampled deal put elsewhere a card the event shows
  in a hand, it swaps it in (the deal was a guess; the event is knowledge);
* no event leaks: every seat reads the same public log (each from its own last decision on), and
  an event never names a card put back by Scout nor a coin paid face down.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from games import registry
from games.battleline.cards import ALL_TROOPS, CARD_IDS, CARD_NAMES, NUM_TROOPS
from games.battleline.notation import KIND_CARD, PLAY, parse
from games.battleline.state import BattleLineState
from games.protocol import JSON, State
from games.warchest.state import WarChestState
from games.warchest.units import COIN_BY_NAME, NUM_COINS
from tests.observation_doc import PAGE, SCHEMAS, fields, page, problems
from tests.warchest.builder import position

BL_VARIANTS = [
    {"rules": r} for r in ("standard", "no-tactics", "advanced", "schotten-totten")
] + [{"players": "3", "rules": r} for r in ("standard", "no-tactics", "advanced")]
WC_VARIANTS = [
    {}, {"setup": "first-game"}, {"setup": "draft"}, {"royal-guard": "original"},
    {"players": "4"}, {"players": "4", "royal-guard": "original"},
]
CASES = [("battleline", v) for v in BL_VARIANTS] + [("warchest", v) for v in WC_VARIANTS]


def test_the_page_is_generated_from_the_schemas_and_real_games() -> None:
    assert PAGE.read_text() == page(), (
        "docs/observation.md is out of date: regenerate it with `make docs` "
        "(python -m tests.observation_doc) and review the diff")


def _random_games(name: str, variant: dict[str, str], seeds: range) -> Iterator[State]:
    game = registry.get(name)
    for seed in seeds:
        state = game.new_game(seed, **game.info.resolve_variant(variant))
        rng = random.Random(seed)
        yield state
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
            yield state


def _declared(schema: type, out: set[tuple[str, str]]) -> set[tuple[str, str]]:
    from tests.observation_doc import _nested

    for td in _nested(schema, []):
        out |= {(td.__name__, key) for key, _, _, _ in fields(td)}
    return out


def _present(value: Any, schema: type, out: set[tuple[str, str]]) -> None:
    """Record (TypedDict, key) for every key present in ``value`` (nested objects included)."""
    from typing import get_args

    from tests.observation_doc import _is_typeddict

    def walk(v: Any, tp: Any) -> None:
        if _is_typeddict(tp):
            if isinstance(v, dict):
                for key, sub, _, _ in fields(tp):
                    if key in v:
                        out.add((tp.__name__, key))
                        walk(v[key], sub)
            return
        for arg in get_args(tp):
            if isinstance(v, list):
                for item in v:
                    walk(item, arg)
            else:
                walk(v, arg)
    walk(value, schema)


@pytest.mark.parametrize("game_name", ["battleline", "warchest"])
def test_every_observation_matches_its_schema_and_every_key_appears(game_name: str) -> None:
    schema = next(s for _, n, s in SCHEMAS if n == game_name)
    seen: set[tuple[str, str]] = set()
    for name, variant in CASES:
        if name != game_name:
            continue
        for state in _random_games(name, variant, range(2)):
            for seat in range(state.num_players):
                if not state.is_terminal() and (len(state.history) % 3 or (
                        seat != state.current_player and len(state.history) % 15)):
                    continue  # every third decision, every seat every 15th and at the end
                obs = state.observation(seat)
                assert problems(obs, schema) == [], (variant, state.history)
                _present(obs, schema, seen)
    if game_name == "warchest":  # the rare keys: a Warrior Priest's coin, a Royal Guard's soak
        s = position("warrior-priest@f4:0 royal-guard@g4:1",
                     hands={0: "warrior-priest", 1: "royal"}, bags={0: "knight"},
                     supply={1: "royal-guard"})
        s.apply("warrior-priest f4 attack g4")
        for seat in (0, 1):
            obs = s.observation(seat)
            assert problems(obs, schema) == []
            _present(obs, schema, seen)
    missing = _declared(schema, set()) - seen
    assert not missing, f"declared in the schema but never in an observation: {sorted(missing)}"


def test_the_schema_checker_catches_a_missing_an_extra_and_a_mistyped_key() -> None:
    schema = SCHEMAS[0][2]
    obs = registry.get("battleline").new_game(1).observation(0)
    assert problems(obs, schema) == []
    broken = dict(obs, extra=1, seat="0")
    del broken["hand"]
    found = " / ".join(problems(broken, schema))
    assert "'extra' is not in the schema" in found
    assert "'hand' of BattleLineObservation is missing" in found
    assert "observation.seat: '0' is not int" in found


# ---------------------------------------------------------------------- replaying the events

def public_action(game: str, action: str) -> str:
    """What every seat sees of an action (written here from the rules pages, not the engine)."""
    head, _, rest = action.partition(" ")
    if game == "battleline" and head == "scout-return":
        return f"scout-return {'troops' if CARD_IDS[rest] < NUM_TROOPS else 'tactics'}"
    if game == "warchest" and rest.split(" ")[0] in ("initiative", "recruit", "pass"):
        return f"? {rest}"
    return action


def public_state(obs: JSON) -> JSON:
    """An observation without what only its seat knows (see the module docstring)."""
    out = dict(obs)
    if obs["game"] == "battleline":
        for key in ("hand", "opponent_known", "known_by_opponent", "known_in_hands", "known_by"):
            out.pop(key, None)
        out["deck_tops"] = {d: len(t) for d, t in obs["deck_tops"].items()}
    else:
        out.pop("hand")
        out.pop("facedown")
        out["pending"] = [{**f, "coin": None} if "coin" in f else f for f in obs["pending"]]
    return out


def _bl_needs(action: str) -> int:
    """The card a Battle Line action takes from the hand of the seat playing it, or -1."""
    kind, card, _ = parse(action)
    if kind == PLAY:
        return card
    return KIND_CARD.get(kind, -1)


def _bl_swap_in(s: BattleLineState, seat: int, card: int, rng: random.Random) -> None:
    """Put ``card`` into ``seat``'s hand, giving in exchange a card of the same kind that nobody
    knows there (the sampled deal guessed; the event says where the card was)."""
    bit = 1 << card
    if s.hands[seat] & bit:
        return
    kind = ALL_TROOPS if card < NUM_TROOPS else ~ALL_TROOPS
    known = 0
    for k in s.known:
        known |= k
    spare = [c for c in range(len(CARD_NAMES))
             if s.hands[seat] >> c & 1 and (1 << c) & kind and not known >> c & 1]
    give = rng.choice(spare)
    s.hands[seat] ^= bit | 1 << give
    for h in range(s.n):
        if h != seat and s.hands[h] & bit:
            s.hands[h] ^= bit | 1 << give
            return
    for d in (0, 1):
        if card in s.decks[d]:
            s.decks[d][s.decks[d].index(card)] = give
            for top in s.tops[d]:
                if top[0] == card:
                    top[0] = give
            return
    raise AssertionError(f"card {CARD_NAMES[card]} is nowhere to swap from")


def _wc_swap_in(s: WarChestState, seat: int, coin: int, rng: random.Random) -> None:
    """Put a ``coin`` into ``seat``'s hand from its bag or face-down pile (both hidden), giving
    back a random coin of the hand (a pending Warrior Priest draw becomes that coin)."""
    if s.pending and s.pending[-1][0] == "use" and s.pending[-1][1] == seat:
        s.pending[-1] = ("use", seat, coin)
        s._legal = None
    if s.hand[seat][coin]:
        return
    pile = s.bag[seat] if s.bag[seat][coin] else s.facedown[seat]
    assert pile[coin], "the coin is not in that seat's pool"
    give = rng.choice([c for c in range(NUM_COINS) if s.hand[seat][c]])
    pile[coin] -= 1
    pile[give] += 1
    s.hand[seat][give] -= 1
    s.hand[seat][coin] += 1
    s._legal = None


def _replay_event(game: str, s: State, event: JSON, rng: random.Random) -> None:
    seat, action = int(event["seat"]), str(event["action"])
    assert s.current_player == seat, f"{event} comes when seat {s.current_player} is to decide"
    if game == "battleline":
        assert isinstance(s, BattleLineState)
        if not action.startswith("scout-return"):
            card = _bl_needs(action)
            if card >= 0:
                _bl_swap_in(s, seat, card, rng)
                s._legal = None
    elif action.split(" ")[0] in COIN_BY_NAME:
        assert isinstance(s, WarChestState)
        _wc_swap_in(s, seat, COIN_BY_NAME[action.split(" ")[0]], rng)
    choices = [a for a in s.legal_actions() if public_action(game, a) == action]
    if not choices and game == "warchest":  # a face-down payment the sampled hand cannot make
        assert isinstance(s, WarChestState)
        for coin in range(NUM_COINS):
            if s.bag[seat][coin] + s.facedown[seat][coin]:
                _wc_swap_in(s, seat, coin, rng)
                choices = [a for a in s.legal_actions() if public_action(game, a) == action]
                if choices:
                    break
    assert choices, f"no legal action of seat {seat} reads {action!r}"
    s.apply(rng.choice(choices))


@pytest.mark.parametrize(("name", "variant"), CASES, ids=lambda v: str(v))
def test_the_events_replay_onto_the_previous_observation(name: str,
                                                         variant: dict[str, str]) -> None:
    game = registry.get(name)
    rng = random.Random(7)
    checked = 0
    for seed in range(4 if name == "battleline" else 2):  # a War Chest game: ~900 decisions
        state = game.new_game(seed, **game.info.resolve_variant(variant))
        play = random.Random(seed)
        last: dict[int, tuple[JSON, str]] = {}
        while True:
            seat = state.current_player
            seats = [seat] if seat >= 0 else list(last)
            for s in seats:
                obs = state.observation(s)
                if s in last:
                    before, action = last[s]
                    world = game.sample_state(before, rng)
                    world.apply(action)
                    for event in obs["events"]:
                        if not event["auto"]:
                            _replay_event(name, world, event, rng)
                    again = world.observation(s)
                    assert again["events"] == obs["events"], (seed, state.history)
                    assert public_state(again) == public_state(obs), (seed, state.history)
                    checked += 1
            if seat < 0:
                break
            action = play.choice(state.legal_actions())
            last[seat] = (state.observation(seat), action)
            state.apply(action)
    assert checked > 100


def test_every_seat_reads_the_same_public_log_and_nothing_hidden() -> None:
    for name, variant in CASES:
        for state in _random_games(name, variant, range(2)):
            logs = [state.observation(s)["events"] for s in range(state.num_players)]
            longest = max(logs, key=len)
            for events in logs:  # each seat's events end the one public log
                assert events == longest[len(longest) - len(events):]
            for e in longest:
                words = str(e["action"]).split(" ")
                if words[0] == "scout-return":
                    assert words[1:] in (["troops"], ["tactics"]), e
                if name == "warchest" and len(words) > 1 and words[1] in (
                        "initiative", "recruit", "pass"):
                    assert words[0] == "?", e
