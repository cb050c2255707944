"""``starbench match``: two players play N games of a two-player OpenSpiel game; one row a game.

Players (``parse_player``):

* ``ALGORITHM[:PARAM=VALUE,...]``: a search of the registry (``star2:depth=3``,
  ``expectimax:depth=2,heuristic=score_difference``, ``star2.5-cyclic:k=2,depth=4``), with the
  player's own keys ``depth`` (decision plies per move, default 2), ``node_budget`` (nodes per
  move: iterative deepening from depth 1 up to ``depth``, the move of the deepest search that
  finished) and ``heuristic`` (the game's own by default), the rest the algorithm's parameters;
  it moves to the root child its search chose (the Python engine, float mode);
* ``oracle``: the exact oracle's optimal policy (``starbench.oracles``), the lowest-numbered of
  the exactly optimal actions;
* ``random``: a uniformly random legal action.

Game ``g`` of a match with seed ``s`` draws its chance outcomes from numpy's PCG64 seeded by
``(s, g)`` (the ``seed`` column), in the order the game asks for them, and a random player's
moves from a stream of its own; seats alternate: in game ``g`` the configured player ``g % 2``
moves first (``first_player``).  A match is thus reproducible; each game has dice of its own
(games ``2m`` and ``2m + 1`` are not dealt the same dice), except in a paired match
(``Match.paired``, ``--paired``): there both games of pair ``m`` draw their chance outcomes
from the stream of game ``2m``'s seed, whatever the players draw themselves, and the row's
``pair`` is ``m`` (empty in an unpaired match).  ``Analysis`` says how the games are read: a
non-inferiority margin, and sequential stopping at ten looks
(``starbench.analysis.matches``: the verdicts and their error rates).

The table (``match.parquet``, one row per game): ``game_index``, ``seed``, ``first_player``,
``player0``, ``player1`` (the two players' specs), ``winner`` (0 or 1, the configured player;
empty for a game without a winner, e.g. one OpenSpiel ended at its ``horizon``), ``moves``
(decisions in the game), ``moves0``, ``moves1`` (each player's decisions: in a game like pig one
side may make more than the other), ``nodes0``, ``nodes1`` (nodes each player's searches
visited; 0 for the oracle and random players), ``depth0``, ``depth1`` (the sum over each
player's decisions of the depth of the search its move came from: its ``depth``, or under a
``node_budget`` the deepest search that finished; 0 for the oracle and random players),
``cpu_seconds0``, ``cpu_seconds1`` (CPU time of each player's move choices) and ``pair``. The
folder also holds ``match.json`` (the request, the analysis asked, and under ``meta`` the
starbench version and git commit that first played it) and ``games.jsonl`` (one line per
finished game, flushed as it ends): a rerun of the same command, or with more ``--games``,
continues where it stopped; a different request in the same folder is refused. ``--n-jobs N``
plays N games at a time in worker processes: the same rows but for the CPU times. The summary
gives each side's win rate with its 95 % Wilson interval (``scipy.stats.binomtest``), overall
and by seat, its nodes per move and its mean depth per move
(``starbench.analysis.matches.per_move``; a table stored before the columns ``moves0``,
``moves1``, ``depth0`` and ``depth1`` shows nodes over half the decisions and no depth).
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from starbench.errors import InputError, StarbenchError

COLUMNS = (
    "game_index",
    "seed",
    "first_player",
    "player0",
    "player1",
    "winner",
    "moves",
    "moves0",
    "moves1",
    "nodes0",
    "nodes1",
    "depth0",
    "depth1",
    "cpu_seconds0",
    "cpu_seconds1",
    "pair",
)
#: Columns added since matches were first stored: a stored row without them is still a game.
LATE_COLUMNS = ("pair",)
PLAYER_KEYS = ("depth", "node_budget", "heuristic")
DEFAULT_DEPTH = 2
JOURNAL, REQUEST, TABLE = "games.jsonl", "match.json", "match.parquet"


@dataclass(frozen=True)
class Player:
    """A configured player: ``kind`` search, oracle or random."""

    spec: str
    kind: str
    algorithm: Any = None  # a search's resolved AlgorithmSpec
    depth: int = DEFAULT_DEPTH
    node_budget: int | None = None
    heuristic: str | None = None
    oracle: Any = field(default=None, compare=False)
    #: the match's game string (a ChanceProbCut player's calibration is checked against it)
    game: str | None = None


def parse_player(text: str, game: str, key: str, memory_limit: int | None = None) -> Player:
    """The player ``text`` names (module docstring); ``InputError`` naming ``key``
    (``memory_limit``: the bytes an oracle player's oracle may take while it is computed)."""
    text = text.strip()
    if text == "random":
        return Player(text, "random")
    if text == "oracle":
        from starbench.oracles import oracle_for

        oracle = oracle_for(game, key=key, replace_stale=True, memory_limit=memory_limit)
        return Player(text, "oracle", oracle=oracle)
    from starbench.search.registry import AlgorithmSpec

    name, _, rest = text.partition(":")
    own: dict[str, Any] = {}
    params: dict[str, str] = {}
    for item in filter(None, (i.strip() for i in rest.split(","))):
        k, eq, v = item.partition("=")
        if not eq or not k.strip():
            raise InputError(
                f"{key}: bad parameter {item!r} in {text!r} (write NAME:KEY=VALUE,...)"
            )
        (own if k.strip() in PLAYER_KEYS else params)[k.strip()] = v.strip()
    for k in ("depth", "node_budget"):
        if k in own:
            try:
                own[k] = int(own[k])
            except ValueError:
                raise InputError(f"{key}: {k} must be an integer >= 1, got {own[k]!r}") from None
            if own[k] < 1:
                raise InputError(f"{key}: {k} must be an integer >= 1, got {own[k]}")
    try:
        algorithm = AlgorithmSpec.of(name.strip(), params)
    except InputError as e:
        raise InputError(
            f"{key}: {e} (players: random, oracle, or ALGORITHM[:KEY=VALUE,...])"
        ) from None
    player = Player(text, "search", algorithm, game=game, **own)
    if algorithm.name == "chanceprobcut":
        _check_calibration(player, key)
    return player


def _game_spec(player: Player, depth: int) -> Any:
    """The game keys of ``player``'s searches to ``depth`` (what a calibration matches: the game
    string, the heuristic; a match's positions come from its own play, not a sampler)."""
    from starbench.games.spec import GameSpec

    return GameSpec(game=str(player.game), depth=depth, heuristic=player.heuristic)


def _check_calibration(player: Player, key: str) -> None:
    """A ChanceProbCut player's request and calibration, checked before the first game (one
    line; a match's positions come from its play, not from a seed: no seed is compared)."""
    from starbench.search.calibration import check_request

    try:
        check_request(player.algorithm.own, _game_spec(player, player.depth), None)
    except InputError as e:
        raise InputError(f"{key}: {e}") from None


@dataclass(frozen=True)
class Match:
    """A match request: the game, the two players, the games and the seed."""

    game: str
    players: tuple[Player, Player]
    games: int
    seed: int
    #: games 2m and 2m + 1 are dealt the same chance outcomes, the seats swapped
    paired: bool = False

    def request(self) -> dict[str, Any]:
        out = {
            "game": self.game,
            "player0": self.players[0].spec,
            "player1": self.players[1].spec,
            "seed": self.seed,
        }
        if self.paired:  # absent for an unpaired match, as before pairs existed
            out["paired"] = True
        return out

    def heuristics(self) -> list[str | None]:
        """Each player's heuristic as played (its own, else the game's default; None for the
        oracle and random players): recorded in ``match.json``."""
        return [resolved_heuristic(p, self.game) for p in self.players]


def resolved_heuristic(player: Player, game: str, defaults: Any = None) -> str | None:
    """The heuristic a search player plays with: its own, else the game's default (from
    ``defaults``, default ``heuristics.DEFAULT_HEURISTIC``)."""
    if player.kind != "search":
        return None
    from starbench.games.heuristics import DEFAULT_HEURISTIC
    from starbench.games.source import load_openspiel

    short = load_openspiel(game.removeprefix("openspiel:"), "GAME").get_type().short_name
    return player.heuristic or (defaults or DEFAULT_HEURISTIC).get(short, "zero")


def as_recorded(match: Match, stored: dict[str, Any], out: Any = None) -> Match:
    """``match`` with its players' heuristics as the stored match played them (``match.json``'s
    ``heuristics``; one written by starbench 0.2.0 or earlier records none, and was played with
    the game's former default, ``heuristics.FORMER_DEFAULTS``): a player that names no
    heuristic continues with the recorded one when the default has changed since (one line says
    so, through ``out``)."""
    from starbench.games.heuristics import DEFAULT_HEURISTIC, FORMER_DEFAULTS

    recorded = stored.get("heuristics")
    if recorded is None:
        then = {**DEFAULT_HEURISTIC, **FORMER_DEFAULTS}
        recorded = [resolved_heuristic(p, match.game, then) for p in match.players]
    players = []
    for i, p in enumerate(match.players):
        was = recorded[i]
        if was is not None and p.heuristic is None and was != resolved_heuristic(p, match.game):
            if out is not None:
                out(
                    f"starbench: player{i} {p.spec} continues with heuristic {was}, the game's "
                    f"default when this match was first played"
                )
            p = replace(p, heuristic=was)
        players.append(p)
    return replace(match, players=tuple(players))


def slug(match: Match) -> str:
    """The default folder name of a match: its game, players and seed."""
    text = f"{match.game}_{match.players[0].spec}_vs_{match.players[1].spec}_s{match.seed}"
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in text)


