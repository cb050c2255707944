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
from starbench.search import search  # the Python reference engine
spec = RegularTreeSpec(branching=3, chance_arity=4, depth=3, distribution='random',
                       ordering='noisy', noise_sd=5000.0, outcome_order='refuting', bounds='tree')
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
