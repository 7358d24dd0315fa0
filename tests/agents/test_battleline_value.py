"""Battle Line's judgements for the search bot: the flags' chances (the default's) and the
learned judgement that reads the searcher's hand (``mcts:scale=4``), with the command that fits
it. Hand-checked positions, and property tests against the obvious computations."""

from __future__ import annotations

import itertools
import json
import math
import random
from pathlib import Path

import pytest

import agents.battleline_value as value
from agents import learn_battleline
from games import registry
from games.battleline.cards import CARD_IDS
from games.battleline.formations import best_rank
from games.battleline.state import P_PLAY, BattleLineState


@pytest.mark.parametrize("variant", [{}, {"rules": "schotten-totten"}, {"players": "3"}])
def test_the_battle_line_evaluation_judges_only_what_every_seat_sees(
        variant: dict[str, str]) -> None:
    """It reads the world directly (no observation is built), yet scores only public facts:
    every world sampled from any seat's observation of a position gets the position's own
    score, and the seats' scores are those of a zero-sum game for two players."""
    game = registry.get("battleline")
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        state = game.new_game(seed, **variant)
        while not state.is_terminal():
            score = value.evaluate(state)
            value.CHANCES.clear()  # the memos of flag judgements only save time
            value._RANKS.clear()
            assert value.evaluate(state) == score
            for seat in range(state.num_players):
                world = game.sample_state(state.observation(seat), rng)
                assert value.evaluate(world) == score
            if state.num_players == 2:
                assert score[0] == pytest.approx(-score[1])
            checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 100


def _mask(*names: str) -> int:
    return sum(1 << CARD_IDS[name] for name in names)


def test_a_flag_s_chance_in_hand_checked_positions() -> None:
    """Red 8-9-10 is the best wedge there is: against an empty side (any three troops, in any
    future) it wins or ties in rank, and a tie goes to the side with more cards down, so the
    flag is certain. A complete phalanx of 2s cannot catch a red 8-9 with red 10 or 7 unseen in
    a future where the first side receives one, and wins the rest; with no red 7 or 10 unseen
    the phalanx is certain."""
    troops = sum(1 << card for card in range(60))
    wedge = _mask("r8", "r9", "r10")
    assert value.flag_edge(wedge, 3, 0, 0, troops & ~wedge, 3, False) == 0.5
    assert value.flag_edge(0, 0, wedge, 3, troops & ~wedge, 3, False) == -0.5
    twos = _mask("r2", "o2", "y2")
    start = _mask("r8", "r9")
    unseen = troops & ~twos & ~start
    futures = sum(1 for dealt in value.FIRST if dealt & unseen & _mask("r7", "r10"))
    assert 0 < futures < value.FUTURES
    assert value.flag_edge(start, 2, twos, 3, unseen, 3, False) == futures / value.FUTURES - 0.5
    assert value.flag_edge(start, 2, twos, 3, unseen & ~_mask("r7", "r10"), 3, False) == -0.5


def _naive_edge(first: int, first_count: int, second: int, second_count: int, avail: int,
                n: int, foggy: bool) -> float:
    """A flag's chance the obvious way: every future, both best ranks computed afresh."""
    wins = 0
    for future, (mine, theirs) in enumerate(zip(value.FIRST, value.SECOND, strict=True)):
        x = -1 if first_count > n else best_rank(first, n - first_count, avail & mine, n, foggy)
        y = -1 if second_count > n else best_rank(second, n - second_count, avail & theirs, n,
                                                  foggy)
        if x > y or (x == y and (first_count > second_count or (
                first_count == second_count and value.COINS >> future & 1))):
            wins += 1
    return wins / value.FUTURES - 0.5


@pytest.mark.parametrize("variant", [{}, {"rules": "schotten-totten"}, {"players": "3"}])
def test_the_battle_line_evaluation_equals_the_naive_one(variant: dict[str, str]) -> None:
    """The memoised evaluation against flags judged the obvious way (empty flags even), on
    positions of random play; and the decision's evaluation (the troops unseen at the
    decision) equals the plain one on the decision's own world."""
    game = registry.get("battleline")
    rng = random.Random(11)
    flags = 0
    for seed in range(4):
        state = game.new_game(seed, **variant)
        assert isinstance(state, BattleLineState)
        while not state.is_terminal():
            avail = state.troop_all & ~state.gone
            tally = [0.0] * state.n
            for flag, (a, b) in enumerate(state.layout.seats_at):
                if state.claimed[flag] >= 0:
                    tally[state.claimed[flag]] += 1.0
                    continue
                first, second = state.smask[a * 9 + flag], state.smask[b * 9 + flag]
                if first or second:
                    edge = _naive_edge(first, len(state.sides[a * 9 + flag]), second,
                                       len(state.sides[b * 9 + flag]), avail,
                                       4 if state.mud[flag] >= 0 else 3, state.fog[flag] >= 0)
                    tally[a] += edge
                    tally[b] -= edge
                    flags += 1
            for seat, spent in enumerate(state.tactics_played):
                tally[seat] -= 0.25 * spent
            total = sum(tally)
            naive = [math.tanh((t - (total - t) / (state.n - 1)) / 3.0) for t in tally]
            assert value.evaluate(state) == pytest.approx(naive)
            assert value.evaluator(state)(state) == pytest.approx(naive)
            state.apply(rng.choice(state.legal_actions()))
    assert flags > 500


