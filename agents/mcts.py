"""The built-in search bot: single-observer information-set Monte Carlo tree search (SO-ISMCTS),
and, where a game's evaluation makes it the stronger choice, flat Monte Carlo with a reply ply.

An ordinary bot file, as a user could write it: it sees only its observation and its legal
actions, and it looks ahead on full game states that ``sample_state(observation, rng)`` deals
consistently with what it sees.

**The tree** (every game without ``reply`` in its hooks; ``reply=0`` anywhere). Every iteration

1. *determinises*: takes a fresh world (a full state) consistent with the observation;
2. *selects* down one shared tree, keyed by action strings, choosing among the actions legal in
   that world by UCB1 with availability counts (an action's exploration term counts only the
   visits in which it was legal, so rare actions are not starved);
3. *expands* one untried action: the one the game's ``order`` hook picks (War Chest: greedy's
   choice for the seat to move), else one at random. With progressive widening (the game's
   ``widen``; War Chest 0.25) a node below the root admits only ``1 + widen * sqrt(visits)``
   children (War Chest: one under 16 visits, two under 64): a node met a few times keeps
   answering with the heuristic's best move rather than trying every action once, so a small
   budget meets plausible answers instead of random ones (the root, restricted to the game's
   ``top`` actions where it has one, War Chest 5, tries every action it searches);
4. *rolls out* with the game's rollout policy (uniformly random unless the game has a hook) for
   at most ``depth`` decisions, then scores the end with the game's evaluation hook (or the real
   returns if the game ended);
5. *backs up* each seat's result (0 loss .. 1 win) into the edges that seat chose.

Why one tree over many worlds rather than determinised UCT (a tree per world, then a vote): all
iterations feed one set of statistics, so a small budget is not split into thin per-world trees,
and the tree never plans on hidden cards it could not know (strategy fusion is avoided at the
searching seat's own nodes). Opponents' nodes see the actions their sampled hands allow.

**The reply ply** (Battle Line's default; ``reply=1`` in any game with an evaluation): the
heuristic's best ``top`` actions are tried in turn on sampled worlds. A *trial* plays the
action, the rest of this seat's turn by the rollout policy, then every answer of the next seat
to move, which plays the answer the evaluation likes best for itself; the trial's result is the
searcher's evaluation after that answer. The action with the best mean wins (ties go to the
heuristic's order), over the worlds every action met: a world the budget (or the clock) ends
inside is left out, since a world's deal moves every action's result together and would
favour or sink only the actions it reached (on Battle Line, counting it cost 12-17 points
against ``greedy`` under a time budget). A tree of a few hundred iterations meets the
opponent's answers at random and learns little from them; the reply ply meets the best answer
in every world. On Battle Line it scored 62.3 % against ``greedy`` where the tree scored
58.3 % (400 games each, the same deals; see the README). On War Chest it is far weaker than
the tree (8 % in 100 games): there one ply of answers likely makes every advance look like
walking into an attack, the counter-attack unseen.

What the reply ply can afford to consider depends on how hard its evaluation is to fool.
Battle Line's evaluation judges each open flag by its *chance*: in each of 32 fixed futures
the unseen troops are dealt out, each to one side of the flag with probability 0.3, and the
flag goes to the side whose best reachable formation is higher
(:func:`agents.battleline_value.flag_edge`). The older
judgement, each side's best formation with *every* unseen troop at hand, rated a side one
specific card away from a straight flush as good as one holding it; a search among more moves
found the moves it overrated (greedy's best 10 scored 62.5 % against its best 6's 70 %). With
the chances, the best 16 score 78 % at the same 120 trials. A larger budget buys a finer
judgement (the game's ``learned`` hook; Battle Line's reads the searcher's own hand too, with
weights fit from self-play games: :mod:`agents.battleline_value`), which costs about four
default trials per trial: ``scale=4`` judges the default's number of trials with it.

Any number of seats works, and team games too: a seat's result is its own entry of
``returns()`` or of the evaluation, which in a team game is its team's, so it plays for its team.

Options (``MctsBot(**parse_options("ms=200"))``; the built-in spec ``mcts:ms=200``):

* ``iters``: tree iterations, or reply-ply trials, per decision; the default is the game's
  (Battle Line: 128 trials, the best 16 actions in 8 worlds, about 50 ms; otherwise 200
  iterations). The default is a fixed budget, so a game is reproducible from its seed
  whatever the machine's load; the clock is only a safety net (below).
* ``scale``: the game's default budget times this (``scale=4``: four times the default, on
  any game; the ladder's ``mcts-x4`` rung), still a fixed budget; not with ``iters`` or ``ms``.
  Where the game's hooks say so (Battle Line), a scale of at least its ``learned_from`` (4)
  buys its learned judgement, at the default's trials times the scale over the learned
  trial's cost (``scale=4``: 128 trials).
* ``learned``: 1 for the game's learned judgement (Battle Line's, War Chest's) at the
  default's time times the scale (Battle Line: 32 trials, as a learned trial costs four;
  ``learned=1,scale=4`` is ``scale=4``), 0 for its default judgement at any scale (default:
  from the scale that buys it); no effect on a game without one, and a variant the judgement
  was not fit on plays as the default does.
* ``ms``: time per decision in milliseconds instead of a fixed budget (``ms=200``).
* ``reply``: 1 for the reply ply, 0 for the tree (default: the game's hook; a game without an
  evaluation always searches the tree).
* ``c``: the UCB exploration constant (default: the game's hook, else 0.7); ``depth``: rollout
  length before the evaluation (default: the game's hook, else to the end);
  ``worlds``: 0 (default) samples a fresh world every iteration, K > 0 cycles through K worlds;
  ``rollout``: ``policy`` (the game's hook, the default), ``random`` or ``greedy`` (the built-in
  greedy bot's choice, from each mover's observation), for rollouts and for the rest of a turn
  in a trial;
  ``prior`` (default 4): virtual visits that seed each root action with its one-step
  evaluation, so a small budget goes to the actions the evaluation already likes.
* ``bias`` (default: the game's hook; Battle Line 20, otherwise 0): progressive bias of the
  tree, that many virtual wins on the greedy heuristic's choice at the root, so the search plays
  greedy's move unless it finds a clearly better one;
  ``top`` (default: the game's hook, Battle Line 16, War Chest 5, 0 = all): search only the
  heuristic's best ``top`` root actions (the game's ``agents.greedy_<game>.ranked``).
* ``expand``: ``order`` (default: the game's order hook, where it has one) or ``random``, the
  untried action a node expands first; ``widen`` (default: the game's hook; War Chest 0.25,
  otherwise 0 = none): the progressive widening factor below the root.

**The clock is a safety net, not a budget.** A fixed budget (the default, or ``iters``) ends the
search by counting iterations, so the same seed gives the same game whatever the machine's
load. The clock stops a decision only when its next iteration would pass 90 % of the
``move_time`` that ``start(info)`` gave (at least 20 ms short of it), never counting on the
overage bank: at the default budgets a decision takes about a tenth of the default 1 s move
time on an idle core, so the net fires only on a machine slowed several times over. When it
fires, the decision keeps to the move time and plays on what it has searched, the bot counts
it (``clock_cuts``; ``last_cut``), and it logs a warning at the first cut of a game and the
game's count at its end: from there that game is no longer the one its seed gives elsewhere.
(The referee keeps an in-process bot's log records in its seat's log, as a sandboxed bot's
stderr; a league counts, per bot, the decisions that reached the net, :func:`safety_net`, and
sums them up once at its end.) With ``ms`` the clock is the budget (capped by the same net),
so a timed bot's strength follows the machine's load.
"""

