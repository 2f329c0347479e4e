"""The names other code imports from here, where they now live: `graph analyze` is
indexer/pipeline.py (discover -> scan -> choose the mode), its runs indexer/full_run.py
and indexer/incremental_run.py over indexer/run.py. New code imports from those."""

from codeimpact.indexer.pipeline import analyze, check_repo
from codeimpact.indexer.report import AnalyzeReport, Progress
from codeimpact.indexer.run import PARALLEL_RESOLVE_MIN, resolve_workers

__all__ = [
    "PARALLEL_RESOLVE_MIN",
    "AnalyzeReport",
    "Progress",
    "analyze",
    "check_repo",
    "resolve_workers",
]
