"""The statistics the tables and matches report: a proportion's Wilson interval, the exact
McNemar test of two rates on the same positions and the interval of their difference, a
mean's bootstrap interval.

General tools on plain numbers, below every floor that reports (the oracles' decision columns,
the analysis' tables, the matches): ``scipy.stats`` is imported only inside the functions that
need it (about a second), never by importing this module.
"""

from __future__ import annotations

from typing import Any

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
    The chanceprobcut-pig study's margin verdicts use it (its ``claims.yaml``)."""
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
