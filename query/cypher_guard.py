"""The read-only check a user's Cypher passes before Kùzu sees it.

Kùzu's read-only mode is not enough: it runs `LOAD EXTENSION` (native code),
`LOAD FROM '<any file>'`, `COPY ... TO` and `EXPORT DATABASE` (writes anywhere)
and `CHECKPOINT` (which damages a live index), and two statements separated by
`;` can crash it. So the text is tokenized here as Kùzu's lexer does
(`src/antlr4/Cypher.g4` of Kùzu 0.11) and refused unless it is exactly one
statement made of reading clauses:

- **Tokens.** String literals ('...' and "...", only the escapes Kùzu knows),
  backtick-quoted names (```a``b``` is one name), `/* */` and `//` comments as
  Kùzu's grammar closes them (`/* x **/` does not close there), parameters
  (`$name`), numbers, names and punctuation. Text that Kùzu's lexer would cut
  differently is refused rather than guessed: an unclosed string, comment or
  name, an escape Kùzu does not know, control or invisible characters (zero-width
  spaces, bidi overrides) outside strings, and a non-ASCII name that reads as a
  keyword (Kùzu's keywords are ASCII only).
- **Statement.** One statement (a single trailing `;` is allowed, nothing
  after it), starting with a reading clause (`MATCH`, `OPTIONAL MATCH`,
  `UNWIND`, `WITH`, `RETURN`, `CALL`), optionally after `EXPLAIN`/`PROFILE`.
- **Clauses.** At every depth (subqueries in `{}` and `()` included) a writing
  or administrative keyword (`CREATE`, `MERGE`, `SET`, `DELETE`, `LOAD`,
  `COPY`, ...) is refused unless it is plainly a name: after `.` (a property),
  `:` or `|` (a label), `AS` (an alias), a map key (`{set: 1}`), a pattern's
  variable (`(set:Symbol)`) or a variable whose property is read (`set.x`). After an
  operand (a name, literal, `)`, `]`, `}`, `*`) only the keywords that can
  follow an operand in a reading query may come (`AND`, `AS`, `WHERE`,
  `RETURN`, `UNION`, ...), so a clause this module does not know is refused too.
- **Functions.** `CALL` takes only the read-only table functions of
  `CALL_ALLOWED`; a function that reads files, the environment or a Python
  object, or changes state (`FUNCTIONS_REFUSED`: every other table function,
  `read_*`, `copy_*`, `nextval`) is refused wherever it is called.

- **Size.** Kùzu's parser takes time that grows steeply with nesting and length,
  before any timeout applies, and crashes on deep nesting (measured on 0.11.3:
  3,000 nested parentheses or 1,000 nested calls: a segmentation fault; CASE inside
  CASE 22 deep: 56 s, each level ~3x; lists nested 300 deep: 31 s; `1 + 1 + ...` of
  8,000 terms: 75 s). So a query holds at most `MAX_TOKENS` tokens, nests brackets
  and CASE at most `MAX_DEPTH` deep, CASE within CASE at most `MAX_CASE_DEPTH`.

A refusal is a `BadInput` whose one line names the clause or function.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from codeimpact.graph.errors import BadInput

# --------------------------------------------------------------------- vocabulary
# Clauses and statement keywords that write, load or administer: never in a query of ours.
WRITING = frozenset(
    """CREATE MERGE SET DELETE DETACH REMOVE DROP ALTER COPY LOAD EXPORT IMPORT INSTALL
    UNINSTALL UPDATE FORCE ATTACH USE CHECKPOINT BEGIN COMMIT ROLLBACK COMMENT FOREACH
    RENAME MACRO TRANSACTION""".split()
)
# What a statement may start with (after EXPLAIN [LOGICAL] / PROFILE).
READING_START = frozenset({"MATCH", "OPTIONAL", "UNWIND", "WITH", "RETURN", "CALL"})
# The keywords that may follow an operand in a reading query.
AFTER_OPERAND = frozenset(
    """AND OR XOR NOT IN IS AS STARTS ENDS CONTAINS ASC DESC ASCENDING DESCENDING WHEN
    THEN ELSE END WHERE YIELD HINT JOIN MULTI_JOIN MATCH OPTIONAL UNWIND WITH RETURN ORDER
    SKIP LIMIT UNION CALL SHORTEST ALL WSHORTEST TRAIL ACYCLIC""".split()
)
# Keywords that are themselves operands, or end one (a sort item, a CASE).
OPERAND_KEYWORDS = frozenset("NULL TRUE FALSE END ASC DESC ASCENDING DESCENDING".split())
# Every keyword of Kùzu's reading grammar: a name that is one of them is not a variable.
READING_KEYWORDS = (
    AFTER_OPERAND
    | OPERAND_KEYWORDS
    | frozenset(
        """BY DISTINCT EXPLAIN LOGICAL PROFILE CASE EXISTS COUNT CAST ANY NONE SINGLE""".split()
    )
)
KEYWORDS = READING_KEYWORDS | WRITING

# Table functions that only describe the database (and read nothing else).
CALL_ALLOWED = frozenset(
    "SHOW_TABLES TABLE_INFO SHOW_CONNECTION SHOW_FUNCTIONS SHOW_INDEXES DB_VERSION".split()
)
# Functions refused wherever they appear: Kùzu 0.11's other table functions (file
# readers, a Python object by pointer, settings, graph projections and algorithms, index
# building), its copy functions, and nextval, which advances a sequence.
FUNCTIONS_REFUSED = frozenset(
    """READ_CSV_PARALLEL READ_CSV_SERIAL READ_NPY READ_PANDAS READ_PARQUET JSON_SCAN
    FILE_INFO CURRENT_SETTING STORAGE_INFO STATS_INFO FSM_INFO BM_INFO CATALOG_VERSION
    SHOW_ATTACHED_DATABASES SHOW_LOADED_EXTENSIONS SHOW_OFFICIAL_EXTENSIONS SHOW_SEQUENCES
    SHOW_WARNINGS CLEAR_WARNINGS SHOW_PROJECTED_GRAPHS PROJECTED_GRAPH_INFO PROJECT_GRAPH
    PROJECT_GRAPH_CYPHER DROP_PROJECTED_GRAPH CREATE_FTS_INDEX DROP_FTS_INDEX
    QUERY_FTS_INDEX CREATE_VECTOR_INDEX DROP_VECTOR_INDEX QUERY_VECTOR_INDEX
    _CACHE_ARRAY_COLUMN_LOCALLY KCORE K_CORE_DECOMPOSITION LOUVAIN PAGE_RANK PR SCC SCC_KO
    STRONGLY_CONNECTED_COMPONENTS STRONGLY_CONNECTED_COMPONENTS_KOSARAJU WCC
    WEAKLY_CONNECTED_COMPONENTS COPY_CSV COPY_PARQUET COPY_JSON NEXTVAL""".split()
)
REFUSED_PREFIXES = ("READ_", "COPY_", "SCAN_")

# Kùzu's whitespace (Cypher.g4 WHITESPACE); any other control or format character
# outside a string is refused.
WHITESPACE = frozenset(
    " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2008\u2009\u200a\u2028\u2029\u205f\u3000\u00a0\u2007\u202f"
)
# What Kùzu's parser is given at most (see Size above): each well above what a query
# written by hand or by an agent holds; values belong in parameters.
MAX_TOKENS = 5_000  # a 2,500-term `1 + 1 + ...` parses in ~2 s
MAX_DEPTH = 32  # ( [ { and CASE; 32 nested lists parse in ~0.1 s
MAX_CASE_DEPTH = 10  # ~0.1 s
STRING_ESCAPES = frozenset("\\'\"bBfFnNrRtT")
HEX = frozenset("0123456789abcdefABCDEF")


# ------------------------------------------------------------------------ tokens
@dataclass(frozen=True)
class Token:
    kind: str  # name | quoted | string | number | param | punct
    text: str  # a name's text (a quoted name without its backticks), or the characters
    pos: int  # offset in the query

    @property
    def keyword(self) -> str | None:
        """The keyword this token is, if it is an unquoted ASCII name that spells one."""
        if self.kind == "name" and self.text.isascii() and self.text.upper() in KEYWORDS:
            return self.text.upper()
        return None


def _refuse(message: str) -> BadInput:
    return BadInput(f"cypher: {message} (graph cypher runs one read-only query)")


def _is_name_start(ch: str) -> bool:
    return ch.isidentifier() or unicodedata.category(ch) == "Pc"


def _is_name_part(ch: str) -> bool:
    return ("a" + ch).isidentifier() or unicodedata.category(ch) in ("Pc", "Sc")


def _string_end(text: str, i: int) -> int:
    """The offset after the string literal starting at `i` (Kùzu's StringLiteral: a
    backslash takes one of `STRING_ESCAPES`, or `u`/`U` and four hex digits; Kùzu 0.11
    fails to lex anything else, `\\x41` included, and would cut the text elsewhere)."""
    quote = text[i]
    j = i + 1
    while j < len(text):
        ch = text[j]
        if ch == quote:
            return j + 1
        if ch == "\\":
            nxt = text[j + 1 : j + 2]
            hex_digits = 4 if nxt in ("u", "U") else 0
            digits = text[j + 2 : j + 2 + hex_digits]
            if nxt and nxt in STRING_ESCAPES:
                j += 2
            elif hex_digits and len(digits) == hex_digits and all(c in HEX for c in digits):
                j += 2 + hex_digits
            else:
                raise _refuse(f"unknown escape {text[j : j + 2]!r} in a string at offset {j}")
            continue
        j += 1
    raise _refuse(f"unclosed string starting at offset {i}")


def _block_comment_end(text: str, i: int) -> int:
    """The offset after the `/* ... */` comment at `i`, closed as Kùzu's grammar closes
    it: a `*` followed by anything but `/` is taken as a pair, so `**/` does not close."""
    j = i + 2
    while j < len(text):
        if text[j] != "*":
            j += 1
        elif j + 1 < len(text) and text[j + 1] != "/":
            j += 2
        else:
            break
    if text.startswith("*/", j):
        return j + 2
    raise _refuse(f"unclosed comment starting at offset {i}")


def _line_comment_end(text: str, i: int) -> int:
    """The offset after the `//` comment at `i`: it runs to a line feed (a carriage
    return must be followed by one) or the end."""
    j = i + 2
    while j < len(text) and text[j] not in "\r\n":
        j += 1
    if j < len(text) and text[j] == "\r":
        if text[j + 1 : j + 2] not in ("\n", ""):
            raise _refuse(f"a carriage return ends the comment at offset {i} without a line feed")
        j += 1
    return j + 1 if j < len(text) else j


def _backtick_end(text: str, i: int) -> tuple[int, str]:
    """(offset after, name) of the backtick-quoted name at `i` (```a``b``` is `a`+`b`)."""
    parts = []
    j = i
    while j < len(text) and text[j] == "`":
        close = text.find("`", j + 1)
        if close < 0:
            raise _refuse(f"unclosed backtick name starting at offset {i}")
        parts.append(text[j + 1 : close])
        j = close + 1
    return j, "".join(parts)


def _number_end(text: str, i: int) -> int:
    j = i
    while j < len(text) and text[j].isascii() and text[j].isdigit():
        j += 1
    if text[j : j + 1] == "." and text[j + 1 : j + 2].isdigit() and text[j + 1].isascii():
        j += 1
        while j < len(text) and text[j].isascii() and text[j].isdigit():
            j += 1
    if text[j : j + 1] in ("e", "E"):
        k = j + 1 + (text[j + 1 : j + 2] == "-")
        if k < len(text) and text[k].isascii() and text[k].isdigit():
            j = k
            while j < len(text) and text[j].isascii() and text[j].isdigit():
                j += 1
    return j


def tokenize(text: str) -> list[Token]:
    """Kùzu's tokens of `text`, whitespace and comments dropped; BadInput where Kùzu's
    lexer and this one could disagree."""
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in WHITESPACE:
            i += 1
        elif text.startswith("/*", i):
            i = _block_comment_end(text, i)
        elif text.startswith("//", i):
            i = _line_comment_end(text, i)
        elif ch in "'\"":
            end = _string_end(text, i)
            tokens.append(Token("string", text[i:end], i))
            i = end
        elif ch == "`":
            end, name = _backtick_end(text, i)
            tokens.append(Token("quoted", name, i))
            i = end
        elif ch == "$":
            nxt = text[i + 1 : i + 2]
            if nxt == "`":
                end, name = _backtick_end(text, i + 1)
            elif nxt and (_is_name_start(nxt) or (nxt.isascii() and nxt.isdigit())):
                end = i + 2
                while end < n and _is_name_part(text[end]):
                    end += 1
                name = text[i + 1 : end]
            else:
                raise _refuse(f"'$' without a parameter name at offset {i}")
            tokens.append(Token("param", name, i))
            i = end
        elif ch.isascii() and ch.isdigit():
            end = _number_end(text, i)
            tokens.append(Token("number", text[i:end], i))
            i = end
        elif _is_name_start(ch):
            end = i + 1
            while end < n and _is_name_part(text[end]):
                end += 1
            name = text[i:end]
            _check_lookalike(name, i)
            tokens.append(Token("name", name, i))
            i = end
        elif text.startswith("..", i):
            tokens.append(Token("punct", "..", i))
            i += 2
        else:
            category = unicodedata.category(ch)
            if category in ("Cc", "Cf", "Co", "Cn", "Cs") or category.startswith("Z"):
                raise _refuse(f"control or invisible character U+{ord(ch):04X} at offset {i}")
            tokens.append(Token("punct", ch, i))
            i += 1
    return tokens


def _check_lookalike(name: str, pos: int) -> None:
    """A non-ASCII name that reads as a keyword (fullwidth `ＬＯＡＤ`, `ſet`): Kùzu takes
    it as a plain name, but it means to look like a keyword: refused."""
    if name.isascii():
        return
    folded = unicodedata.normalize("NFKC", name).casefold()
    if folded.isascii() and folded.upper() in KEYWORDS:
        raise _refuse(f"the name {name!r} at offset {pos} imitates the keyword {folded.upper()}")


# ------------------------------------------------------------------------ checks
def _punct(token: Token | None, *texts: str) -> bool:
    return token is not None and token.kind == "punct" and token.text in texts


def _is_name_position(tokens: list[Token], k: int) -> bool:
    """Whether token k is plainly a name, whatever it spells: a property (`n.set`), a
    label (`:Set`, `|Set`), an alias (`AS set`), a map key (`{set: 1}`), a variable whose
    property is read (`set.name`) or a pattern's variable (`(set:Symbol)`, `[call:CALLS]`).
    No clause of Kùzu's grammar can stand in any of these places."""
    prev = tokens[k - 1] if k else None
    nxt = tokens[k + 1] if k + 1 < len(tokens) else None
    if _punct(prev, ".", ":", "|") or (prev is not None and prev.keyword == "AS"):
        return True
    if _punct(nxt, "."):
        return True
    if _punct(nxt, ":") and _punct(prev, "{", ","):
        return True
    return _punct(prev, "(", "[") and _punct(nxt, ":", ")", "]", "{", ",")