def test_the_hand_makes_a_flag_certain_in_a_hand_checked_position() -> None:
    """Blue 9-10 on my side against an empty one: with blue 8 in my hand the wedge is mine
    whatever the opponent receives (its best, another 8-9-10 wedge, ties in rank and loses to
    the side complete first); read without the hand, blue 8 might go either way. With the hand
    on the other side (I face the blue 9-10), the flag is certainly lost."""
    troops = sum(1 << card for card in range(60))
    start = _mask("b9", "b10")
    unseen = troops & ~start
    hand = _mask("b8", "r2")
    assert value.hand_edge(start, 2, 0, 0, unseen, hand, 3, False, True) == 0.5
    assert -0.5 < value.flag_edge(start, 2, 0, 0, unseen, 3, False) < 0.5
    assert value.hand_edge(0, 0, start, 2, unseen, hand, 3, False, False) == -0.5
    # without blue 8 in hand, and blue 8 face up elsewhere, no wedge: the empty side's
    # chances come back
    gone = unseen & ~_mask("b8")
    assert value.hand_edge(start, 2, 0, 0, gone, _mask("r2"), 3, False, True) < 0.5


def test_an_empty_hand_reads_a_flag_as_its_chance() -> None:
    """:func:`hand_edge` with no troop in hand is :func:`flag_edge`, on every side of random
    play; with a hand, it is the obvious computation (the hand's troops in every future of its
    side, out of the other's reach)."""
    game = registry.get("battleline")
    rng = random.Random(3)
    checked = 0
    for seed in range(3):
        state = game.new_game(seed)
        assert isinstance(state, BattleLineState)
        while not state.is_terminal():
            avail = state.troop_all & ~state.gone
            hand = state.hands[state.current_player] & avail
            for flag, (a, b) in enumerate(state.layout.seats_at):
                first, second = state.smask[a * 9 + flag], state.smask[b * 9 + flag]
                if state.claimed[flag] >= 0 or not (first or second):
                    continue
                fc, sc = len(state.sides[a * 9 + flag]), len(state.sides[b * 9 + flag])
                n, foggy = (4 if state.mud[flag] >= 0 else 3), state.fog[flag] >= 0
                rest = avail & ~(first | second)
                assert value.hand_edge(first, fc, second, sc, rest, 0, n, foggy, True) == \
                    value.flag_edge(first, fc, second, sc, rest, n, foggy)
                wins = 0
                for future, (mine, theirs) in enumerate(zip(value.FIRST, value.SECOND,
                                                            strict=True)):
                    own = rest & ~hand
                    x = -1 if fc > n else best_rank(first, n - fc, (own & mine) | hand, n, foggy)
                    y = -1 if sc > n else best_rank(second, n - sc, own & theirs, n, foggy)
                    if x > y or (x == y and (fc > sc or (fc == sc and value.COINS >> future & 1))):
                        wins += 1
                assert value.hand_edge(first, fc, second, sc, rest, hand, n, foggy, True) == \
                    wins / value.FUTURES - 0.5
                checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 200


def _positions(count: int, seed: int) -> list[BattleLineState]:
    """Play positions of random games, one in three."""
    game = registry.get("battleline")
    rng = random.Random(seed)
    out: list[BattleLineState] = []
    game_seed = seed
    while len(out) < count:
        state = game.new_game(game_seed)
        game_seed += 1
        assert isinstance(state, BattleLineState)
        while not state.is_terminal() and len(out) < count:
            if state.phase == P_PLAY and rng.random() < 1 / 3:
                out.append(state.clone())
            state.apply(rng.choice(state.legal_actions()))
    return out


