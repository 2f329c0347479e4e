"""C's rule for the change plan: which names an edit of a C file can rebind.

Without a rule every definition of an edited file counts, and an edit inside one function of
lib/string.c re-resolved every user of strlen, memcpy, ... (2,937 of a 12,332-file kernel
subset, minutes). Another file's lookup of a name reads only the definitions' interface:
which file defines it, its kind, local, linkage, declaration head (return and parameter
types), parameters and fields; and the file's includes, prototypes, typedefs and declared
types (`extra`). Bodies are the file's own edges (it is re-resolved itself); positions are
read by no lookup.
"""

from __future__ import annotations

from codeimpact.indexer.lang.api import FileFacts

# extra keys that hold only positions or what resolving the file itself reads
_OWN_EXTRA = frozenset({"locals"})


def _interface(f: FileFacts) -> dict[str, list[tuple]]:
    """name -> its definitions without positions, in source order."""
    out: dict[str, list[tuple]] = {}
    for s in f.symbols:
        if s.name:
            key = s._replace(start_line=0, end_line=0, start_byte=0, end_byte=0)
            out.setdefault(s.name, []).append(key)
    return out


def _shared_extra(f: FileFacts) -> dict:
    """`extra` as other files' lookups read it: include lines left out."""
    extra = {k: v for k, v in f.extra.items() if k not in _OWN_EXTRA}
    if "includes" in extra:
        extra["includes"] = [tuple(i[:2]) for i in extra["includes"]]
    return extra


def changed_names(old: FileFacts, new: FileFacts) -> tuple[set[str], set[str]] | None:
    """(value names, edge names) of a C edit: the names whose definitions' interface
    changed; None (every name) when what the file declares beyond its definitions did."""
    if _shared_extra(old) != _shared_extra(new):
        return None
    before, after = _interface(old), _interface(new)
    names = {n for n in before.keys() | after.keys() if before.get(n) != after.get(n)}
    return names, set()
