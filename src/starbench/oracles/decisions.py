"""Decision quality on every row that has an oracle: the columns ``DECISION_COLUMNS``.

* ``oracle``: which oracle scored the row (``pig``, ``expectimax``), empty where none applies;
* ``oracle_value``: the exact value of the row's root to the player who moves there;
* ``chosen_oracle_value``: the exact value of the move the search chose, to the same player;
* ``regret``: ``oracle_value - chosen_oracle_value``, never negative, in the oracle's units;
* ``decision_optimal``: the chosen move is among the exactly optimal ones (ties within the
  oracle's tolerance).

Game cells (``GameSpec``) whose game has an oracle (``starbench.oracles.ORACLES``) are scored
when the row is computed: the oracle's value of the root state and of the action the search
chose there (a search to a depth limit with a heuristic can choose a worse move than the exact
one).  Random-tree cells are scored when the table is written: the oracle is the exact,
full-depth expectimax of the same tree, the instance's ``expectimax`` row (without a table),
which records the exact value of every root move (``root_values``, a list); a cell without
such a row leaves the columns empty.  A chance root has an oracle value but no chosen move
(the other three columns empty).
"""

from __future__ import annotations

import json
from typing import Any

from starbench.ground.statistics import binomial_interval, mean_interval
from starbench.search.arith import agree

DECISION_COLUMNS = ("oracle", "oracle_value", "chosen_oracle_value", "regret", "decision_optimal")
EMPTY: dict[str, Any] = dict.fromkeys(DECISION_COLUMNS)


def scored(oracle: str, value: float, chosen: float | None, optimal: bool | None) -> dict:
    """The columns of a row scored by ``oracle`` (``chosen`` None: nothing was chosen)."""
    if chosen is None:
        return {**EMPTY, "oracle": oracle, "oracle_value": value}
    return {
        "oracle": oracle,
        "oracle_value": value,
        "chosen_oracle_value": chosen,
        "regret": max(0.0, value - chosen),
        "decision_optimal": bool(optimal),
    }


_GAME_ORACLES: dict[str, Any] = {}


def game_oracle(game: str, memory_limit: int | None = None) -> Any:
    """The oracle of a game cell's game string, or None: computed (within ``memory_limit``
    bytes, the run's ``oracle_memory_limit``) and cached on first use, then kept for the
    process whoever asks (the limit matters only when it is computed)."""
    from starbench.oracles import find, oracle_for

    if game not in _GAME_ORACLES:
        found = find(game, "tree.game") is not None
        _GAME_ORACLES[game] = (
            oracle_for(game, key="tree.game", replace_stale=True, memory_limit=memory_limit)
            if found
            else None
        )
    return _GAME_ORACLES[game]


def game_row(oracle: Any, source: Any, best_move: int | None) -> dict[str, Any]:
    """The decision columns of a game row: the root state of ``source`` (a ``GameSource``)
    and the root child ``best_move`` (None: the search did not finish)."""
    state, _ = source.tree.root
    if not getattr(oracle, "covers", lambda s: True)(state):
        return EMPTY  # a position the oracle does not know (backgammon: not a bear-off)
    if state.is_chance_node():
        return scored(oracle.name, oracle.value_for(state, source.tree.root_player), None, None)
    values = oracle.action_values(state)
    best = max(values.values())
    if best_move is None:
        return {**EMPTY, "oracle": oracle.name, "oracle_value": best}
    chosen = values[source.tree.actions(source.tree.root)[best_move]]
    return scored(oracle.name, best, chosen, best - chosen <= oracle.tolerance)


def root_values(result: Any) -> list[float] | None:
    """The exact value of every root move of an exhaustive search (the journal's
    ``root_values``, a list), or None."""
    values = getattr(result, "root_values", None)
    if values is None:
        return None
    return [float(v) for v in values]


def tree_row(row: Any, reference: Any) -> dict[str, Any]:
    """The decision columns of a random-tree row against the instance's exhaustive expectimax
    row ``reference`` (None: no oracle for the instance)."""
    if reference is None or reference.get("root_values") is None:
        return EMPTY
    values = reference["root_values"]
    if isinstance(values, str):
        values = json.loads(values)
    best = max(values)  # generated trees have a MAX root
    if row["run_status"] != "done" or row["best_move"] is None:
        return {**EMPTY, "oracle": "expectimax", "oracle_value": best}
    chosen = values[int(row["best_move"])]
    return scored("expectimax", best, chosen, agree(chosen, best, row["L"], row["U"], False))


def quality_text(optimal: Any, regrets: Any) -> tuple[str, str]:
    """The summary's two cells: percent of optimal decisions with its 95 % Wilson interval,
    and the mean regret with its 95 % bootstrap interval ("-" without scored rows)."""
    if len(optimal) == 0:
        return "-", "-"
    k, n = int(sum(bool(x) for x in optimal)), len(optimal)
    lo, hi = binomial_interval(k, n)
    mean, mlo, mhi = mean_interval(regrets)
    return (
        f"{100 * k / n:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]",
        f"{mean:.3g} [{mlo:.3g}, {mhi:.3g}]",
    )
