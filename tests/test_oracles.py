"""Exact oracles (``starbench.oracles``) and the decision-quality columns of result rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from starbench.errors import InputError
from starbench.games.source import GAMES_INSTALL

pyspiel = pytest.importorskip("pyspiel", reason=f"OpenSpiel is not installed: {GAMES_INSTALL}")

from starbench.oracles import base, oracle_for  # noqa: E402
from starbench.oracles import pig as pig_oracle  # noqa: E402

EXE = str(Path(sys.executable).parent / "starbench")
#: The session's numba cache (``import starbench`` set it) and source path (``PYTHONPATH``, where
#: a session runs a checkout's source without installing it, as ``scripts/time_tests.py`` does),
#: for the commands run with a bare environment: they run the code under test and load what the
#: session compiled (numba's cache is per source file) rather than compile it again.
_SESSION = {k: v for k, v in os.environ.items() if k in ("NUMBA_CACHE_DIR", "PYTHONPATH")}


def _decision_states(game: str, n: int, seed: int = 0) -> list:
    """``n`` decision states of ``game`` reached by seeded random play."""
    g = pyspiel.load_game(game)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        s = g.new_initial_state()
        for _ in range(int(rng.integers(0, 60))):
            if s.is_terminal():
                break
            if s.is_chance_node():
                actions, probs = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(actions, p=probs)))
            else:
                s.apply_action(int(rng.choice(s.legal_actions())))
        if not s.is_terminal() and not s.is_chance_node():
            out.append(s)
    return out


def test_classic_pig_reproduces_neller_and_presser(tmp_path):
    """Optimal play of pig to 100: the first player wins with probability 0.5306 (Neller and
    Presser 2004), to four decimals; OpenSpiel's return is 2p - 1."""
    o = oracle_for("pig(winscore=100)", folder=tmp_path)
    start = pyspiel.load_game("pig").new_initial_state()
    v = o.value(start)
    assert round(o.win_probability(v), 4) == 0.5306
    assert v == pytest.approx(2 * o.win_probability(v) - 1)
    assert o.optimal_actions(start) == [pig_oracle.ROLL]
    # the default game string and the explicit one are one oracle (one cache file)
    assert oracle_for("pig", folder=tmp_path).game == o.game
    assert len(list(tmp_path.glob("*.npz"))) == 1


@pytest.mark.parametrize("game", ["pig(winscore=20)", "pig(winscore=15,diceoutcomes=4)"])
def test_the_oracle_is_consistent_with_openspiels_rules(tmp_path, game):
    """At decision states reached by random play, each action's value is what OpenSpiel's own
    transitions give from the oracle's values of the successors (a chance node: the
    probability-weighted sum), and the state's value is the best action's."""
    o = oracle_for(game, folder=tmp_path)
    for s in _decision_states(game, 40):
        mover = s.current_player()
        values = o.action_values(s)
        assert sorted(values) == sorted(s.legal_actions())
        for a, v in values.items():
            child = s.child(a)
            if child.is_chance_node():
                want = sum(
                    p * o.value_for(child.child(c), mover) for c, p in child.chance_outcomes()
                )
            else:
                want = o.value_for(child, mover)
            assert v == pytest.approx(want, abs=1e-9), (str(s), a)
        assert o.value(s) == max(values.values())
        assert o.value_for(s, mover) == pytest.approx(o.value(s), abs=1e-12)
        assert o.value_for(s, 1 - mover) == pytest.approx(-o.value(s), abs=1e-12)


def test_piglet_and_small_games(tmp_path):
    """Piglet (a coin): the oracle follows OpenSpiel's outcomes; and a tiny game's start value
    agrees with an independent solution of the same equations by plain Gauss-Seidel sweeps
    over all states."""
    o = oracle_for("pig(winscore=6,piglet=true,diceoutcomes=2)", folder=tmp_path)
    for s in _decision_states("pig(winscore=6,piglet=true,diceoutcomes=2)", 20):
        for a, v in o.action_values(s).items():
            child = s.child(a)
            mover = s.current_player()
            if child.is_chance_node():
                want = sum(
                    p * o.value_for(child.child(c), mover) for c, p in child.chance_outcomes()
                )
            else:
                want = o.value_for(child, mover)
            assert v == pytest.approx(want, abs=1e-9)
    W, D = 8, 6
    P = {}

    def p(i, j, k):
        return 1.0 if i + k >= W else P.get((i, j, k), 0.0)

    for _ in range(2000):  # Neller and Presser's equations, state by state
        for i in range(W):
            for j in range(W):
                for k in range(W - i):
                    roll = (1 - p(j, i, 0)) / D + sum(p(i, j, k + r) for r in range(2, D + 1)) / D
                    P[(i, j, k)] = max(roll, 1 - p(j, i + k, 0))
    o8 = oracle_for(f"pig(winscore={W})", folder=tmp_path)
    start = pyspiel.load_game(f"pig(winscore={W})").new_initial_state()
    assert o8.win_probability(o8.value(start)) == pytest.approx(P[(0, 0, 0)], abs=1e-12)


