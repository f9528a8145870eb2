"""Dump readers: one module per source format.

Every reader module has:

- ``NAME``: the name used with ``skrafl ingest LANG --source NAME`` (or sniffed from a file);
- ``SCHEMA``: the ``pyarrow`` schema of the rows it yields; every schema has ``form`` (the word form
  as written in the source) and ``lemma``, then the source's own fields;
- ``read(path, progress) -> Iterator[pyarrow.RecordBatch]``: stream the rows (``path`` is None for
  an embedded source installed from PyPI);
- ``version(path) -> str``: the source's version for the manifest.

Readers raise :class:`gamecore.errors.DataError` with the file and line of the first bad row.
"""