from __future__ import annotations

import logging
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from agents import battleline_value, warchest_value
from agents.greedy import chooser_for, ranker_for
from agents.greedy_battleline import deck_to_draw
from agents.greedy_warchest import evaluate as warchest_score
from agents.greedy_warchest import quick_best_action
from games import registry
from games.battleline.cards import ALL_TACTICS
from games.battleline.state import BattleLineState
from games.protocol import State
from games.warchest.state import WarChestState

Policy = Callable[[State, list[str], random.Random], str]
Evaluate = Callable[[State], list[float]]

DEFAULT_ITERS = 200
_NET_FRACTION = 0.9  # of move_time: the clock's safety net (a normal decision never reaches it)
_SAFETY_FLOOR = 0.02  # seconds of the move time always left unused (the wire, the referee)
_log = logging.getLogger(__name__)


def safety_net(move_time: float) -> float:
    """Seconds a decision of a fixed budget may search before the clock stops it: 90 % of the
    move time, at least the floor short of it (none under the floor). The harness reads it
    too, to count the decisions that reached it (``harness.league.clock_cuts``)."""
    return max(0.0, min(move_time * _NET_FRACTION, move_time - _SAFETY_FLOOR))


@dataclass(frozen=True)
class Hooks:
    """A game's optional knowledge: a rollout policy, an evaluation, the rollout depth and the
    exploration constant that suits the evaluation's spread of values."""

    policy: Policy | None = None
    evaluate: Evaluate | None = None  # per seat, -1 .. 1, for a position that has not ended
    #: the evaluation for one decision, made from its first sampled world (None: ``evaluate``)
    evaluator: Callable[[State], Evaluate] | None = None
    depth: int = 1000  # decisions a rollout plays before it is scored
    c: float = 0.7  # UCB exploration suited to how widely the evaluation's values spread
    bias: int = 0  # virtual wins on the greedy heuristic's choice at the root
    top: int = 0  # search only the heuristic's best ``top`` root actions (0: all)
    reply: bool = False  # decide by the reply ply (see MctsBot.reply_search), not the tree
    order: Policy | None = None  # which untried action a node expands first (None: at random)
    widen: float = 0.0  # progressive widening: a node of n visits has 1 + widen * sqrt(n) children
    iters: int = DEFAULT_ITERS  # the default budget: tree iterations, or reply-ply trials
    #: a judgement learned from self-play (made per decision, as ``evaluator``), the scale
    #: from which a fixed budget judges with it by default (0: only with ``learned=1``), how
    #: many of the default's trials (or iterations) one of its trials costs (the budget is
    #: divided by that, so a scale buys the same time either way), and the policy for the
    #: rest of a turn in its trials
    learned: Callable[[State], Evaluate] | None = None
    learned_from: int = 0
    learned_cost: int = 1
    learned_policy: Policy | None = None
    #: reads the learned judgement's weights, refusing a file that does not fit its features
    #: (:class:`agents.value_weights.WeightsMismatch`)
    learned_weights: Callable[[], object] | None = None
    #: whether the learned judgement applies to a world's variant (it falls back to the
    #: default judgement elsewhere, and the budget then stays the default judgement's)
    learned_applies: Callable[[State], bool] | None = None


