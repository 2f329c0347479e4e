"""Python: extraction (extract.py, queries.scm) and resolution (resolve.py)."""

from codeimpact.indexer.lang.python.extract import SPEC

__all__ = ["SPEC"]
