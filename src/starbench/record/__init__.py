"""What a cell is on disk: every column declared once (``columns``), the row (``rows``), the
journal (``storage``), the
table file (``tablefile``), checksums (``integrity``), the cell's identity and digest
(``identity``), the run's metadata (``metadata``), the request a cell holds (``coverage``) and
the command that reruns it (``repair``)."""
