"""C (and, joining it, C++): extraction (extract.py, c.scm), includes (includes.py) and
resolution (resolve.py) in one resolver group, since C++ calls C and headers are shared."""

from codeimpact.indexer.lang.api import FileFacts, LanguageSpec, ResolverProject
from codeimpact.indexer.lang.cfamily import detect, extract, extract_cpp, plan

NAME = "c"
GROUP = "cfamily"
EXTRACT_VERSION = extract.EXTRACTOR_VERSION
RESOLVE_VERSION = 3  # 2: module names by include_digest.py; 3: summaries (summary.py)


def extract_c_or_cpp(source: bytes) -> FileFacts:
    """`.c` and `.h` files: C, or C++ when the code says so (a `.h` of a C++ project)."""
    return extract_cpp.extract_cpp(source) if detect.is_cpp(source) else extract.extract_c(source)


def resolver_class() -> type[ResolverProject]:
    """The resolver class, imported when a run resolves these files (lang/api.py)."""
    from codeimpact.indexer.lang.cfamily.resolve import CProject

    return CProject


C_SPEC = LanguageSpec(
    name=NAME,
    grammar=NAME,
    extensions=(".c", ".h"),
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract_c_or_cpp,
    is_test_path=extract.is_test_path,
    resolver=resolver_class,
    config_files=("compile_commands.json",),
    language_of=detect.language_of,
    resolver_group=GROUP,
    changed_names=plan.changed_names,
    package=__name__,
)

CPP_SPEC = LanguageSpec(
    name="cpp",
    grammar="cpp",
    extensions=(
        ".cc",
        ".cpp",
        ".cxx",
        ".c++",
        ".hpp",
        ".hh",
        ".hxx",
        ".h++",
        ".ipp",
        ".tpp",
        ".inl",
    ),  # fmt: skip
    extract_version=EXTRACT_VERSION,
    resolve_version=RESOLVE_VERSION,
    extract=extract_cpp.extract_cpp,
    is_test_path=extract.is_test_path,
    resolver=resolver_class,
    config_files=("compile_commands.json",),
    resolver_group=GROUP,
    package=__name__,
)

SPECS = (C_SPEC, CPP_SPEC)

__all__ = ["EXTRACT_VERSION", "RESOLVE_VERSION", "SPECS"]
