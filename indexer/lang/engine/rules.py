"""The closed table of resolution rules: every edge a resolver makes names one of them.

Users filter on these (README, docs/json.md); a chain of steps takes its weakest rule.
Languages never add a rule of their own: a new kind of evidence means a new row here,
documented, with its confidence.
"""

from __future__ import annotations

CONFIDENCE: dict[str, float] = {
    "scope": 1.0,  # bound in a lexical scope of the same file
    "import": 1.0,  # bound by an import to a definition (re-exports, star imports followed)
    "self": 0.9,  # self.m() / cls.m() on the enclosing class
    "super": 0.9,  # super().m() through the MRO
    "fixture": 0.9,  # a pytest test or fixture requests a fixture by parameter name
    "inheritance": 0.9,  # found in a base class through the MRO
    "constructor": 0.8,  # Foo() runs Foo.__init__
    "local-type": 0.8,  # receiver typed by an assignment, an annotation or a return
    "alias": 0.8,  # g = f; g(), or a class attribute holding a class or function
    "value-flow": 0.8,  # a function passed as a value and called by the callee (or its closure)
    "decorator": 0.8,  # what a decorator returned runs for the decorated name (`@d def f`)
    "dispatch": 0.7,  # an override in a subclass of the receiver's declared class
    "entry-point": 0.7,  # a library calls back into the repository (lang/*/entrypoints.py)
    "unique-name": 0.5,  # the only method of that name anywhere, receiver unknown
}


def weakest(a: str, b: str) -> str:
    """The weaker of two rules; on a tie the first (the step just taken names the result)."""
    return a if CONFIDENCE[a] <= CONFIDENCE[b] else b
