"""Build hook for the native extensions; all metadata lives in pyproject.toml."""

from glob import glob

from setuptools import Extension, setup

# The tree-sitter C runtime, vendored from the py-tree-sitter sdist (native/tree_sitter/
# vendored.h says which): py-tree-sitter's _binding does not export the C API, and the trees
# it builds must be walked by the very same runtime version. -fvisibility=hidden and
# TREE_SITTER_HIDE_SYMBOLS keep our ts_* copies out of the dynamic symbol table.
TS = "native/tree_sitter"

setup(
    ext_modules=[
        Extension(
            "codeimpact.native._core",
            sources=["native/_core.c"],
            extra_compile_args=["-O3", "-std=c99"],
        ),
        Extension(
            "codeimpact.native._syntax",
            sources=[
                "native/syntax.c",
                "native/python_facts.c",
                "native/chains.c",
                f"{TS}/src/lib.c",
            ],
            include_dirs=[f"{TS}/include", f"{TS}/src"],
            depends=["native/syntax.h", *sorted(glob(f"{TS}/**/*.[ch]", recursive=True))],
            # _DEFAULT_SOURCE: the POSIX calls of the runtime (fdopen, clock_gettime) under c11
            define_macros=[("_DEFAULT_SOURCE", None), ("TREE_SITTER_HIDE_SYMBOLS", None)],
            extra_compile_args=["-O3", "-std=c11", "-fvisibility=hidden"],
        ),
    ]
)
