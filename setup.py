"""Build hook for the native traversal core; all metadata lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "codeimpact.native._core",
            sources=["native/_core.c"],
            extra_compile_args=["-O3", "-std=c99"],
        )
    ]
)
