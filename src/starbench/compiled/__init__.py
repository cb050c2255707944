"""The compiled engine: one numba kernel for every algorithm whose registry entry declares a
kernel (``AlgorithmInfo.kernel``; see ``engine``)."""
