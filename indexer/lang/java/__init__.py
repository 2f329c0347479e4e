"""Java: extraction (extract.py, queries.scm) and resolution (resolve.py)."""

from codeimpact.indexer.lang.api import ResolverProject
from codeimpact.indexer.lang.java import extract
from codeimpact.indexer.lang.java.model import java_model_spec

# 2: JUnit (issue 26): a @Test method calls the @BeforeEach/@AfterEach... set-ups of its
#    class and same-file supertypes (java/junit.py, rule fixture).
RESOLVE_VERSION = 2


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.java.resolve import JavaProject

    return JavaProject


SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".java",),
    resolve_version=RESOLVE_VERSION,
    resolver=resolver_class,
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
