"""Go: extraction (extract.py, queries.scm) and resolution (resolve.py)."""

from codeimpact.indexer.lang.go.extract import SPEC

__all__ = ["SPEC"]
