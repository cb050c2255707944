"""Games as a tree source: a game name, a depth, a start position and a heuristic -> a GameTree.

Game names (``GAME_SOURCES``): an OpenSpiel ``load_game`` string (``pig``,
``pig(winscore=10)``), also written ``openspiel:<string>``; and ``backgammon``, GNU Backgammon's
own evaluator (``starbench.games.backgammon``; OpenSpiel's backgammon is ``openspiel:backgammon``).

OpenSpiel games need the ``games`` extra (``pip install -c constraints.txt -e ".[games]"``);
OpenSpiel is Apache-2.0 and is imported, never bundled.  Backgammon needs the ``backgammon``
extra (gnubg-nn, GPL-2.0, likewise imported, never bundled).

Positions: for OpenSpiel games, a comma-separated action history from the initial state (chance
outcomes included, as OpenSpiel's ``history()`` lists them); for backgammon a gnubg position ID,
the player on roll to move.  The search's root player is the
player to move there (player 0 when the position is a chance node).  ``depth`` counts decision
plies, as OpenSpiel's ``expectiminimax`` does (see ``starbench.games.adapter``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from starbench.errors import InputError
from starbench.games.adapter import GameTree
from starbench.games.heuristics import get_heuristic

GAMES_INSTALL = 'pip install -c constraints.txt -e ".[games]"'
OPENSPIEL_PREFIX = "openspiel:"


@dataclass(frozen=True)
class GameSource:
    """A game tree and what names it (the game, the position, the heuristic, the root's dice,
    the move order), with the game library's version and its move-ordering counter."""

    tree: GameTree
    game: str
    position: str
    heuristic: str
    dice: str = ""
    move_order: str = "none"
    version: str | None = None
    #: backgammon: the shared game whose ``order_evals`` counts ordering evaluations
    counter: Any = None
    #: the text of a root action (backgammon: gnubg's move notation), else the action id
    notation: Callable[[Any, int], Any] | None = None

    def action(self, move: int | None) -> Any:
        """The game's own name of root child ``move`` (a best move): OpenSpiel's action id, or
        for backgammon gnubg's move notation ("24/18 13/8", "pass")."""
        if move is None:
            return None
        state, _ = self.tree.root
        action = self.tree.actions(self.tree.root)[move]
        if self.notation is not None and not state.is_chance_node():
            return self.notation(state, action)
        return action

    def reset_counts(self) -> None:
        """Start a search: ``order_evals`` back to 0."""
        if self.counter is not None:
            self.counter.order_evals = 0

    def order_evals(self) -> int | None:
        """Evaluations made to order moves since ``reset_counts`` (None: the source orders
        none)."""
        return None if self.counter is None else self.counter.order_evals