class SearchFailed(StarbenchError):
    """A player's search raised (a plugin's bug, a bad evaluation): the match stops, the games
    journaled so far kept (exit 1)."""


def _choose(player: Player, state: Any, rng: np.random.Generator) -> tuple[int, int, int]:
    """(action, nodes, depth) of ``player`` at a decision state: the depth of the search its
    move came from (0 for the oracle and random players, and under a node budget that let no
    search finish)."""
    legal = state.legal_actions()
    if player.kind == "random":
        return int(legal[int(rng.integers(len(legal)))]), 0, 0
    if player.kind == "oracle":
        return player.oracle.optimal_actions(state)[0], 0, 0
    from starbench.engines import execute
    from starbench.games.source import openspiel_tree

    def tree_at(depth: int) -> Any:
        tree = openspiel_tree(state, depth, player.heuristic, exact=False)
        if player.algorithm.name == "chanceprobcut":  # its calibration's check needs the keys
            tree.spec, tree.seed = _game_spec(player, depth), None
        return tree

    if player.node_budget is None:
        tree = tree_at(player.depth)
        outcome = execute(player.algorithm, tree, engine="python")
        if outcome.status != "done":
            raise SearchFailed(f"{player.spec}: the search failed: {outcome.message}")
        r = outcome.result
        return int(tree.actions(tree.root)[r.best_move]), r.stats.nodes, player.depth
    from starbench.search.deepening import deepen

    trees: list[Any] = []

    def at(depth: int) -> Any:
        trees.append(tree_at(depth))
        return trees[-1]

    try:
        d = deepen(
            at,
            lambda t, **o: player.algorithm.make(t, exact=False, debug=False, **o),
            player.depth,
            tt=player.algorithm.table.bits,
            node_budget=player.node_budget,
        )
    except InputError:
        raise
    except (Exception, SystemExit) as e:  # noqa: BLE001 - a search's failure (a plugin's sys.exit too): one line
        raise SearchFailed(f"{player.spec}: the search failed: {type(e).__name__}: {e}") from None
    if d.result is None:  # not even depth 1 within the budget: the first legal move
        return int(legal[0]), d.stats.nodes, 0
    tree = trees[d.depth_completed - 1]
    return int(tree.actions(tree.root)[d.result.best_move]), d.stats.nodes, d.depth_completed


