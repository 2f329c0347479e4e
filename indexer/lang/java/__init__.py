"""Java: extraction (extract.py, queries.scm) and resolution (resolve.py)."""

from codeimpact.indexer.lang.java.extract import SPEC

__all__ = ["SPEC"]
