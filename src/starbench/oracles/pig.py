"""Pig solved exactly: value iteration over (own score, opponent score, turn total).

Rules are OpenSpiel's ``pig`` (``open_spiel/games/pig``), two players: on a turn the player to
move rolls (action 0) or stops (action 1); a roll of 1 loses the turn total and passes the
turn, a roll of r = 2..D adds r to it (``piglet=True``: a coin, any roll but 1 adds 1); stopping
adds the turn total to the score and passes the turn (stopping with a turn total of 0 is
legal); a player whose score plus turn total reaches ``winscore`` may only stop, and wins.
OpenSpiel returns +1 to the winner and -1 to the loser.

Neller and Presser ("Optimal Play of the Dice Game Pig", The UMAP Journal 25(1), 2004) give
the mover's win probability P(i, j, k) with own score i, opponent score j and turn total k:
P = 1 when i + k >= winscore, else P(i, j, k) = max(P_roll, P_hold), with

    P_hold = 1 - P(j, i + k, 0)
    P_roll = (1/D) (1 - P(j, i, 0)) + (1/D) sum_{r = 2..D} P(i, j, k + r).

States repeat (both players can roll a 1 forever), so there is no order to solve them in once:
value iteration repeats the update until it no longer changes.  Here each sweep takes the
start-of-turn values Q(i, j) = P(i, j, 0) as fixed, solves every turn exactly by one backward
pass over k (k from winscore - 1 down to 0, all (i, j) at once in numpy), and replaces Q; it
stops when the largest change of Q in a sweep is below ``CONVERGED`` (1e-13).  Values are
reported in OpenSpiel's units: a win probability p is the return 2p - 1.  Two actions whose
returns differ by at most ``TOLERANCE`` (1e-9) are both optimal.

OpenSpiel's ``horizon`` (default 1000): after that many decisions (rolls and stops) the game
ends with return 0 for both unless someone has won.  The arrays solve pig *without* a horizon
(one cache serves every horizon); the horizon game is answered exactly as follows.  Let V_t be
the horizon game's values with t decisions left (V_0 = return 0, a win probability of 1/2;
each decision one step of the same update as above, a roll that uses the last decision ends the
game before its die).  The update does not expand distances, so once sup |V_t - P| is below
``HORIZON_EXACT`` (1e-12) at some t = T, it stays below it for every t >= T: a state with at
least T decisions left before the horizon has the no-horizon values, to 1e-12 (well inside
``TOLERANCE``).  ``exact_from`` computes T (cached per oracle); a state with fewer decisions
left is not answered (``covers`` is False: its rows are left unscored, and the run says so in
one line), and ``starbench oracle`` says which states the game's horizon leaves unscored.
``describe`` also gives the probability that optimal play from the start has not ended within
``horizon`` decisions (computed exactly by pushing the start's probability mass through
``horizon`` decisions of both players' optimal policies).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from numba import njit

from starbench.errors import InputError
from starbench.oracles import base

CONVERGED = 1e-13
TOLERANCE = 1e-9
HORIZON_EXACT = 1e-12
ROLL, STOP = 0, 1
_TEXT = re.compile(r"Scores: (\d+) (\d+), Turn total: (\d+)\nCurrent player: (\d+)( \(rolling\))?")


def solve(winscore: int, dice: int, piglet: bool) -> tuple[np.ndarray, int]:
    """(P, sweeps): P[i, j, k] the mover's win probability for i, j < winscore and
    k < winscore + dice (1 where i + k >= winscore), by value iteration to ``CONVERGED``."""
    W, D = winscore, dice
    i = np.arange(W)[:, None]
    j = np.arange(W)[None, :]
    Q = np.zeros((W, W))
    P = np.ones((W + D, W, W))  # P[k, i, j]
    sweeps = 0
    while True:
        sweeps += 1
        # after a stop at turn total k the opponent starts from (j, i + k): Q[j, i + k], or a
        # win (the opponent never moves) where i + k >= W
        after_stop = np.zeros((2 * W + D, W))
        after_stop[:W] = Q.T  # after_stop[x, j] = Q[j, x]
        pig = (1.0 - Q.T) / D  # a roll of 1: the opponent starts from (j, i)
        for k in range(W - 1, -1, -1):
            hold = 1.0 - after_stop[i + k, j]
            if piglet:
                roll = pig + (D - 1) / D * P[k + 1]
            else:
                roll = pig + sum(P[k + r] for r in range(2, D + 1)) / D
            P[k] = np.where(i + k >= W, 1.0, np.maximum(roll, hold))
        delta = float(np.abs(P[0] - Q).max())
        Q = P[0].copy()
        if delta < CONVERGED:
            return np.ascontiguousarray(P.transpose(1, 2, 0)), sweeps  # [i, j, k]


@njit(cache=True)
def _unfinished(P, winscore, dice, piglet, horizon):
    """The probability that optimal play (roll where rolling is strictly better, stop
    otherwise) from the start has not ended after ``horizon`` decisions."""
    W, D = winscore, dice
    K = W + D
    m = np.zeros((W, W, K))
    m[0, 0, 0] = 1.0
    for _ in range(horizon):
        new = np.zeros((W, W, K))
        for i in range(W):
            for j in range(W):
                for k in range(K):
                    x = m[i, j, k]
                    if x == 0.0:
                        continue
                    if i + k >= W:  # the only move: stop, and win
                        continue
                    hold = 1.0 - (P[j, i + k, 0] if i + k < W else 0.0)
                    roll = (1.0 - P[j, i, 0]) / D
                    if piglet:
                        kk = k + 1
                        roll += (D - 1) / D * (1.0 if i + kk >= W else P[i, j, kk])
                    else:
                        for r in range(2, D + 1):
                            kk = k + r
                            roll += (1.0 if i + kk >= W else P[i, j, kk]) / D
                    if roll > hold:
                        new[j, i, 0] += x / D
                        if piglet:
                            new[i, j, k + 1] += x * (D - 1) / D
                        else:
                            for r in range(2, D + 1):
                                new[i, j, k + r] += x / D
                    else:
                        new[j, i + k, 0] += x
        m = new
    return m.sum()


def horizon_layers(winscore: int, dice: int, piglet: bool) -> Iterator[np.ndarray]:
    """V_1, V_2, ...: the horizon game's win probabilities of the mover, V_t[i, j, k] with t
    decisions left (module docstring; V_0 = 1/2, the return 0 of a game the horizon ends)."""
    W, D = winscore, dice
    K = W + D
    i = np.arange(W)[:, None, None]
    j = np.arange(W)[None, :, None]
    k = np.arange(K)[None, None, :]
    win = i + k >= W  # the only move is the stop that wins
    stop_at = np.minimum(i + k, W - 1)  # where a stop leaves the opponent (a win beyond)
    V = np.full((W, W, K), 0.5)
    while True:
        start = V[:, :, 0].T  # start[x, y] = V[y, x, 0]: the opponent starts at (y, x)
        hold = 1.0 - start[stop_at, j]
        pig = (1.0 - start[i, j]) / D  # a roll of 1: the opponent starts at (j, i)
        # C[..., m] = V[..., 0] + ... + V[..., m - 1], padded past K with the last layer's (a
        # win, whatever the padding: rolls beyond the winning total are never read)
        C = np.zeros((W, W, K + D + 1))
        np.cumsum(np.concatenate([V, np.repeat(V[:, :, -1:], D, axis=2)], axis=2), axis=2,
                  out=C[:, :, 1:])  # fmt: skip
        if piglet:  # a coin: any roll but 1 adds 1
            roll = pig + (D - 1) / D * (C[:, :, 2 : K + 2] - C[:, :, 1 : K + 1])
        else:  # a roll r = 2..D adds r: V[k + 2] + ... + V[k + D]
            roll = pig + (C[:, :, D + 1 : K + D + 1] - C[:, :, 2 : K + 2]) / D
        V = np.where(win, 1.0, np.maximum(roll, hold))
        yield V


def horizon_gap_closes(
    P: np.ndarray, winscore: int, dice: int, piglet: bool, limit: int
) -> int | None:
    """The least t <= ``limit`` with sup |V_t - P| < ``HORIZON_EXACT`` (module docstring), in
    win-probability units, or None when the values with ``limit`` decisions left still differ
    from the no-horizon values (P[i, j, k], 1 where i + k >= winscore).  The layers are
    ``horizon_layers``' (the readable reference), computed by ``_layer`` in one pass each with
    the same operations in the same order (a test compares them bit for bit)."""
    t = _gap_closes(np.ascontiguousarray(P), winscore, dice, piglet, limit, HORIZON_EXACT)
    return None if t < 0 else int(t)


@njit(cache=True)
def _layer(V, out, W, D, piglet, Vpad, C):
    """One step of ``horizon_layers``: V_{t+1} from V_t into ``out``, per (i, j) in one pass over
    the turn totals k (``Vpad``, ``C``: scratch rows of K + D and K + D + 1).  Every value is
    computed as ``horizon_layers`` computes it: the cumulative sum in order from 0, then
    ``pig + (C[k + D + 1] - C[k + 2]) / D`` (piglet: ``pig + (D - 1) / D * (C[k + 2] - C[k +
    1])``), the larger of roll and hold, 1 where i + k >= W."""
    K = W + D
    for i in range(W):
        for j in range(W):
            for m in range(K):
                Vpad[m] = V[i, j, m]
            for m in range(K, K + D):
                Vpad[m] = V[i, j, K - 1]
            C[0] = 0.0
            acc = 0.0
            for m in range(K + D):
                acc = acc + Vpad[m]
                C[m + 1] = acc
            pig = (1.0 - V[j, i, 0]) / D
            for k in range(K):
                if i + k >= W:
                    out[i, j, k] = 1.0
                    continue
                hold = 1.0 - V[j, i + k, 0]
                if piglet:
                    roll = pig + (D - 1) / D * (C[k + 2] - C[k + 1])
                else:
                    roll = pig + (C[k + D + 1] - C[k + 2]) / D
                out[i, j, k] = roll if roll > hold else hold


@njit(cache=True)
def _gap_closes(P, W, D, piglet, limit, exact):
    """``horizon_gap_closes`` compiled: the least t <= limit with max |V_t - P| < exact, or -1."""
    K = W + D
    V = np.full((W, W, K), 0.5)
    new = np.empty((W, W, K))
    Vpad = np.empty(K + D)
    C = np.empty(K + D + 1)
    for t in range(1, limit + 1):
        _layer(V, new, W, D, piglet, Vpad, C)
        V, new = new, V
        gap = 0.0
        for i in range(W):
            for j in range(W):
                for k in range(K):
                    g = abs(V[i, j, k] - P[i, j, k])
                    if g > gap:
                        gap = g
        if gap < exact:
            return t
    return -1


def decisions_made(state: Any) -> int:
    """The decisions (rolls and stops) a pig state's history holds: what its horizon counts."""
    return sum(1 for pa in state.full_history() if pa.player >= 0)