@contextmanager
def _captured_stderr() -> Iterator[Callable[[], str]]:
    """Capture what native code writes to file descriptor 2 (read it with the yielded call)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield lambda: (tmp.seek(0), tmp.read().decode(errors="replace"))[1]
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:
        raise InputError(f"OpenSpiel games need the games extra: {GAMES_INSTALL}") from None
    return pyspiel


def load_openspiel(spec: str, key: str = "--game") -> Any:
    """The pyspiel game of a ``load_game`` string, checked to be a two-player, zero-sum,
    sequential game of perfect information with explicit chance outcomes (what expectimax and
    the star algorithms search)."""
    pyspiel = _pyspiel()
    name = spec.split("(", 1)[0].strip()
    if name not in pyspiel.registered_names():
        raise InputError(
            f"{key}: {spec}: no OpenSpiel game {name!r} (pyspiel.registered_names() lists them)"
        )
    with _captured_stderr() as said:  # OpenSpiel's C++ writes its errors to stderr itself
        try:
            game = pyspiel.load_game(spec)
        except pyspiel.SpielError as e:
            first = (said() or str(e)).strip().splitlines()
            raise InputError(f"{key}: {spec}: {first[0] if first else 'not loadable'}") from None
    t = game.get_type()
    problems = []
    if t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        problems.append("chance outcomes are sampled, not listed with their probabilities")
    if t.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        problems.append("not sequential")
    if t.information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        problems.append("not of perfect information")
    if game.num_players() != 2:
        problems.append(f"{game.num_players()} players")
    if t.utility not in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
        problems.append("not zero-sum")
    if problems:
        raise InputError(
            f"{key}: {spec}: {', '.join(problems)}; starbench searches two-player zero-sum "
            f"sequential games of perfect information"
        )
    return game


def openspiel_position(game: Any, position: str | None, key: str = "--position") -> Any:
    """The state after the comma-separated action history ``position`` (None: the start)."""
    state = game.new_initial_state()
    for i, text in enumerate((position or "").split(",") if position else []):
        try:
            action = int(text)
        except ValueError:
            raise InputError(f"{key}: item {i + 1} {text!r} is not an action id") from None
        if state.is_terminal():
            raise InputError(f"{key}: item {i + 1}: the game is already over")
        legal = (
            [a for a, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else list(state.legal_actions())
        )
        if action not in legal:
            raise InputError(
                f"{key}: item {i + 1}: action {action} is not legal there "
                f"(legal: {', '.join(map(str, legal))})"
            )
        state.apply_action(action)
    if state.is_terminal():
        if not position:
            raise InputError(
                f"--game: {game}: the game's start position is terminal: nothing to search"
            )
        raise InputError(f"{key}: the position is terminal: nothing to search")
    return state


def openspiel_tree(state: Any, depth: int, heuristic: str | None, exact: bool) -> GameTree:
    """The tree of an OpenSpiel state searched ``depth`` decision plies deep, for the player
    to move there (player 0 at a chance node), with the named heuristic at the horizon."""
    from starbench.games.keys import openspiel_key
    from starbench.games.models import model_key

    game = state.get_game()
    short = game.get_type().short_name
    # a name another kind claims (backgammon: gnubg's equity reads gnubg boards, not
    # OpenSpiel's states) is OpenSpiel's game of its own name here: openspiel:<name>
    named = short if kind_of(short) is OPENSPIEL else OPENSPIEL_PREFIX + short
    h = get_heuristic(heuristic, named)
    root_player = state.current_player() if not state.is_chance_node() else 0
    hL, hU = h.bounds(game)
    bounds = (min(hL, game.min_utility()), max(hU, game.max_utility()))
    tree = GameTree(
        state,
        bounds,
        horizon=depth,
        heuristic=lambda s: h.value(s, root_player),  # value(state, root_player), positional
        root_player=root_player,
        exact=exact,
        # a model's key: the compiled engine's; the draws of sparse sampling keep the text key
        key=model_key(game) or openspiel_key(short)[0],
        draw_key=openspiel_key(short)[0],
    )
    tree.heuristic_name = h.name
    tree.native_model()  # made with the tree (no compiled code runs: the position is read later)
    return tree


def openspiel_source(
    spec: str, depth: int, position: str | None, heuristic: str | None, exact: bool
) -> GameSource:
    game = load_openspiel(spec)
    tree = openspiel_tree(openspiel_position(game, position), depth, heuristic, exact)
    return GameSource(
        tree, str(game), position or "", tree.heuristic_name, version=openspiel_version()
    )


def openspiel_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("open_spiel")
    except PackageNotFoundError:
        return None


def backgammon_source(
    depth: int,
    position: str | None,
    heuristic: str | None,
    exact: bool,
    dice: str | None = None,
    move_order: str = "none",
) -> GameSource:
    """GNU Backgammon's evaluator (``starbench.games.backgammon``): ``position`` a gnubg
    position ID with the player on roll to move, ``dice`` "D1,D2" for the root's roll (else
    the root is the roll)."""
    from starbench.games import backgammon as bg

    h = get_heuristic(heuristic, "backgammon")
    rolled = bg.parse_dice(dice)
    game = bg.Backgammon(move_order, depth)
    state = game.state(position, rolled)
    tree = GameTree(
        state,
        bg.EQUITY_BOUNDS,
        horizon=depth,
        heuristic=lambda s: h.value(s, 0),  # value(state, root_player), positional
        root_player=0,
        exact=exact,
        exact_probabilities={bg.ROLL_PROBS: bg.EXACT_ROLL_PROBS},
    )
    return GameSource(
        tree,
        "backgammon",
        position or bg.START_POSITION,
        h.name,
        dice="" if rolled is None else f"{rolled[0]},{rolled[1]}",
        move_order=move_order,
        version=bg.version(),
        counter=game,
        notation=game.move_text,
    )


def size_estimate(tree: GameTree, depth: int) -> tuple[float, int, int]:
    """(nodes, moves, outcomes): about how many nodes a search ``depth`` decision plies deep
    visits: the product of the branchings met on the tree's first path down to its
    ``depth``-th decision (chance nodes on the way included: Einstein wurfelt nicht's start is
    two placement draws and a die roll before its first move), with the most moves and chance
    outcomes met.  A game's size is not known before it is searched: the estimate bounds it
    like a generated tree's size (``limits``) and warns of a long search."""
    from starbench.trees.protocol import Kind

    node, moves, outcomes, nodes, plies = tree.root, 1, 1, 1.0, 0
    for _ in range(4 * depth + 8):
        kind = tree.kind(node)
        if kind == Kind.LEAF or plies >= depth:
            break
        kids = list(tree.children(node))
        if not kids:
            break
        if kind == Kind.CHANCE:
            outcomes = max(outcomes, len(kids))
        else:
            moves = max(moves, len(kids))
            plies += 1
        nodes *= len(kids)
        node = kids[0]
    if plies < depth and plies > 0:  # a path that ended early: the rest as the plies seen
        nodes *= nodes ** ((depth - plies) / plies)
    return nodes, moves, outcomes


