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


#: z of a two-sided 95 % interval, ``scipy.special.ndtri(0.975)`` to the last bit (the standard
#: library's ``NormalDist().inv_cdf`` is one unit in the last place off; a test compares them).
Z95 = 1.959963984540054


def binomial_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (Newcombe 1998, method 3), computed as
    ``scipy.stats.binomtest(k, n).proportion_ci(level, method="wilson")`` computes it, bit for
    bit, without importing ``scipy.stats`` (about a second): with ``p = k / n`` and ``z`` the
    normal quantile of ``(1 + level) / 2``,

        center = (2 n p + z^2) / (2 (n + z^2)),  delta = z / (2 (n + z^2)) sqrt(4 n p q + z^2),

    the interval is ``[center - delta, center + delta]``, with 0 at ``k = 0`` and 1 at
    ``k = n``."""
    from math import sqrt
    from statistics import NormalDist

    k, n = int(successes), int(n)
    p = k / n
    z = Z95 if level == 0.95 else NormalDist().inv_cdf(0.5 + 0.5 * level)
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * sqrt(4 * n * p * (1 - p) + z**2)
    return (0.0 if k == 0 else center - delta), (1.0 if k == n else center + delta)


def mcnemar(only_first: int, only_second: int) -> float:
    """The two-sided p-value of the exact McNemar test of two decision rates measured on the
    same positions: of the discordant positions (right in one search only), ``only_first``
    went one way and ``only_second`` the other; under equal rates each way is a fair coin
    (``scipy.stats.binomtest``); no discordant position: 1."""
    from scipy import stats

    n = int(only_first) + int(only_second)
    return float(stats.binomtest(int(only_first), n, 0.5).pvalue) if n else 1.0


def paired_rate_interval(
    first: Any, second: Any, level: float = 0.95
) -> tuple[float, float, float]:
    """(difference, low, high) of two decision rates measured on the same positions: the mean
    of ``first - second`` (each 1 for a right decision, 0 for a wrong one) with Student's t
    interval over the positions, one discordant position each way added (as a match's paired
    interval adds a lost and a won pair: an interval, not a point, when the two never differ).
    """
    import numpy as np
    from scipy import stats

    d = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    padded = np.concatenate([d, [1.0, -1.0]])
    n = len(padded)
    half = float(stats.t.ppf((1 + level) / 2, n - 1) * padded.std(ddof=1) / np.sqrt(n))
    mean = float(padded.mean())
    return float(d.mean()), mean - half, mean + half


def mean_interval(values: Any, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): the mean with its bootstrap percentile interval
    (``scipy.stats.bootstrap``, 999 resamples, seed 0: reproducible; a skewed, non-negative
    quantity such as regret keeps a non-negative interval); values all equal: the mean both
    ways."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    if len(x) < 2 or float(x.min()) == float(x.max()):
        return mean, mean, mean
    from scipy import stats  # about a second: only where there is an interval to compute

    ci = stats.bootstrap(
        (x,),
        np.mean,
        confidence_level=level,
        n_resamples=999,
        method="percentile",
        random_state=0,
    ).confidence_interval
    return mean, float(ci.low), float(ci.high)


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