def test_the_learned_features_read_the_board_from_either_side() -> None:
    """Every feature but the hand's is the opponent's negated; the five-flag chance is the
    brute-force sum over the 2^9 ways the flags can fall; the hand's feature is zero without
    troops in hand."""
    for state in _positions(60, 17):
        mine, stage = value.features(state, 0)
        theirs, same = value.features(state, 1)
        assert stage == same
        assert 0.0 <= stage <= 1.0
        for name, x, y in zip(value.FEATURES, mine, theirs, strict=True):
            if name != "hand":
                assert x == pytest.approx(-y, abs=1e-12), name
        chances = []
        avail = state.troop_all & ~state.gone
        for flag, (a, b) in enumerate(state.layout.seats_at):
            if state.claimed[flag] >= 0:
                chances.append(1.0 if state.claimed[flag] == 0 else 0.0)
            elif not (state.smask[a * 9 + flag] or state.smask[b * 9 + flag]):
                chances.append(0.5)
            else:
                edge = value.flag_edge(
                    state.smask[a * 9 + flag], len(state.sides[a * 9 + flag]),
                    state.smask[b * 9 + flag], len(state.sides[b * 9 + flag]),
                    avail & ~(state.smask[a * 9 + flag] | state.smask[b * 9 + flag]),
                    4 if state.mud[flag] >= 0 else 3, state.fog[flag] >= 0)
                chances.append(edge + 0.5 if a == 0 else 0.5 - edge)
        five = sum(math.prod(q if won else 1 - q for q, won in zip(chances, outcome, strict=True))
                   for outcome in itertools.product((0, 1), repeat=9) if sum(outcome) >= 5)
        assert mine[value.FEATURES.index("envelopment")] == pytest.approx(2 * five - 1)
        handless = state.clone()
        assert isinstance(handless, BattleLineState)
        handless.hands[0] &= ~handless.troop_all
        assert value.features(handless, 0)[0][value.FEATURES.index("hand")] == 0.0


def test_the_learned_judgement_is_a_zero_sum_chance_for_the_searcher() -> None:
    """For a play decision it is the shipped model's chance of winning for the seat to move,
    as 2p - 1 (its opponent's the negation); the draw, and a variant the weights were not fit
    on, keep the flags' chances."""
    weights = value.shipped_weights()
    for state in _positions(20, 29):
        judge = value.learned_evaluator(state)
        me = state.current_player
        values, stage = value.features(state, me)
        chance = 1 / (1 + math.exp(-weights.logit(values, stage)))
        assert judge(state)[me] == pytest.approx(2 * chance - 1)
        assert judge(state)[1 - me] == pytest.approx(1 - 2 * chance)
    game = registry.get("battleline")
    drawing = game.new_game(4)
    drawing.apply(drawing.legal_actions()[0])
    assert isinstance(drawing, BattleLineState) and drawing.phase != P_PLAY
    assert value.learned_evaluator(drawing)(drawing) == value.evaluator(drawing)(drawing)
    for variant in ({"players": "3"}, {"rules": "schotten-totten"}, {"rules": "advanced"}):
        other = game.new_game(4, **variant)
        assert not value.learns(other)
        assert value.learned_evaluator(other)(other) == value.evaluator(other)(other)


def test_the_shipped_weights_say_how_they_were_made(tmp_path: Path) -> None:
    """The shipped file names its features, the command that wrote it, and a held-out log loss
    below the flags' chances alone; a file fit on other features is refused with the fix."""
    data = json.loads(value.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert tuple(data["features"]) == value.FEATURES
    assert data["trained_on"]["command"].startswith("python -m agents.learn_battleline")
    loss = data["held_out_log_loss"]
    assert loss["learned"]["all"] < loss["chances_only"]["all"] < loss["coin_toss"]
    other = tmp_path / "w.json"
    other.write_text(json.dumps({**data, "features": ["won"]}), encoding="utf-8")
    with pytest.raises(ValueError, match="make learn"):
        value.read_weights(other)


def test_learning_is_one_reproducible_command(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A small run of the command writes the weights file with the held-out figures, and the
    same command writes the same file again."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        assert learn_battleline.main(["--games", "6", "--workers", "1", "--quiet",
                                      "--out", str(out)]) == 0
    assert first.read_bytes() == second.read_bytes()
    data = json.loads(first.read_text(encoding="utf-8"))
    assert data["trained_on"]["games"] == 6
    assert len(data["base"]) == len(data["late"]) == len(value.FEATURES)
    assert "held-out log loss, learned" in capsys.readouterr().out
    assert value.read_weights(first).constant == data["constant"]
