import os
import subprocess
import sys

from starbench.trees import hashing
from starbench.trees.hashing import MASK64, TEST_VECTORS, child_id, draw, unit_float


def test_vectors_pin_the_hash():
    for name, args, expected in TEST_VECTORS:
        assert getattr(hashing, name)(*args) == expected, (name, args)


def test_ids_stay_within_64_bits():
    nid = 2**64 - 1
    for j in range(1000):
        nid = child_id(nid, j)
        assert 0 <= nid <= MASK64


def test_unit_float_range():
    assert unit_float(0) == 0.0
    assert 0.0 <= unit_float(MASK64) < 1.0
    assert unit_float(draw(1, 2, 3)) == (draw(1, 2, 3) >> 11) / 2**53


_PROBE = """
from starbench import RegularTree, RegularTreeSpec
from starbench.search import reference_search as search  # the Python reference engine
spec = RegularTreeSpec(branching=3, chance_arity=4, depth=3, distribution='random',
                       ordering='noisy', noise_sd=0.5, outcome_order='refuting', bounds='tree')
t = RegularTree(spec, seed=12345, instance=7)
r = search(t, 'star2.5-cyclic', exact=True, k=2)
print(t.tree_seed, t.bounds, r.value, r.best_move, r.stats)
"""


def test_generated_tree_is_identical_across_processes():
    outs = {
        subprocess.run(
            [sys.executable, "-c", _PROBE],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (0, 1, 2)
    }
    assert len(outs) == 1
    # and the same numbers in this process
    ns: dict = {}
    exec(_PROBE.replace("print(", "out = ("), ns)
    assert outs.pop().strip() == " ".join(str(x) for x in ns["out"])


def test_fastmod_is_the_remainder():
    """The kernel's ``%`` by a run-time value (``compiled.hashing.fastmod``, a multiplication)
    gives Python's remainder: divisors at and around powers of two up to 2**64 - 1, value
    ranges and weights of real specs, and numerators at the edges and drawn from the hash."""
    import numpy as np
    from numba import njit

    from starbench.compiled.hashing import divisor, fastmod

    @njit
    def remainders(xs, d):
        dv = divisor(d)
        out = np.empty(len(xs), np.uint64)
        for i in range(len(xs)):
            out[i] = fastmod(xs[i], dv)
        return out

    divisors = {1, 2, 3, 5, 7, 10, 16, 17, 21, 101, 1001, 2**64 - 1}
    for e in range(1, 64):
        divisors |= {2**e - 1, 2**e, 2**e + 1}
    divisors |= {draw(7, j, 1) % 2**e + 1 for j in range(40) for e in (8, 20, 40, 64)}
    xs = [0, 1, 2, 2**32 - 1, 2**32, 2**63 - 1, 2**63, 2**64 - 2, 2**64 - 1]
    xs += [draw(3, j, 5) for j in range(300)]
    for d in sorted(divisors):
        near = [d - 1, d, d + 1, 2 * d - 1, 2 * d, d * (2**64 // d) - 1, d * (2**64 // d)]
        cand = [x for x in xs + near if 0 <= x < 2**64]
        got = remainders(np.array(cand, np.uint64), np.uint64(d))
        assert [int(r) for r in got] == [x % d for x in cand], d
