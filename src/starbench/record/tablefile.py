"""Writing the tidy table: ``table.parquet`` (and ``table.csv`` on request), chunk by chunk.

The chunks come from ``rows.table_chunks`` (columns by name, each a Python list).  Each becomes
one parquet row group with one fixed arrow schema (``rows.table_dtypes``).  The schema carries
the ``pandas`` metadata key that pandas itself writes (the documented pandas-on-parquet
metadata), so ``pd.read_parquet`` gives every column its pandas dtype back: nullable ``Int64``
for counters that can be missing, ``str`` for text, ``boolean`` for ``git_dirty``.

Integrity: every data page carries its CRC (Parquet's page checksum), and the folder's
``cell.json`` records the SHA-256 of the whole file (``files.file_digest``).  ``read`` is the one
way a stored table is read: it checks both and raises ``CorruptTable`` (one line naming the file)
when either fails or the file cannot be decoded, so a damaged table is never used.

Why arrays are built from buffers here (numpy -> ``pa.Array.from_buffers``) rather than with
``pa.array``: pyarrow imports pandas the first time it converts any Python or numpy object,
which alone costs a run ~45 MB of resident memory; the runner never needs pandas, and a cell of
85,000 rows stays under 300 MB only without it.  ``tests/test_tablefile.py`` checks the round
trip (values, nulls, dtypes) against pandas.
"""

from __future__ import annotations

import csv as csvmod
import json
import math
from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

from starbench.record.rows import SUMMARY_COLUMNS, table_dtypes

#: pandas dtype name -> (arrow type name, pandas_type in the pandas metadata).
ARROW_TYPES = {
    "str": ("large_string", "object"),
    "Int64": ("int64", "int64"),
    "int64": ("int64", "int64"),
    "uint64": ("uint64", "uint64"),
    "UInt64": ("uint64", "uint64"),
    "float64": ("float64", "float64"),
    "bool": ("bool_", "bool"),
    "boolean": ("bool_", "bool"),
}


def schema(dtypes: dict[str, str]) -> Any:
    """The arrow schema of columns with these pandas dtypes, with pandas' own metadata."""
    import pyarrow as pa

    fields = [pa.field(c, getattr(pa, ARROW_TYPES[d][0])()) for c, d in dtypes.items()]
    pandas_meta = {
        "index_columns": [],
        "column_indexes": [],
        "columns": [
            {
                "name": c,
                "field_name": c,
                "pandas_type": ARROW_TYPES[d][1],
                "numpy_type": d,
                "metadata": None,
            }
            for c, d in dtypes.items()
        ],
        "attributes": {},
        "creator": {"library": "pyarrow", "version": pa.__version__},
        "pandas_version": version("pandas"),
    }
    return pa.schema(fields, metadata={b"pandas": json.dumps(pandas_meta).encode()})


def _bits(flags: Any) -> Any:
    import numpy as np
    import pyarrow as pa

    return pa.py_buffer(np.packbits(np.asarray(flags, bool), bitorder="little"))


