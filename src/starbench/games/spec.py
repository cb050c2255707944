"""A game as a run's tree source (``starbench run tree=game``): the config keys and their rules.

``tree.game`` names the game (``backgammon``, or an OpenSpiel ``load_game`` string),
``tree.depth`` the decision plies searched, ``tree.heuristic`` the horizon's evaluation (default:
the game's own), ``tree.move_order`` (backgammon: ``none``, ``equity`` or ``equity_inner``)
and the start
positions:

* ``tree.position`` set: every instance searches that position (for OpenSpiel a comma-separated
  action history, for backgammon a gnubg position ID);
* ``tree.position`` null (the default): instance ``i`` searches a position drawn from
  ``(seed, i)`` by ``tree.sampler``: ``playout`` (the default) a seeded playout from the start
  (``playout_position``); for games with an exact oracle (pig), ``uniform`` uniformly over the
  reachable states and ``optimal`` a state of the oracle's optimal self-play (drawn by
  ``starbench.oracles.positions``, which hands them to ``GameSpec.sources``: this module names no
  oracle);
* backgammon's ``tree.dice``: null (the root is the roll), ``D1-D2`` (that roll at the root), or
  ``drawn`` (each instance's root roll drawn with its position).

A game cell's identity is the game, these keys (the heuristic resolved to its name), the seed,
the arithmetic, and the version of the library that plays the game (``open_spiel`` or
``gnubg-nn``): a new version is a new cell.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from starbench.errors import ConfigError, InputError
from starbench.games.source import (  # noqa: F401 - draw_outcome: matches and samplers use it here
    GameKind,
    draw_outcome,
    kind_of,
)
from starbench.ground.limits import MAX_DEPTH


@dataclass(frozen=True)
class GameSpec:
    """The ``tree`` keys of a game cell (see the module docstring)."""

    game: str = field(
        metadata={"help": "backgammon, or an OpenSpiel load_game string (quote parentheses)"}
    )
    depth: int = field(default=2, metadata={"help": "decision plies (chance nodes are free)"})
    heuristic: str | None = field(
        default=None, metadata={"help": "the horizon's evaluation (null: the game's own)"}
    )
    position: str | None = field(
        default=None,
        metadata={
            "help": "OpenSpiel: action history a,b,c (quoted); backgammon: a gnubg position "
            "ID; null: a seeded playout per instance"
        },
    )
    dice: str | None = field(
        default=None,
        metadata={"help": "backgammon: the root's roll D1-D2, drawn, or null (the root rolls)"},
    )
    move_order: str = field(
        default="none",
        metadata={
            "help": "backgammon: order moves by 0-ply equity",
            "choices": ("none", "equity", "equity_inner"),
        },
    )
    sampler: str | None = field(
        default=None,
        metadata={
            "help": "with position null, how instances' start positions are drawn: playout "
            "(the default: seeded random play), uniform (pig: uniformly over reachable "
            "states) or optimal (states of the oracle's optimal self-play)",
            "choices": ("playout", "uniform", "optimal"),
        },
    )
    iterative: bool = field(
        default=False,
        metadata={
            "help": "iterative deepening: search depth 1, 2, ... depth with one table "
            "(budgets cover the whole search; rows get depth_completed)"
        },
    )
    #: the game library's version (filled in by ``validate``)
    version: str | None = None

    size = None  # a game tree's size is not known before it is searched

    @property
    def kind(self) -> GameKind:
        """The game's kind (``games.source.GameKind``): what it takes and how it plays out."""
        return kind_of(self.game)

    def validate(self, prefix: str = "tree.") -> GameSpec:
        """Check every key by building the first tree (one line naming the key, else); return
        the spec with the heuristic resolved to its name and the library version filled in."""
        if (
            isinstance(self.depth, bool)
            or not isinstance(self.depth, int)
            or not 1 <= self.depth <= MAX_DEPTH
        ):
            raise ConfigError(
                f"{prefix}depth: must be an integer >= 1 (decision plies, at most {MAX_DEPTH}), "
                f"got {self.depth!r}"
            )
        iterative = self.iterative
        if isinstance(iterative, str) and iterative.lower() in ("true", "false"):
            iterative = iterative.lower() == "true"  # the schema's game keys are strings
        if not isinstance(iterative, bool):
            raise ConfigError(f"{prefix}iterative: must be true or false, got {iterative!r}")
        if self.dice is not None and not self.kind.takes_dice:
            takers = ", ".join(k.name for k in _kinds() if k.takes_dice)
            raise ConfigError(f"{prefix}dice: only {takers} takes dice, not {self.game}")
        sampler = None if self.sampler == "playout" else self.sampler  # playout: the default
        if sampler is not None:
            if sampler not in ORACLE_SAMPLERS:
                raise ConfigError(
                    f"{prefix}sampler: must be one of playout, {', '.join(ORACLE_SAMPLERS)}, "
                    f"got {sampler!r}"
                )
            if self.position is not None:
                raise ConfigError(
                    f"{prefix}sampler: draws start positions, so it needs {prefix}position null "
                    f"(got position {self.position!r})"
                )
            if not self.kind.oracle_samplers:  # the others: starbench.oracles.positions
                raise ConfigError(
                    f"{prefix}sampler: {sampler} needs a game with an exact oracle (pig), not "
                    f"{self.game}"
                )
        dice = None if self.dice == "drawn" else self.dice
        try:
            source = self._source(self.position, dice, exact=False)
        except InputError as e:
            msg = str(e)
            for flag, key in (
                ("--game", "game"),
                ("--depth", "depth"),
                ("--position", "position"),
                ("--heuristic", "heuristic"),
                ("--dice", "dice"),
                ("--move-order", "move_order"),
            ):
                msg = msg.replace(f"{flag}:", f"{prefix}{key}:")
            raise ConfigError(msg) from None
        return replace(
            self,
            heuristic=source.heuristic,
            version=source.version,
            iterative=iterative,
            sampler=sampler,
        )

    def size_estimate(self, seed: int = 0, drawn: str | None = None) -> tuple[float, int, int]:
        """(nodes, moves, outcomes): about how many nodes a search to ``depth`` visits, as
        (moves x outcomes)^depth with the most moves and chance outcomes met on the first path
        of instance 0's tree (a game's size is not known before it is searched; the estimate
        bounds it like a generated tree's size, ``limits``; ``drawn``: as for ``sources``)."""
        from starbench.games.source import size_estimate

        return size_estimate(self.source(seed, 0, False, drawn).tree, self.depth)

    def _source(self, position: str | None, dice: str | None, exact: bool) -> Any:
        from starbench.games.source import game_source

        return game_source(
            self.game,
            self.depth,
            position,
            self.heuristic,
            exact=exact,
            dice=dice,
            move_order=self.move_order,
        )

    @property
    def oracle_sampled(self) -> bool:
        """Are start positions drawn from the game's exact oracle (``tree.sampler`` uniform or
        optimal)?  Then ``starbench.oracles.positions`` draws them and hands them to
        ``sources``."""
        return self.position is None and self.sampler not in (None, "playout")

    def source(self, seed: int, instance: int, exact: bool, drawn: str | None = None) -> Any:
        """The ``GameSource`` of instance ``instance`` (``drawn``: as for ``sources``)."""
        return self.sources(seed, instance, exact, drawn)(self.depth)

    def sources(self, seed: int, instance: int, exact: bool, drawn: str | None = None) -> Any:
        """depth -> the ``GameSource`` of instance ``instance`` searched to that depth (one
        start position for every depth: iterative deepening).  ``drawn``: the start position an
        oracle's sampler drew for this instance (``oracle_sampled``; the oracles' floor draws
        it: ``starbench.oracles.positions.sources``)."""
        position, dice = self.position, self.dice
        if self.oracle_sampled:
            if drawn is None:
                raise InputError(
                    f"tree.sampler: {self.sampler} draws start positions from the game's oracle: "
                    f"make the trees with starbench.oracles.positions.sources"
                )
            position = drawn
        if position is None or dice == "drawn":
            drawn, drawn_dice = playout_position(self, seed, instance)
            position = drawn if position is None else position
            dice = drawn_dice if dice == "drawn" else dice

        def at(depth: int) -> Any:
            spec = replace(self, depth=depth)
            src = spec._source(position, dice, exact)
            # what a ChanceProbCut calibration is checked against (starbench.search.calibration)
            src.tree.spec, src.tree.seed = spec, seed
            return src

        return at

    def heuristic_name(self) -> str:
        """The heuristic's name: the one given, else the game's own default (``zero`` where
        the game has none)."""
        from starbench.games.heuristics import DEFAULT_HEURISTIC

        return self.heuristic or DEFAULT_HEURISTIC.get(self.game.split("(")[0], "zero")

    def identity(self) -> dict[str, Any]:
        out = asdict(self)
        if not self.iterative:  # added later: absent when off, so stored cells keep their digest
            del out["iterative"]
        if out["sampler"] in (None, "playout"):  # likewise: absent at the default
            del out["sampler"]
        return out

    def name_parts(self) -> list[str]:
        """The readable part of a cell's folder name."""
        game = "".join(c if c.isalnum() else "-" for c in self.game).strip("-")
        parts = [game, f"d{self.depth}", str(self.heuristic)]
        if self.move_order != "none":
            parts.append(f"order-{self.move_order}")
        if self.dice:
            parts.append("dice-" + self.dice.replace(",", ""))
        if self.position is not None:
            parts.append("position")
        else:
            parts.append("playouts" if self.sampler in (None, "playout") else self.sampler)
        if self.iterative:
            parts.append("deepening")
        return parts


#: The start-position samplers besides the seeded playout (``tree.sampler``): each draws from
#: the game's exact oracle (``starbench.oracles.positions.SAMPLERS``).
ORACLE_SAMPLERS = ("uniform", "optimal")


def _kinds() -> Any:
    from starbench.games.source import GAME_KINDS

    return GAME_KINDS.values()


#: The game keys of the ``tree`` config (the ones a random-tree cell leaves null).
GAME_KEYS = tuple(f.name for f in fields(GameSpec) if f.name not in ("depth", "version"))


def playout_position(spec: GameSpec, seed: int, instance: int) -> tuple[str, str | None]:
    """Instance ``instance``'s start position, drawn from ``(seed, instance)`` by the game's
    kind (``GameKind.playout``: OpenSpiel games a seeded random playout, backgammon 0-ply
    self-play).  Returns (position, drawn dice or None)."""
    return spec.kind.playout(spec.game, seed, instance, spec.dice == "drawn")
