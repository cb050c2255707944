"""Claims in the study READMEs that the generated tables alone do not show, checked against the
committed results."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

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


def test_transposition_readme_ranges_come_from_the_committed_results():
    """experiments/transposition/README.md quotes ranges that its tables do not print."""
    from starbench.analysis import load_results
    from starbench.analysis import transposition as tp

    df = load_results(ROOT / "results" / "transposition")
    assert len(df) == 4800 and set(df["status"]) == {"ok"}
    text = (ROOT / "experiments" / "transposition" / "README.md").read_text()
    s = tp.savings(df)
    mean = s.groupby(["pool", "algorithm"])["saved"].mean()
    chance = s.groupby(["pool", "algorithm"])["chance_saved"].mean()

    def span(values, digits=0):
        lo, hi = min(values), max(values)
        return f"{lo:.{digits}f}-{hi:.{digits}f}"

    assert f"({span(mean.loc[1000])} %)" in text  # saved at 1,000 per level
    at_most_30 = mean[[p for p in mean.index.get_level_values(0).unique() if 0 < p <= 30]]
    assert f"{span(at_most_30)} % at 30 or fewer" in text
    star2 = chance.xs("star2", level="algorithm").drop(index=0)
    star1 = chance.xs("star1", level="algorithm").drop(index=0)
    assert f"saves Star2 {span(star2, 1)[:-2]}" in text.replace("\n", " ")  # 0.7-14
    assert f"(Star1: {span(star1)} %)" in text
    d = df[df["status"] == "ok"].copy()
    ex = d[(d.algorithm == "expectimax")].set_index(["pool", "tt", "instance"])["nodes"]
    rel = {}
    for (alg, tt), g in d[d.algorithm != "expectimax"].groupby(["algorithm", "tt"]):
        g = g[~g["tt_chance"].fillna(False).astype(bool)]
        ref = ex.reindex(list(zip(g["pool"], g["tt"], g["instance"], strict=True))).to_numpy()
        g = g.assign(rel=100.0 * g["nodes"].to_numpy(float) / ref)
        rel[(alg, tt)] = g[g["pool"] > 0].groupby("pool")["rel"].mean()
        if tt == 0:
            rel[(alg, tt)] = g.groupby("pool")["rel"].mean()
    assert f"({span(rel[('star1', 16)])} %)" in text
    assert f"({span(rel[('star2', 16)])} %)" in text
    assert f"examine {span(list(rel[('star1', 0)]) + list(rel[('star2', 0)]))} %" in text


def test_deepening_readme_claims_come_from_the_committed_results():
    """experiments/hauk2004-deepening/README.md: the table's gain in plies, pig's one ply for
    every algorithm, tt_chance's effect in backgammon, Star1's depths equal expectimax's."""
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
    assert ((depth(pig, 20) - depth(pig, 0)) == 1).all()  # exactly one ply, every search
    assert set(depth(pig, 0)) == {5, 6} and set(depth(pig, 20)) == {6, 7}
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


