"""Claims in the study READMEs that the generated tables alone do not show, checked against the
committed results."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from starbench import RegularTree, RegularTreeSpec
from starbench.engines import search

ROOT = Path(__file__).resolve().parents[1]


def test_probing_sequential_k20_examines_star1s_leaves_on_every_committed_tree():
    """experiments/ballard1983-probing/README.md: sequential Star2.5 with k = 20 examines exactly
    Star1's leaves on all 335 trees, and enters more nodes."""
    tables = sorted((ROOT / "results" / "ballard1983-probing").glob("*/table.parquet"))
    df = pd.concat([pd.read_parquet(t) for t in tables])
    seq = df[(df.algorithm == "star2.5-sequential") & (df.k == 20)]
    assert len(seq) == 335
    r0 = seq.iloc[0]
    spec = RegularTreeSpec(
        branching=int(r0.branching),
        chance_arity=int(r0.chance_arity),
        depth=int(r0.depth),
        pattern=str(r0.pattern),
        bounds=str(r0.bounds),
        value_model=str(r0.value_model),
        distribution=str(r0.distribution),
    )
    for r in seq.itertuples():
        star1 = search(RegularTree(spec, seed=0, instance=int(r.instance)), "star1")
        assert star1.stats.leaves == r.leaves, r.instance
        assert star1.stats.nodes < r.nodes, r.instance


def test_deepening_readme_claims_come_from_the_committed_results():
    """experiments/hauk2004-deepening/README.md: the table's gain in plies, pig's three plies for
    every algorithm (its model's key), tt_chance's effect in backgammon, Star1's depths equal
    expectimax's."""
    from starbench.analysis import load_results

    text = (ROOT / "experiments" / "hauk2004-deepening" / "README.md").read_text()
    bg = load_results(ROOT / "results" / "hauk2004-deepening")
    pig = load_results(ROOT / "results" / "hauk2004-deepening-pig")
    for d in (bg, pig):
        d["tt_chance"] = d["tt_chance"].fillna(False).astype(bool)
    key = ["algorithm", "instance"]

    def depth(d, tt, chance=False):
        g = d[(d["tt"] == tt) & (d["tt_chance"] == chance)]
        return g.set_index(key)["depth_completed"].astype(int)

    gain = (depth(bg, 20) - depth(bg, 0)).groupby("algorithm").sum()
    assert set(gain) == {7} and len(bg["instance"].unique()) == 40
    assert "it adds 7 completed depths over the 40 positions for each algorithm" in text
    assert ((depth(pig, 20) - depth(pig, 0)) == 3).all()  # exactly three plies, every search
    assert set(depth(pig, 0)) == {5, 6} and set(depth(pig, 20)) == {8, 9}
    star2 = bg[bg["algorithm"] == "star2"]
    with_chance = star2[star2["tt_chance"]].set_index("instance")
    alone = star2[(star2["tt"] == 20) & ~star2["tt_chance"]].set_index("instance")
    assert (with_chance["depth_completed"] == alone["depth_completed"]).all()
    fewer = 100 * (alone["nodes"] - with_chance["nodes"]) / alone["nodes"]
    assert (fewer >= 0).all() and (fewer > 0).sum() == 2
    shown = sorted(f"{x:.2f}" for x in fewer[fewer > 0])
    assert f"({shown[0]} and\n    {shown[1]} % fewer on the other two)" in text
    b0 = depth(bg, 0)
    assert (b0.xs("star1", level="algorithm") == b0.xs("expectimax", level="algorithm")).all()
    b20 = depth(bg, 20)
    assert (b20.xs("star1", level="algorithm") == b20.xs("expectimax", level="algorithm")).all()
    done = pd.concat([bg, pig])
    assert set(done.loc[done["status"] != "budget_exceeded", "status"]) <= {"ok"}


@pytest.mark.slow  # reads committed studies' tables
def test_the_hypotheses_baseline_cells_are_the_ballard1983_studys_own_rows():
    """experiments/ballard1983/README.md, "Discrepancies": the hypotheses study's baseline cells
    are the ballard1983 study's own trees (identical leaves, tree for tree), so its table and the
    study's tables quote the same numbers (each number of the prose: claims.yaml)."""
    from starbench.analysis import load_results

    df = load_results(ROOT / "results" / "ballard1983-hypotheses")
    own = load_results(ROOT / "results" / "ballard1983")
    key = ["depth", "trailing_chance", "branching", "ordering", "algorithm", "after_probe"]
    key += ["probe_full_window", "instance"]
    base = df[
        (df.value_model == "incremental")
        & (df.bounds == "tree")
        & (df.resolution == own.resolution.iloc[0])
        & ~df.ordering.str.startswith("static")
    ]
    both = base.merge(own, on=key, suffixes=("", "_own"))
    assert len(both) == len(own) == len(base)
    assert (both["leaves"] == both["leaves_own"]).all()


