"""Games as trees: an adapter over an OpenSpiel-style state API.

A game state offers the names OpenSpiel's ``pyspiel.State`` uses, so pyspiel games plug in:
``current_player()``, ``is_terminal()``, ``is_chance_node()``, ``legal_actions()``,
``chance_outcomes()`` -> ``[(action, probability), ...]``, ``child(action)``, ``returns()``.

The root player (``root_player``, player 0 unless given) maximises: decision nodes of that player
are MAX nodes, the others MIN nodes, terminals are worth ``returns()[root_player]``.

The horizon follows OpenSpiel's ``expectiminimax`` (``open_spiel/python/algorithms/minimax.py``):
``horizon`` counts decision plies, chance nodes are free (their outcomes keep the plies left),
and any non-terminal node with no ply left, a chance node included, is a leaf evaluated by
``heuristic(state)``.  Best moves are reported as child indices; ``actions(node)`` maps them
back to the game's action ids.

Probabilities: in float mode the game's own floats, untouched (no per-node conversion); in exact
mode (``exact=True``) each is read exactly from its shortest decimal text and the node's
probabilities are divided by their sum, as for JSON trees, so they sum to exactly 1 (pig's
six 0.16666666666666666 become 1/6 each).  The conversion is remembered per distinct outcome
list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, Protocol

from starbench.errors import EvaluationError, InputError
from starbench.search.transposition import text_key
from starbench.trees.protocol import Kind, Number

#: What the compiled engine says of a game it has no native model of (``GameTree.model_refusal``).
NO_MODEL = "games without a model (games.models: pig, Einstein würfelt nicht)"

# module constants: looking up an Enum member costs ~150 ns, comparing ~30
MAX, MIN, CHANCE, LEAF = Kind.MAX, Kind.MIN, Kind.CHANCE, Kind.LEAF


class GameState(Protocol):
    def current_player(self) -> int: ...
    def is_terminal(self) -> bool: ...
    def is_chance_node(self) -> bool: ...
    def legal_actions(self) -> Sequence[int]: ...
    def chance_outcomes(self) -> Sequence[tuple[int, Any]]: ...
    def child(self, action: int) -> GameState: ...
    def returns(self) -> Sequence[Any]: ...


def _exact(x: Any) -> Number:
    return x if isinstance(x, int | Fraction) else Fraction(str(x))


class GameTree:
    """The tree protocol over game states.  A node is ``(state, plies_left)``."""

    def __init__(
        self,
        state: GameState,
        bounds: tuple[Any, Any],
        horizon: int | None = None,
        heuristic: Callable[[GameState], Any] | None = None,
        *,
        root_player: int = 0,
        exact: bool = True,
        exact_probabilities: dict[tuple[Any, ...], list[Number]] | None = None,
        key: Callable[[GameState], int] | None = None,
        draw_key: Callable[[GameState], int] | None = None,
    ):
        try:
            self.L, self.U = _exact(bounds[0]), _exact(bounds[1])
        except (ValueError, OverflowError, ZeroDivisionError):
            raise InputError(f"game bounds must be finite numbers, got {bounds!r}") from None
        self.horizon = horizon
        self.heuristic = heuristic
        self.root_player = root_player
        self.exact = exact
        # exact mode: probabilities by the game's float tuple (``exact_probabilities`` seeds it
        # with a game's own exact values, e.g. backgammon's 1/36 and 1/18)
        self._probs: dict[tuple[Any, ...], list[Number]] = dict(exact_probabilities or {})
        self.root = (state, horizon)
        #: a state's transposition key (``starbench.games.keys``, or its model's,
        #: ``games.models.model_key``); None: the state's own text
        self.key = key
        #: the key that seeds sparse sampling's draws at a state (``draw_identity``); None:
        #: the transposition key
        self.draw_key = draw_key
        #: the horizon heuristic's name, where the tree's maker knows it
        self.heuristic_name: str | None = None
        #: the first leaf value evaluated, and whether a later leaf differed (``flat_value``)
        self.leaf_value: Any = None
        self.leaves_differ = False

    def flat_value(self) -> Any:
        """The one value every leaf evaluated so far had (terminals and horizon alike), or
        None when they differed or none was evaluated: a search whose leaves are all equal
        (a heuristic that does not apply to the game, such as ``zero``) says nothing."""
        return None if self.leaves_differ else self.leaf_value

    def saw_leaves(self, common: Any) -> None:
        """What a search that follows its own leaves (the fused expectimax) saw: their one
        common value, or None when they differed."""
        if common is None or (self.leaf_value is not None and common != self.leaf_value):
            self.leaves_differ = True
        elif self.leaf_value is None:
            self.leaf_value = common

    @property
    def bounds(self) -> tuple[Number, Number]:
        return (self.L, self.U)

    def native_model(self) -> Any:
        """The game's native model (``games.models``) where the compiled engine can search this
        tree with it, else None (``model_refusal`` says why).  Asks nothing compiled (choosing
        an engine calls it)."""
        return self._native()[0]

    def model_refusal(self) -> str | None:
        """Why the compiled engine cannot search this tree over a native model, as the end of
        "the compiled engine does not serve ..." (None: it can): exact mode, no horizon, no
        model of the game, or a heuristic its model does not compute."""
        return self._native()[1]

    def _native(self) -> tuple[Any, str | None]:
        """(the native model or None, why not), made once per root (a shallow view has its
        own)."""
        made = self.__dict__.get("_native_model")
        if made is not None and made[0] is self.root:
            return made[1]
        state, depth = self.root
        model, why = None, None
        if self.exact:
            why = "exact mode (a game tree made with exact=True)"
        elif depth is None:
            why = "game trees without a horizon"
        else:
            from starbench.games.models import model_of

            model = model_of(state.get_game()) if hasattr(state, "get_game") else None
            if model is None:
                why = NO_MODEL
            elif self.heuristic_name not in model.heuristics:
                name = self.heuristic_name
                what = "a heuristic with no name" if name is None else f"the heuristic {name!r}"
                why = f"{what} on {model.game}'s model (it computes {', '.join(model.heuristics)})"
                model = None
        self._native_model = (self.root, (model, why))
        return model, why

    def model_root(self) -> tuple[Any, Any] | None:
        """(``native_model()``, the root as the model's state), or None where there is no
        native model; made once per root (a shallow view has its own) the first time a search
        needs it (reading the position runs compiled code, which a process searching on the
        Python engine only never loads)."""
        made = self.__dict__.get("_model_root")
        if made is not None and made[0] is self.root:
            return made[1]
        model = self.native_model()
        form = None if model is None else (model, model.from_state(self.root[0]))
        self._model_root = (self.root, form)
        return form

    def kind(self, node: tuple[GameState, int | None]) -> Kind:
        state, left = node
        if left is not None and left <= 0:
            return LEAF  # the horizon: any node, chance nodes included (evaluate tells terminals)
        if state.is_terminal():
            return LEAF
        if state.is_chance_node():
            return CHANCE
        return MAX if state.current_player() == self.root_player else MIN

    def actions(self, node: tuple[GameState, int | None]) -> list[int]:
        state = node[0]
        if state.is_chance_node():
            return [a for a, _ in state.chance_outcomes()]
        return list(state.legal_actions())

    def children(self, node: tuple[GameState, int | None]) -> list[tuple[GameState, int | None]]:
        state, left = node
        if state.is_chance_node():
            return [(state.child(a), left) for a, _ in state.chance_outcomes()]
        nxt = None if left is None else left - 1
        return [(state.child(a), nxt) for a in state.legal_actions()]

    def probabilities(self, node: tuple[GameState, int | None]) -> list[Number]:
        raw = tuple(p for _, p in node[0].chance_outcomes())
        if not self.exact:
            return list(raw)
        probs = self._probs.get(raw)
        if probs is None:
            exact = [_exact(p) for p in raw]
            total = sum(exact, Fraction(0))
            probs = self._probs[raw] = exact if total == 1 else [p / total for p in exact]
        return probs

    def evaluate(self, node: tuple[GameState, int | None]) -> Number:
        state = node[0]
        if state.is_terminal():
            v = state.returns()[self.root_player]
        elif self.heuristic is None:
            raise EvaluationError(f"{self.describe(node)}: horizon reached but no heuristic given")
        else:
            v = self.heuristic(state)
        v = _exact(v) if self.exact else v
        if not self.leaves_differ:  # one test per leaf once they differ
            if self.leaf_value is None:
                self.leaf_value = v
            elif v != self.leaf_value:
                self.leaves_differ = True
        return v

    def search_class(self, cls: type, settings: dict[str, Any]) -> type:
        """The class that runs algorithm class ``cls`` with ``settings`` on this tree: the
        games' fused expectimax (``starbench.games.expectimax``, same values and counters) for
        the reference expectimax in float mode without a table or debug checks, and the fused
        Star1 and Star2 family (``starbench.games.stars``, same values and counters) for theirs
        on a tree read in floats too; else ``cls``."""
        from starbench.search.expectimax import Expectimax

        plain = not any(settings.get(k) for k in ("exact", "debug", "tt", "table"))
        if not plain or type(self) is not GameTree:
            return cls
        if cls is Expectimax:
            from starbench.games.expectimax import GameExpectimax

            return GameExpectimax
        if getattr(self, "exact", True) is False:  # read in floats (a bare tree: unknown)
            from starbench.games.stars import FUSED_STARS

            return FUSED_STARS.get(cls, cls)
        return cls

    # ------------------------------------------------------------------ shallow views
    @property
    def static_values(self) -> bool:
        """Does every node have a value of its own (the heuristic; ChanceProbCut's shallow
        searches, ``starbench.trees.horizon``)?"""
        return self.heuristic is not None

    def plies_below(self, node: tuple[GameState, int | None]) -> int:
        """The decision plies left below ``node`` (a chance node's outcomes keep its plies)."""
        if node[1] is None:
            raise InputError(f"{self.describe(node)}: no horizon, so no depth to shallow searches")
        return node[1]

    def shallow(self, node: tuple[GameState, int | None], plies: int) -> GameTree:
        """This tree from ``node``'s state with ``plies`` decision plies left (0: the state
        itself is the leaf, valued by the heuristic)."""
        import copy

        view = copy.copy(self)
        view.root = (node[0], plies)
        return view

    def transposition(self, node: tuple[GameState, int | None]) -> tuple[int, int]:
        """(key, depth) for a transposition table: the game's key of the whole state
        (``starbench.games.keys``: equal keys are one subtree, whatever the moves that led
        there), else a 64-bit digest of the state's text with its kind and player to move (a
        state may offer its own text as ``transposition_text()``; starbench's own states write
        their whole state there); and the decision plies left (-1 without a horizon)."""
        state, left = node
        depth = -1 if left is None else left
        if self.key is not None:
            return self.key(state), depth
        own = getattr(state, "transposition_text", None)
        text = own() if own is not None else str(state)
        return text_key(f"{int(state.is_chance_node())}|{state.current_player()}|{text}"), depth

    def draw_identity(self, node: tuple[GameState, int | None]) -> int:
        """The identity that seeds sparse sampling's draws at ``node``
        (``search.sampling``): ``draw_key`` of its state where given (a game with a model
        keeps the text key it had before its tables took the model's key, so that sampled
        searches draw what they drew), else its transposition key."""
        if self.draw_key is not None:
            return self.draw_key(node[0])
        return self.transposition(node)[0]

    def describe(self, node: tuple[GameState, int | None]) -> str:
        """One line: the action history of an OpenSpiel state (as ``--position`` takes it),
        else the state's text with its lines joined."""
        state = node[0]
        history = getattr(state, "history", None)
        if callable(history):
            return f"game state after actions [{','.join(map(str, history()))}]"
        return "game state " + " / ".join(str(state).splitlines())

    def first_chance(self) -> Any:
        from starbench.trees.protocol import has_chance

        return has_chance(self)


def full_tree_counts(tree: GameTree) -> tuple[int, int]:
    """(nodes, leaves) of the whole depth-limited game tree, counted without evaluating a leaf:
    exactly what expectimax visits (it enters every node).  A decision node with one ply left
    has only leaves below it, so its moves are counted, not built.  Costs move generation over
    the tree above the frontier: cheap where expectimax's leaf evaluations are not."""
    nodes = leaves = 0
    stack = [tree.root]
    while stack:
        node = stack.pop()
        nodes += 1
        kind = tree.kind(node)
        if kind is LEAF:
            leaves += 1
        elif kind is not CHANCE and node[1] == 1:
            n = len(node[0].legal_actions())
            nodes += n
            leaves += n
        else:
            stack.extend(tree.children(node))
    return nodes, leaves
