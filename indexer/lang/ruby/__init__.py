"""Ruby: extraction (extract.py, queries.scm) into the facts of the Java model (constants in
one global namespace, modules and classes nesting them), and resolution (resolve.py) as hooks
on Java's: `require_relative`/`require` are file imports, `Foo.new` runs `initialize`."""

from codeimpact.indexer.lang.api import ResolverProject
from codeimpact.indexer.lang.java.model import java_model_spec
from codeimpact.indexer.lang.ruby import extract

RESOLVE_VERSION = 2


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.ruby.resolve import RubyProject

    return RubyProject


SPEC = java_model_spec(
    __name__,
    extract,
    extensions=(".rb",),
    resolve_version=RESOLVE_VERSION,
    resolver=resolver_class,
)

__all__ = ["RESOLVE_VERSION", "SPEC"]