def _ends_operand(tokens: list[Token], k: int) -> bool:
    t = tokens[k]
    if t.kind in ("string", "number", "param", "quoted"):
        return True
    if t.kind == "punct":
        return t.text in (")", "]", "}", "*")
    kw = t.keyword
    return kw is None or kw in OPERAND_KEYWORDS or _is_name_position(tokens, k)


def function_name(tokens: list[Token], k: int) -> str | None:
    """The name of the function token k calls (it is a name followed by `(`), or None."""
    t = tokens[k]
    if t.kind not in ("name", "quoted"):
        return None
    nxt = tokens[k + 1] if k + 1 < len(tokens) else None
    if nxt is None or nxt.kind != "punct" or nxt.text != "(":
        return None
    if t.kind == "name" and t.keyword is not None:
        return None  # MATCH (, AND (, COUNT(*) ...: keywords, not functions
    return t.text.upper()


def _refused_function(name: str) -> bool:
    return name in FUNCTIONS_REFUSED or name.startswith(REFUSED_PREFIXES)


def _names_next(tokens: list[Token], k: int) -> bool:
    """Whether a name follows token k: `CALL f(...)` and `CALL x = 1` are clauses, `call`
    followed by punctuation is a variable (`[call:CALLS]`)."""
    return k + 1 < len(tokens) and tokens[k + 1].kind in ("name", "quoted")


