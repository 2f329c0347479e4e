"""codeimpact: index a repository into a code graph and ask what a change breaks.

The Python API is the same as the `graph` command line, returning dataclasses::

    from codeimpact import Index

    with Index.open("path/to/repo") as index:
        result = index.impact("flask.app.Flask.run", depth=3)
        print(result.risk.level, result.counts.total)
        for group in result.groups:
            print(group.depth, group.label, [e.uid for e in group.entries])

Methods: `impact`, `blast_radius`, `deps`, `context`, `trace`, `cycles`, `resolve`,
`search`, `cypher` (read-only); for planners and reviewers `detect_changes`,
`provenance`, `drift`, `gate`, `review`; observed coverage: `import_coverage(repo, data_file)`,
`coverage_status(index)`. Errors are `CodeImpactError` subclasses carrying the
CLI exit code (`AmbiguousTarget.candidates` lists the candidates).
"""

__version__ = "0.1.0"

# Lazy re-exports (PEP 562): `import codeimpact.graph...` runs this file first, and
# the CLI's start-up should not pay for Kùzu and numpy before it needs them.
_EXPORTS = {
    "codeimpact.graph.errors": (
        "AmbiguousTarget",
        "BadInput",
        "CodeImpactError",
        "CorruptIndex",
        "IndexLocked",
        "NoIndex",
        "SchemaMismatch",
        "StaleIndex",
        "TargetNotFound",
    ),
    "codeimpact.query.index": ("CypherResult", "Index", "SymbolInfo"),
    "codeimpact.query.freshness": ("Freshness",),
    "codeimpact.query.graphview": ("SymbolRef",),
    "codeimpact.query.target": ("Target",),
    "codeimpact.query.impact": ("blast_radius",),
    "codeimpact.query.impact_shapes": (
        "RISK_THRESHOLDS",
        "BlastRadiusResult",
        "Completeness",
        "Counts",
        "DepthGroup",
        "ImpactEntry",
        "ImpactResult",
        "PathCount",
        "Risk",
        "TestHit",
        "UnresolvedSite",
    ),
    "codeimpact.query.deps": ("DepsResult", "Neighbour"),
    "codeimpact.query.context": ("ContextResult", "Definition"),
    "codeimpact.query.trace": ("CyclesResult", "ImportCycle", "TraceResult", "TraceStep"),
    "codeimpact.query.changes": ("ChangeReport", "ChangedFile", "ChangedSymbol", "detect_changes"),
    "codeimpact.query.provenance": (
        "DriftReport",
        "ProvenanceRecord",
        "drift",
        "load_record",
        "provenance",
    ),
    "codeimpact.query.gate": ("GateCheck", "GateResult", "gate"),
    "codeimpact.query.review": ("Review", "ReviewedSymbol", "review", "to_markdown"),
    "codeimpact.query.observed": ("CoverageStatus", "coverage_status"),
    "codeimpact.indexer.coverage_import": ("ImportReport", "import_coverage"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = ["__version__", *sorted(_WHERE)]


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'codeimpact' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
