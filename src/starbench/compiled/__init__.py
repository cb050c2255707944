"""The compiled engine: one numba kernel for every registered algorithm (see ``engine``)."""