class PigOracle(base.Oracle):
    """OpenSpiel's pig for two players, any ``winscore``, ``diceoutcomes`` and ``piglet``."""

    name = "pig"
    units = "OpenSpiel return of the player to move (+1 win, -1 loss): 2p - 1"
    tolerance = TOLERANCE

    def __init__(
        self,
        game: Any,
        P: np.ndarray,
        sweeps: int,
        seconds: float,
        unfinished: dict[str, float] | None = None,
        path: Any = None,
        exact_from: dict[str, int | None] | None = None,
    ):
        params = game.get_parameters()
        self.params = params
        self.game = canonical(params)
        self.horizon = int(params["horizon"])
        self.winscore = int(params["winscore"])
        self.dice = int(params["diceoutcomes"])
        self.piglet = bool(params["piglet"])
        self.P = P
        self.sweeps = sweeps
        self.seconds = seconds
        #: ``unfinished`` by horizon (as text), as computed so far (kept in the cache)
        self.known_unfinished = dict(unfinished or {})
        #: ``exact_from`` by horizon (as text): T, or None (kept in the cache)
        self.known_exact_from: dict[str, int | None] = dict(exact_from or {})
        self.path = path

    def save(self) -> None:
        """Write the oracle to its cache file (atomically)."""
        base.save(
            self.path,
            {
                "oracle": "pig",
                "game": self.game,
                "sweeps": self.sweeps,
                "seconds": self.seconds,
                "tolerance": TOLERANCE,
                "converged": CONVERGED,
                "unfinished": self.known_unfinished,
                "exact_from": self.known_exact_from,
            },
            {"P": self.P},
        )

    # ------------------------------------------------------------------ states
    def _parse(self, state: Any) -> tuple[int, int, int, int, bool]:
        """(mover's score, opponent's score, turn total, mover, rolling) of a pig state."""
        m = _TEXT.match(str(state))
        if m is None:
            raise InputError(f"not a two-player pig state: {str(state)!r}")
        s0, s1, k, p = (int(m.group(g)) for g in (1, 2, 3, 4))
        own, opp = (s0, s1) if p == 0 else (s1, s0)
        return own, opp, k, p, m.group(5) is not None

    def _p(self, i: int, j: int, k: int) -> float:
        """The mover's win probability at (i, j, k) (1 once i + k reaches winscore)."""
        return 1.0 if i + k >= self.winscore else float(self.P[i, j, k])

    def _roll(self, i: int, j: int, k: int) -> float:
        """The mover's win probability after choosing to roll at (i, j, k)."""
        D = self.dice
        v = (1.0 - self._p(j, i, 0)) / D
        if self.piglet:
            return v + (D - 1) / D * self._p(i, j, k + 1)
        for r in range(2, D + 1):
            v += self._p(i, j, k + r) / D
        return v

    def covers(self, state: Any) -> bool:
        """Does the oracle answer ``state`` of the game with its horizon?  Only where at least
        ``exact_from()`` decisions are left (module docstring)."""
        if state.is_terminal():
            return True
        t = self.exact_from()
        return t is not None and self.horizon - decisions_made(state) >= t

    def action_values(self, state: Any) -> dict[int, float]:
        if state.is_terminal() or state.is_chance_node():
            raise InputError("the oracle's action values need a decision state")
        i, j, k, _, _ = self._parse(state)
        if i + k >= self.winscore:
            return {STOP: 1.0}  # the only legal move wins
        stop = 1.0 - self._p(j, i + k, 0)
        return {ROLL: 2.0 * self._roll(i, j, k) - 1.0, STOP: 2.0 * stop - 1.0}

    def value_for(self, state: Any, player: int) -> float:
        """The exact return of ``player`` at any state (a chance node: the rolling player's
        expectation; a terminal: its returns)."""
        if state.is_terminal():
            return float(state.returns()[player])
        i, j, k, mover, rolling = self._parse(state)
        p = 2.0 * (self._roll(i, j, k) if rolling else self._p(i, j, k)) - 1.0
        return p if player == mover else -p

    # ------------------------------------------------------------------ the horizon
    def unfinished(self, horizon: int | None = None) -> float:
        """The probability that optimal play from the start has not ended within
        ``horizon`` decisions (default: the game's)."""
        h = self.horizon if horizon is None else horizon
        if str(h) not in self.known_unfinished:
            self.known_unfinished[str(h)] = float(
                _unfinished(self.P, self.winscore, self.dice, self.piglet, h)
            )
            if self.path is not None:
                self.save()  # computed once per horizon, then read from the cache
        return self.known_unfinished[str(h)]

    def exact_from(self) -> int | None:
        """T for the game's horizon: states with at least T decisions left have the no-horizon
        values to ``HORIZON_EXACT``; None where that never happens within the horizon."""
        key = str(self.horizon)
        if key not in self.known_exact_from:
            self.known_exact_from[key] = horizon_gap_closes(
                self.P, self.winscore, self.dice, self.piglet, self.horizon
            )
            if self.path is not None:
                self.save()  # computed once per horizon, then read from the cache
        return self.known_exact_from[key]

    def horizon_line(self) -> str:
        """Which states the game's horizon leaves unscored (``starbench oracle``, runs)."""
        t = self.exact_from()
        h = self.horizon
        if t is None:
            return (
                f"with horizon={h}, the no-horizon values differ from the horizon game's by "
                f"{HORIZON_EXACT:g} or more even at the start, so no state is scored"
            )
        return (
            f"with horizon={h}, a state is scored only with at least {t} of its {h} decisions "
            f"left (there the no-horizon values are the horizon game's within {HORIZON_EXACT:g}); "
            f"states closer to the horizon are left unscored"
        )

    def describe(self) -> dict[str, Any]:
        return {
            "solved": f"value iteration, {self.sweeps} sweeps to a largest change below "
            f"{CONVERGED:g} ({self.seconds:.1f} s CPU)",
            "horizon": f"{self.horizon_line()}; optimal play from the start is unfinished "
            f"after {self.horizon} decisions with probability {self.unfinished():.3g}",
        }