class _Node:
    """One edge of the tree (the action that led here) and the node it leads to."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0  # sum of the results of the seat that chose this edge


class MctsBot:
    """Information-set MCTS on worlds sampled from the observation."""

    def __init__(self, iters: int | None = None, ms: float | None = None, c: float | None = None,
                 depth: int | None = None, worlds: int = 0, rollout: str = "policy",
                 prior: int = 4, bias: int | None = None, top: int | None = None,
                 reply: int | None = None, expand: str = "order",
                 widen: float | None = None, scale: int = 1,
                 learned: int | None = None) -> None:
        if iters is not None and iters < 1:
            raise ValueError(f"mcts iters={iters}: give at least 1 iteration")
        if scale < 1:
            raise ValueError(f"mcts scale={scale}: give a whole multiple of the default budget, "
                             f"at least 1")
        if scale != 1 and (iters is not None or ms is not None):
            raise ValueError(f"mcts scale={scale}: scale multiplies the game's default budget; "
                             f"leave out iters and ms, or give them without scale")
        if ms is not None and ms <= 0:
            raise ValueError(f"mcts ms={ms}: give a positive time per decision")
        if rollout not in ("policy", "random", "greedy"):
            raise ValueError(f"mcts rollout={rollout!r}: choose policy, random or greedy")
        if expand not in ("order", "random"):
            raise ValueError(f"mcts expand={expand!r}: choose order or random")
        if widen is not None and widen < 0:
            raise ValueError(f"mcts widen={widen}: give 0 (no widening) or a positive factor")
        if learned not in (None, 0, 1):
            raise ValueError(f"mcts learned={learned}: write 1 for the game's learned judgement "
                             f"or 0 for its default one")
        if reply not in (None, 0, 1):
            raise ValueError(f"mcts reply={reply}: write 1 for the reply ply or 0 for the tree")
        self.iters = iters  # None: the game's default budget, unless ``ms`` is given
        self.scale = scale  # the default budget times this
        self.ms = ms
        self.c = c
        self.depth = depth
        self.worlds = worlds
        self.rollout = rollout
        self.prior = prior
        self.bias = bias
        self.top = top
        self.reply = reply
        self.expand = expand
        self.widen = widen
        self.learned = learned  # None: the learned judgement from the scale that buys it
        self.learning = False  # whether it judges with the game's learned judgement
        self.rng = random.Random(0)
        self.move_time = 1.0
        self.game_name = ""
        self.hooks = Hooks()
        self.last_iterations = 0  # iterations of the latest decision (for benches and tests)
        self.last_budget = 0  # the budget of the latest decision
        self._variant_checked = False  # whether this game's variant was checked (learning)
        self.last_cut = False  # whether the clock's safety net cut the latest decision short
        self.clock_cuts = 0  # decisions of this game the safety net cut short of the budget
        self.decisions = 0  # decisions of this game (with more than one legal action)

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(info.get("rng_seed", 0))
        self.move_time = float(info.get("limits", {}).get("move_time", 1.0))
        self.clock_cuts = self.decisions = 0
        self._variant_checked = False
        self._load(str(info["game"]))

    def _load(self, game: str) -> None:
        self.game_name = game
        hooks = hooks_for(game)
        self.learning = self._learns(hooks)
        if self.learning and hooks.learned_weights is not None:
            hooks.learned_weights()  # a weights file that does not fit is refused now
        if self.learning:
            hooks = replace(hooks, evaluator=hooks.learned,
                            policy=hooks.learned_policy or hooks.policy)
        self.hooks = hooks
        registry.get(game)  # import the engine now, not inside the first decision's time

    def _check_variant(self, observation: dict[str, Any]) -> None:
        """At the game's first decision: where the learned judgement does not apply to this
        variant, search exactly as the default does (its judgement, policy and budget), so a
        variant plays the default's moves from the same seed. The world read for it is drawn
        from a generator of its own: the bot's is left as it was."""
        self._variant_checked = True
        applies = self.hooks.learned_applies
        world = registry.get(self.game_name).sample_state(observation, random.Random(0))
        if applies is not None and not applies(world):
            self.learning = False
            self.hooks = hooks_for(self.game_name)

    def _learns(self, hooks: Hooks) -> bool:
        """Whether this bot judges with the game's learned judgement: ``learned=1``, or by
        default a fixed budget of at least the scale that buys it (Battle Line: ``scale=4``)."""
        if hooks.learned is None or self.learned == 0:
            return False
        if self.learned == 1:
            return True
        return (hooks.learned_from > 0 and self.iters is None and self.ms is None
                and self.scale >= hooks.learned_from)

    def time_allowed(self) -> float:
        """Seconds this decision may search. With a fixed budget (the default) this is only the
        safety net, 90 % of the move time (at least the floor short of it), which a normal
        decision never reaches: the budget, not the clock, ends the search, so the game is the
        same whatever the load. With ``ms``, that time, capped by the same net."""
        net = safety_net(self.move_time)
        if self.ms is not None:
            return min(self.ms / 1000.0, net)
        return net

    def _finished(self, done: int, budget: int, started: float) -> None:
        """Count the decision, and whether the safety net cut a fixed budget short (the search
        set ``last_cut``; counted per game in ``clock_cuts``; the first of a game is logged, as
        from there the game is no longer the one its seed gives on an unloaded machine, and the
        game's count at its end)."""
        self.decisions += 1
        self.last_cut = self.last_cut and self.ms is None
        if self.last_cut:
            self.clock_cuts += 1
            if self.clock_cuts == 1:
                _log.warning(
                    "mcts: the clock's safety net stopped a decision at %d of %d iterations "
                    "after %.0f ms (move time %.0f ms): the machine is too loaded for this "
                    "budget, and this game is no longer reproducible from its seed", done,
                    budget, 1000 * (time.perf_counter() - started), 1000 * self.move_time)

    def end(self, result: dict[str, Any]) -> None:
        if self.clock_cuts:
            _log.warning("mcts: the clock's safety net cut %d of its %d decisions in this game "
                         "short of the budget", self.clock_cuts, self.decisions)

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        started = time.perf_counter()
        if len(legal_actions) == 1:
            self.last_iterations = 0
            return legal_actions[0]
        if not self.game_name:
            self._load(str(observation["game"]))
        if self.learning and not self._variant_checked:
            self._check_variant(observation)
        deadline = started + self.time_allowed()
        reply = self.hooks.reply if self.reply is None else bool(self.reply)
        if reply and self.hooks.evaluate is not None:  # a game without one searches the tree
            action = self.reply_search(observation, legal_actions, deadline)
            self._finished(self.last_iterations, self.last_budget, started)
            return action
        stats = self.search(observation, legal_actions, deadline)
        self._finished(self.last_iterations, self.last_budget, started)
        if not stats:
            return self.rng.choice(legal_actions)
        return max(legal_actions, key=lambda a: _rank(stats.get(a)))

    def budget(self, world: State | None = None) -> int:
        """Iterations (or reply-ply trials) allowed per decision: the ``iters`` option, else the
        game's default, else (with ``ms``) as many as the time allows. The learned judgement's
        trials cost more, so it searches fewer in the same time; in a variant it does not apply
        to (``world``'s), the default judgement searches the default's budget."""
        if self.iters is not None:
            return self.iters
        if self.ms is not None:
            return 1 << 62
        applies = self.hooks.learned_applies
        if self.learning and (world is None or applies is None or applies(world)):
            # a learned trial costs about ``learned_cost`` default ones: the same time
            return max(1, self.hooks.iters * self.scale // self.hooks.learned_cost)
        return self.hooks.iters * self.scale

    def rollout_policy(self) -> Policy | None:
        """The policy of rollouts (and of the rest of a turn in a trial): the game's hook, the
        built-in greedy bot's choice, or None for uniformly random moves."""
        if self.rollout == "greedy":
            return _greedy_policy(self.game_name)
        return self.hooks.policy if self.rollout == "policy" else None

    def reply_search(self, observation: dict[str, Any], legal: list[str],
                     deadline: float) -> str:
        """Flat Monte Carlo with a reply ply: the heuristic's best ``top`` actions, each tried in
        turn on sampled worlds (one *trial*: the action, the rest of this seat's turn by the
        rollout policy, then every answer of the next seat to move, of which it plays the one
        the evaluation likes best for itself); the action with the best mean result wins, ties
        to the heuristic's order. It sees what a tree of a few hundred iterations misses: the
        opponent's best answer, in every world, instead of a random one."""
        game = registry.get(self.game_name)
        me = int(observation["seat"])
        rng = self.rng
        policy = self.rollout_policy()
        top = self.hooks.top if self.top is None else self.top
        order = self._candidates(observation, legal, top)
        width = len(order)
        totals = [0.0] * width  # each action's results summed over the finished worlds
        latest = [0.0] * width  # its result in the current world
        clock = time.perf_counter
        now = clock()
        slowest = 0.0
        done = 0
        world = game.sample_state(observation, rng)
        budget = self.last_budget = self.budget(world)
        make = self.hooks.evaluator
        evaluate = make(world) if make is not None else self.hooks.evaluate
        assert evaluate is not None
        while done < budget and now + slowest < deadline:
            i = done % width
            if i == 0 and done:
                world = game.sample_state(observation, rng)
            trial = world.clone()
            trial.apply(order[i])
            latest[i] = _reply_value(trial, me, policy, evaluate, rng)
            done += 1
            if i == width - 1:  # every action has met this world: it counts
                for j in range(width):
                    totals[j] += latest[j]
            later = clock()
            slowest = max(slowest * 0.9, later - now)
            now = later
        self.last_iterations = done
        self.last_cut = done < budget
        # the actions are compared on the same worlds: a world the budget ended inside would
        # favour or sink only the actions it reached (a deal moves every result together)
        scores, reached = (totals, width) if done >= width else (latest, done)
        best = 0
        for i in range(1, reached):
            if scores[i] > scores[best]:
                best = i
        return order[best]

    def search(self, observation: dict[str, Any], legal: list[str],
               deadline: float) -> dict[str, _Node]:
        """Run the search until the budget or the deadline; the root's edges by action."""
        game = registry.get(self.game_name)
        me = int(observation["seat"])
        rng = self.rng
        hooks = self.hooks
        policy = self.rollout_policy()
        evaluate = hooks.evaluate
        first: State | None = None
        if hooks.evaluator is not None:  # (no world drawn otherwise: the same games as before)
            first = game.sample_state(observation, rng)
            evaluate = hooks.evaluator(first)
        depth = hooks.depth if self.depth is None else self.depth
        bias = hooks.bias if self.bias is None else self.bias
        top = hooks.top if self.top is None else self.top
        order = hooks.order if self.expand == "order" else None
        widen = hooks.widen if self.widen is None else self.widen
        if top > 0 or bias > 0:
            legal = self._candidates(observation, legal, top)
        allowed = set(legal)
        root = _Node()
        if evaluate is not None and self.prior > 0:
            self._seed_root(root, game.sample_state(observation, rng), me, legal, evaluate,
                            deadline)
        if bias > 0:  # progressive bias: virtual wins on the heuristic's choice
            edge = root.children.setdefault(legal[0], _Node())
            edge.visits += bias
            edge.total += float(bias)
        pool: list[State] = []
        budget = self.last_budget = self.budget(first)
        clock = time.perf_counter
        now = clock()
        slowest = 0.0
        done = 0
        while done < budget and now + slowest < deadline:
            if self.worlds > 0:
                if len(pool) < self.worlds:
                    pool.append(game.sample_state(observation, rng))
                world = pool[done % self.worlds].clone()
            else:
                world = game.sample_state(observation, rng)
            self._iterate(root, world, me, allowed, policy, evaluate, depth, order, widen)
            done += 1
            later = clock()
            slowest = max(slowest * 0.9, later - now)  # an iteration must fit before the deadline
            now = later
        self.last_iterations = done
        self.last_cut = done < budget
        return root.children

    def _seed_root(self, root: _Node, world: State, me: int, legal: list[str],
                   evaluate: Evaluate, deadline: float) -> None:
        """Give each root action ``prior`` virtual visits worth its one-step evaluation, so a
        small budget is spent on the actions the evaluation already likes. Actions left when
        the deadline comes stay untried (the search expands them as usual)."""
        for action in legal:
            if time.perf_counter() >= deadline:
                return
            trial = world.clone()
            trial.apply(action)
            value = trial.returns()[me] if trial.is_terminal() else evaluate(trial)[me]
            edge = root.children[action] = _Node()
            edge.visits = self.prior
            edge.total = self.prior * (value + 1.0) * 0.5

    def _candidates(self, observation: dict[str, Any], legal: list[str], top: int) -> list[str]:
        """The root actions to search, the heuristic's choice first: its best ``top`` when
        ``top`` > 0, else all of them."""
        rank = ranker_for(self.game_name)
        if rank is not None:
            order = rank(observation, legal, self.rng)
        else:
            pick = chooser_for(self.game_name)(observation, legal, self.rng)
            order = [pick, *(a for a in legal if a != pick)]
        return order[:top] if top > 0 else order

    def _iterate(self, root: _Node, world: State, me: int, allowed: set[str],
                 policy: Policy | None, evaluate: Evaluate | None, depth: int,
                 order: Policy | None, widen: float) -> None:
        rng = self.rng
        c = self.hooks.c if self.c is None else self.c
        path: list[tuple[_Node, int]] = []  # (edge, seat that chose it)
        node = root
        at_root = True
        while not world.is_terminal():
            seat = world.current_player
            legal = world.legal_actions()
            if at_root:  # the root tries every action it searches
                legal = [a for a in legal if a in allowed] or legal
                at_root = False
                room = len(legal)
            elif widen > 0.0:
                room = 1 + int(widen * math.sqrt(node.visits))
            else:
                room = len(legal)
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried and len(legal) - len(untried) < room:
                if order is not None and len(untried) > 1:
                    action = order(world, untried, rng)
                else:
                    action = rng.choice(untried)
                child = children[action] = _Node()
                for a in legal:
                    other = children.get(a)
                    if other is not None and other is not child:
                        other.avail += 1
                world.apply(action)
                path.append((child, seat))
                break
            best_score = -1.0
            best: _Node | None = None
            action = legal[0]
            for a in legal:
                edge = children.get(a)
                if edge is None:  # not yet admitted by the widening
                    continue
                edge.avail += 1
                score = edge.total / edge.visits + c * math.sqrt(math.log(edge.avail) / edge.visits)
                if score > best_score:
                    best_score, best, action = score, edge, a
            assert best is not None
            world.apply(action)
            path.append((best, seat))
            node = best
        results = _rollout(world, rng, policy, evaluate, depth)
        for edge, seat in path:
            edge.visits += 1
            edge.total += results[seat]


def _rollout(world: State, rng: random.Random, policy: Policy | None,
             evaluate: Evaluate | None, depth: int) -> list[float]:
    """Play on from ``world``; each seat's result scaled to 0 (loss) .. 1 (win)."""
    steps = 0
    choice = rng.choice
    while not world.is_terminal() and steps < depth:
        legal = world.legal_actions()
        world.apply(policy(world, legal, rng) if policy is not None else choice(legal))
        steps += 1
    if world.is_terminal():
        values = world.returns()
    elif evaluate is not None:
        values = evaluate(world)
    else:
        values = [0.0] * world.num_players
    return [(v + 1.0) * 0.5 for v in values]


def _finish_turn(state: State, seat: int, policy: Policy | None, rng: random.Random) -> None:
    """Play ``seat``'s further decisions of this turn (Battle Line: the claims and the draw
    after a play) with the rollout policy, until another seat is to move or the game ends."""
    for _ in range(_TURN_CAP):
        if state.is_terminal() or state.current_player != seat:
            return
        legal = state.legal_actions()
        state.apply(policy(state, legal, rng) if policy is not None else rng.choice(legal))


_TURN_CAP = 16  # decisions of one seat in a row that a trial plays out at most


def _reply_value(world: State, me: int, policy: Policy | None, evaluate: Evaluate,
                 rng: random.Random) -> float:
    """``me``'s result (-1 .. 1) in ``world`` after ``me``'s action: the rest of the turn by the
    policy, then the next seat's answer that the evaluation likes best for that seat."""
    _finish_turn(world, me, policy, rng)
    if world.is_terminal():
        return world.returns()[me]
    mover = world.current_player
    best = -2.0
    mine = 0.0
    for answer in world.legal_actions():
        trial = world.clone()
        trial.apply(answer)
        _finish_turn(trial, mover, policy, rng)
        values = trial.returns() if trial.is_terminal() else evaluate(trial)
        if values[mover] > best:
            best, mine = values[mover], values[me]
    return mine


def _greedy_policy(game: str) -> Policy:
    """The built-in greedy bot's choice for the seat to move, from that seat's observation."""
    choose = chooser_for(game)

    def policy(state: State, legal: list[str], rng: random.Random) -> str:
        return choose(state.observation(state.current_player), legal, rng)

    return policy


def _rank(edge: _Node | None) -> tuple[int, float]:
    """Most visited first, then the best mean result."""
    if edge is None or edge.visits == 0:
        return (0, 0.0)
    return (edge.visits, edge.total / edge.visits)


def parse_options(text: str) -> dict[str, Any]:
    """``"ms=200,c=0.5"`` -> keyword arguments of :class:`MctsBot`.

    >>> parse_options("iters=800, c=0.5")
    {'iters': 800, 'c': 0.5}
    """
    kinds: dict[str, Callable[[str], Any]] = {
        "iters": int, "ms": float, "c": float, "depth": int, "worlds": int, "rollout": str,
        "prior": int, "bias": int, "top": int, "reply": int, "expand": str, "widen": float,
        "scale": int, "learned": int,
    }
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in kinds:
            raise ValueError(f"mcts option {part!r}: write key=value with key one of "
                             f"{', '.join(kinds)}")
        try:
            out[key] = kinds[key](value.strip())
        except ValueError:
            raise ValueError(f"mcts option {part!r}: {value.strip()!r} is not a valid "
                             f"{kinds[key].__name__}") from None
    return out


# --------------------------------------------------------------------------------------------
# per-game hooks: optional knowledge that makes rollouts cheaper or better informed


def _battleline_policy(state: State, legal: list[str], rng: random.Random) -> str:
    """Claim whenever a claim is on offer (claims only help), else a uniformly random action.
    Claims are offered alone, in the claim phase, so the first action tells."""
    first = legal[0]
    if first.startswith("claim"):
        return first
    return rng.choice(legal)


def _battleline_learned_policy(state: State, legal: list[str], rng: random.Random) -> str:
    """The rest of a turn in the learned judgement's trials: :func:`_battleline_policy`, but
    the draw by ``greedy``'s rule (troops, unless the hand holds no tactics and fewer than 20
    troops are left). The judgement reads the hand the draw fills, so the draw follows a rule
    rather than a coin."""
    if legal[0].startswith("draw"):
        assert isinstance(state, BattleLineState)
        seat = state.current_player
        want = "draw " + deck_to_draw((state.hands[seat] & ALL_TACTICS).bit_count(),
                                      len(state.decks[0]))
        return want if want in legal else legal[0]
    return _battleline_policy(state, legal, rng)


def _warchest_policy(state: State, legal: list[str], rng: random.Random) -> str:
    """The greedy heuristic on the world itself: the action whose result scores best, by
    ``quick_scores`` (greedy's own scores wherever no coin is drawn, in two thirds of the time)."""
    assert isinstance(state, WarChestState)
    return quick_best_action(state, legal, state.current_player % 2, rng)


def _warchest_evaluate(state: State) -> list[float]:
    """The greedy heuristic's score for each seat's team, squashed to -1 .. 1."""
    assert isinstance(state, WarChestState)
    # the heuristic is not antisymmetric (it measures only its own team's approach to targets):
    # score both teams from their own side
    zero = math.tanh((warchest_score(state, 0) - warchest_score(state, 1)) / 600.0)
    return [zero if seat % 2 == 0 else -zero for seat in range(state.num_players)]


_HOOKS: dict[str, Hooks] = {
    "battleline": Hooks(policy=_battleline_policy, evaluate=battleline_value.evaluate,
                        evaluator=battleline_value.evaluator, depth=4, c=0.1, bias=20, top=16,
                        reply=True, iters=128, learned=battleline_value.learned_evaluator,
                        learned_from=4, learned_cost=4,
                        learned_policy=_battleline_learned_policy,
                        learned_weights=battleline_value.shipped_weights,
                        learned_applies=battleline_value.learns),
    "warchest": Hooks(policy=_warchest_policy, evaluate=_warchest_evaluate, depth=3, c=0.1,
                      top=5, order=_warchest_policy, widen=0.25,
                      learned=warchest_value.learned_evaluator, learned_from=0,
                      learned_weights=warchest_value.shipped_weights,
                      learned_applies=warchest_value.learns),
}


def check_learned(options: dict[str, Any]) -> None:
    """Read the weights of every learned judgement a bot of these options would judge with,
    so a weights file that does not fit its features is refused (one line, naming the file and
    the command that fits it again: :class:`agents.value_weights.WeightsMismatch`) before any
    game starts."""
    bot = MctsBot(**options)
    for hooks in _HOOKS.values():
        if hooks.learned_weights is not None and bot._learns(hooks):
            hooks.learned_weights()


def hooks_for(game: str) -> Hooks:
    """The game's hooks, or none (random rollouts to the end) for a game without any."""
    return _HOOKS.get(game, Hooks())
