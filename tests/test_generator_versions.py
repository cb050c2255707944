"""Generator versions (``tree.generator_version``): version 2 draws the same statistical model
as version 1 with a cheaper hash; version-1 cells keep their digests; both are selectable."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import pandas as pd
import pytest

from starbench import RegularTree, RegularTreeSpec
from starbench.compiled.engine import CompiledTree, execute
from starbench.experiment.runner import run_cell
from starbench.experiment.settings import AlgorithmSpec, RunSettings, cell_name
from starbench.record.identity import cell_identity
from starbench.trees.generators import GENERATORS
from test_runner import cli_run

#: Ballard's model (conf/tree/ballard.yaml): MAX, chance, MIN, leaf; N moves and N outcomes.
BALLARD = RegularTreeSpec(
    branching=4, chance_arity=4, depth=2, value_model="incremental", bounds="tree"
)
#: Ballard's cells checked: (N, his ordering), 3 levels, as in experiments/ballard1983.
CELLS = [
    (4, "generated", "generated"),
    (10, "generated", "generated"),
    (4, "perfect", "refuting"),
    (10, "perfect", "refuting"),
]
TREES = 400


def _pct(spec: RegularTreeSpec, algorithm: str, params: dict) -> tuple[float, float]:
    """Mean and standard error of ``algorithm``'s percent of expectimax's leaves over TREES
    instances of ``spec`` (seed 0), on the compiled engine."""
    pcts = []
    for i in range(TREES):
        ct = CompiledTree.from_regular(spec, 0, i)
        full = execute(ct, "expectimax", {}).stats.leaves
        pcts.append(100.0 * execute(ct, algorithm, params).stats.leaves / full)
    mean = sum(pcts) / len(pcts)
    var = sum((p - mean) ** 2 for p in pcts) / (len(pcts) - 1)
    return mean, math.sqrt(var / len(pcts))


@pytest.mark.slow
@pytest.mark.parametrize(("n", "ordering", "outcome_order"), CELLS)
def test_ballards_cells_give_the_same_percentages_under_both_versions(n, ordering, outcome_order):
    """The mean percent of expectimax's leaves (Star1; Star2 as Ballard counts it, resuming
    probed successors) agrees between the versions within three standard errors of the
    difference, on Ballard's 3-level cells at N = 4 and 10, random and optimal ordering."""
    spec = replace(BALLARD, branching=n, chance_arity=n, ordering=ordering)
    spec = replace(spec, outcome_order=outcome_order)
    for algorithm, params in (("star1", {}), ("star2", {"after_probe": "resume"})):
        m1, se1 = _pct(replace(spec, generator_version=1), algorithm, params)
        m2, se2 = _pct(replace(spec, generator_version=2), algorithm, params)
        assert abs(m1 - m2) <= 3 * math.hypot(se1, se2), (algorithm, m1, se1, m2, se2)


def test_version_2_draws_the_model_s_distributions():
    """Version 2's increments are uniform on 0..R, its random weights uniform on
    1..weight_max (chi-square, p > 0.001), and the weight of an outcome is not the increment
    into it in disguise (their correlation is near 0)."""
    from scipy import stats

    spec = RegularTreeSpec(
        branching=1,
        chance_arity=40,
        depth=2,
        distribution="random",
        weight_max=8,
        resolution=9,
        generator_version=2,
    )
    g = GENERATORS[2]
    incs, weights = Counter(), []
    pairs = []
    for i in range(200):
        t = RegularTree(spec, 3, i)
        chance = t.children(t.root)[0]
        for kid in t.children(chance):
            inc = kid[2] - chance[2]
            w = g.weight(t.tree_seed, kid[1], spec.weight_max)
            incs[inc] += 1
            weights.append(w)
            pairs.append((inc, w))
    assert sorted(incs) == list(range(10))
    assert stats.chisquare([incs[v] for v in range(10)]).pvalue > 0.001
    wc = Counter(weights)
    assert sorted(wc) == list(range(1, 9))
    assert stats.chisquare([wc[v] for v in range(1, 9)]).pvalue > 0.001
    r = pd.DataFrame(pairs, columns=["inc", "w"]).corr().iloc[0, 1]
    assert abs(r) < 0.05


def test_the_versions_are_other_trees_and_version_1_keeps_its_digest():
    v1, v2 = BALLARD, replace(BALLARD, generator_version=2)
    assert (
        RegularTree(v1, 0, 0).children(RegularTree(v1, 0, 0).root)[0]
        != (RegularTree(v2, 0, 0).children(RegularTree(v2, 0, 0).root)[0])
    )
    ident1, ident2 = cell_identity(v1, 0, False), cell_identity(v2, 0, False)
    # the version is beside the tree, as before it could be chosen: version-1 cells unchanged
    assert "generator_version" not in ident1["tree"]
    assert ident1["generator_version"] == 1 and ident2["generator_version"] == 2
    assert ident1["tree"] == ident2["tree"]
    name = {k: getattr(v2, k) for k in v2.as_dict()}
    assert cell_name(name, 0, False).split("_")[-2] == "g2"


def test_a_run_records_the_version_and_bad_versions_are_refused(tmp_path):
    spec = RegularTreeSpec(branching=3, chance_arity=3, depth=2, generator_version=2)
    algos = tuple(AlgorithmSpec(a) for a in ("expectimax", "star1", "star2"))
    s = RunSettings(tree=spec, algorithms=algos, trees=5, progress=False)
    df = pd.read_parquet(run_cell(s, tmp_path / "cell", out=lambda _: None).table)
    assert set(df["generator_version"]) == {2} and set(df["status"]) == {"ok"}
    # the rows' values are those of version-2 trees
    t = RegularTree(spec, int(df["seed"].iloc[0]), 0)
    from starbench.search import reference_search as search

    row = df[(df["algorithm"] == "expectimax") & (df["instance"] == 0)].iloc[0]
    assert row["value"] == search(t, "expectimax").value
    bad = cli_run("tree.generator_version=3", f"hydra.run.dir={tmp_path / 'bad'}", cwd=tmp_path)
    assert bad.returncode == 2, bad.stderr
    assert (
        bad.stderr.strip()
        .splitlines()[-1]
        .endswith("tree.generator_version: must be one of 1, 2, got 3")
    ), bad.stderr


def test_a_noisy_cell_names_its_noise_unit_and_older_noisy_cells_keep_theirs():
    """``noise_sd`` became relative to the children's spread: a noisy cell's identity says so
    (``noise_unit``), so a cell stored with raw-unit noise (no such key) has another digest and
    is never grown with trees of the new unit; other cells keep their digests."""
    from starbench.record.identity import NOISE_UNIT, cell_digest, normalised_identity

    noisy = replace(BALLARD, ordering="noisy", noise_sd=0.5)
    now = cell_identity(noisy, 0, False)
    assert now["noise_unit"] == NOISE_UNIT
    assert normalised_identity(now) == now
    before = {k: v for k, v in now.items() if k != "noise_unit"}  # as stored before the unit
    assert "noise_unit" not in normalised_identity(before)
    assert cell_digest(normalised_identity(before)) != cell_digest(now)
    assert "noise_unit" not in cell_identity(BALLARD, 0, False)