def test_the_horizon_is_stated_and_exact_states_past_it_are_terminal(tmp_path):
    """The oracle solves pig without a horizon (every horizon shares one cache) and says how
    likely optimal play is to reach the game's horizon; a state OpenSpiel ends at its horizon
    is valued by its returns (0 to both)."""
    o = oracle_for("pig(winscore=10,horizon=5)", folder=tmp_path)
    assert o.game == oracle_for("pig(winscore=10)", folder=tmp_path).game
    assert "no state is scored" in o.describe()["horizon"]
    assert o.unfinished(0) == 1.0
    tail = [o.unfinished(h) for h in (1, 3, 5, 20, 60)]
    assert all(a >= b for a, b in zip(tail, tail[1:], strict=False)) and tail[-1] < 1e-3
    assert o.unfinished(2) == 1.0  # pig to 10 takes at least three decisions (roll, roll, stop)
    s = pyspiel.load_game("pig(winscore=10,horizon=2)").new_initial_state()
    for a in (0, 3, 0):  # roll, a 4, roll: two decisions, the horizon (before the roll lands)
        s.apply_action(a)
    assert s.is_terminal() and o.value_for(s, 0) == 0.0
    # the tail is kept in the cache, per horizon
    again = oracle_for("pig(winscore=10,horizon=5)", folder=tmp_path)
    assert "5" in again.known_unfinished


