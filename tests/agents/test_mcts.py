"""The ``mcts`` search bot: legal in every game, stops in time, plays for its team, beats random.

Strength against ``greedy`` and the scaling figures are measured outside the tests (README,
``python -m bench.mcts duel``); these tests use fixed seeds and fixed iteration budgets,
so they are deterministic and independent of the machine's speed.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agents.mcts as mcts
from agents import battleline_value
from agents.mcts import MctsBot, parse_options
from agents.random import RandomBot
from games import registry
from games.battleline.state import BattleLineState
from harness.bots.runner import load_bot_file
from tests.harness import toygame
from tests.patience import patience

AGENTS = Path(mcts.__file__).resolve().parent


@pytest.fixture
def toy() -> Iterator[str]:
    """A game with no mcts hooks and a three-player variant: the bot must work unchanged."""
    registry.register_game(toygame.GAME)
    yield toygame.INFO.name
    registry.unregister(toygame.INFO.name)


def _variants(name: str) -> list[dict[str, str]]:
    """Every combination of a game's variant choices that the game accepts."""
    info = registry.get(name).info
    keys = [v.key for v in info.variants]
    out = []
    for values in itertools.product(*(v.choices for v in info.variants)):
        variant = dict(zip(keys, values, strict=True))
        try:
            registry.get(name).new_game(0, **variant)
        except ValueError:
            continue  # e.g. the War Chest draft is 2-player only
        out.append(variant)
    return out


def play(game: str, variant: dict[str, str], seed: int, bots: list[Any],
         cap: int | None = None) -> list[float]:
    """Play bots against each other, checking that every answer is legal; final returns."""
    state = registry.get(game).new_game(seed, **variant)
    for seat, bot in enumerate(bots):
        bot.start({"game": game, "variant": variant, "seat": seat,
                   "num_players": state.num_players, "rng_seed": seed * 10 + seat,
                   "limits": {"move_time": 60.0, "overage": 0.0}})
    while not state.is_terminal() and (cap is None or len(state.history) < cap):
        seat = state.current_player
        legal = state.legal_actions()
        action = bots[seat].act(state.observation(seat), list(legal))
        assert action in legal, f"seat {seat} answered {action!r}, not one of {legal}"
        state.apply(action)
    return list(state.returns())


def test_the_file_is_an_ordinary_bot_file_with_exactly_one_bot() -> None:
    factory = load_bot_file(AGENTS / "mcts.py")
    bot = factory()
    assert type(bot).__name__ == "MctsBot"
    assert bot.iters is None and bot.ms is None  # the game's default budget
    for game, reply, budget in (("battleline", True, 128), ("warchest", False, 200)):
        bot.start({"game": game, "seat": 0, "rng_seed": 0})
        assert (bot.hooks.reply, bot.budget(), bot.learning) == (reply, budget, False)
        scaled = MctsBot(**parse_options("scale=4"))  # the ladder's mcts-x4 rung
        scaled.start({"game": game, "seat": 0, "rng_seed": 0})
        if game == "warchest":  # no learned judgement: four times the iterations
            assert (scaled.budget(), scaled.learning) == (4 * budget, False)


def _started(spec: str, game: str = "battleline") -> MctsBot:
    bot = MctsBot(**parse_options(spec))
    bot.start({"game": game, "seat": 0, "rng_seed": 0})
    return bot


def test_four_times_the_budget_buys_battle_line_s_learned_judgement() -> None:
    """A learned trial costs about four default ones, so from ``scale=4`` the budget buys the
    learned judgement at the default's trials times the scale over 4; ``learned=1`` asks for
    it at any budget (by default the same time as the default's: 32 trials) and ``learned=0``
    keeps the flags' chances at any scale."""
    cases = {"scale=4": (128, True), "scale=8": (256, True), "learned=1": (32, True),
             "learned=1,iters=40": (40, True), "scale=2": (256, False),
             "scale=4,learned=0": (512, False), "iters=300": (300, False), "": (128, False)}
    for spec, (budget, learning) in cases.items():
        bot = _started(spec)
        assert (bot.budget(), bot.learning) == (budget, learning), spec
        judge = battleline_value.learned_evaluator if learning else battleline_value.evaluator
        assert bot.hooks.evaluator is judge, spec
    # War Chest's is bought only by asking: a learned iteration costs about a default one
    assert _started("learned=1", "warchest").learning is True
    assert _started("scale=4", "warchest").learning is False
    with pytest.raises(ValueError, match="1 for the game's learned judgement or 0"):
        MctsBot(learned=2)


