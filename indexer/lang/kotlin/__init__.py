"""Kotlin: extraction (extract.py, queries.scm) into the facts of the Java model, and
resolution (resolve.py) as hooks on Java's: packages and imports are Java's."""

from codeimpact.indexer.lang.api import ResolverProject
from codeimpact.indexer.lang.java.model import java_model_spec
from codeimpact.indexer.lang.kotlin import extract

# 2: a capitalized call found in no repository class is a type (b32df4b).
# 3: JUnit set-ups as calls of the tests (java/junit.py, shared with Java).
RESOLVE_VERSION = 3


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.kotlin.resolve import KotlinProject

    return KotlinProject


SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".kt", ".kts"),
    resolve_version=RESOLVE_VERSION,
    resolver=resolver_class,
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
