"""The capture vocabulary every language's queries use, and the node roles of the fact engine.

Declared once, here: setup.py generates the C enums of native/facts.c from these tuples at
build time (it reads this file as text, so the build imports nothing), the languages'
`queries.scm` files may use no other capture name (a test checks), and their extraction
code dispatches on these names.

A pattern has one **construct** capture, which says what the match is, and any number of
**part** captures, which name its pieces. The names follow tree-sitter's tags queries
(`@definition.class`, `@reference.call`, `@name`) where those have one, and stack-graphs'
`@scope` / locals naming for local bindings. A construct name is `family` or
`family.kind`: a consumer that knows `definition` but not `definition.mixin` can still read
the match as a definition. Each capture names one node of a match (no quantifiers), so a
match reads as a tuple of nodes (native/runner.py).

Adding a language that needs a construct no name here describes means adding the name
here, with its meaning, not inventing one in a .scm file.
"""

from __future__ import annotations

CONSTRUCTS: tuple[tuple[str, str], ...] = (
    # ---- definitions: the node that defines a symbol (its span), with @name, and @body
    # where the symbol's own code runs (its scope for the facts inside it)
    ("definition.module", "a module or a declaration of one (Rust `mod m;` has no @body)"),
    ("definition.namespace", "a namespace (TS `namespace N {}`, C++, C#)"),
    ("definition.package", "a package or library declaration that names a scope"),
    ("definition.class", "a class"),
    ("definition.interface", "an interface"),
    ("definition.trait", "a trait"),
    ("definition.protocol", "a protocol (Swift)"),
    ("definition.mixin", "a mixin (Dart)"),
    ("definition.struct", "a struct or a union"),
    ("definition.enum", "an enum"),
    ("definition.enum_member", "a member of an enum"),
    ("definition.record", "a record (Java, C#)"),
    ("definition.annotation", "an annotation type (Java `@interface`)"),
    ("definition.object", "a singleton object (Kotlin `object`), an anonymous class"),
    ("definition.extension", "an extension of a type defined elsewhere (Swift, Dart, Kotlin)"),
    ("definition.implementation", "an impl block: methods attached to @type (Rust)"),
    ("definition.function", "a function; inside a class it is a method"),
    ("definition.method", "a method"),
    ("definition.constructor", "a constructor"),
    ("definition.field", "a field of a class or struct"),
    ("definition.property", "a property (a field with accessors, a typed member signature)"),
    ("definition.variable", "a variable"),
    ("definition.constant", "a constant"),
    ("definition.type", "a type declaration whose kind follows from its @type (Go)"),
    ("definition.type_alias", "a type alias"),
    ("definition.macro", "a macro"),
    ("definition.value", "a definition whose kind follows from its @value (`exports.f = ...`)"),
    # ---- uses
    ("reference.call", "a call: @callee called with @arguments"),
    ("reference.new", "a construction: `new T()`, a struct literal"),
    ("reference.constructor", "a call of a constructor by `this(...)` / `super(...)`"),
    ("reference.macro", "a macro invocation"),
    ("reference.method", "a method reference (`Type::m`)"),
    ("reference.member", "a member access `@receiver.@name` read as a value"),
    ("reference.type", "a type written in a signature, an annotation or a declaration"),
    ("reference.annotation", "an annotation or attribute naming a type (Java `@Override`)"),
    ("reference.render", "a component rendered by markup (JSX `<Button/>`)"),
    ("decorator", "a decorator: called with the definition it decorates"),
    # ---- module structure
    ("import", "an import of modules or names"),
    ("import.from", "an import of names from one module (Python `from m import x`)"),
    ("import.crate", "a declaration of an external package (Rust `extern crate`)"),
    ("export", "an export statement"),
    ("package", "the package or namespace clause the file belongs to"),
    ("attribute", "an attribute of the enclosing item or file (Rust `#![...]`)"),
    # ---- local bindings
    ("assignment", "an assignment statement: @left = @right"),
    ("assignment.expression", "an assignment inside an expression (`(x := f())`)"),
    ("assignment.member", "an assignment to a member (`obj.attr = v`: a setter may run)"),
    ("binding.local", "a local declaration (`let`, `const`, `x := ...`, `T x = ...`)"),
    ("binding.typed", "a name declared with a @type (`x: T`)"),
    ("binding.iteration", "the variable(s) of a loop over @right"),
    ("binding.comprehension", "the variable(s) of a comprehension, local to it"),
    ("binding.context", "a context manager or resource entered (`with @value [as x]`)"),
    (
        "binding.parameter",
        "values a decorator's @arguments bind to the parameters of the "
        "definition it decorates (pytest's parametrize, a fixture's params)",
    ),
    ("binding.pattern", "names bound by a pattern match (`if let`, `instanceof T x`)"),
    ("binding.catch", "the exception variable of a catch clause"),
    (
        "binding.item",
        "items stored in or taken from a collection: a literal collection assigned"
        " to @left, `@left[k] = @right`, unpacking into a pattern @left",
    ),
    ("scope.lambda", "an anonymous function, whose @parameters are local to it"),
    (
        "binding.callback",
        "an anonymous function, which, passed as an argument to a call, has parameters that "
        "hold what the callee's declared callable type says it is called with (the hook "
        "finds the call from its parents)",
    ),
    ("return", "a return statement with a @value"),
    ("yield", "a yield of a @value: an item of the generator, not what a call returns"),
    ("error", "a syntax error node"),
)

