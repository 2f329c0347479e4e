"""Rust: extraction (extract.py, queries.scm), crates and modules (crates.py), resolution
(resolve.py)."""

from codeimpact.indexer.lang.api import LanguageSpec, ResolverProject
from codeimpact.indexer.lang.rust import extract

NAME = "rust"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 1


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.rust.resolve import RustProject

    return RustProject


SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".rs",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver=resolver_class,
    config_files=("Cargo.toml",),
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
