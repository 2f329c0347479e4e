"""PHP: extraction (extract.py, queries.scm) into the facts of the Java model (a namespace is
a package, `use A\\B\\C` a single-type import), and resolution (resolve.py) as hooks on Java's."""

from codeimpact.indexer.lang.java.model import java_model_spec
from codeimpact.indexer.lang.php import extract

RESOLVE_VERSION = 3

SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".php",),
    resolve_version=RESOLVE_VERSION,
    resolver="PhpProject",
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