def _md(table: str) -> pd.DataFrame:
    """A generated markdown table as strings, one column per header."""
    lines = [ln for ln in table.strip().splitlines() if ln.startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return pd.DataFrame(cells[2:], columns=cells[0])


@pytest.mark.slow  # reads committed studies' tables
def test_hauk2004_and_heyden2009_readme_claims_come_from_the_committed_results():
    """The prose of experiments/hauk2004 and experiments/heyden2009 and Ballard's best-case
    sentence, against the tables make_figures computes from the committed results."""
    from starbench.analysis import load_results
    from starbench.analysis.studies import best_case_table, best_k_table, budget_table

    def read(study):
        return " ".join((ROOT / "experiments" / study / "README.md").read_text().split())

    # hauk2004: depths completed under the budget, Star2's growth, the ordering effect
    b = _md(budget_table(load_results(ROOT / "results" / "hauk2004")))
    b = b.set_index(["ordering", "algorithm", "depth (plies)"])
    static, rand = "static (path sum)", "random (as generated)"
    nodes = "nodes: mean ± SE"

    def mean(order, alg, depth):
        return float(b.loc[(order, alg, str(depth)), nodes].split(" ")[0])

    done = "finished / searches"
    for order in (static, rand):
        for alg in ("expectimax", "star1"):
            assert b.loc[(order, alg, "3"), done] == "20 / 20"
            assert b.loc[(order, alg, "4"), done].startswith("0 / ")
    assert b.loc[(rand, "star2", "4"), done].startswith("0 / ")
    assert b.loc[(static, "star2", "4"), done] == "20 / 20"
    assert all(b.loc[(o, a, "5"), done].startswith("0 / ") for o, a, d in b.index if d == "5")
    text = read("hauk2004")
    assert f"({mean(rand, 'expectimax', 3) / 1e6:.1f} million nodes for expectimax)" in text
    assert f"(about {mean(static, 'star2', 4) / 1e6:.0f} million nodes)" in text
    lo, hi = mean(static, "star2", 3), mean(static, "star2", 4)
    assert f"({lo:.2e} to {hi:.2e}, `nodes_by_depth.md`)" in text
    assert round(hi / lo, -1) == 90 and "grow about 90-fold" in text
    assert round(hi * (hi / lo) / 50e6, -1) == 30 and "roughly 30 times the budget" in text
    effect = (ROOT / "experiments" / "hauk2004" / "figures" / "ordering_effect.md").read_text()
    e = _md(effect).set_index(["tree.depth", "order", "label"])  # the keys a user types
    col = "percent of expectimax's leaves: mean ± SE (n)"
    s, r = (
        e.loc[("3", o, "star2"), col].split(" ")[0]
        for o in ("tree.ordering=static", "order=random")
    )
    assert f"at depth 3 it examines {s}% of expectimax's leaves with the static ordering " in text
    assert f"against {r}% without" in text
    # heyden2009: geometric outcomes at 5 levels, and the sequential best k's ties
    k = _md(best_k_table(load_results(ROOT / "results" / "heyden2009")))
    k = k.set_index(["outcomes", "depth (plies)", "variant", "k"])
    leaves, knodes = "% leaves: mean ± SE (n)", "% nodes: mean ± SE"
    star1 = k.loc[("geometric", "3", "cyclic", "0"), leaves].split(" ")[0]
    star2 = k.loc[("geometric", "3", "cyclic", "1"), leaves].split(" ")[0]
    assert float(star2) > float(star1)
    text = read("heyden2009")
    claim = f"(cyclic, k = 1) examines more leaves than Star1 (k = 0): {star2} against {star1} %"
    assert claim in text
    seq = k.xs(("geometric", "2", "sequential"), level=[0, 1, 2])  # 2 plies: 3 levels
    best = seq[seq["best k (fewest nodes)"] == "**best**"]
    assert list(best.index) == ["8"]
    at8 = best[knodes].iloc[0].split(" ")[0]
    assert f'"best k" marked at 3 levels (k = 8, {at8} % of the nodes) ties k = 6 and 7' in text
    assert all(seq.loc[j, knodes].split(" ")[0] == at8 for j in ("6", "7"))
    # ballard1983: the best case within 0.6 points under C1 and C2, research further off
    t = _md(best_case_table(load_results(ROOT / "results" / "ballard1983")))
    diff = t.iloc[:, -1].astype(float).abs()
    research = t["algorithm"].str.contains("after_probe=research")
    text = read("ballard1983")
    assert diff[~research].max() == 0.6
    assert "Star1 and Star2 under C1 and C2 are within 0.6 points of every published cell" in text
    assert f"is up to {diff[research].max():.1f} points above (at N = 4)" in text
    assert t.loc[diff[research].idxmax(), "N"] == "4"
