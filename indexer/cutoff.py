"""Early cut-off: a changed file whose facts did not change (but for where its symbols lie in
the file) stops after extraction.

Resolution reads facts only, and of a file's symbols only their byte offsets are not read by
any rule: they go unchanged into the file's Symbol rows (`resolved.row_of`). Other facts may
name things by where they start (Python's comprehension locals, `x$<offset>`): the language
sets those aside too (LanguageSpec.without_offsets); they only key a local within its file.
So when every changed file's facts equal its previous ones with the offsets set aside (an
edit of a comment's text or of the spacing within lines), no name is touched, no file needs
resolving again, and each changed file's resolved output is its previous one with its
symbols' offsets taken from the new facts: what resolving it again would give.
"""

from __future__ import annotations

from dataclasses import replace

from codeimpact.indexer.lang import LANGUAGES
from codeimpact.indexer.lang.api import FileFacts
from codeimpact.indexer.resolved import ResolvedFile


def _without_offsets(facts: FileFacts) -> FileFacts:
    out = replace(facts, symbols=[s._replace(start_byte=0, end_byte=0) for s in facts.symbols])
    spec = LANGUAGES.get(facts.language)
    hook = spec.without_offsets if spec is not None else None
    return hook(out) if hook is not None else out


# FileFacts' lists of facts: neither comparison below changes how many each holds
_LISTS = ("symbols", "imports", "calls", "heritage", "references", "bindings", "returns")


def same_but_offsets(before: FileFacts | None, now: FileFacts | None) -> bool:
    """Whether two facts of a file differ at most in their symbols' byte offsets."""
    if before is None or now is None:
        return False
    # a fact added or removed (edits A and B of Django): told before every symbol and fact
    # with a `$` is made anew for the comparison (~2M instructions of such an edit)
    for name in _LISTS:
        if len(getattr(before, name)) != len(getattr(now, name)):
            return False
    return before == now or _without_offsets(before) == _without_offsets(now)


def moved(old: ResolvedFile | None, now: FileFacts, path: str) -> ResolvedFile | None:
    """`old` (the file's previous resolved output) with its symbols' byte offsets as `now`
    says; None when a Symbol row of the file is not one of its facts' symbols (then only
    resolving the file again can tell)."""
    if old is None or any("$" in site.name for site in old.unresolved):
        return None  # a callee named by a local keyed by its offset (LanguageSpec.without_offsets)
    offsets = {f"{path}::{s.local}": (s.start_byte, s.end_byte) for s in now.symbols}
    symbols = []
    for row in old.symbols:
        if row.file == path:
            where = offsets.get(row.uid)
            if where is None:
                return None
            row = row._replace(start_byte=where[0], end_byte=where[1])
        symbols.append(row)
    return ResolvedFile(
        old.path, symbols, old.edges, old.unresolved, old.calls_total, old.calls_builtin
    )
