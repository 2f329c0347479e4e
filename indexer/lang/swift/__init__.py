"""Swift: extraction (extract.py, queries.scm) into the facts of the Java model (a module's
files share one scope), and resolution (resolve.py) as hooks on Java's."""

from codeimpact.indexer.lang.api import ResolverProject
from codeimpact.indexer.lang.java.model import java_model_spec
from codeimpact.indexer.lang.swift import extract

RESOLVE_VERSION = 2


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.swift.resolve import SwiftProject

    return SwiftProject


SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".swift",),
    resolve_version=RESOLVE_VERSION,
    resolver=resolver_class,
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