PARTS: tuple[tuple[str, str], ...] = (
    ("name", "the name a construct defines, binds or refers to"),
    ("body", "the block where a definition's own code runs"),
    ("value", "a value: of a declaration, a return, a context manager"),
    ("type", "a type: declared, implemented, constructed, matched"),
    ("left", "what an assignment or a loop binds"),
    ("right", "what an assignment assigns or a loop iterates"),
    ("callee", "the expression called"),
    ("arguments", "the arguments of a call"),
    ("parameters", "the parameter list"),
    ("receiver", "a method's receiver or a member access's operand"),
    ("path", "the module path of an import"),
)

CAPTURES: tuple[str, ...] = tuple(name for name, _ in CONSTRUCTS + PARTS)
"""Every capture name a query may use, constructs first (the order of the C enum)."""

ROLES: tuple[tuple[str, str], ...] = (
    # ---- expressions
    ("name", "a plain name (an identifier)"),
    ("member", "a member access `a.b`"),
    ("call", "a call expression (its callee is the `callee` field)"),
    ("subscript", "a generic or indexed expression `A[T]` (its base is the `value` field)"),
    ("sequence", "a list or tuple literal"),
    ("set", "a set literal: its items are at no known position"),
    ("mapping", "a dictionary literal: its items are under keys"),
    ("pair", "a mapping's item (its `key` and `value` fields)"),
    ("sequence.bare", "a sequence without brackets (`a, b` on the right of an assignment)"),
    ("splat.parenthesized", "a parenthesized spread in a sequence (`(*a)`)"),
    ("integer", "an integer literal (a key kept as written when all digits)"),
    ("string.content", "the content of a string literal, between its quotes"),
    ("comment", "a comment: no item of a sequence or target of a pattern"),
    ("string", "a string literal: its middle child is its content when one character quotes it"),
    ("constant", "a literal constant kept as written (`True`, `False`)"),
    ("assignment", "an assignment expression (`a = b = c`: its value is the `right` field)"),
    ("statement", "an expression statement (the span of a module variable)"),
    ("type", "a type annotation: a member in it names a type, it is not read as a value"),
    ("operator.boolean", "a boolean operator (`a or b`): its `left`, `operator`, `right` fields"),
    (
        "operator.either",
        "the operator token of a boolean operator whose value is its left operand when that"
        " is true, else its right one (Python `or`): an assigned value is the left one's",
    ),
    # ---- calls
    ("arguments", "an argument list"),
    ("argument.keyword", "a keyword argument (its `name` and `value` fields)"),
    ("argument.splat", "a spread argument (`*args`): later positions are unknown"),
    ("argument.keyword_splat", "a spread of keyword arguments (`**kwargs`)"),
    # ---- definitions
    ("parameter", "a parameter with a `name` (or a first name child) and a `type` field"),
    ("parameter.splat", "a rest parameter (`*args`) or starred target: its first named child"),
    ("decorated", "a wrapper holding decorators and the definition they decorate"),
    ("decorator", "a decorator inside a decorated wrapper"),
    ("pattern.tuple", "an unpacking target (`a, b = ...`)"),
    ("pattern.list", "a bracketed unpacking target (`[a, b] = ...`), not a module variable's"),
    (
        "pattern.as",
        "`value as target` (a `with` item): its first named child is the value, its"
        " `alias` field holds the target",
    ),
    ("keyword.async", "the keyword that makes the statement it starts asynchronous"),
    # ---- imports
    ("import.aliased", "an imported name with an alias (its `name` and `alias` fields)"),
    ("import.relative", "a relative module path (an import.prefix and an import.path)"),
    ("import.prefix", "the dots of a relative module path: their count is its level"),
    ("import.path", "a dotted module path"),
    ("import.wildcard", "`*`: every public name of the module"),
)
"""Node roles: what the fact engine may ask of a node beyond its captures. A language maps
its node types to these (a node type has one role)."""

FIELDS: tuple[tuple[str, str], ...] = (
    ("body", "a definition's body"),
    ("parameters", "a function's parameters"),
    ("return_type", "a function's declared return type"),
    ("heritage", "a class's bases"),
    ("type", "a parameter's type"),
    ("alias", "an aliased import's local name"),
    ("module", "the module of an import.from"),
    ("definition", "the definition inside a decorated wrapper"),
    ("right", "an assignment's value"),
    ("left", "an assignment's target"),
    ("callee", "a call's callee"),
    ("arguments", "a call's arguments"),
    ("name", "a keyword argument's, parameter's or aliased import's name"),
    ("value", "a keyword argument's value, a subscript's base, a pair's value"),
    ("index", "a subscript's (first) index"),
    ("key", "a pair's key"),
    ("operator", "a binary operator's operator token"),
)
"""Field roles: the grammar fields the fact engine reads, which a language names."""


def enum_name(prefix: str, name: str) -> str:
    """The C enum constant of a vocabulary name: `definition.class` -> `V_DEFINITION_CLASS`."""
    return prefix + name.upper().replace(".", "_")
