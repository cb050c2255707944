"""The compiled kernel's codes, by name (no numba here: the engine seam and the runner read them
without loading the kernel)."""

from starbench.search.stats import STAT_FIELDS

# algorithms
EXHAUSTIVE = 0  # expectimax, minimax
WINDOWED = 1  # alpha-beta, Star1
PROBING = 2  # Star2, Star2.5
# node kinds (starbench.trees.protocol.Kind)
MAX, MIN, CHANCE, LEAF = 0, 1, 2, 3
# frame modes
NORMAL, PROBE, RESUME = 0, 1, 2
# program counters
ENTER, DEC_LOOP, DEC_AFTER, EXP_STEP, EXP_AFTER = 0, 1, 2, 3, 4
CYC_STEP, CYC_AFTER, SEQ_STEP, SEQ_AFTER = 5, 6, 7, 8
SEARCH_INIT, SEARCH_STEP, SEARCH_AFTER = 9, 10, 11
# statuses
OK, BUDGET, BAD_EVAL = 0, 1, 2
PUSH = 3  # a step asks the kernel's main loop to search a child
# statistics slots (starbench.search.stats.STAT_FIELDS order): a counter added there and not
# named here fails at import (the unpacking below), never a silently shifted slot
N_STATS = len(STAT_FIELDS)
(
    S_NODES,
    S_LEAVES,
    S_MAX,
    S_MIN,
    S_CHANCE,
    S_PNODES,
    S_PLEAVES,
    S_CCUT,
    S_PCUT,
    S_DCUT,
    S_RESUMED,
    S_PROBES,
    S_TTP,
    S_TTH,
    S_TTC,
    S_SHALLOW,  # ChanceProbCut's shallow searches: never counted by the kernel (always 0)
) = range(N_STATS)
