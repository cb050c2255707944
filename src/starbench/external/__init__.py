"""For engines outside starbench: the protocol check (``conform``, its trees ``conformtrees``),
the reference corpus (``corpus``), the reducer of failing trees (``shrink``) and a cell's
instance written as a JSON tree (``export``)."""
