"""ChanceProbCut (``starbench.search.chanceprobcut``) and its calibrations
(``starbench.search.calibration``, ``starbench calibrate``): t=inf is Star2 counter for counter; a
finite t needs a matching calibration, cuts, and is measured, never a mismatch; bad input is one
line, exit 2."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from starbench.commands import cli
from starbench.errors import InputError
from starbench.experiment import calibrate
from starbench.search import calibration
from starbench.search import reference_search as search
from starbench.trees.explicit import parse_tree
from starbench.trees.regular import RegularTree, RegularTreeSpec
from strategies import regular_specs, tree_objects

SPEC = RegularTreeSpec(branching=3, chance_arity=3, depth=4, resolution=10)


@pytest.fixture(scope="module")
def cal(tmp_path_factory):
    folder = tmp_path_factory.mktemp("calibrations")
    c = calibrate.calibrate(SPEC, calibration.SEED_OFFSET, 20, 1)
    calibrate.save(c, folder)
    return c, folder


def _same_as_star2(tree, exact):
    s2 = search(tree, "star2", exact=exact)
    cpc = search(tree, "chanceprobcut", exact=exact, t=float("inf"))
    assert (cpc.value, cpc.best_move, cpc.stats) == (s2.value, s2.best_move, s2.stats)
    assert cpc.by_level == s2.by_level


@given(tree_objects(max_depth=5, max_children=4, pattern="any"), st.booleans())
def test_t_inf_is_star2_on_every_tree_of_the_strategies(obj, exact):
    _same_as_star2(parse_tree(obj, exact=exact), exact)


@settings(max_examples=40)
@given(regular_specs, st.integers(0, 3))
def test_t_inf_is_star2_on_generated_trees(spec, instance):
    _same_as_star2(RegularTree(spec, 0, instance), False)


def test_a_finite_t_cuts_is_inexact_and_counts_its_shallow_nodes(cal, monkeypatch):
    c, folder = cal
    monkeypatch.setenv(calibration.ENV, str(folder))
    errors, changed = [], 0
    for i in range(12):
        tree = RegularTree(SPEC, 0, i)
        ex, s2 = search(tree, "expectimax"), search(tree, "star2")
        r = search(tree, "chanceprobcut", t=0.0, cal=c.digest)
        st_ = r.stats
        assert st_.nodes == st_.max_nodes + st_.min_nodes + st_.chance_nodes + st_.leaves
        assert 0 < st_.shallow_nodes < st_.nodes
        r.by_level.check(st_)  # the shallow searches' nodes at their levels of this tree
        assert len(r.by_level.nodes) == len(ex.by_level.nodes)
        errors.append(abs(r.value - ex.value))
        changed += st_.nodes - st_.shallow_nodes != s2.stats.nodes
    # t = 0 trusts every estimate: the search changes, and on these trees it is not always exact
    assert changed > 0 and max(errors) > 0
    wide = search(RegularTree(SPEC, 0, 0), "chanceprobcut", t=50.0, cal=c.digest)
    assert wide.value == pytest.approx(search(RegularTree(SPEC, 0, 0), "expectimax").value)


def test_the_fit_recovers_a_known_line():
    f = calibrate.fit([(x, 2 * x + 3) for x in range(10)])
    assert (f.n, f.a, f.b, f.s, f.r2) == (10, 2.0, 3.0, 0.0, 1.0)
    noisy = calibrate.fit([(x, x + (1 if x % 2 else -1)) for x in range(20)])
    assert noisy.a == pytest.approx(1.0, abs=0.05) and 0.9 < noisy.s < 1.2


def test_a_calibration_file_round_trips_and_is_checked(cal, tmp_path, monkeypatch):
    c, folder = cal
    monkeypatch.setenv(calibration.ENV, str(folder))
    assert calibration.load(c.digest) == c
    body = json.loads((folder / f"{c.digest}.json").read_text())
    assert {"model", "sampler", "seed", "positions", "starbench_version", "fits"} <= set(body)
    assert body["seed"] == calibration.SEED_OFFSET and body["positions"] == 20
    with pytest.raises(InputError, match="tree.branching"):
        c.check(
            RegularTree(RegularTreeSpec(branching=4, chance_arity=3, depth=4, resolution=10), 0, 0),
            1,
        )
    with pytest.raises(InputError, match="the cell's own seed"):
        c.check(RegularTree(SPEC, calibration.SEED_OFFSET, 0), 1)
    with pytest.raises(InputError, match="depth 4"):
        c.check(
            RegularTree(RegularTreeSpec(branching=3, chance_arity=3, depth=5, resolution=10), 0, 0),
            1,
        )
    with pytest.raises(InputError, match="r=2"):
        c.check(RegularTree(SPEC, 0, 0), 2)
    (tmp_path / f"{c.digest}.json").write_text(
        (folder / f"{c.digest}.json").read_text().replace('"positions": 20', '"positions": 21')
    )
    monkeypatch.setenv(calibration.ENV, str(tmp_path))
    with pytest.raises(InputError, match="digest"):
        calibration.load(c.digest)


def test_refusals_in_the_api():
    tree = RegularTree(SPEC, 0, 0)
    with pytest.raises(InputError, match="starbench calibrate --r 1"):
        search(tree, "chanceprobcut", t=1.0)
    uniform = RegularTree(RegularTreeSpec(depth=3, value_model="uniform"), 0, 0)
    with pytest.raises(InputError, match="static values"):
        search(uniform, "chanceprobcut", t=1.0)
    with pytest.raises(InputError, match="static values"):
        search(parse_tree({"bounds": [0, 1], "root": {"max": [0, 1]}}), "chanceprobcut", t=1.0)
    for bad, said in ((-1, "t must be"), ("x", "t must be"), (math.nan, "t must be")):
        with pytest.raises(InputError, match=said):
            search(tree, "chanceprobcut", t=bad)


def _one_line(capsys, *argv):
    code = cli.main(list(argv))
    err = capsys.readouterr().err.strip().splitlines()
    return code, err


def test_calibrate_and_run_from_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tree = ["tree.branching=3", "tree.chance_arity=3", "tree.depth=4", "tree.resolution=10"]
    code = cli.main(["calibrate", "--positions", "10", *tree])
    out = capsys.readouterr().out
    assert code == 0, out
    digest = out.split("cal=")[-1].split()[0]
    assert (tmp_path / "calibrations" / f"{digest}.json").is_file()
    assert "R^2" in out and "wrote" in out
    cell = tmp_path / "cell"
    code = cli.main(
        ["run", *tree, "trees=12", "progress=false", f"hydra.run.dir={cell}",
         f"algorithms=[expectimax,star2,chanceprobcut:t=0,cal={digest}]"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0, err  # an inexact value is no mismatch (exit 1)
    assert "runs on the Python engine" in err
    import pandas as pd

    t = pd.read_parquet(cell / "table.parquet")
    rows = t[t["algorithm"] == "chanceprobcut"]
    assert len(rows) == 12 and set(rows["status"]) == {"approx"}  # never a mismatch
    assert (rows["value_error"] != 0).any()  # t = 0 errs on some of these trees
    assert (rows["r"] == 1).all() and (rows["t"] == 0.0).all()
    assert (rows["shallow_nodes"] > 0).all() and rows["value_error"].notna().all()
    for argv, said in (
        (["calibrate", "--positions", "1", *tree], "--positions"),
        (["calibrate", "--r", "4", *tree], "r: must be at most"),
        (["calibrate", *tree, "tree.depth=3,4"], "no sweeps"),
        (["calibrate", "tree.value_model=uniform", *tree], "tree.value_model"),
        (["calibrate", "--seed", "0", *tree], "the run's own seed"),
    ):
        code, err = _one_line(capsys, *argv)
        assert code == 2 and len(err) == 1 and said in err[0], (argv, err)
    code, err = _one_line(
        capsys, "run", *tree, "trees=2", f"hydra.run.dir={tmp_path / 'c2'}",
        "algorithms=[star2,chanceprobcut:t=1]",
    )  # fmt: skip
    assert code == 2 and len(err) == 1 and "starbench calibrate --r 1" in err[0]
    assert not (tmp_path / "c2" / "table.parquet").exists()


def test_two_requests_that_differ_only_in_the_calibration_are_refused(tmp_path, capsys):
    code, err = _one_line(
        capsys, "run", "tree.depth=3", "trees=2", f"hydra.run.dir={tmp_path / 'c'}",
        "algorithms=[chanceprobcut:t=inf,cal=aaaaaaaaaaaa,chanceprobcut:t=inf,cal=bbbbbbbbbbbb]",
    )  # fmt: skip
    assert code == 2 and len(err) == 1 and "listed twice" in err[0], err


@pytest.mark.parametrize(
    ("study", "files"),
    [("chanceprobcut", ("ballard", "dice")), ("chanceprobcut-pig", ("pig",))],
)
def test_the_study_s_calibrations_are_the_ones_its_algorithm_files_name(study, files):
    """A chanceprobcut study's run used conf/calibrations; its regeneration wrote them again
    beside its results: the same bytes, and the digests the algorithm files name."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    made = sorted((root / "results" / study / "calibrations").glob("*.json"))
    assert len(made) == len(files)
    named = set()
    for shape in files:
        text = (root / "conf" / "algorithms" / f"chanceprobcut-{shape}.yaml").read_text()
        named |= set(re.findall(r"cal: ([0-9a-f]{12})", text))
    assert {p.stem for p in made} == named
    for p in made:
        assert p.read_bytes() == (root / "conf" / "calibrations" / p.name).read_bytes()
        assert calibration.from_json(json.loads(p.read_text())).digest == p.stem


