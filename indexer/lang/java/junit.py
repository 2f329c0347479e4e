"""JUnit set-up and tear-down as calls of the test (a mixin of JavaProject; issue 26 point 1).

JUnit runs a test class's `@BeforeEach`/`@AfterEach` (JUnit 5), `@Before`/`@After` (JUnit 4)
and `@BeforeAll`/`@AfterAll`/`@BeforeClass`/`@AfterClass` methods around each `@Test`
method: the test depends on them as a pytest test depends on the fixtures it requests, so
the test calls them (rule `fixture`, at the test's line). Fields assigned there are typed by
their declarations already (`private Calc calc;`), so calls on them in the test resolve.

Set-up methods of the class and of its supertypes declared in the same file count; one
inherited from a base class in another file is not linked (editing that file would have to
re-resolve every subclass's test file, which the change plan does not know to do).
"""

from __future__ import annotations

from codeimpact.indexer.lang.engine.edges import Edges
from codeimpact.indexer.lang.engine.hierarchy import breadth_first

TESTS = frozenset(("Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate"))
SET_UPS = frozenset(
    ("BeforeEach", "AfterEach", "Before", "After", "BeforeAll", "AfterAll", "BeforeClass")
    + ("AfterClass",)
)


def _annotated(decorators: tuple[str, ...], names: frozenset[str]) -> bool:
    """`@Test`, `@org.junit.Test`, `@ParameterizedTest(...)`."""
    return any(d.split("(", 1)[0].rpartition(".")[2] in names for d in decorators)


class JUnit:
    """Edges from each JUnit test method to the set-up and tear-down methods JUnit runs."""

    def junit_edges(self, fi, edges: Edges) -> None:
        if not self.is_test_path(fi.path):
            return
        for local, s in fi.syms.items():
            if s.kind != "method" or not _annotated(s.decorators, TESTS):
                continue
            src = f"{fi.path}::{local}"
            for path, method in self._set_ups((fi.path, fi.parent.get(local, ""))):
                edges.call(src, f"{path}::{method}", "fixture", s.start_line)

    def _set_ups(self, tkey: tuple[str, str]) -> list[tuple[str, str]]:
        out = []
        for _depth, t in breadth_first(tkey, self._supers_of):
            if t[0] != tkey[0]:  # an external type, or a type of another file
                continue
            for cands in self.members.get(t, {}).values():
                out += [c for c in cands
                        if self.sym(c).kind == "method" and _annotated(self.sym(c).decorators, SET_UPS)]  # fmt: skip
        return out
