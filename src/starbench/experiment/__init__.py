"""Experiments: typed settings, the runner (trees x algorithms -> verified rows), storage,
collecting a sweep into one table, and exporting an instance as a JSON tree."""