def test_stale_and_foreign_caches_are_refused_in_one_line(tmp_path):
    o = oracle_for("pig(winscore=12)", folder=tmp_path)
    path = base.cache_path("pig", o.game, tmp_path)
    with np.load(path) as z:
        head = json.loads(str(z["header"]))
        P = z["P"]
    other = base.cache_path(
        "pig", "pig(diceoutcomes=6,piglet=false,players=2,winscore=13)", tmp_path
    )
    other.write_bytes(path.read_bytes())  # a file of winscore=12 where winscore=13's belongs
    with pytest.raises(InputError, match="not of 'pig' for 'pig.*winscore=13.*--recompute"):
        oracle_for("pig(winscore=13)", folder=tmp_path)
    stale = {**head, "starbench_version": "0.0.1"}
    with open(path, "wb") as f:
        np.savez(f, header=np.array(json.dumps(stale)), P=P)
    with pytest.raises(InputError, match="made by starbench 0.0.1.*stale.*--recompute"):
        oracle_for("pig(winscore=12)", folder=tmp_path)
    assert oracle_for("pig(winscore=12)", folder=tmp_path, recompute=True).game == o.game


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_cache_is_recomputed_with_one_line(tmp_path, capsys, damage):
    o = oracle_for("pig(winscore=12)", folder=tmp_path)
    path = base.cache_path("pig", o.game, tmp_path)
    data = path.read_bytes()
    path.write_bytes(b"not an archive" if damage == "garbage" else data[: len(data) // 2])
    capsys.readouterr()
    again = oracle_for("pig(winscore=12)", folder=tmp_path)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and "not a readable oracle cache" in lines[0], lines
    assert lines[0].endswith("; recomputed") and "exactly (about" in lines[1]
    assert np.array_equal(again.P, o.P)


def test_the_cache_is_loaded_not_recomputed(tmp_path, monkeypatch):
    oracle_for("pig(winscore=14)", folder=tmp_path)

    def refuse(*a, **k):
        raise AssertionError("recomputed")

    monkeypatch.setattr(pig_oracle, "solve", refuse)
    assert oracle_for("pig(winscore=14)", folder=tmp_path).sweeps > 0


def test_oracle_command(tmp_path):
    env = {"STARBENCH_ORACLE_CACHE": str(tmp_path), "PATH": str(Path(sys.executable).parent)}
    env.update(_SESSION)  # the session's code and compiled code, not a second compile
    p = subprocess.run(
        [EXE, "oracle", "pig(winscore=10)", "--json"], capture_output=True, text=True, env=env
    )
    assert p.returncode == 0, p.stderr
    info = json.loads(p.stdout)
    assert info["game"] == "pig(diceoutcomes=6,piglet=false,players=2,winscore=10)"
    assert info["initial_value"] == pytest.approx(2 * info["initial_win_probability"] - 1)
    assert Path(info["cache"]).exists() and "horizon" in info
    text = subprocess.run(
        [EXE, "oracle", "pig(winscore=10)"], capture_output=True, text=True, env=env
    )
    assert "the player to move wins with probability" in text.stdout
    for game, why in (
        (
            "tic_tac_toe",
            "GAME: no exact oracle for 'tic_tac_toe' (oracles: pig, backgammon-bearoff)",
        ),
        ("pig(players=3)", "GAME: pig(players=3): 3 players"),
        ("nosuchgame", "GAME: nosuchgame: no OpenSpiel game"),
    ):
        bad = subprocess.run([EXE, "oracle", game], capture_output=True, text=True, env=env)
        assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
        assert why in bad.stderr, bad.stderr


# --------------------------------------------------------------------------- decision columns
def _run(tmp_path, *overrides):
    from test_runner import cli_run

    tmp_path.mkdir(parents=True, exist_ok=True)
    out = tmp_path / "cell"
    p = cli_run(*overrides, f"hydra.run.dir={out}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return pd.read_parquet(out / "table.parquet"), p.stdout


def test_pig_rows_carry_consistent_decision_columns(tmp_path):
    df, out = _run(
        tmp_path,
        "tree=game",
        "tree.game='pig(winscore=20)'",
        "tree.heuristic=score_difference",  # in points: it errs (checked below)
        "tree.depth=2",
        "trees=24",
    )
    assert "% optimal [95% CI]" in out and "mean regret [95% CI]" in out
    o = oracle_for("pig(winscore=20)")
    game = pyspiel.load_game("pig(winscore=20)")
    decided = df[df["decision_optimal"].notna()]
    assert len(decided) > 0 and set(df["oracle"]) == {"pig"}
    assert (decided["regret"] >= 0).all()
    assert np.allclose(decided["regret"], decided["oracle_value"] - decided["chosen_oracle_value"])
    assert (decided["decision_optimal"] == (decided["regret"] <= o.tolerance)).all()
    for _, r in decided.iterrows():  # the chosen action's exact value, from the position
        from starbench.games.source import openspiel_position

        s = openspiel_position(game, r["position"])
        values = o.action_values(s)
        assert r["chosen_oracle_value"] == values[int(r["best_action"])]
        assert r["oracle_value"] == max(values.values())
    chance = df[df["decision_optimal"].isna()]  # chance roots: the value, nothing chosen
    assert chance["oracle_value"].notna().all() and chance["regret"].isna().all()
    # a 2-ply search with the score heuristic does not always choose the optimal move (on
    # these seeded positions it errs once): the columns tell, and the interval stays >= 0
    assert decided["regret"].max() > 0 and not decided["decision_optimal"].all()
    from starbench.ground.statistics import mean_interval

    mean, lo, hi = mean_interval(decided["regret"])
    assert 0 <= lo <= mean <= hi


def test_random_tree_rows_are_scored_by_expectimax(tmp_path):
    df, out = _run(tmp_path, "trees=10", "tree.branching=3")
    assert set(df["oracle"]) == {"expectimax"}
    assert (df["regret"] == 0).all() and df["decision_optimal"].all()  # exact algorithms
    # columns that cannot vary (every scored row exact and optimal) are omitted, saying why
    assert "% optimal [95% CI]" not in out and "mean regret" not in out
    assert (
        f"decision quality: not shown: the {len(df)} rows an exact oracle scored are all exact"
        in out
    )
    assert (df["oracle_value"] == df["expectimax_value"]).all()
    # without an expectimax row there is no oracle: the columns are empty
    df2, out2 = _run(tmp_path / "b", "trees=4", "algorithms=[star1,star2]")
    assert df2["oracle"].isna().all() and df2["regret"].isna().all() and "% optimal" not in out2


def test_a_wrong_move_is_scored_as_such():
    """The decision columns of a row whose move is not optimal: a positive regret, not optimal
    (the scoring on its own, as an inexact search's row would be scored)."""
    from starbench.oracles.decisions import tree_row

    ref = {"root_values": json.dumps([3.0, 5.0, 5.0]), "run_status": "done"}
    row = {"run_status": "done", "best_move": 0, "L": 0.0, "U": 10.0}
    got = tree_row(row, ref)
    assert got["regret"] == 2.0 and got["decision_optimal"] is False
    assert tree_row({**row, "best_move": 2}, ref)["decision_optimal"] is True


# --------------------------------------------------------------------------- samplers
def test_uniform_positions_reach_every_state_and_are_uniform():
    from scipy.stats import chisquare

    from starbench.games.source import openspiel_position
    from starbench.oracles.positions import pig_history, pig_states, uniform_position

    game = "pig(winscore=7)"
    o = oracle_for(game)
    g = pyspiel.load_game(game)
    states = pig_states(o)
    for s0, s1, k, p in states:  # the canonical history reaches each state
        s = openspiel_position(g, ",".join(map(str, pig_history(o, s0, s1, k, p))))
        assert str(s).startswith(f"Scores: {s0} {s1}, Turn total: {k}\nCurrent player: {p}")
        assert len(s.legal_actions()) == 2
    assert not any(k == 1 or s0 == 1 for s0, _s1, k, _p in states)  # a 1 is never banked
    counts = {st: 0 for st in states}
    n = 30 * len(states)
    for i in range(n):
        s = openspiel_position(g, uniform_position(game, 0, i))
        m = pig_oracle._TEXT.match(str(s))
        counts[(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)))] += 1
    assert chisquare(list(counts.values())).pvalue > 0.001


def test_optimal_positions_come_from_optimal_self_play():
    from starbench.games.source import openspiel_position
    from starbench.oracles.positions import optimal_position

    game = "pig(winscore=20)"
    o = oracle_for(game)
    g = pyspiel.load_game(game)
    seen = set()
    for i in range(30):
        h = optimal_position(game, 3, i)
        assert h == optimal_position(game, 3, i)  # reproducible
        seen.add(h)
        actions = [int(a) for a in h.split(",")] if h else []  # (the start is a choice too)
        s = g.new_initial_state()
        for a in actions:  # every decision on the way is an optimal one
            if not s.is_chance_node():
                assert a in o.optimal_actions(s)
            s.apply_action(a)
        assert len(openspiel_position(g, h).legal_actions()) == 2
    assert len(seen) > 20


def test_the_sampler_key(tmp_path):
    from starbench.errors import ConfigError
    from starbench.games.spec import GameSpec
    from starbench.oracles.positions import check_sampler
    from starbench.record.identity import cell_identity

    spec = GameSpec(game="pig(winscore=10)", sampler="playout").validate()
    assert spec.sampler is None  # the default, one spelling
    assert "sampler" not in spec.identity()  # playout cells keep their digest
    u = GameSpec(game="pig(winscore=10)", sampler="uniform").validate()
    assert u.identity()["sampler"] == "uniform"
    assert cell_identity(u, 0, False) != cell_identity(spec, 0, False)
    assert "uniform" in u.name_parts()
    for kw, why in (
        (dict(game="tic_tac_toe", sampler="optimal"), "tree.sampler: optimal needs a game"),
        (dict(game="pig", sampler="best"), "tree.sampler: must be one of playout, uniform"),
        (dict(game="pig", sampler="uniform", position="0"), "needs tree.position null"),
    ):
        with pytest.raises(ConfigError, match=why):
            check_sampler(GameSpec(**kw).validate())


def test_a_stale_cache_met_on_the_way_is_recomputed_with_a_line(tmp_path, capsys):
    o = oracle_for("pig(winscore=11)", folder=tmp_path)
    path = base.cache_path("pig", o.game, tmp_path)
    with np.load(path) as z:
        head, P = json.loads(str(z["header"])), z["P"]
    with open(path, "wb") as f:
        np.savez(f, header=np.array(json.dumps({**head, "starbench_version": "0.0.1"})), P=P)
    again = oracle_for("pig(winscore=11)", folder=tmp_path, replace_stale=True)
    assert "made by starbench 0.0.1" in capsys.readouterr().err
    assert (again.P == o.P).all()
    assert oracle_for("pig(winscore=11)", folder=tmp_path).sweeps == o.sweeps  # replaced


@pytest.mark.parametrize(
    ("winscore", "dice", "horizon", "piglet"),
    [(4, 2, 5, False), (5, 3, 6, False), (6, 2, 9, False), (5, 2, 12, False), (5, 3, 10, True)],
)
def test_the_horizon_games_values_equal_a_brute_force_search(winscore, dice, horizon, piglet):
    """V_t of ``pig.horizon_layers`` against OpenSpiel's own game with that horizon, searched
    to its end (expectimax over every chance outcome)."""
    import functools
    import itertools

    text = "true" if piglet else "false"
    g = pyspiel.load_game(
        f"pig(winscore={winscore},diceoutcomes={dice},horizon={horizon},piglet={text})"
    )

    @functools.lru_cache(None)
    def value(history: tuple[int, ...]) -> float:
        s = g.new_initial_state()
        for a in history:
            s.apply_action(a)
        if s.is_terminal():
            return s.returns()[0]
        if s.is_chance_node():
            return sum(p * value((*history, a)) for a, p in s.chance_outcomes())
        vs = [value((*history, a)) for a in s.legal_actions()]
        return max(vs) if s.current_player() == 0 else min(vs)

    layers = list(itertools.islice(pig_oracle.horizon_layers(winscore, dice, piglet), horizon))
    assert 2 * layers[horizon - 1][0, 0, 0] - 1 == pytest.approx(value(()), abs=1e-12)


@pytest.mark.parametrize(
    ("winscore", "dice", "piglet"), [(20, 6, False), (10, 2, True), (7, 3, False)]
)
def test_the_compiled_horizon_layers_equal_the_reference_bit_for_bit(winscore, dice, piglet):
    """``_layer`` (what ``exact_from`` runs) gives ``horizon_layers``' V_t to the last bit, layer
    after layer until the gap closes, and ``horizon_gap_closes`` finds the same T as the
    reference's layers (and None below it)."""
    import itertools

    P, _ = pig_oracle.solve(winscore, dice, piglet)
    K = winscore + dice
    V = np.full((winscore, winscore, K), 0.5)
    new = np.empty_like(V)
    t_ref = None
    layers = pig_oracle.horizon_layers(winscore, dice, piglet)
    for t, ref in enumerate(itertools.islice(layers, 400), 1):
        pig_oracle._layer(
            V, new, winscore, dice, piglet, np.empty(K + dice), np.empty(K + 1 + dice)
        )
        V, new = new, V
        assert np.array_equal(V, ref), t
        if t_ref is None and float(np.abs(ref - P).max()) < pig_oracle.HORIZON_EXACT:
            t_ref = t
    assert t_ref is not None
    assert pig_oracle.horizon_gap_closes(P, winscore, dice, piglet, 1000) == t_ref
    assert pig_oracle.horizon_gap_closes(P, winscore, dice, piglet, t_ref) == t_ref
    assert pig_oracle.horizon_gap_closes(P, winscore, dice, piglet, t_ref - 1) is None


def test_states_near_the_horizon_are_left_unscored_with_one_line(tmp_path, capsys):
    """pig to 20 is exact (to 1e-12) with at least T decisions left; closer to the horizon a
    state is not covered; a horizon that never allows it leaves every row unscored, said."""
    o = oracle_for("pig(winscore=20)", folder=tmp_path)
    t = o.exact_from()
    assert t is not None and 1 < t < 1000 and f"at least {t} of its 1000" in o.horizon_line()
    g = pyspiel.load_game(f"pig(winscore=20,horizon={t + 2})")
    near = oracle_for(f"pig(winscore=20,horizon={t + 2})", folder=tmp_path)
    s = g.new_initial_state()
    assert near.covers(s)
    for a in (1, 1, 1):  # three stops: t - 1 decisions left
        s.apply_action(a)
    assert pig_oracle.decisions_made(s) == 3 and not near.covers(s)
    from starbench.commands import cli

    code = cli.main(
        ["run", "tree=game", "tree.game='pig(winscore=20,horizon=8)'", "tree.position='1,1'",
         "tree.depth=1",
         "trees=3", "algorithms=[expectimax]", "progress=false", f"hydra.run.dir={tmp_path}/c"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0 and "3 rows left unscored: pig(winscore=20,horizon=8): with horizon=8" in err
    df = pd.read_parquet(tmp_path / "c" / "table.parquet")
    assert df["oracle"].isna().all() and df["regret"].isna().all()


@pytest.mark.slow
def test_an_oracle_states_its_memory_and_is_refused_over_the_limit(tmp_path):
    """``oracle`` and ``match`` (--oracle-memory-limit) and ``run`` (oracle_memory_limit): one
    line before anything is allocated; under the limit, one line states the memory."""
    env = {"STARBENCH_ORACLE_CACHE": str(tmp_path), "PATH": str(Path(sys.executable).parent)}
    env.update(_SESSION)  # the session's code and compiled code, not a second compile

    def cli(*args):
        return subprocess.run([EXE, *args], capture_output=True, text=True, env=env, cwd=tmp_path)

    p = cli("oracle", "pig(winscore=1000000)")
    lines = p.stderr.strip().splitlines()
    assert (
        p.returncode == 2
        and len(lines) == 1
        and "over the oracle memory limit of 4 GiB" in p.stderr
    )
    p = cli("match", "pig(winscore=40)", "--player", "oracle", "--player", "random",
            "--oracle-memory-limit", "1000", "--out", "m")  # fmt: skip
    assert p.returncode == 2 and "of 1000 bytes" in p.stderr and "Traceback" not in p.stderr
    # refused before the game's kernel is compiled (an empty numba cache: nothing to load)
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "empty-cache")
    p = cli("run", "tree=game", "tree.game='pig(winscore=40)'", "oracle_memory_limit=1000",
            "tree.depth=1", "trees=1", "algorithms=[expectimax]", "progress=false",
            "hydra.run.dir=c")  # fmt: skip
    assert p.returncode == 2 and "of 1000 bytes" in p.stderr.splitlines()[-1], p.stderr
    assert "compiling" not in p.stderr and not list((tmp_path / "empty-cache").rglob("*.nbc"))
    env.update(_SESSION)
    p = cli("oracle", "pig(winscore=15)")
    assert p.returncode == 0 and "starbench: solving pig(" in p.stderr and "MiB" not in p.stdout
    assert "KiB of memory)" in p.stderr


def test_the_wilson_interval_is_scipys_bit_for_bit():
    """``binomial_interval`` computes what ``scipy.stats.binomtest(...).proportion_ci(method=
    "wilson")`` computes, to the last bit, at 95 % (the summary's and the tables' level) and
    within a few units in the last place at other levels."""
    from scipy.special import ndtri
    from scipy.stats import binomtest

    from starbench.ground.statistics import Z95, binomial_interval

    assert ndtri(0.975) == Z95
    for n in (*range(1, 60), 100, 200, 999, 1000, 2700):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n} & set(range(n + 1))):
            ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            assert binomial_interval(k, n) == (float(ci.low), float(ci.high)), (k, n)
            ci = binomtest(k, n).proportion_ci(confidence_level=0.9, method="wilson")
            assert binomial_interval(k, n, 0.9) == pytest.approx((ci.low, ci.high), rel=1e-14)


@pytest.mark.slow
def test_two_cold_processes_share_one_oracle_cache_and_a_third_loads_it(tmp_path):
    """What shards of a game cell do: two processes computing one oracle into one empty cache
    folder at once leave one intact cache file; a third process loads it (computing nothing);
    all three give the same value."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    code = (
        "import sys, pyspiel; from pathlib import Path; from starbench.oracles import oracle_for;"
        "o = oracle_for('pig(winscore=20)', folder=Path(sys.argv[1]));"
        "print(repr(o.value(pyspiel.load_game('pig(winscore=20)').new_initial_state())))"
    )
    argv = [sys.executable, "-c", code, str(tmp_path / "cache")]
    cold = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)]
    cold.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    values = []
    for p in cold:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        values.append(out.strip())
    files = {f: f.stat().st_mtime_ns for f in (tmp_path / "cache").rglob("*") if f.is_file()}
    assert len(files) == 1, sorted(files)
    third = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert third.returncode == 0, third.stderr
    assert "solving" not in third.stderr  # loaded, not computed
    assert {f: f.stat().st_mtime_ns for f in files} == files
    assert values == [third.stdout.strip()] * 2