def canonical(params: dict[str, Any]) -> str:
    """The game string an oracle answers for: pig with every parameter but the horizon."""
    shown = {k: v for k, v in sorted(params.items()) if k != "horizon"}
    inner = ",".join(
        f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in shown.items()
    )
    return f"pig({inner})"


def _bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"  # pragma: no cover


def applies(game: Any) -> bool:
    return game.get_type().short_name == "pig"


def memory_needed(winscore: int, dice: int) -> int:
    """Bytes the oracle takes while it is computed: about six float64 arrays of
    (winscore + dice) x winscore^2 (the values, their copy, the horizon's layers)."""
    return 6 * 8 * (winscore + dice) * winscore * winscore


def build(
    game: Any,
    folder: Any = None,
    recompute: bool = False,
    replace_stale: bool = False,
    memory_limit: int | None = None,
    key: str = "oracle",
) -> PigOracle:
    """The oracle of a loaded pig game: from its cache, else computed and cached
    (``replace_stale``: a stale cache is recomputed, with one line on stderr, instead of
    refused).  Before computing, one line states the memory it takes; over ``memory_limit``
    (default ``limits.ORACLE_MEMORY_LIMIT``) it is refused in one line naming ``key``."""
    params = game.get_parameters()
    if int(params["players"]) != 2:
        raise InputError(
            f"oracle: pig with players={params['players']}: the oracle solves the two-player "
            f"game only (players=2)"
        )
    name = canonical(params)
    path = base.cache_path("pig", name, folder)
    if path.exists() and not recompute:
        try:
            head, arrays = base.load(path, "pig", name)
        except (base.StaleCache, base.CorruptCache) as e:
            if isinstance(e, base.StaleCache) and not replace_stale:
                raise
            import sys

            sys.stderr.write(f"starbench: {str(e).split(';')[0]}; recomputed\n")
            return build(game, folder, True, memory_limit=memory_limit, key=key)
        return PigOracle(
            game,
            arrays["P"],
            int(head["sweeps"]),
            float(head["seconds"]),
            head.get("unfinished"),
            path,
            head.get("exact_from"),
        )
    import sys

    from starbench.ground.limits import ORACLE_MEMORY_LIMIT

    need = memory_needed(int(params["winscore"]), int(params["diceoutcomes"]))
    limit = ORACLE_MEMORY_LIMIT if memory_limit is None else memory_limit
    if need > limit:
        raise InputError(
            f"{key}: solving {name} exactly takes about {_bytes(need)} of memory, over the "
            f"oracle memory limit of {_bytes(limit)} (oracle_memory_limit=, or "
            f"--oracle-memory-limit with oracle and match)"
        )
    sys.stderr.write(f"starbench: solving {name} exactly (about {_bytes(need)} of memory)\n")
    t0 = time.process_time()
    P, sweeps = solve(int(params["winscore"]), int(params["diceoutcomes"]), bool(params["piglet"]))
    seconds = time.process_time() - t0
    oracle = PigOracle(game, P, sweeps, seconds, path=path)
    oracle.save()
    return oracle
