"""Ruby: extraction (extract.py, queries.scm) into the facts of the Java model (constants in
one global namespace, modules and classes nesting them), and resolution (resolve.py) as hooks
on Java's: `require_relative`/`require` are file imports, `Foo.new` runs `initialize`."""

from codeimpact.indexer.lang.api import LanguageSpec
from codeimpact.indexer.lang.ruby import extract

NAME = "ruby"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 2

SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".rb",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver="codeimpact.indexer.lang.ruby.resolve:RubyProject",
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
