"""Test-only plugin module that raises while it is imported."""

raise RuntimeError("boom at import")