def game_seed(seed: int, index: int) -> int:
    """Game ``index``'s seed (the ``seed`` column)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0])


def play(match: Match, index: int) -> dict[str, Any]:
    """Play game ``index``: its row (``COLUMNS``)."""
    from starbench.games.source import load_openspiel
    from starbench.games.spec import draw_outcome

    gseed = game_seed(match.seed, index)
    # the chance outcomes: a stream of their own; in a paired match the pair's (the first
    # game's), so both seatings roll the same dice whatever the players draw themselves
    dealt = game_seed(match.seed, index - index % 2) if match.paired else gseed
    dice = np.random.Generator(np.random.PCG64(np.random.SeedSequence([dealt, 0])))
    moves_rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([gseed, 1])))
    first = index % 2
    state = load_openspiel(match.game, "GAME").new_initial_state()
    nodes, cpu, own, depths = [0, 0], [0.0, 0.0], [0, 0], [0, 0]
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(draw_outcome(state, dice))
            continue
        seat = state.current_player()
        who = first if seat == 0 else 1 - first
        c0 = time.process_time()
        action, n, depth = _choose(match.players[who], state, moves_rng)
        cpu[who] += time.process_time() - c0
        nodes[who] += n
        own[who] += 1
        depths[who] += depth
        state.apply_action(action)
        moves += 1
    returns = state.returns()
    winner = None
    if max(returns) > 0 and returns[0] != returns[1]:
        win_seat = int(np.argmax(returns))
        winner = first if win_seat == 0 else 1 - first
    return {
        "game_index": index,
        "seed": gseed,
        "first_player": first,
        "player0": match.players[0].spec,
        "player1": match.players[1].spec,
        "winner": winner,
        "moves": moves,
        "moves0": own[0],
        "moves1": own[1],
        "nodes0": nodes[0],
        "nodes1": nodes[1],
        "depth0": depths[0],
        "depth1": depths[1],
        "cpu_seconds0": cpu[0],
        "cpu_seconds1": cpu[1],
        "pair": index // 2 if match.paired else None,
    }


def _read_journal(match: Match, folder: Path, out: Any) -> dict[int, dict[str, Any]]:
    """The games ``folder``'s journal holds for ``match``: every line checked (``integrity``);
    a bad line (failing its checksum, not decoding, or not a game of this match) is never
    adopted (one line names it; the game is played again).  Lines written before checksums are
    adopted once, unchecked (one line), and the journal is rewritten with checksums, but only
    in a journal none of whose lines has one (a line whose checksum was deleted from a
    checksummed journal is bad).  The verified table wins (``_verified_games``): a line whose
    game it holds otherwise (an edit with its checksum recomputed) is set aside and the table's
    game kept, and games it holds that the journal lacks are journaled again (one line each)."""
    from starbench.record.integrity import bad_lines_note, keep_rejected, read_lines, rewrite

    done: dict[int, dict[str, Any]] = {}
    path = folder / JOURNAL
    if not path.exists():
        return done
    lines, torn = read_lines(path, legacy=True)
    old_format = not any(ln.checked for ln in lines)
    table = _verified_games(folder)
    bad, unchecked = [], 0
    for ln in lines:
        row = ln.value
        why = ln.problem or _not_a_game(match, row)
        if why is None and not ln.checked and not old_format:
            why = "has no checksum"
        g = int(row["game_index"]) if why is None else -1
        if why is None and g in table and table[g] != _as_row(row):
            why = f"disagrees with {TABLE}, whose checksum verifies"
        if why is not None:
            bad.append(ln if ln.problem else replace(ln, problem=why))
            continue
        unchecked += not ln.checked
        done[g] = row
    restored = [g for g in sorted(table) if g not in done]
    done.update((g, table[g]) for g in restored)
    if unchecked:
        out(
            f"starbench: {path}: journal without checksums (written before version 3), "
            f"unchecked: {unchecked} games adopted (continued with checksums)"
        )
    if bad:
        keep_rejected(path, bad)
        then = "its game is" if len(bad) == 1 else "their games are"
        then = f"{then} played again" if not table else f"the games {TABLE} holds are kept from it"
        out(bad_lines_note(path, bad, f"{then} (the lines kept in {path.name}.rejected)"))
    said = {v["game_index"] for b in bad if isinstance(v := b.value, dict) and "game_index" in v}
    if lost := [g for g in restored if g not in said]:
        out(
            f"starbench: {path}: lacks {_games(len(lost))} that {TABLE} holds (verified by its "
            f"checksum); kept them from the table and journaled them again"
        )
    if bad or torn or unchecked or restored:
        rewrite(path, [json.dumps(done[g]) for g in sorted(done)])
    return done


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def _as_row(row: dict[str, Any]) -> dict[str, Any]:
    """A journal row with every column (a row written before ``pair`` existed has none)."""
    return {c: row.get(c) for c in COLUMNS}


def _verified_games(folder: Path) -> dict[int, dict[str, Any]]:
    """The games of the match's table by index, as journal rows, when ``match.json`` records
    the table's SHA-256 and the table matches it (else none: nothing to hold the journal
    against)."""
    from starbench.record import tablefile
    from starbench.record.rows import plain

    table = folder / TABLE
    try:
        if not table.exists() or tablefile.expected_digest(table) is None:
            return {}
        df = tablefile.read(table)
    except (tablefile.CorruptTable, OSError):
        return {}
    if set(df.columns) != set(COLUMNS):
        return {}
    games = {}
    for rec in df.to_dict("records"):
        row = {c: plain(rec[c]) for c in COLUMNS}
        games[int(row["game_index"])] = row
    return games


def _not_a_game(match: Match, row: Any) -> str | None:
    """Why a journal line that decodes is not a game of ``match`` (None when it is one)."""
    if not isinstance(row, dict) or set(row) | set(LATE_COLUMNS) != set(COLUMNS):
        return "is not a game row"
    index = row["game_index"]
    if not isinstance(index, int) or not index >= 0:
        return "is not a game row"
    players = (row["player0"], row["player1"])
    if players != tuple(p.spec for p in match.players) or row["seed"] != game_seed(
        match.seed, index
    ):
        return "is a game of another match"
    if row["winner"] not in (None, 0, 1) or row["first_player"] != index % 2:
        return "is not a game row"
    if row.get("pair") != (index // 2 if match.paired else None):
        return "is a game of another match"
    return None


@functools.lru_cache(maxsize=2)
def _worker_match(
    game: str, players: tuple[tuple[str, str | None], ...], seed: int, paired: bool
) -> Match:
    """The match a worker process plays: its players parsed again from their specs, with the
    heuristics the match plays them with (an oracle is read from its cache, as the parent
    process made sure it is there)."""
    parsed = tuple(
        replace(parse_player(spec, game, "--player"), heuristic=h) for spec, h in players
    )
    return Match(game, parsed, 0, seed, paired)  # type: ignore[arg-type]


def _play_in_worker(
    game: str, players: tuple[tuple[str, str | None], ...], seed: int, paired: bool, index: int
) -> dict[str, Any]:
    return play(_worker_match(game, players, seed, paired), index)


def _played(match: Match, todo: list[int], n_jobs: int) -> Any:
    """The rows of the games ``todo``, in order: played here, or by ``n_jobs`` worker
    processes (joblib) when ``n_jobs > 1`` (each game is seeded by its index, so the rows are
    the same but for the CPU times)."""
    if n_jobs <= 1 or len(todo) <= 1:
        return (play(match, g) for g in todo)
    from joblib import Parallel, delayed

    players = tuple((p.spec, p.heuristic) for p in match.players)
    return Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_play_in_worker)(match.game, players, match.seed, match.paired, g) for g in todo
    )


@dataclass(frozen=True)
class Analysis:
    """How a match's games are read: a non-inferiority ``margin`` (player 1's score below one
    half, e.g. 0.05; None: no verdict line) and ``sequential`` (stop once the verdict at the
    margin is decided, at one of ``looks`` evenly spaced looks up to ``--games``)."""

    margin: float | None = None
    sequential: bool = False
    looks: int = 10

    def as_json(self) -> dict[str, Any]:
        return {"margin": self.margin, "sequential": self.sequential, "looks": self.looks}


def run_match(
    match: Match,
    folder: Path,
    out: Any = print,
    n_jobs: int = 1,
    analysis: Analysis | None = None,
) -> Any:
    """Play the games ``folder`` does not hold yet (in ``n_jobs`` processes; with a sequential
    ``analysis``, until its verdict is decided); write the table; return it (a DataFrame).
    The folder is locked while the match plays (``storage.CellLock``): a second match into it
    is refused in one line (``InputError``) and loses nothing."""
    from starbench.record.storage import CellBusy, CellLock

    folder.mkdir(parents=True, exist_ok=True)
    try:
        lock = CellLock(folder).acquire()
    except CellBusy as e:
        raise InputError(
            f"--out: {folder}: another match is playing into this folder ({e}); wait for it to "
            f"end (the same command then goes on from its games), or use another --out folder"
        ) from None
    try:
        return _run_match(match, folder, out, n_jobs, analysis)
    finally:
        lock.release()


def _run_match(
    match: Match,
    folder: Path,
    out: Any,
    n_jobs: int,
    analysis: Analysis | None,
) -> Any:
    """``run_match`` in its locked folder."""
    import pandas as pd

    from starbench.analysis.matches import (
        non_inferiority,
        score_interval,
        sequential_level,
        sequential_looks,
    )
    from starbench.ground.files import atomic_write, file_digest
    from starbench.record.integrity import read_document, sign, write_document

    analysis = analysis or Analysis()
    folder.mkdir(parents=True, exist_ok=True)
    request = match.request()
    doc = read_document(folder / REQUEST)
    if doc.damaged:
        raise InputError(
            f"{doc.path}: {doc.why()}; restore it with git checkout -- {doc.path}, or move it "
            f"away: the same command then writes it again and keeps the games of this match "
            f"its journal holds"
        )
    stored = doc.data
    if stored is not None:
        if bool(stored.get("paired")) != match.paired:
            was = "paired" if stored.get("paired") else "unpaired"
            raise InputError(
                f"--paired: {folder} holds a match played {was}; a paired match is a request "
                f"of its own (its games are dealt other dice): use another --out folder"
            )
        if {k: stored.get(k) for k in request} != request:
            shown = {k: stored.get(k) for k in request}
            raise InputError(f"{folder}: holds another match ({shown}); use another --out folder")
    else:  # the request, and the code that plays it (as a run's rows record theirs)
        from starbench.record.metadata import static_metadata

        meta = {k: static_metadata()[k] for k in ("starbench_version", "git_commit", "git_dirty")}
        meta["date"] = time.strftime("%Y-%m-%d")
        stored = {**request, "heuristics": match.heuristics(), "meta": meta}
        write_document(folder / REQUEST, stored, None)
    match = as_recorded(match, stored, out)
    done = _read_journal(match, folder, out)
    looks = (
        sequential_looks(match.games, analysis.looks, 2 if match.paired else 1)
        if analysis.sequential
        else []
    )
    level = sequential_level(len(looks)) if looks else None
    before = stored.get("analysis") or {}
    if (
        looks
        and before.get("sequential")
        and (before.get("margin") != analysis.margin or before.get("looks_at") != looks)
    ):
        raise InputError(
            f"--sequential: {folder} holds a sequential test of margin {before.get('margin')} "
            f"looking at {before.get('looks_at')} games; margin {analysis.margin} with --games "
            f"{match.games} is another test: use another --out folder"
        )

    def decided(n: int) -> str | None:
        """The verdict at ``n`` games in game order, when a look decides it."""
        if n not in looks or analysis.margin is None:
            return None
        first = pd.DataFrame([done[g] for g in range(n)], columns=list(COLUMNS))
        _s, low, high, _k = score_interval(first, 1, level)
        verdict = non_inferiority(low, high, analysis.margin)
        return None if verdict == "undecided" else verdict

    def first_decided() -> int | None:
        """The first look that decides, of those the games finished in game order reach (a
        folder holding games past it, from a longer match, stops where a fresh run would)."""
        return next((n for n in looks if n <= _prefix(done) and decided(n)), None)

    stop = first_decided()
    todo = [g for g in range(stop or match.games) if g not in done]
    if done:
        past = sum(g >= stop for g in done) if stop is not None else 0
        kept = (
            f" (the sequential test stops at its look of {stop} games: the {past} games past "
            f"it stay in {JOURNAL}, outside the table)"
            if past
            else ""
        )
        out(f"starbench: {len(done)} games already played in {folder}; {len(todo)} to play{kept}")
    # a sequential match plays up to each look in turn (no game past the look that decides)
    ends = [n for n in looks if n > _prefix(done)] if looks and stop is None else []
    segments, start = [], 0
    for end in [*ends, stop or match.games]:
        segments.append([g for g in todo if start <= g < end])
        start = end
    n = 0
    try:
        with open(folder / JOURNAL, "a", encoding="utf-8") as journal:
            for segment in segments:
                for g, row in zip(segment, _played(match, segment, n_jobs), strict=True):
                    journal.write(sign(json.dumps(row)) + "\n")
                    journal.flush()
                    done[g] = row
                    n += 1
                    if n % max(1, len(todo) // 10) == 0:
                        out(f"starbench: {n}/{len(todo)} games")
                if looks and (stop := first_decided()) is not None:
                    break
    except OSError as e:  # name the journal (a full disk names no file)
        if e.filename is not None:
            raise
        raise OSError(e.errno, e.strerror or str(e), str(folder / JOURNAL)) from None
    played = sorted(g for g in done if g < (stop or match.games))
    rows = [done[g] for g in played]
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df["winner"] = df["winner"].astype("Int64")
    df["pair"] = df["pair"].astype("Int64")
    atomic_write(folder / TABLE, lambda p: df.to_parquet(p, index=False))
    said = dict(analysis.as_json())
    if looks:
        said.update(looks_at=looks, level=level, stopped_at=stop)
    # the table's checksum, checked by every reader (``tablefile.read``); the analysis asked
    write_document(
        folder / REQUEST,
        {**stored, "analysis": said, "tables": {TABLE: file_digest(folder / TABLE)}},
        None,
    )
    return df


def _prefix(done: dict[int, Any]) -> int:
    """How many games from game 0 on are all finished (the games a verdict may read)."""
    n = 0
    while n in done:
        n += 1
    return n