def _check_call(tokens: list[Token], k: int) -> None:
    """`CALL f(...)` with f a read-only table function; not `CALL setting = value`."""
    fn = tokens[k + 1] if k + 1 < len(tokens) else None
    name = function_name(tokens, k + 1) if fn is not None else None
    if name is None:
        shown = fn.text if fn is not None else "nothing"
        raise _refuse(f"CALL {shown!s} is not allowed (CALL takes one of: {_allowed_calls()})")
    if name not in CALL_ALLOWED:
        raise _refuse(f"CALL {fn.text} is not allowed (CALL takes one of: {_allowed_calls()})")


def _allowed_calls() -> str:
    return ", ".join(sorted(n.lower() for n in CALL_ALLOWED))


def _statement(tokens: list[Token]) -> list[Token]:
    """The tokens of the one statement (prefix and trailing `;` removed)."""
    semis = [k for k, t in enumerate(tokens) if t.kind == "punct" and t.text == ";"]
    if semis:
        if semis[0] != len(tokens) - 1:
            raise _refuse(f"more than one statement (';' at offset {tokens[semis[0]].pos})")
        tokens = tokens[:-1]
    if not tokens:
        raise _refuse("empty query")
    start = 0
    if tokens[0].keyword == "EXPLAIN":
        start = 2 if len(tokens) > 1 and tokens[1].keyword == "LOGICAL" else 1
    elif tokens[0].keyword == "PROFILE":
        start = 1
    if start >= len(tokens) or tokens[start].keyword not in READING_START:
        first = tokens[min(start, len(tokens) - 1)]
        what = first.keyword or first.text
        raise _refuse(
            f"{what} is not allowed: a query starts with MATCH, UNWIND, WITH, RETURN or CALL"
        )
    return tokens


