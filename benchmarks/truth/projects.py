"""The real test suites traced: where their sdist is, what their tests need to run.

Each suite runs in its own virtualenv with the versions its own lock file (or
requirements file) pins for the tests, so a suite never fights codeimpact's own
dependencies (Flask's tests need a pytest that still has `_pytest.monkeypatch.notset`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    source_roots: tuple[str, ...]  # put first on PYTHONPATH: the copy's code is what runs
    requirements: tuple[str, ...]  # installed with pip into the suite's venv
    pytest_args: tuple[str, ...] = ()
    distribution: str = ""  # the name its metadata is found by (importlib.metadata)

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"


PROJECTS: dict[str, Project] = {
    p.name: p
    for p in (
        Project(
            "flask",
            "3.1.3",
            ("src",),
            # uv.lock of flask 3.1.3, group "tests" and the package's dependencies
            (
                "pytest==9.0.2",
                "werkzeug==3.1.5",
                "jinja2==3.1.6",
                "markupsafe==3.0.3",
                "itsdangerous==2.2.0",
                "blinker==1.9.0",
                "click==8.3.1",
                "asgiref==3.11.0",
                "python-dotenv==1.2.1",
            ),
            distribution="flask",
        ),
        Project(
            "click",
            "8.5.1",
            ("src",),
            ("pytest==9.0.2",),  # uv.lock of click 8.5.1, group "tests"
            distribution="click",
        ),
        Project(
            "jinja2",
            "3.1.6",
            ("src",),
            # requirements/tests.txt of jinja2 3.1.6, plus its one dependency
            (
                "pytest==8.3.4",
                "trio==0.27.0",
                "attrs==24.3.0",
                "idna==3.10",
                "outcome==1.3.0.post0",
                "sniffio==1.3.1",
                "sortedcontainers==2.4.0",
                "markupsafe==3.0.2",
            ),
            distribution="jinja2",
        ),
    )
}