def test_ballard_discrepancy_claims_come_from_the_committed_results():
    """experiments/ballard1983/README.md, "Discrepancies": every number the prose quotes is the
    committed hypotheses study's, and its baseline cells are the ballard1983 study's own rows."""
    from starbench.analysis import load_results
    from starbench.analysis.data import percent_leaves, summarise
    from starbench.analysis.figures import _prepare
    from starbench.analysis.studies import _hypothesis

    df = load_results(ROOT / "results" / "ballard1983-hypotheses")
    m = percent_leaves(_prepare(df))
    m["hypothesis"] = _hypothesis(m)
    s = summarise(m, ["hypothesis", "order", "levels", "branching", "label"]).set_index(
        ["hypothesis", "order", "levels", "branching", "label"]
    )["mean"]
    rand, opt, static = "random (as generated)", "optimal", "static (path sum)"

    def at(h, label, levels=3, n=4, order=rand):
        return round(float(s.loc[(h, order, levels, n, label)]), 1)

    text = " ".join((ROOT / "experiments" / "ballard1983" / "README.md").read_text().split())
    quoted = {
        "C1 at 5 and 6 levels": (at("baseline", "star2", 5, 10), at("baseline", "star2", 6, 10)),
        "C1 at N = 4": (at("baseline", "star2"),),
        "research at N = 4": (at("baseline", "star2 research"),),
        "C2 at N = 4": (at("baseline", "star2 research no-full-probe"),),
        "declared bounds at N = 4": (at("declared bounds", "star2"),),
        "coarse values at N = 4": (at("coarse values", "star2"),),
        "static at 5, 6 levels": (
            at("static ordering", "star2", 5, 10, static),
            at("static ordering", "star2", 6, 10, static),
            at("static ordering", "star2 research", 5, 10, static),
            at("static ordering", "star2 research", 6, 10, static),
        ),
        "static at N = 4": (at("static ordering", "star2", order=static),),
    }
    for claim, values in quoted.items():
        for v in values:
            assert f"{v:.1f}" in text, (claim, v)
    assert f"ours {quoted['C1 at 5 and 6 levels'][0]:.1f} and " in text
    assert f"to {quoted['research at N = 4'][0]:.1f}, far past" in text
    # C2: from 5.2 below to 4.7 above the published 75.4; N = 10..40 within 1.4; best case = C1
    c2 = "star2 research no-full-probe"
    assert round(75.4 - at("baseline", "star2"), 1) == 5.2
    assert round(at("baseline", c2) - 75.4, 1) == 4.7
    published = {10: 53.1, 20: 41.8, 40: 35.0}
    assert max(abs(at("baseline", c2, n=n) - p) for n, p in published.items()) <= 1.4
    for n in (4, 10, 20, 40):
        assert at("baseline", c2, n=n, order=opt) == at("baseline", "star2", n=n, order=opt)
    # the baseline cells are the study's own trees: identical leaves, tree for tree
    own = load_results(ROOT / "results" / "ballard1983")
    key = ["depth", "trailing_chance", "branching", "ordering", "algorithm", "after_probe"]
    key += ["probe_full_window", "instance"]
    base = df[
        (df.value_model == "incremental")
        & (df.bounds == "tree")
        & (df.resolution == own.resolution.iloc[0])
        & (df.ordering != "static")
    ]
    both = base.merge(own, on=key, suffixes=("", "_own"))
    assert len(both) == len(own) == len(base)
    assert (both["leaves"] == both["leaves_own"]).all()


def _md(table: str) -> pd.DataFrame:
    """A generated markdown table as strings, one column per header."""
    lines = [ln for ln in table.strip().splitlines() if ln.startswith("|")]
    cells = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return pd.DataFrame(cells[2:], columns=cells[0])