def check_read_only(query: str) -> None:
    """BadInput naming the first thing that makes `query` more than one read-only query."""
    if "\x00" in query:
        raise _refuse("a NUL character in the query")
    tokens = tokenize(query)
    _check_size(tokens)
    tokens = _statement(tokens)
    for k, t in enumerate(tokens):
        kw = t.keyword
        if kw in WRITING and not _is_name_position(tokens, k):
            raise _refuse(f"{kw} is not allowed (at offset {t.pos})")
        if kw == "CALL" and not _is_name_position(tokens, k) and _names_next(tokens, k):
            _check_call(tokens, k)
        if kw in ("UNION", "OPTIONAL") and not _is_name_position(tokens, k):
            _check_followed(tokens, k)
        name = function_name(tokens, k)
        if name is not None and _refused_function(name):
            raise _refuse(f"the function {t.text} is not allowed (at offset {t.pos})")
        if k and t.kind == "name" and _ends_operand(tokens, k - 1):
            times = tokens[k - 1].kind == "punct" and tokens[k - 1].text == "*"
            if times and kw is None:
                continue  # `x * y`: the `*` was a product, not `RETURN *`
            if not _is_name_position(tokens, k) and kw not in AFTER_OPERAND:
                raise _refuse(f"unexpected {t.text!r} at offset {t.pos}")


