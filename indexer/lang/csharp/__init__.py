"""C#: extraction (extract.py, queries.scm) into the facts of the Java model (a namespace is a
package, `using N;` an on-demand import), and resolution (resolve.py) as hooks on Java's."""

from codeimpact.indexer.lang.api import ResolverProject
from codeimpact.indexer.lang.csharp import extract
from codeimpact.indexer.lang.java.model import java_model_spec

RESOLVE_VERSION = 3


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.csharp.resolve import CSharpProject

    return CSharpProject


SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".cs",),
    resolve_version=RESOLVE_VERSION,
    resolver=resolver_class,
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
