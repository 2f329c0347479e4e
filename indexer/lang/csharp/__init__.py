"""C#: extraction (extract.py, queries.scm) into the facts of the Java model (a namespace is a
package, `using N;` an on-demand import), and resolution (resolve.py) as hooks on Java's."""

from codeimpact.indexer.lang.csharp import extract
from codeimpact.indexer.lang.java.model import java_model_spec

RESOLVE_VERSION = 3

SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".cs",),
    resolve_version=RESOLVE_VERSION,
    resolver="CSharpProject",
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
