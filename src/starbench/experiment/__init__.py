"""How cells are made: typed settings, the plan, the runner (trees x algorithms -> verified
rows) and its stages, shards, collecting a sweep into one table, replay, launches and SLURM,
ChanceProbCut's calibration, and the timing harness the benchmarks share (what a cell is on
disk is ``starbench.record``; a JSON tree of an instance ``starbench.external.export``)."""
