"""``starbench calibrate``: fitting ChanceProbCut's calibrations (the lines its searches read).

At every chance node of each position's sampled path with D >= r decision plies below it, each
outcome is searched twice: deep (to its full depth) and shallow (to D - r plies, its horizon
valued by the static values; ``starbench.trees.horizon``), both by Star2 with the full window,
exact.  Per depth pair (D, D - r) an ordinary least-squares line through the (shallow, deep)
pairs gives a, b, the residual standard deviation s (n - 2 degrees of freedom; 0 when every
point lies on the line, stored and said) and R^2.  The model a search reads, the file format
and where files are looked for: ``starbench.search.calibration``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from starbench.errors import InputError
from starbench.ground.files import atomic_write_text
from starbench.ground.version import version
from starbench.search.calibration import Calibration, Fit, chance_depths, model_of

#: Fewest (shallow, deep) pairs per depth pair.
MIN_PAIRS = 10
#: A chance node with more outcomes gives no pairs (its path goes on through one of them): a
#: game's set-up (Einstein wurfelt nicht's 720 placements) would cost as many deep searches.
MAX_OUTCOMES = 64


def _pairs(
    spec: Any, seed: int, positions: int, r: int, exact: bool
) -> dict[int, list[tuple[Any, Any]]]:
    from starbench.oracles.positions import source as game_source
    from starbench.search.chanceprobcut import shallow_value
    from starbench.trees.protocol import Kind
    from starbench.trees.regular import RegularTree

    def value(view: Any) -> Any:
        return shallow_value(view, exact)[0]

    out: dict[int, list[tuple[Any, Any]]] = {}
    for i in range(positions):
        if hasattr(spec, "normalised"):
            tree = RegularTree(spec, seed, i)
        else:  # a game: the cell's sampler draws the position
            tree = game_source(spec, seed, i, exact).tree
        rng = random.Random(f"{seed}-{i}")
        node = tree.root
        while tree.kind(node) != Kind.LEAF:
            kids = tree.children(node)
            if tree.kind(node) == Kind.CHANCE:
                depth = tree.plies_below(node)
                if depth >= r and len(kids) <= MAX_OUTCOMES:
                    for child in kids:
                        deep = value(tree.shallow(child, depth))
                        shallow = value(tree.shallow(child, depth - r))
                        out.setdefault(depth, []).append((shallow, deep))
            node = kids[rng.randrange(len(kids))]
    return out


def fit(pairs: list[tuple[Any, Any]]) -> Fit:
    """Least squares deep ~ a shallow + b; s the residual SD with n - 2 degrees of freedom."""
    import numpy as np

    x = np.array([float(p[0]) for p in pairs])
    y = np.array([float(p[1]) for p in pairs])
    n = len(x)
    if np.ptp(x) == 0:  # one shallow value: the line is flat through the mean
        a, b = 0.0, float(y.mean())
    else:
        a, b = (float(c) for c in np.polyfit(x, y, 1))
    resid = y - (a * x + b)
    s = float(np.sqrt((resid**2).sum() / (n - 2))) if n > 2 else 0.0
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float((resid**2).sum()) / total if total > 0 else 1.0
    return Fit(n, round(a, 12), round(b, 12), round(s, 12), round(r2, 12))


def calibrate(spec: Any, seed: int, positions: int, r: int) -> Calibration:
    """Fit every depth pair (D, D - r), D >= r, of ``spec``'s trees on ``positions`` positions
    drawn with ``seed`` (InputError when a pair has fewer than ``MIN_PAIRS`` points)."""
    if hasattr(spec, "value_model") and spec.value_model != "incremental":
        raise InputError(
            f"tree.value_model: chanceprobcut's shallow searches need static values at interior "
            f"nodes (incremental), got {spec.value_model}"
        )
    depths = [d for d in chance_depths(spec) if d >= r]
    if r < 1:
        raise InputError(f"r: must be an integer >= 1, got {r}")
    if not depths:
        raise InputError(
            f"r: must be at most the deepest chance node's depth "
            f"{max(chance_depths(spec) or [0])} (below tree.depth={spec.depth}), got {r}"
        )
    pairs = _pairs(spec, seed, positions, r, exact=False)
    fits = {}
    for d in depths:
        got = pairs.get(d, [])
        if len(got) < MIN_PAIRS:
            raise InputError(
                f"--positions: {positions} positions give {len(got)} pairs at depth {d}, fewer "
                f"than {MIN_PAIRS}: draw more positions"
            )
        fits[d] = fit(got)
    return Calibration(model_of(spec), spec.depth, r, seed, positions, version(), fits)


def save(cal: Calibration, folder: Path) -> Path:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{cal.digest}.json"
    body = {**cal.body(), "digest": cal.digest}
    atomic_write_text(path, json.dumps(body, indent=1, sort_keys=True) + "\n")
    return path