def test_backgammon_readme_claims_come_from_the_committed_results():
    """experiments/hauk2004-backgammon/README.md, "What was reproduced": every number the prose
    quotes, derived from the study's tables as make_figures computes them from the committed
    results (timings included: they change when the study is rerun)."""
    from starbench.analysis import backgammon as bg
    from starbench.analysis import load_results

    main = load_results(ROOT / "results" / "hauk2004-backgammon")
    deep = load_results(ROOT / "results" / "hauk2004-backgammon-deep")
    t2 = _md(bg.backgammon_table(main))
    t2 = t2[t2["depth: ours (Hauk's)"] == "2 (3)"].set_index(["move order", "algorithm"])
    t3 = _md(bg.deep_table(deep)).set_index(["move order", "algorithm"])
    cls = _md(bg.deep_class_table(deep)).set_index(["move order", "position class"])
    pub = _md(bg.published_table(deep)).set_index(
        "at Hauk's depth 5 (our 3 decision plies), 0-ply ordering"
    )["ours"]
    eq, inner, none = "0-ply equity", "0-ply, not last", "none (gnubg's)"
    text = " ".join(
        (ROOT / "experiments" / "hauk2004-backgammon" / "README.md").read_text().split()
    )

    def first(cell: str) -> str:  # "30.3 ± 2.19" -> "30.3"
        return cell.split(" ")[0]

    def span(values, fmt="{:.1f}"):
        xs = sorted(float(first(v)) for v in values)
        return f"{fmt.format(xs[0])}-{fmt.format(xs[-1])}"

    pct = "% of expectimax's leaves: mean ± SE"
    star1 = t2.xs("star1", level="algorithm")
    se = [v.split("± ")[1] for v in star1[pct]]
    n = sorted(int(v) for v in star1["positions"])
    cpu1 = star1["% of its CPU s"]
    assert (
        f"Star1 examines {span(star1[pct])} "
        f"% of expectimax's leaves (mean over {n[0]:,}-{n[-1]:,} positions, standard error "
        f"{span(se, '{:.2f}')}) and takes {span(cpu1, '{:.0f}')} % of its CPU time"
    ) in text
    # Star2 at depth 5 with 0-ply ordering: pooled and per position, nodes and leaves
    nodes_saved = pub["Star2: nodes saved against expectimax"]
    leaves_saved = pub["Star2: leaves (evaluations) saved"]
    pooled_n, pooled_l = (first(v.split(", ")[1]) for v in (nodes_saved, leaves_saved))
    per_n, per_l = first(nodes_saved), first(leaves_saved)
    assert (
        f"Star2 visits {100 - float(pooled_n):.1f} % of expectimax's nodes and evaluates "
        f"{100 - float(pooled_l):.1f} % of its leaves pooled over the positions, a saving of "
        f"{pooled_n} % and {pooled_l} %"
    ) in text
    assert f"({per_n} % of the nodes and {per_l} % of the leaves saved)" in text
    by_class = cls.loc[eq, "Star2, % of expectimax's leaves: mean ± SE"]
    small, contact = by_class.drop("contact"), first(by_class["contact"])
    assert (
        f"(Star2 examines {span(small)} % of their leaves on average, against {contact} %" in text
    )
    s2none = t3.loc[(none, "star2")]
    assert (
        f"Without ordering Star2 still saves {100 - float(s2none['% pooled over positions']):.1f} "
        f"% of the leaves pooled ({s2none['% saved']} % per position)"
    ) in text
    # depth 3 (2 decision plies): Star2's time against its leaves
    s2 = t2.xs("star2", level="algorithm")
    assert (
        f"Star2's CPU time is {span(s2['% of its CPU s'], '{:.0f}')} % of expectimax's while it "
        f"evaluates {span(s2['% pooled over positions'], '{:.0f}')} % of the leaves pooled"
    ) in text
    d2 = main[(main["depth"] == 2) & (main["move_order"] == "equity") & (main["status"] == "ok")]
    leaves = d2.groupby("algorithm")["leaves"].mean()
    assert (
        f"Star2 then makes {int(t2.loc[(eq, 'star2'), 'ordering evals / search']):,} ordering "
        f"evaluations per search on average for {leaves['star2']:,.0f} leaves, where expectimax "
        f"evaluates {leaves['expectimax']:,.0f} leaves"
    ) in text
    assert (
        f"({t3.loc[(inner, 'star2'), '% pooled over positions']} % of the leaves pooled at depth "
        f"5, against {t3.loc[(eq, 'star2'), '% pooled over positions']} %)"
    ) in text
    # probe success
    ps = "probe success %"
    assert (
        f"Star2's probe success at depth 5 is {t3.loc[(eq, 'star2'), ps]} % with 0-ply ordering, "
        f"{t3.loc[(inner, 'star2'), ps]} % with `equity_inner` and {t3.loc[(none, 'star2'), ps]} % "
        f"without ordering; at depth 3 with 0-ply ordering at every node it is "
        f"{t2.loc[(eq, 'star2'), ps]} %"
    ) in text
    assert f"(k = 2) reaches {t3.loc[(eq, 'star2.5-sequential k=2'), ps]} % at depth 5" in text
    # seconds per move at depth 5
    cpu = "CPU s / search: mean (max)"
    mean, most = t3.loc[(eq, "star2"), cpu].split(" ")
    median = pub["Star2: seconds per move (search only)"].split("(mean), ")[1].split(" ")[0]
    assert (
        f"Star2 at depth 5 takes {float(mean):.2f} s of CPU per move on average ({median} s "
        f"median, {most.strip('()')} s at most)"
    ) in text
    over = deep[deep["status"] == "budget_exceeded"]
    assert len(over) == 1 and over["move_order"].iloc[0] == "none"
    assert "one search of 200 (without ordering) went over the 5 million node budget" in text

    # Star2.5: cyclic saves about 3 points at depth 3 where the horizon is unordered
    def mean_of(t, order, alg, col):
        return first(t.loc[(order, alg), col])

    for order in (inner, none):
        gain = float(mean_of(t2, order, "star2", pct)) - float(
            mean_of(t2, order, "star2.5-cyclic k=2", pct)
        )
        assert round(gain) == 3, (order, gain)
    seq, pct3 = "star2.5-sequential k=2", "% of them: mean ± SE"

    assert (
        f"({mean_of(t2, eq, seq, pct)} against {mean_of(t2, eq, 'star2', pct)} % at depth 3, "
        f"{mean_of(t3, eq, seq, pct3)} against {mean_of(t3, eq, 'star2', pct3)} % at depth 5)"
    ) in text


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
    e = _md(effect).set_index(["levels", "ordering", "label"])
    col = "percent of expectimax's leaves: mean ± SE (n)"
    s, r = (e.loc[("5", o, "star2"), col].split(" ")[0] for o in (static, rand))
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
