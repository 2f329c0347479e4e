"""Go: extraction (extract.py, queries.scm) and resolution (resolve.py); packages come from
`go.mod`."""

from codeimpact.indexer.lang.api import LanguageSpec, ResolverProject
from codeimpact.indexer.lang.go import extract

NAME = "go"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
# 2: library entry points (issue 26): t.Run(name, f), sort.Slice, sync.Once.Do... call f
#    (go/entrypoints.py, engine Project.library_arguments).
RESOLVE_VERSION = 2


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.go.resolve import GoProject

    return GoProject


SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".go",),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract.extract,
    is_test_path=extract.is_test_path,
    resolver=resolver_class,
    config_files=("go.mod",),
    package=__name__,
)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPEC"]