def test_the_learned_judgement_s_trials_draw_by_greedy_s_rule() -> None:
    """In its trials the rest of a turn draws troops, unless the hand holds no tactics and
    fewer than 20 troops are left: the judgement reads the hand the draw fills."""
    policy = _started("scale=4").hooks.policy
    assert policy is not None
    state = registry.get("battleline").new_game(3)
    state.apply(state.legal_actions()[0])
    assert isinstance(state, BattleLineState)
    draws = state.legal_actions()
    assert draws == ["draw tactics", "draw troops"]
    rng = random.Random(0)
    assert {policy(state, draws, rng) for _ in range(20)} == {"draw troops"}
    state.decks[0][:] = state.decks[0][:19]
    assert policy(state, draws, rng) == "draw tactics"


class _Counting(MctsBot):
    """An mcts bot that remembers the budgets its decisions used."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.used: list[int] = []

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        action = super().act(observation, legal_actions)
        self.used.append(self.last_iterations)
        return action


@pytest.mark.parametrize(("game", "variant"), [
    (name, variant) for name in ("battleline", "warchest") for variant in _variants(name)
])
def test_every_answer_is_legal_in_every_variant(game: str, variant: dict[str, str]) -> None:
    n = registry.get(game).new_game(0, **variant).num_players
    bots: list[Any] = [_Counting(iters=6) if seat % 2 == 0 else RandomBot() for seat in range(n)]
    play(game, variant, 7, bots, cap=120)
    assert any(6 in bot.used for bot in bots if isinstance(bot, _Counting))


def test_a_game_without_hooks_and_three_seats_is_searched_too(toy: str) -> None:
    """Duplicate deals: the seat scores more with mcts in it than with a random bot."""
    points = {"mcts": 0.0, "random": 0.0}
    for kind, seed in itertools.product(points, range(12)):
        seat = seed % 3
        bots: list[Any] = [RandomBot() for _ in range(3)]
        bots[seat] = MctsBot(iters=60) if kind == "mcts" else RandomBot()
        points[kind] += play(toy, {"players": "3"}, seed, bots)[seat]
    assert points["mcts"] > points["random"] + 4


@pytest.mark.parametrize(("game", "iters"), [("battleline", 20), ("warchest", 8)])
def test_beats_random_play(game: str, iters: int) -> None:
    for seed, seat in itertools.product((11, 12), (0, 1)):
        bots: list[Any] = [RandomBot(), RandomBot()]
        bots[seat] = MctsBot(iters=iters)
        assert play(game, {}, seed, bots)[seat] == 1.0, (seed, seat)


def test_plays_for_its_team_in_four_player_war_chest() -> None:
    for team in (0, 1):
        bots: list[Any] = [MctsBot(iters=8) if seat % 2 == team else RandomBot()
                           for seat in range(4)]
        returns = play("warchest", {"players": "4"}, 5, bots)
        assert returns[team] == returns[team + 2] == 1.0


def test_a_fixed_budget_reproduces_the_same_game() -> None:
    def moves() -> list[str]:
        state = registry.get("battleline").new_game(3)
        bots = [MctsBot(iters=15), MctsBot(iters=15)]
        for seat, bot in enumerate(bots):  # a generous move time: the budget, not the clock
            bot.start({"game": "battleline", "seat": seat, "rng_seed": seat,
                       "limits": {"move_time": 60.0, "overage": 0.0}})
        while not state.is_terminal() and len(state.history) < 40:
            seat = state.current_player
            state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
        return state.history

    assert moves() == moves()


class _FakeClock:
    """``time`` for the bot module: every reading is ``step`` seconds after the previous one."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize(("reply", "move_time"), [
    (0, 0.05), (0, 0.2), (0, 1.0), (1, 0.05), (1, 1.0)])