def arrow_column(values: list[Any], dtype: str) -> Any:
    """One arrow array of ``values`` (``None`` is missing; NaN for floats, as pandas stores)."""
    import numpy as np
    import pyarrow as pa

    n = len(values)
    arrow_type = getattr(pa, ARROW_TYPES[dtype][0])()
    if dtype == "float64":
        data = np.array([math.nan if v is None else v for v in values], np.float64)
        return pa.Array.from_buffers(arrow_type, n, [None, pa.py_buffer(data)])
    valid = [v is not None for v in values]
    validity = None if all(valid) else _bits(valid)
    nulls = n - sum(valid)
    if dtype == "str":
        encoded = [b"" if v is None else str(v).encode() for v in values]
        offsets = np.zeros(n + 1, np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
        return pa.Array.from_buffers(arrow_type, n, buffers, null_count=nulls)
    if dtype in ("bool", "boolean"):
        data = _bits([bool(v) for v in values])
    else:  # exact for every int64 / uint64 (no float detour)
        data = pa.py_buffer(np.array([0 if v is None else v for v in values], dtype.lower()))
    return pa.Array.from_buffers(arrow_type, n, [validity, data], null_count=nulls)


def _csv_text(v: Any) -> str:
    """A value as pandas' ``to_csv`` writes it (missing values empty, floats shortest)."""
    if v is None or (type(v) is float and math.isnan(v)):
        return ""
    return repr(v) if type(v) is float else str(v)


def write_table(
    chunks: Iterator[dict[str, list[Any]]], parquet: Any, csv: Any = None
) -> dict[str, list[Any]]:
    """Write table chunks to ``parquet`` (and ``csv``), one row group each; return the
    ``SUMMARY_COLUMNS`` of the whole table, by name, as lists."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    dtypes = table_dtypes()
    arrow_schema = schema(dtypes)
    kept: dict[str, list[Any]] = {c: [] for c in SUMMARY_COLUMNS}
    writer = pq.ParquetWriter(parquet, arrow_schema, write_page_checksum=True)
    csv_file = None
    try:
        for chunk in chunks:
            columns = [arrow_column(chunk[c], d) for c, d in dtypes.items()]
            batch = pa.RecordBatch.from_arrays(columns, schema=arrow_schema)
            writer.write_batch(batch, row_group_size=max(1, batch.num_rows))
            if csv is not None:
                if csv_file is None:
                    csv_file = open(csv, "w", encoding="utf-8", newline="")  # noqa: SIM115
                    out = csvmod.writer(csv_file, lineterminator="\n")
                    out.writerow(dtypes)
                out.writerows(zip(*([_csv_text(v) for v in chunk[c]] for c in dtypes), strict=True))
            for c in SUMMARY_COLUMNS:
                kept[c].extend(chunk[c])
    finally:
        writer.close()
        if csv_file is not None:
            csv_file.close()
    return kept


class CorruptTable(Exception):
    """A stored table that fails its checksum or cannot be read (one line: which and why)."""


#: Stored tables and the document beside them that records their SHA-256.
SUMMARY_OF = {"table.parquet": "cell.json", "table.csv": "cell.json"}


def summary_path(path: Any) -> Any:
    """The document that records ``path``'s SHA-256: a cell's ``cell.json``, else the sibling
    ``<stem>.json`` (``collected.json``, ``match.json``)."""
    from pathlib import Path

    path = Path(path)
    name = SUMMARY_OF.get(path.name)
    return path.parent / name if name else path.with_name(path.stem.split(".")[0] + ".json")


def expected_digest(path: Any) -> str | None:
    """The SHA-256 the table's summary (``summary_path``) records for ``path``, or None where
    none is recorded (a summary written before table checksums, or a parquet file that is not
    starbench's).  ``CorruptTable`` when a cell's ``cell.json`` is damaged or missing, or any
    other summary is damaged: the table cannot be verified, so it is not used."""
    from pathlib import Path

    from starbench.record.integrity import read_document

    path = Path(path)
    doc = read_document(summary_path(path))
    if doc.damaged or (doc.state == "missing" and path.name in SUMMARY_OF):
        from starbench.record.repair import unverifiable_line

        if path.name in SUMMARY_OF:
            raise CorruptTable(unverifiable_line(path.parent, doc))
        raise CorruptTable(
            f"{doc.path}: {doc.why()}, so {path} cannot be verified against its checksum and is "
            f"not used; restore it with git checkout -- {doc.path}, or compute it again"
        )
    data = doc.data or {}
    if isinstance(data.get("tables"), dict) and path.name in data["tables"]:
        return str(data["tables"][path.name])
    return None


def verify(path: Any) -> None:
    """Raise ``CorruptTable`` when ``path`` does not match its recorded SHA-256, or cannot be
    verified (``expected_digest``)."""
    from starbench.ground.files import file_digest

    want = expected_digest(path)
    if want is None:
        return
    try:
        got = file_digest(path)
    except OSError as e:
        raise CorruptTable(f"{path}: cannot be read ({e.strerror})") from None
    if got != want:
        raise CorruptTable(
            f"{path}: its checksum does not match the one recorded when it was written (the file "
            f"was changed or damaged)"
        )


def read(path: Any, columns: list[str] | None = None, verified: bool = True) -> Any:
    """A stored table as a DataFrame, after its checksum (``verify``) and with every data page's
    CRC checked; ``CorruptTable`` (one line) if it fails or cannot be decoded.  ``verified=False``
    skips the SHA-256 (for reading what a damaged cell was, to refuse or repair it; never to
    adopt its rows)."""
    import pandas as pd

    if verified:
        verify(path)
    try:
        return pd.read_parquet(path, columns=columns, page_checksum_verification=True)
    except Exception as e:  # noqa: BLE001 - any undecodable table is corrupt
        from starbench.errors import first_line

        first = first_line(e, type(e).__name__)
        raise CorruptTable(f"{path}: cannot be read as a table ({first[:160]})") from None
