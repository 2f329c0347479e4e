"""C#: extraction (extract.py, queries.scm) into the facts of the Java model (a namespace is a
package, `using N;` an on-demand import), and resolution (resolve.py) as hooks on Java's."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.csharp import extract

NAME = "csharp"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 3

SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".cs",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.csharp.resolve:CSharpProject",
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