def flat_line(value: Any, heuristic: Any, game: Any, key: str) -> str:
    """The line that says every leaf a search evaluated had one ``value`` under ``heuristic``:
    it does not tell ``game``'s positions apart (``zero`` on chess), so no value or move means
    anything; ``key`` is where to choose another (``--heuristic``, ``tree.heuristic``)."""
    return (
        f"starbench: note: every leaf the search evaluated is worth {float(value):g} under the "
        f"heuristic {heuristic!r}: its values and moves say nothing about {game}; set {key} to "
        f"a heuristic that tells its positions apart (the heuristics: starbench.games."
        f"heuristics, docs/guide/games.md)"
    )


def flat_note(source: GameSource) -> str | None:
    """``flat_line`` for the searches of ``source`` (``solve``), or None when their leaves
    differed."""
    v = source.tree.flat_value()
    return None if v is None else flat_line(v, source.heuristic, source.game, "--heuristic")


def long_search_line(
    game: str, depth: int, estimate: tuple[float, int, int], bound: str, budget: int | None
) -> str | None:
    """One line before a game search whose ``size_estimate`` is over ``limits.GAME_NOTE_NODES``
    nodes: its size and what bounds it (``bound``, a format such as ``--node-budget {}``, with
    the ``budget`` given or ``N``); None for a smaller one."""
    from starbench.ground.limits import GAME_NOTE_NODES

    nodes, moves, outcomes = estimate
    if nodes <= GAME_NOTE_NODES:
        return None
    return (
        f"{game} searched {depth} plies deep may visit about {nodes:.3g} nodes per search (the "
        f"first position's path; up to {moves} moves and {outcomes} outcomes); "
        f"{bound.format(budget or 'N')} bounds each search"
    )


#: Where an OpenSpiel playout stops: a number of decision plies drawn uniformly in this range.
PLAYOUT_PLIES = (0, 20)
PLAYOUT_TRIES = 1000  # playouts that end the game before one gives up, in one line


def draw_outcome(state: Any, rng: Any) -> int:
    """A chance node's outcome drawn by its probabilities from numpy generator ``rng`` (the one
    way seeded playouts, position samplers and matches roll the dice)."""
    import numpy as np

    actions, probs = zip(*state.chance_outcomes(), strict=True)
    p = np.asarray(probs, dtype=float)
    return int(actions[rng.choice(len(actions), p=p / p.sum())])


def openspiel_playout(game: str, seed: int, instance: int, drawn_dice: bool) -> tuple[str, None]:
    """A seeded playout of an OpenSpiel game from its start (numpy's PCG64 seeded by ``(seed,
    instance)``): uniformly random legal moves and chance outcomes drawn by their
    probabilities, for a number of decision plies drawn in ``PLAYOUT_PLIES``; a playout that
    ends the game starts again.  Its position is the action history (no dice)."""
    import numpy as np

    loaded = load_openspiel(game.removeprefix(OPENSPIEL_PREFIX), "tree.game")
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, instance])))
    plies = int(rng.integers(PLAYOUT_PLIES[0], PLAYOUT_PLIES[1] + 1))
    for _ in range(PLAYOUT_TRIES):
        state = loaded.new_initial_state()
        made = 0
        while made < plies and not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(draw_outcome(state, rng))
            else:
                legal = state.legal_actions()
                state.apply_action(int(legal[rng.integers(len(legal))]))
                made += 1
        if not state.is_terminal():
            return ",".join(map(str, state.history())), None
    raise InputError(
        f"tree.game: {game}: no playout of {plies} decision plies (instance {instance}, "
        f"seed {seed}) ended before the game did in {PLAYOUT_TRIES} tries (a horizon or a "
        f"short game); give tree.position, tree.sampler=uniform where the game has an oracle, or "
        f"a longer game"
    )