def test_the_search_stops_inside_the_move_time(monkeypatch: pytest.MonkeyPatch, reply: int,
                                                move_time: float) -> None:
    clock = _FakeClock(0.002)  # every reading of the clock is 2 ms after the last one
    monkeypatch.setattr(mcts, "time", clock)
    state = registry.get("battleline").new_game(2)
    bot = MctsBot(iters=100_000, reply=reply, top=6)  # 16 seedings would eat the fake 50 ms
    bot.start({"game": "battleline", "seat": 0, "rng_seed": 0,
               "limits": {"move_time": move_time, "overage": 10.0}})
    action = bot.act(state.observation(0), state.legal_actions())
    assert action in state.legal_actions()
    assert 0 < bot.last_iterations < 100_000  # it searched, and the clock stopped it
    assert clock.now < move_time - 0.01  # the margin is kept, the overage bank never touched
    assert bot.last_cut and bot.clock_cuts == 1  # the safety net fired, and was counted


def test_a_cut_is_logged_at_its_first_decision_and_counted_at_the_end_of_the_game(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The bot's own account of its cuts, which the referee keeps in its seat's log; the
    harness counts the same decisions from outside, against :func:`mcts.safety_net`."""
    assert [mcts.safety_net(t) for t in (1.0, 0.1, 0.05, 0.01)] == pytest.approx(
        [0.9, 0.08, 0.03, 0.0])
    monkeypatch.setattr(mcts, "time", _FakeClock(0.002))
    state = registry.get("battleline").new_game(2)
    bot = MctsBot(iters=100_000, top=6)
    bot.start({"game": "battleline", "seat": 0, "rng_seed": 0,
               "limits": {"move_time": 0.2, "overage": 10.0}})
    assert bot.time_allowed() == mcts.safety_net(0.2)
    with caplog.at_level("WARNING", logger=mcts.__name__):
        bot.act(state.observation(0), state.legal_actions())
        bot.act(state.observation(0), state.legal_actions())
        bot.end({})
    first, last = (r.getMessage() for r in caplog.records)  # the first cut's only, and the end
    assert "stopped a decision at" in first and "(move time 200 ms)" in first
    assert last == ("mcts: the clock's safety net cut 2 of its 2 decisions in this game short "
                    "of the budget")


@pytest.mark.parametrize("reply", [0, 1])
def test_a_budget_that_ends_before_the_safety_net_is_never_cut(
        monkeypatch: pytest.MonkeyPatch, reply: int) -> None:
    """A decision whose fixed budget ends at about 80 % of its move time on a slow machine
    (every clock reading 2 ms after the last) runs its whole budget: the clock is a safety
    net at 90 %, not a second budget that a loaded machine reaches at a load-dependent point."""
    state = registry.get("battleline").new_game(2)
    probe = MctsBot(iters=120, reply=reply, top=6)
    probe.start({"game": "battleline", "seat": 0, "rng_seed": 0,
                 "limits": {"move_time": 600.0, "overage": 0.0}})
    clock = _FakeClock(0.002)
    monkeypatch.setattr(mcts, "time", clock)
    searched = probe.act(state.observation(0), state.legal_actions())
    took = clock.now  # the fake seconds the whole budget takes
    assert probe.last_iterations == 120 and not probe.last_cut
    bot = MctsBot(iters=120, reply=reply, top=6)
    bot.start({"game": "battleline", "seat": 0, "rng_seed": 0,
               "limits": {"move_time": took / 0.8, "overage": 0.0}})
    clock.now = 0.0
    assert bot.act(state.observation(0), state.legal_actions()) == searched
    assert clock.now < took / 0.8  # and still inside the move time
    assert bot.last_iterations == 120 and not bot.last_cut and bot.clock_cuts == 0


def test_a_move_time_too_small_to_search_still_answers_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _FakeClock(0.001)
    monkeypatch.setattr(mcts, "time", clock)
    state = registry.get("warchest").new_game(2)
    bot = MctsBot(ms=500)
    bot.start({"game": "warchest", "seat": state.current_player, "rng_seed": 0,
               "limits": {"move_time": 0.01, "overage": 0.0}})
    action = bot.act(state.observation(state.current_player), state.legal_actions())
    assert action in state.legal_actions()
    assert bot.last_iterations == 0
    assert clock.now <= 0.01


def test_ms_caps_the_search_below_a_longer_move_time(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _FakeClock(0.002)
    monkeypatch.setattr(mcts, "time", clock)
    state = registry.get("battleline").new_game(4)
    bot = MctsBot(ms=50)
    bot.start({"game": "battleline", "seat": 0, "rng_seed": 0,
               "limits": {"move_time": 1.0, "overage": 10.0}})
    bot.act(state.observation(0), state.legal_actions())
    assert clock.now <= 0.05 + 0.01


def test_options_parse_and_bad_ones_name_the_fix() -> None:
    assert parse_options("ms=200") == {"ms": 200.0}
    assert parse_options(" iters=50 , c=1.5 ,rollout=random") == {
        "iters": 50, "c": 1.5, "rollout": "random"}
    with pytest.raises(ValueError, match="key one of iters, ms"):
        parse_options("speed=9")
    with pytest.raises(ValueError, match="'fast' is not a valid int"):
        parse_options("iters=fast")
    with pytest.raises(ValueError, match="at least 1 iteration"):
        MctsBot(iters=0)
    with pytest.raises(ValueError, match="choose policy, random or greedy"):
        MctsBot(rollout="smart")
    with pytest.raises(ValueError, match="1 for the reply ply or 0 for the tree"):
        MctsBot(reply=2)
    with pytest.raises(ValueError, match="at least 1"):
        MctsBot(scale=0)
    for other in ({"iters": 50}, {"ms": 100.0}):
        with pytest.raises(ValueError, match="leave out iters and ms"):
            MctsBot(scale=4, **other)


def test_the_answer_is_one_of_the_offered_actions_even_when_the_world_allows_more() -> None:
    state = registry.get("battleline").new_game(9)
    legal = state.legal_actions()
    offered = legal[-2:]
    bot = MctsBot(iters=30)
    bot.start({"game": "battleline", "seat": 0, "rng_seed": 0})
    for _ in range(3):
        assert bot.act(state.observation(0), offered) in offered


def test_the_builtin_spec_options_are_the_constructors_keywords() -> None:
    import inspect

    from agents.greedy import GreedyBot
    from harness.bots.spec import BUILTIN_OPTIONS

    for name, cls in (("mcts", MctsBot), ("greedy", GreedyBot), ("random", RandomBot)):
        assert set(BUILTIN_OPTIONS[name]) == set(inspect.signature(cls).parameters), name


@pytest.mark.parametrize("game", ["battleline", "warchest"])
def test_ranked_lists_every_action_once_with_greedys_choice_first(game: str) -> None:
    import random

    from agents.greedy import chooser_for, ranker_for

    rank = ranker_for(game)
    assert rank is not None
    state = registry.get(game).new_game(11)
    for ply in range(30):
        if state.is_terminal():
            break
        seat, legal = state.current_player, state.legal_actions()
        observation = state.observation(seat)
        order = rank(observation, list(legal), random.Random(ply))
        assert sorted(order) == sorted(legal)
        assert order[0] == chooser_for(game)(observation, list(legal), random.Random(ply))
        state.apply(order[-1] if ply % 3 else order[0])


def test_top_one_plays_the_heuristics_choice() -> None:
    import random

    from agents.greedy_battleline import ranked

    state = registry.get("battleline").new_game(5)
    for ply in range(20):
        seat, legal = state.current_player, state.legal_actions()
        bot = MctsBot(iters=3, top=1)
        bot.start({"game": "battleline", "seat": seat, "rng_seed": ply})
        answer = bot.act(state.observation(seat), list(legal))
        if len(legal) > 1:
            assert answer == ranked(state.observation(seat), list(legal), random.Random(ply))[0]
        state.apply(answer)


def test_the_reply_ply_compares_actions_on_the_same_worlds() -> None:
    """A budget that ends inside a world (some actions tried in it, some not) decides as the
    budget of the whole worlds before it: an unfinished world would favour or sink only the
    actions it reached (a world's deal moves every action's result together)."""
    game = registry.get("battleline")
    rng = random.Random(3)
    decided = differs = 0
    for seed in range(12):
        state = game.new_game(seed)
        while not state.is_terminal() and decided < 60:
            seat, legal = state.current_player, state.legal_actions()
            if len(legal) > 4 and state.observation(seat)["phase"] == "play":
                answers = []
                for iters in (8, 11):  # 2 worlds of the best 4; then 3 of a third world
                    bot = MctsBot(iters=iters, top=4)
                    bot.start({"game": "battleline", "seat": seat, "rng_seed": seed,
                               "limits": {"move_time": 60.0, "overage": 0.0}})
                    answers.append(bot.act(state.observation(seat), list(legal)))
                    assert bot.last_iterations == iters
                assert answers[0] == answers[1]
                bot = MctsBot(iters=12, top=4)  # a whole third world may change the decision
                bot.start({"game": "battleline", "seat": seat, "rng_seed": seed,
                           "limits": {"move_time": 60.0, "overage": 0.0}})
                differs += bot.act(state.observation(seat), list(legal)) != answers[0]
                decided += 1
            state.apply(rng.choice(legal))
    assert decided == 60 and differs > 0


def _toy_evaluate(state: Any) -> list[float]:
    """Toy duel: each seat's pile total against the best other pile, squashed to -1 .. 1."""
    totals = [sum(pile) for pile in state.piles]
    return [math.tanh((t - max(totals[:s] + totals[s + 1:])) / 10.0)
            for s, t in enumerate(totals)]


def test_a_trial_meets_the_answer_best_for_the_answerer(toy: str) -> None:
    """After seat 0 plays its 3, seat 1 may pass, play 5 or play 9; judged by the evaluation it
    plays 9, so the trial is worth tanh((3 - 9) / 10) to seat 0."""
    state = toygame.ToyState(seed=0, variant={"players": "2", "hand": "2"}, hands=[[1], [5, 9]],
                             deck=[], piles=[[3], []], to_move=1)
    value = mcts._reply_value(state, 0, None, _toy_evaluate, random.Random(0))
    assert value == pytest.approx(math.tanh(-0.6))
    assert state.piles == [[3], []]  # the answers were tried on copies


def test_the_reply_ply_plays_the_action_with_the_best_answered_result(
        toy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With seat 0 holding 2 and 8 and seat 1 holding 6 and 7 (no deck): play 8 meets play 7
    (8 - 7), play 2 meets play 7 (2 - 7), pass meets play 7 (0 - 7); the reply ply plays 8,
    whatever the heuristic's order, in each of many searches with fresh seeds."""
    monkeypatch.setitem(mcts._HOOKS, toy, mcts.Hooks(evaluate=_toy_evaluate, reply=True,
                                                     iters=9))
    state = toygame.ToyState(seed=0, variant={"players": "2", "hand": "2"},
                             hands=[[2, 8], [6, 7]], deck=[], piles=[[], []])
    for seed in range(5):
        bot = MctsBot()
        bot.start({"game": toy, "seat": 0, "rng_seed": seed})
        assert bot.act(state.observation(0), state.legal_actions()) == "play 8"
        assert bot.last_iterations == 9  # 3 actions in 3 worlds


def _highest_card(state: Any, untried: list[str], rng: random.Random) -> str:
    """An expansion order for the toy duel: the highest card first, passing last."""
    return max(untried, key=lambda a: int(a.split()[1]) if a.startswith("play") else 0)


def _walk(children: dict[str, Any], state: Any, seen: list[tuple[Any, Any]]) -> None:
    """Every (node, position at it) below the root, depth first."""
    for action, node in children.items():
        after = state.clone()
        after.apply(action)
        seen.append((node, after))
        _walk(node.children, after, seen)


def _searched_tree(toy: str, monkeypatch: pytest.MonkeyPatch, expand: str = "order",
                   **hooks: Any) -> tuple[Any, list[tuple[Any, Any]]]:
    """A 60-iteration search of a toy position whose hidden cards are all known (the two
    unseen cards are the opponent's hand), so every world is the same position."""
    monkeypatch.setitem(mcts._HOOKS, toy, mcts.Hooks(evaluate=_toy_evaluate, depth=0, **hooks))
    state = toygame.ToyState(seed=0, variant={"players": "2", "hand": "2"},
                             hands=[[2, 8], [6, 7]], deck=[], piles=[[1, 3, 4], [5, 9]])
    bot = MctsBot(iters=60, expand=expand)
    bot.start({"game": toy, "seat": 0, "rng_seed": 3})
    root = bot.search(state.observation(0), state.legal_actions(), math.inf)
    assert set(root) == set(state.legal_actions())  # the root tries every action
    seen: list[tuple[Any, Any]] = []
    _walk(root, state, seen)
    return root, seen


def test_ordered_expansion_with_narrow_widening_follows_the_order_below_the_root(
        toy: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for one child per node (under 10,000 visits), each node below the root grows
    exactly the child the game's order picks among its legal actions."""
    _, seen = _searched_tree(toy, monkeypatch, order=_highest_card, widen=0.01)
    grown = [(node, at) for node, at in seen if node.children]
    assert grown  # the search went below the root
    for node, at in grown:
        assert list(node.children) == [_highest_card(at, at.legal_actions(), random.Random())]


@pytest.mark.parametrize("expand", ["order", "random"])
def test_widening_admits_one_child_more_per_square_of_the_visits(
        toy: str, monkeypatch: pytest.MonkeyPatch, expand: str) -> None:
    """widen=0.5: a node of n visits has at most 1 + int(0.5 * sqrt(n)) children (one below 4
    visits, two below 16); without widening a node tries every action before it repeats one."""
    _, seen = _searched_tree(toy, monkeypatch, expand, order=_highest_card, widen=0.5)
    for node, _ in seen:
        assert len(node.children) <= 1 + int(0.5 * math.sqrt(node.visits))
    assert any(len(node.children) > 1 for node, _ in seen)
    _, seen = _searched_tree(toy, monkeypatch, expand, order=_highest_card, widen=0.0)
    for node, at in seen:
        if node.children and any(child.visits > 1 for child in node.children.values()):
            assert set(node.children) == set(at.legal_actions())


def test_expand_and_widen_options_are_checked() -> None:
    assert parse_options("expand=random,widen=0.5") == {"expand": "random", "widen": 0.5}
    with pytest.raises(ValueError, match="choose order or random"):
        MctsBot(expand="best")
    with pytest.raises(ValueError, match="0 \\(no widening\\) or a positive factor"):
        MctsBot(widen=-1.0)


def _burn() -> None:
    """A busy loop: one process of artificial load."""
    while True:
        pass


def _seeded_game(game: str, seed: int, plies: int, move_time: float) -> tuple[list[str], int]:
    """The first ``plies`` moves of default ``mcts`` against default ``mcts`` (its own seed per
    seat), and the decisions the clock's safety net cut short."""
    state = registry.get(game).new_game(seed)
    bots = [MctsBot() for _ in range(state.num_players)]
    for seat, bot in enumerate(bots):
        bot.start({"game": game, "seat": seat, "rng_seed": seed * 10 + seat,
                   "limits": {"move_time": move_time, "overage": 10.0}})
    while not state.is_terminal() and len(state.history) < plies:
        seat = state.current_player
        state.apply(bots[seat].act(state.observation(seat), state.legal_actions()))
    return list(state.history), sum(bot.clock_cuts for bot in bots)


@pytest.mark.parametrize(("game", "plies"), [("battleline", 24), ("warchest", 16)])
def test_the_default_budget_plays_the_same_game_from_the_same_seed_under_load(
        game: str, plies: int) -> None:
    """The same seeded game, played on a quiet machine and with three busy processes on it
    (more than the cores of a small machine), is the same move for move: the default is a
    fixed budget, and the clock's safety net (90 % of the move time) is never reached. The move
    time is the league's 1 s stretched by the machine's load (the burners at most halve an
    idle two-core machine's speed, on top of it): a default decision takes a tenth of it on
    an idle core, so a cut here would be the net reached early, or the clock read elsewhere."""
    import multiprocessing

    move_time = patience(2.0)
    quiet, quiet_cuts = _seeded_game(game, 17, plies, move_time)
    burners = [multiprocessing.get_context("fork").Process(target=_burn, daemon=True)
               for _ in range(3)]
    for burner in burners:
        burner.start()
    try:
        loaded, loaded_cuts = _seeded_game(game, 17, plies, move_time)
    finally:
        for burner in burners:
            burner.kill()
            burner.join()
    assert len(quiet) == plies
    assert (loaded_cuts, quiet_cuts) == (0, 0)
    assert loaded == quiet


def test_a_variant_the_learned_judgement_does_not_apply_to_keeps_the_default_budget() -> None:
    """The learned judgement falls back to the flags' chances on every variant but the
    two-player standard game it was fit on; there a chance trial costs a default one, so the
    budget is the default's times the scale (``scale=4`` on Schotten-Totten: 512 trials, not
    the 128 its learned trials would be), and ``learned=1`` searches as the default does."""
    game = registry.get("battleline")
    standard = game.new_game(5)
    for variant in ({"rules": "schotten-totten"}, {"rules": "no-tactics"},
                    {"rules": "advanced"}, {"players": "3"}):
        world = game.new_game(5, **variant)
        for spec, here, there in (("scale=4", 128, 512), ("learned=1", 32, 128),
                                  ("", 128, 128)):
            bot = _started(spec)
            assert (bot.budget(standard), bot.budget(world)) == (here, there), (spec, variant)
    four = registry.get("warchest").new_game(5, players="4")
    assert _started("learned=1", "warchest").budget(four) == 200


@pytest.mark.parametrize(("game", "variant"), [
    ("battleline", {"rules": "schotten-totten"}), ("battleline", {"rules": "no-tactics"}),
    ("battleline", {"rules": "advanced"}), ("battleline", {"players": "3"}),
    ("warchest", {"players": "4"})])
def test_on_a_variant_the_learned_search_plays_the_default_s_moves(
        game: str, variant: dict[str, str]) -> None:
    """The learned judgements were fit on the two-player standard games; on every other
    variant ``learned=1`` falls back to the default judgement at the default's budget, so it
    plays the default's moves from the same seed (the generalisation, measured exactly)."""
    def moves(options: dict[str, Any]) -> list[str]:
        state = registry.get(game).new_game(21, **variant)
        bots = [MctsBot(iters=None, **options) for _ in range(state.num_players)]
        for seat, bot in enumerate(bots):
            bot.start({"game": game, "seat": seat, "rng_seed": seat,
                       "limits": {"move_time": 60.0, "overage": 0.0}})
        played: list[str] = []
        while not state.is_terminal() and len(played) < 6:
            seat = state.current_player
            legal = state.legal_actions()
            action = bots[seat].act(state.observation(seat), legal) if len(legal) > 1 \
                else legal[0]
            state.apply(action)
            played.append(action)
        return played

    assert moves({"learned": 1}) == moves({})
