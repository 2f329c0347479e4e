"""Swift: extraction (extract.py, queries.scm) into the facts of the Java model (a module's
files share one scope), and resolution (resolve.py) as hooks on Java's."""

from codeimpact.indexer.lang.java.model import java_model_spec
from codeimpact.indexer.lang.swift import extract

RESOLVE_VERSION = 2

SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".swift",),
    resolve_version=RESOLVE_VERSION,
    resolver="SwiftProject",
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