def random_history(game: Any, rng: Any, low: int, high: int) -> str | None:
    """A random reachable position of a loaded OpenSpiel game, for tests and benchmarks: from
    the start, ``rng.integers(low, high)`` actions, each uniform over the legal moves or the
    chance outcomes (not by their probabilities), stopping before an action that would end the
    game; its action history as ``tree.position`` takes it (None: the start).  Unlike
    ``openspiel_playout`` it never gives up: a short game or a horizon only shortens it."""
    state = game.new_initial_state()
    for _ in range(rng.integers(low, high)):
        actions = (
            [a for a, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        child = state.child(actions[rng.integers(len(actions))])
        if child.is_terminal():
            break
        state = child
    return ",".join(map(str, state.history())) or None


def backgammon_playout(
    game: str, seed: int, instance: int, drawn_dice: bool
) -> tuple[str, str | None]:
    """0-ply self-play (``starbench.games.backgammon.self_play_position``)."""
    from starbench.games.backgammon import self_play_position

    return self_play_position(seed, instance, drawn_dice=drawn_dice)


def backgammon_version() -> str | None:
    from starbench.games.backgammon import version

    return version()


@dataclass(frozen=True)
class GameKind:
    """One kind of game source: everything that differs between kinds, so that no other module
    asks which game it is.  ``claims(game)``: is the game string one of this kind's;
    ``make(game, depth, position, heuristic, exact, dice, move_order)``: its ``GameSource``
    (its tree, the extras the rows record, the move notation); ``playout(game, seed, instance,
    drawn_dice)``: a seeded start position and the dice drawn with it (None: none); ``version``:
    the version of the library that plays it (a new version is a new cell); ``oracle``: the
    ``starbench.oracles.ORACLES`` entry that serves every game of the kind (None: the oracles
    find one from the loaded game); ``takes_dice`` (``tree.dice``, ``--dice``) and
    ``orders_moves`` (``tree.move_order``): the kind's extras; ``oracle_samplers``: start
    positions may be drawn from an oracle (``tree.sampler``); ``start_valued``: its oracle
    values the game's start (backgammon's bear-off database does not)."""

    name: str
    claims: Callable[[str], bool]
    make: Callable[..., GameSource]
    playout: Callable[[str, int, int, bool], tuple[str, str | None]]
    version: Callable[[], str | None]
    oracle: str | None = None
    takes_dice: bool = False
    orders_moves: bool = False
    oracle_samplers: bool = True
    start_valued: bool = True


def _openspiel(game, depth, position, heuristic, exact, dice, move_order) -> GameSource:  # noqa: ANN001
    return openspiel_source(game.removeprefix(OPENSPIEL_PREFIX), depth, position, heuristic, exact)


def _backgammon(game, depth, position, heuristic, exact, dice, move_order) -> GameSource:  # noqa: ANN001
    return backgammon_source(depth, position, heuristic, exact, dice, move_order)


#: The OpenSpiel kind: every game string no other kind claims (a ``load_game`` string, also
#: written ``openspiel:<string>``).
OPENSPIEL = GameKind(
    "openspiel", lambda game: True, _openspiel, openspiel_playout, openspiel_version
)
#: The game kinds by name (``kind_of``); OpenSpiel's answers for a game no other kind claims.
GAME_KINDS: dict[str, GameKind] = {
    "backgammon": GameKind(
        "backgammon",
        lambda game: game == "backgammon",
        _backgammon,
        backgammon_playout,
        backgammon_version,
        oracle="backgammon-bearoff",
        takes_dice=True,
        orders_moves=True,
        oracle_samplers=False,
        start_valued=False,
    ),
    "openspiel": OPENSPIEL,
}


def kind_of(game: str) -> GameKind:
    """The kind of the game string ``game``: the first kind besides OpenSpiel's that claims it,
    else OpenSpiel's."""
    return next(
        (k for k in GAME_KINDS.values() if k is not OPENSPIEL and k.claims(game)), OPENSPIEL
    )


def game_source(
    game: str,
    depth: int,
    position: str | None = None,
    heuristic: str | None = None,
    *,
    exact: bool = False,
    dice: str | None = None,
    move_order: str = "none",
) -> GameSource:
    """The tree of ``game`` searched ``depth`` decision plies deep from ``position`` (``dice``
    and ``move_order``: for the kinds that take them, ``GameKind``)."""
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
        raise InputError(f"--depth: must be an integer >= 1 (decision plies), got {depth!r}")
    kind = kind_of(game)
    if dice and not kind.takes_dice:
        raise InputError(f"--dice: only {_with('takes_dice')} takes dice, not {game}")
    if move_order != "none" and not kind.orders_moves:
        raise InputError(
            f"--move-order: {move_order} orders {_with('orders_moves')} moves only, not {game}"
        )
    return kind.make(game, depth, position, heuristic, exact, dice, move_order)


def _with(flag: str) -> str:
    """The kinds with ``flag``, for a message."""
    return ", ".join(k.name for k in GAME_KINDS.values() if getattr(k, flag)) or "no game"