def _check_size(tokens: list[Token]) -> None:
    """No more tokens or nesting than Kùzu's parser takes in a moment (module doc)."""
    if len(tokens) > MAX_TOKENS:
        raise _refuse(
            f"the query has {len(tokens)} tokens, more than {MAX_TOKENS}: pass long lists of "
            "values as a parameter ($name)"
        )
    opened: list[str] = []  # the brackets and CASEs open here, innermost last
    for k, t in enumerate(tokens):
        kw = None if _is_name_position(tokens, k) else t.keyword
        if (t.kind == "punct" and t.text in "([{") or kw == "CASE":
            opened.append(kw or t.text)
            if len(opened) > MAX_DEPTH:
                raise _refuse(f"nested more than {MAX_DEPTH} deep at offset {t.pos}")
            if opened.count("CASE") > MAX_CASE_DEPTH:
                raise _refuse(f"CASE nested more than {MAX_CASE_DEPTH} deep at offset {t.pos}")
        elif ((t.kind == "punct" and t.text in ")]}") or kw == "END") and opened:
            opened.pop()


def _check_followed(tokens: list[Token], k: int) -> None:
    """UNION [ALL] and OPTIONAL are followed by a reading clause (MATCH for OPTIONAL)."""
    j = k + 1
    if tokens[k].keyword == "UNION" and j < len(tokens) and tokens[j].keyword == "ALL":
        j += 1
    nxt = tokens[j] if j < len(tokens) else None
    wanted = {"MATCH"} if tokens[k].keyword == "OPTIONAL" else READING_START
    if nxt is None or nxt.keyword not in wanted:
        shown = "nothing" if nxt is None else (nxt.keyword or nxt.text)
        raise _refuse(f"{tokens[k].keyword} followed by {shown} is not allowed")