def test_on_a_game_calibrate_cut_and_refuse(tmp_path, capsys, monkeypatch):
    """pig: a calibration from the game's own positions (its heuristic as the static value),
    t=inf is Star2 on the game tree, a finite t runs as approx rows; the game's other keys
    are checked."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.games.spec import GameSpec

    game = "pig(winscore=10)"  # its exact oracle, which the run scores decisions with, is cheap
    spec = GameSpec(game=game, depth=3)
    c = calibrate.calibrate(spec, calibration.SEED_OFFSET, 30, 1)
    assert sorted(c.fits) == [1, 2] and c.model["game"] == game
    calibrate.save(c, tmp_path / "cals")
    monkeypatch.setenv(calibration.ENV, str(tmp_path / "cals"))
    for i in range(3):
        tree = spec.source(0, i, False).tree
        _same_as_star2(tree, False)
        r = search(spec.source(0, i, False).tree, "chanceprobcut", t=0.0, cal=c.digest)
        assert r.stats.shallow_nodes > 0
    with pytest.raises(InputError, match="tree.heuristic"):
        c.check_spec(GameSpec(game=game, depth=3, heuristic="zero"), 0, 1)
    with pytest.raises(InputError, match="depth 3"):
        c.check_spec(GameSpec(game=game, depth=4), 0, 1)
    cell = tmp_path / "cell"
    code = cli.main(
        ["run", "tree=game", f"tree.game='{game}'", "tree.depth=3", "trees=3", "progress=false",
         f"hydra.run.dir={cell}", f"algorithms=[expectimax,chanceprobcut:t=0,cal={c.digest}]"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    import pandas as pd

    t = pd.read_parquet(cell / "table.parquet")
    assert set(t[t["algorithm"] == "chanceprobcut"]["status"]) == {"approx"}


def test_a_chanceprobcut_player_plays_matches_with_its_calibration(tmp_path, capsys, monkeypatch):
    """starbench match: a ChanceProbCut player at a fixed depth and under a node budget (its
    calibration checked against the match's game and the player's heuristic and depth)."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.games.spec import GameSpec

    game = "pig(winscore=10)"
    c = calibrate.calibrate(GameSpec(game=game, depth=3), calibration.SEED_OFFSET, 30, 1)
    calibrate.save(c, tmp_path / "cals")
    monkeypatch.setenv(calibration.ENV, str(tmp_path / "cals"))
    cpc = f"chanceprobcut:depth=3,t=0,cal={c.digest}"
    for extra in ("", ",node_budget=200"):
        code = cli.main(
            ["match", game, "--player", f"star2:depth=3{extra}", "--player", cpc + extra,
             "--games", "4", "--out", str(tmp_path / f"m{extra}")]
        )  # fmt: skip
        assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    deeper = f"chanceprobcut:depth=4,t=0,cal={c.digest}"
    code = cli.main(
        ["match", game, "--player", "star2:depth=3", "--player", deeper,
         "--out", str(tmp_path / "x")]
    )  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "covers depths [1, 2]" in err[0], err
    assert not (tmp_path / "x").exists()
    # a match's positions come from its play: a calibration drawn with another sampler serves
    # its players (a cell's sampler must match)
    opt = calibrate.calibrate(
        GameSpec(game=game, depth=3, sampler="optimal"), calibration.SEED_OFFSET, 30, 1
    )
    calibrate.save(opt, tmp_path / "cals")
    opt.check_spec(GameSpec(game=game, depth=3), None, 1)
    with pytest.raises(InputError, match="tree.sampler"):
        opt.check_spec(GameSpec(game=game, depth=3), 0, 1)
    player = f"chanceprobcut:depth=3,t=0,cal={opt.digest}"
    code = cli.main(
        ["match", game, "--player", "star2:depth=3", "--player", player, "--games", "2",
         "--out", str(tmp_path / "opt")]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err


def test_a_game_s_set_up_gives_no_calibration_pairs():
    """Einstein wurfelt nicht: some playout positions sit at the set-up chance node (720
    placements); it gives no pairs, so calibrating stays cheap."""
    pytest.importorskip("pyspiel", reason='pip install -c constraints.txt -e ".[games]"')
    from starbench.games.spec import GameSpec

    spec = GameSpec(game="einstein_wurfelt_nicht", depth=2, heuristic="einstein_progress")
    trees = [spec.source(calibration.SEED_OFFSET, i, False).tree for i in range(3)]
    sizes = [len(t.children(t.root)) for t in trees]
    assert max(sizes) > calibrate.MAX_OUTCOMES  # a set-up position is among them
    c = calibrate.calibrate(spec, calibration.SEED_OFFSET, 12, 1)
    assert sorted(c.fits) == [1] and c.fits[1].n >= calibrate.MIN_PAIRS


def test_a_node_budget_holds_its_shallow_searches_too(cal, monkeypatch):
    """The shallow searches share the search's node budget: past it the search stops with at
    most one node over, shallow nodes included (a match at equal node_budget is fair)."""
    from starbench.errors import BudgetExceeded
    from starbench.search.registry import get_algorithm

    c, folder = cal
    monkeypatch.setenv(calibration.ENV, str(folder))
    tree = RegularTree(SPEC, 0, 0)
    full = search(tree, "chanceprobcut", t=0.0, cal=c.digest).stats
    ran_shallow = 0
    for budget in sorted({1 + (full.nodes - 2) * i // 24 for i in range(25)}):
        s = get_algorithm("chanceprobcut").make(
            tree,
            {"t": 0.0, "cal": c.digest},
            exact=False,
            debug=False,
            node_budget=budget,
            time_budget=None,
        )
        with pytest.raises(BudgetExceeded, match=f"node budget of {budget} nodes"):
            s.run()
        assert s.nodes == budget + 1, budget
        ran_shallow += s.shallow_nodes > 0
    assert ran_shallow > 0


def test_every_committed_match_s_calibration_is_one_a_study_regenerates():
    """A ChanceProbCut player of a committed match names a calibration in conf/calibrations
    that a study's regeneration writes again (the same bytes) under results/<study>/calibrations."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    named = set()
    for p in (root / "results").glob("*/*/match.json"):
        req = json.loads(p.read_text())
        for who in ("player0", "player1"):
            named |= set(re.findall(r"cal=([0-9a-f]{12})", req[who]))
    if not named:
        pytest.skip("no committed match has a ChanceProbCut player")
    made = {p.stem: p for p in (root / "results").glob("*/calibrations/*.json")}
    for digest in sorted(named):
        assert digest in made, digest
        conf = root / "conf" / "calibrations" / f"{digest}.json"
        assert made[digest].read_bytes() == conf.read_bytes(), digest
